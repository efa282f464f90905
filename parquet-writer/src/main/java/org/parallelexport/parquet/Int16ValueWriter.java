/*
 * Int16ValueWriter: PostgreSQL smallint (kind INT16, two bytes) as Parquet INT32 annotated INTEGER(16, signed).
 *
 * Created by ValueWriters; see FixedWidthValueWriter.
 */
package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.schema.PrimitiveType;

final class Int16ValueWriter extends FixedWidthValueWriter {
  Int16ValueWriter(Column column, PrimitiveType parquetType, Levels levels) {
    super(column, parquetType, levels);
  }

  @Override
  void writeAt(ByteBuffer buffer, int pos, int rep) {
    out.write((int) buffer.getShort(pos), rep, definition);
  }

  @Override
  void writeRows(ByteBuffer buffer, int from, int to) {
    for (int row = from; row < to; row++) {
      if (buffer.get(nullOffset + row) != 0) {
        out.writeNull(0, 0);
      } else {
        out.write((int) buffer.getShort(valueOffset + row * Short.BYTES), 0, definition);
      }
    }
  }
}
