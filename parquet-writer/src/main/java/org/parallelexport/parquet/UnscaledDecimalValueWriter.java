package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import java.nio.LongBuffer;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * UnscaledDecimalValueWriter: a PostgreSQL numeric(p,s) with p &lt;= 18 (kind DECIMAL64) as Parquet
 * DECIMAL(p,s) on INT32 (p &lt;= 9) or INT64.
 *
 * <p>The C side decodes the numeric's base-10000 digits into the unscaled value (value * 10^s) and
 * checks that it fits, so no text crosses and nothing is parsed here; wider decimals and
 * unconstrained numerics keep the text path of DecimalValueWriter.
 */
final class UnscaledDecimalValueWriter extends FixedWidthValueWriter {
  private final boolean int32;
  private final long[] values = new long[PartWriter.SLICE_ROWS];
  private LongBuffer view;

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
  void useBuffer(ByteBuffer buffer) {
    view = valueArea(buffer).asLongBuffer();
  }

  @Override
  void writeRows(ByteBuffer buffer, int from, int to) {
    int n = to - from;
    readNulls(buffer, from, to);
    view.get(from, values, 0, n);
    for (int i = 0; i < n; i++) {
      if (nulls[i] != 0) {
        out.writeNull(0, 0);
      } else if (int32) {
        out.write((int) values[i], 0, definition);
      } else {
        out.write(values[i], 0, definition);
      }
    }
  }
}
