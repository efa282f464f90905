package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import java.nio.ShortBuffer;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Int16ValueWriter: PostgreSQL smallint (kind INT16, two bytes) as Parquet INT32 annotated
 * INTEGER(16, signed).
 *
 * <p>Created by ValueWriters; see FixedWidthValueWriter.
 */
final class Int16ValueWriter extends FixedWidthValueWriter {
  private final short[] values = new short[PartWriter.SLICE_ROWS];
  private ShortBuffer view;

  Int16ValueWriter(Column column, PrimitiveType parquetType, Levels levels) {
    super(column, parquetType, levels);
  }

  @Override
  void writeAt(ByteBuffer buffer, int pos, int rep) {
    out.write((int) buffer.getShort(pos), rep, definition);
  }

  @Override
  void useBuffer(ByteBuffer buffer) {
    view = valueArea(buffer).asShortBuffer();
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
        out.write((int) values[i], 0, definition);
      }
    }
  }
}
