/*
 * UuidValueWriter: PostgreSQL uuid (kind UUID, 16 bytes in network order) as Parquet
 * FIXED_LEN_BYTE_ARRAY(16) annotated UUID, whose byte order is the same.
 *
 * Copied into a reused array for the reason BinaryValueWriter gives.
 */
package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.PrimitiveType;

final class UuidValueWriter extends ValueWriter {
  private final byte[] scratch = new byte[16];

  UuidValueWriter(Column column, PrimitiveType parquetType) {
    super(column, parquetType);
  }

  @Override
  int valueWidth() {
    return 16;
  }

  @Override
  void write(RecordConsumer consumer, ByteBuffer buffer, int row) {
    buffer.get(valueOffset + row * 16, scratch, 0, 16);
    consumer.addBinary(Binary.fromReusedByteArray(scratch, 0, 16));
  }

  @Override
  int writeNested(RecordConsumer consumer, ByteBuffer buffer, int pos) {
    buffer.get(pos, scratch, 0, 16);
    consumer.addBinary(Binary.fromReusedByteArray(scratch, 0, 16));
    return pos + 16;
  }
}
