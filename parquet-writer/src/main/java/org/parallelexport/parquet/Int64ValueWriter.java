/*
 * Int64ValueWriter: eight-byte integers (kinds INT64, TIME, TIMESTAMP, TIMESTAMPTZ, the last three in microseconds) as Parquet INT64; the factory picks the annotation.
 *
 * Created by ValueWriters; see FixedWidthValueWriter.
 */
package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.schema.PrimitiveType;

final class Int64ValueWriter extends FixedWidthValueWriter {
  Int64ValueWriter(Column column, PrimitiveType parquetType, Levels levels) {
    super(column, parquetType, levels);
  }

  @Override
  void writeAt(ByteBuffer buffer, int pos, int rep) {
    out.write(buffer.getLong(pos), rep, definition);
  }

  @Override
  void writeRows(ByteBuffer buffer, int from, int to) {
    for (int row = from; row < to; row++) {
      if (buffer.get(nullOffset + row) != 0) {
        out.writeNull(0, 0);
      } else {
        out.write(buffer.getLong(valueOffset + row * Long.BYTES), 0, definition);
      }
    }
  }
}
