/*
 * UuidValueWriter: PostgreSQL uuid (kind UUID, 16 bytes in network order) as Parquet
 * FIXED_LEN_BYTE_ARRAY(16) annotated UUID, whose byte order is the same.
 *
 * Copied into a reused array for the reason BinaryValueWriter gives.
 */
package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType;

final class UuidValueWriter extends FixedWidthValueWriter {
  private final byte[] scratch = new byte[16];

  UuidValueWriter(Column column, PrimitiveType parquetType, Levels levels) {
    super(column, parquetType, levels);
  }

  @Override
  void writeAt(ByteBuffer buffer, int pos, int rep) {
    buffer.get(pos, scratch, 0, 16);
    out.write(Binary.fromReusedByteArray(scratch, 0, 16), rep, definition);
  }

  @Override
  void writeRows(ByteBuffer buffer, int from, int to) {
    for (int row = from; row < to; row++) {
      if (buffer.get(nullOffset + row) != 0) {
        out.writeNull(0, 0);
      } else {
        writeAt(buffer, valueOffset + row * ColumnKind.UUID_WIDTH, 0);
      }
    }
  }
}
