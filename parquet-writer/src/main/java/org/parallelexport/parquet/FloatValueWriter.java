package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import org.apache.parquet.schema.PrimitiveType;

/**
 * FloatValueWriter: PostgreSQL real (kind FLOAT32) as Parquet FLOAT.
 *
 * <p>Created by ValueWriters; see FixedWidthValueWriter.
 */
final class FloatValueWriter extends FixedWidthValueWriter {
  private final int[] values = new int[PartWriter.SLICE_ROWS];
  private IntBuffer view;

  FloatValueWriter(Column column, PrimitiveType parquetType, Levels levels) {
    super(column, parquetType, levels);
  }

  @Override
  void writeAt(ByteBuffer buffer, int pos, int rep) {
    out.write(buffer.getFloat(pos), rep, definition);
  }

  @Override
  void useBuffer(ByteBuffer buffer) {
    view = valueArea(buffer).asIntBuffer();
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
        out.write(Float.intBitsToFloat(values[i]), 0, definition);
      }
    }
  }
}
