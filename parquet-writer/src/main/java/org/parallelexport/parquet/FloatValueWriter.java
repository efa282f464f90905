/*
 * FloatValueWriter: PostgreSQL real (kind FLOAT32) as Parquet FLOAT.
 *
 * Created by ValueWriters, called by BatchWriteSupport for each non-NULL value; see ValueWriter.
 */
package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.PrimitiveType;

final class FloatValueWriter extends ValueWriter {
  FloatValueWriter(Column column, PrimitiveType parquetType) {
    super(column, parquetType);
  }

  @Override
  int valueWidth() {
    return 4;
  }

  @Override
  void write(RecordConsumer consumer, ByteBuffer buffer, int row) {
    consumer.addFloat(buffer.getFloat(valueOffset + row * 4));
  }

  @Override
  int writeNested(RecordConsumer consumer, ByteBuffer buffer, int pos) {
    consumer.addFloat(buffer.getFloat(pos));
    return pos + 4;
  }
}
