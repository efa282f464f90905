/*
 * DoubleValueWriter: PostgreSQL double precision (kind FLOAT64) as Parquet DOUBLE.
 *
 * Created by ValueWriters; see FixedWidthValueWriter.
 */
package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.schema.PrimitiveType;

final class DoubleValueWriter extends FixedWidthValueWriter {
  DoubleValueWriter(Column column, PrimitiveType parquetType, Levels levels) {
    super(column, parquetType, levels);
  }

  @Override
  void writeAt(ByteBuffer buffer, int pos, int rep) {
    out.write(buffer.getDouble(pos), rep, definition);
  }

  @Override
  void writeRows(ByteBuffer buffer, int from, int to) {
    for (int row = from; row < to; row++) {
      if (buffer.get(nullOffset + row) != 0) {
        out.writeNull(0, 0);
      } else {
        out.write(buffer.getDouble(valueOffset + row * Double.BYTES), 0, definition);
      }
    }
  }
}
