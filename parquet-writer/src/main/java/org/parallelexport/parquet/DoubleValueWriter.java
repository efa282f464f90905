package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import java.nio.LongBuffer;
import org.apache.parquet.schema.PrimitiveType;

/**
 * DoubleValueWriter: PostgreSQL double precision (kind FLOAT64) as Parquet DOUBLE.
 *
 * <p>Created by ValueWriters; see FixedWidthValueWriter.
 */
final class DoubleValueWriter extends FixedWidthValueWriter {
  private final long[] values = new long[PartWriter.SLICE_ROWS];
  private LongBuffer view;

  DoubleValueWriter(Column column, PrimitiveType parquetType, Levels levels) {
    super(column, parquetType, levels);
  }

  @Override
  void writeAt(ByteBuffer buffer, int pos, int rep) {
    out.write(buffer.getDouble(pos), rep, definition);
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
      } else {
        out.write(Double.longBitsToDouble(values[i]), 0, definition);
      }
    }
  }
}
