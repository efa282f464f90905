/*
 * Int64ValueWriter: eight-byte integers (kinds INT64, TIME, TIMESTAMP, TIMESTAMPTZ, the last three in microseconds) as Parquet INT64; the factory picks the annotation.
 *
 * Created by ValueWriters, called by BatchWriteSupport for each non-NULL value; see ValueWriter.
 */
package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.PrimitiveType;

final class Int64ValueWriter extends ValueWriter {
  Int64ValueWriter(Column column, PrimitiveType parquetType) {
    super(column, parquetType);
  }

  @Override
  int valueWidth() {
    return 8;
  }

  @Override
  void write(RecordConsumer consumer, ByteBuffer buffer, int row) {
    consumer.addLong(buffer.getLong(valueOffset + row * 8));
  }

  @Override
  int writeNested(RecordConsumer consumer, ByteBuffer buffer, int pos) {
    consumer.addLong(buffer.getLong(pos));
    return pos + 8;
  }
}
