/*
 * UnscaledDecimalValueWriter: a PostgreSQL numeric(p,s) with p <= 18 (kind DECIMAL64) as Parquet
 * DECIMAL(p,s) on INT32 (p <= 9) or INT64.
 *
 * The C side decodes the numeric's base-10000 digits into the unscaled value (value * 10^s) and
 * checks that it fits, so no text crosses and nothing is parsed here; wider decimals and
 * unconstrained numerics keep the text path of DecimalValueWriter.
 */
package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

final class UnscaledDecimalValueWriter extends ValueWriter {
  private final boolean int32;

  UnscaledDecimalValueWriter(Column column, PrimitiveType parquetType) {
    super(column, parquetType);
    this.int32 = parquetType.getPrimitiveTypeName() == PrimitiveTypeName.INT32;
  }

  @Override
  int valueWidth() {
    return 8;
  }

  @Override
  void write(RecordConsumer consumer, ByteBuffer buffer, int row) {
    add(consumer, buffer.getLong(valueOffset + row * 8));
  }

  @Override
  int writeNested(RecordConsumer consumer, ByteBuffer buffer, int pos) {
    add(consumer, buffer.getLong(pos));
    return pos + 8;
  }

  private void add(RecordConsumer consumer, long unscaled) {
    if (int32) {
      consumer.addInteger((int) unscaled);
    } else {
      consumer.addLong(unscaled);
    }
  }
}
