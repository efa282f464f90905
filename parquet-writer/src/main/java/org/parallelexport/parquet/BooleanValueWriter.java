package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.schema.PrimitiveType;

/**
 * BooleanValueWriter: PostgreSQL boolean (kind BOOL, one byte 0 or 1) as Parquet BOOLEAN.
 *
 * <p>Created by ValueWriters; see FixedWidthValueWriter.
 */
final class BooleanValueWriter extends FixedWidthValueWriter {
  private final byte[] values = new byte[PartWriter.SLICE_ROWS];

  BooleanValueWriter(Column column, PrimitiveType parquetType, Levels levels) {
    super(column, parquetType, levels);
  }

  @Override
  void writeAt(ByteBuffer buffer, int pos, int rep) {
    out.write(buffer.get(pos) != 0, rep, definition);
  }

  @Override
  void writeRows(ByteBuffer buffer, int from, int to) {
    int n = to - from;
    readNulls(buffer, from, to);
    buffer.get(valueOffset + from, values, 0, n);
    for (int i = 0; i < n; i++) {
      if (nulls[i] != 0) {
        out.writeNull(0, 0);
      } else {
        out.write(values[i] != 0, 0, definition);
      }
    }
  }
}
