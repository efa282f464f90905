/*
 * Int16ValueWriter: PostgreSQL smallint (kind INT16, two bytes) as Parquet INT32 annotated INTEGER(16, signed).
 *
 * Created by ValueWriters, called by BatchWriteSupport for each non-NULL value; see ValueWriter.
 */
package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.PrimitiveType;

final class Int16ValueWriter extends ValueWriter {
  Int16ValueWriter(Column column, PrimitiveType parquetType) {
    super(column, parquetType);
  }

  @Override
  int valueWidth() {
    return 2;
  }

  @Override
  void write(RecordConsumer consumer, ByteBuffer buffer, int row) {
    consumer.addInteger(buffer.getShort(valueOffset + row * 2));
  }

  @Override
  int writeNested(RecordConsumer consumer, ByteBuffer buffer, int pos) {
    consumer.addInteger(buffer.getShort(pos));
    return pos + 2;
  }
}
