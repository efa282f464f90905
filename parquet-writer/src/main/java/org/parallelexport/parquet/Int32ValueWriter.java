/*
 * Int32ValueWriter: four-byte integers (kinds INT32 and DATE, days since 1970-01-01) as Parquet INT32; the factory picks the annotation.
 *
 * Created by ValueWriters; see FixedWidthValueWriter.
 */
package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.schema.PrimitiveType;

final class Int32ValueWriter extends FixedWidthValueWriter {
  Int32ValueWriter(Column column, PrimitiveType parquetType, Levels levels) {
    super(column, parquetType, levels);
  }

  @Override
  void writeAt(ByteBuffer buffer, int pos, int rep) {
    out.write(buffer.getInt(pos), rep, definition);
  }

  @Override
  void writeRows(ByteBuffer buffer, int from, int to) {
    for (int row = from; row < to; row++) {
      if (buffer.get(nullOffset + row) != 0) {
        out.writeNull(0, 0);
      } else {
        out.write(buffer.getInt(valueOffset + row * Integer.BYTES), 0, definition);
      }
    }
  }
}
