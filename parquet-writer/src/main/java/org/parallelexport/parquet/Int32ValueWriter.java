package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Int32ValueWriter: four-byte integers (kinds INT32 and DATE, days since 1970-01-01) as Parquet
 * INT32; the factory picks the annotation.
 *
 * <p>Created by ValueWriters; see FixedWidthValueWriter.
 */
final class Int32ValueWriter extends FixedWidthValueWriter {
  private final int[] values = new int[PartWriter.SLICE_ROWS];
  private IntBuffer view;

  Int32ValueWriter(Column column, PrimitiveType parquetType, Levels levels) {
    super(column, parquetType, levels);
  }

  @Override
  void writeAt(ByteBuffer buffer, int pos, int rep) {
    out.write(buffer.getInt(pos), rep, definition);
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
        out.write(values[i], 0, definition);
      }
    }
  }
}
