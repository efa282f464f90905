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
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

final class UnscaledDecimalValueWriter extends FixedWidthValueWriter {
  private final boolean int32;

  UnscaledDecimalValueWriter(Column column, PrimitiveType parquetType, Levels levels) {
    super(column, parquetType, levels);
    this.int32 = parquetType.getPrimitiveTypeName() == PrimitiveTypeName.INT32;
  }

  @Override
  void writeAt(ByteBuffer buffer, int pos, int rep) {
    long unscaled = buffer.getLong(pos);
    if (int32) {
      out.write((int) unscaled, rep, definition);
    } else {
      out.write(unscaled, rep, definition);
    }
  }

  @Override
  void writeRows(ByteBuffer buffer, int from, int to) {
    for (int row = from; row < to; row++) {
      if (buffer.get(nullOffset + row) != 0) {
        out.writeNull(0, 0);
      } else {
        writeAt(buffer, valueOffset + row * Long.BYTES, 0);
      }
    }
  }
}
