/*
 * Int32ValueWriter: four-byte integers (kinds INT32 and DATE, days since 1970-01-01) as Parquet INT32; the factory picks the annotation.
 *
 * Created by ValueWriters, called by BatchWriteSupport for each non-NULL value; see ValueWriter.
 */
package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.PrimitiveType;

final class Int32ValueWriter extends ValueWriter {
  Int32ValueWriter(Column column, PrimitiveType parquetType) {
    super(column, parquetType);
  }

  @Override
  int valueWidth() {
    return 4;
  }

  @Override
  void write(RecordConsumer consumer, ByteBuffer buffer, int row) {
    consumer.addInteger(buffer.getInt(valueOffset + row * 4));
  }

  @Override
  int writeNested(RecordConsumer consumer, ByteBuffer buffer, int pos) {
    consumer.addInteger(buffer.getInt(pos));
    return pos + 4;
  }
}
