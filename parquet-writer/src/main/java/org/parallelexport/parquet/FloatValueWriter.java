/*
 * FloatValueWriter: PostgreSQL real (kind FLOAT32) as Parquet FLOAT.
 *
 * Created by ValueWriters; see FixedWidthValueWriter.
 */
package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.schema.PrimitiveType;

final class FloatValueWriter extends FixedWidthValueWriter {
  FloatValueWriter(Column column, PrimitiveType parquetType, Levels levels) {
    super(column, parquetType, levels);
  }

  @Override
  void writeAt(ByteBuffer buffer, int pos, int rep) {
    out.write(buffer.getFloat(pos), rep, definition);
  }

  @Override
  void writeRows(ByteBuffer buffer, int from, int to) {
    for (int row = from; row < to; row++) {
      if (buffer.get(nullOffset + row) != 0) {
        out.writeNull(0, 0);
      } else {
        out.write(buffer.getFloat(valueOffset + row * Float.BYTES), 0, definition);
      }
    }
  }
}
