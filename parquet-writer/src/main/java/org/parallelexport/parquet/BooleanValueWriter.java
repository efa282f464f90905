/*
 * BooleanValueWriter: PostgreSQL boolean (kind BOOL, one byte 0 or 1) as Parquet BOOLEAN.
 *
 * Created by ValueWriters; see FixedWidthValueWriter.
 */
package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.schema.PrimitiveType;

final class BooleanValueWriter extends FixedWidthValueWriter {
  BooleanValueWriter(Column column, PrimitiveType parquetType, Levels levels) {
    super(column, parquetType, levels);
  }

  @Override
  void writeAt(ByteBuffer buffer, int pos, int rep) {
    out.write(buffer.get(pos) != 0, rep, definition);
  }

  @Override
  void writeRows(ByteBuffer buffer, int from, int to) {
    for (int row = from; row < to; row++) {
      if (buffer.get(nullOffset + row) != 0) {
        out.writeNull(0, 0);
      } else {
        out.write(buffer.get(valueOffset + row) != 0, 0, definition);
      }
    }
  }
}
