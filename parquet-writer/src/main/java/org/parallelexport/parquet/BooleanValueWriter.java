/*
 * BooleanValueWriter: PostgreSQL boolean (kind BOOL, one byte 0 or 1) as Parquet BOOLEAN.
 *
 * Created by ValueWriters, called by BatchWriteSupport for each non-NULL value; see ValueWriter.
 */
package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.PrimitiveType;

final class BooleanValueWriter extends ValueWriter {
  BooleanValueWriter(Column column, PrimitiveType parquetType) {
    super(column, parquetType);
  }

  @Override
  int valueWidth() {
    return 1;
  }

  @Override
  void write(RecordConsumer consumer, ByteBuffer buffer, int row) {
    consumer.addBoolean(buffer.get(valueOffset + row) != 0);
  }

  @Override
  int writeNested(RecordConsumer consumer, ByteBuffer buffer, int pos) {
    consumer.addBoolean(buffer.get(pos) != 0);
    return pos + 1;
  }
}
