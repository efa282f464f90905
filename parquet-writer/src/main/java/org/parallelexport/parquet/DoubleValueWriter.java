/*
 * DoubleValueWriter: PostgreSQL double precision (kind FLOAT64) as Parquet DOUBLE.
 *
 * Created by ValueWriters, called by BatchWriteSupport for each non-NULL value; see ValueWriter.
 */
package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.PrimitiveType;

final class DoubleValueWriter extends ValueWriter {
  DoubleValueWriter(Column column, PrimitiveType parquetType) {
    super(column, parquetType);
  }

  @Override
  int valueWidth() {
    return 8;
  }

  @Override
  void write(RecordConsumer consumer, ByteBuffer buffer, int row) {
    consumer.addDouble(buffer.getDouble(valueOffset + row * 8));
  }

  @Override
  int writeNested(RecordConsumer consumer, ByteBuffer buffer, int pos) {
    consumer.addDouble(buffer.getDouble(pos));
    return pos + 8;
  }
}
