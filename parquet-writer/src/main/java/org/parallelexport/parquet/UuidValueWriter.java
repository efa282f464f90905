package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType;

/**
 * UuidValueWriter: PostgreSQL uuid (kind UUID, 16 bytes in network order) as Parquet
 * FIXED_LEN_BYTE_ARRAY(16) annotated UUID, whose byte order is the same.
 *
 * <p>Copied into a reused array for the reason BinaryValueWriter gives.
 */
final class UuidValueWriter extends FixedWidthValueWriter {
  private final byte[] scratch = new byte[16];
  // The slice's values, read in one bulk copy by writeRows.
  private final byte[] values = new byte[PartWriter.SLICE_ROWS * ColumnKind.UUID_WIDTH];

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
    int n = to - from;
    readNulls(buffer, from, to);
    buffer.get(valueOffset + from * ColumnKind.UUID_WIDTH, values, 0, n * ColumnKind.UUID_WIDTH);
    for (int i = 0; i < n; i++) {
      if (nulls[i] != 0) {
        out.writeNull(0, 0);
      } else {
        out.write(
            Binary.fromReusedByteArray(values, i * ColumnKind.UUID_WIDTH, ColumnKind.UUID_WIDTH),
            0,
            definition);
      }
    }
  }
}
