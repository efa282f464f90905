/*
 * BinaryValueWriter: variable-length values (kinds STRING, JSON, BYTES, ENUM) as Parquet BINARY;
 * the factory picks the annotation (STRING, JSON, none, ENUM).
 *
 * The value area holds an (offset, length) pair per row pointing into the buffer's var area. The
 * bytes are copied into a reused array because the C side overwrites the buffer with the next
 * batch while parquet may still hold the value: the dictionary and the statistics copy a "reused"
 * Binary when they keep it, and the plain encoder writes an array-backed Binary without another
 * copy. A Binary over the direct buffer itself would be copied by the plain encoder anyway. A
 * value larger than 64 kB gets an array of its own instead, which parquet keeps without copying.
 */
package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType;

final class BinaryValueWriter extends VarWidthValueWriter {
  // Above this many bytes a value is not copied through the scratch array (see writeBytes).
  private static final int LARGE_VALUE = 64 * 1024;
  private byte[] scratch = new byte[256];

  BinaryValueWriter(Column column, PrimitiveType parquetType, Levels levels) {
    super(column, parquetType, levels);
  }

  @Override
  void writeBytes(ByteBuffer buffer, int offset, int length, int rep) {
    if (length > LARGE_VALUE) {
      // A large value gets an array of its own, passed as constant: the statistics (min and max)
      // and the dictionary then keep this array instead of copying a reused one, three copies
      // fewer of the value on the heap, and the scratch array never grows to the largest value.
      byte[] value = new byte[length];
      buffer.get(offset, value, 0, length);
      out.write(Binary.fromConstantByteArray(value), rep, definition);
      return;
    }
    if (length > scratch.length) {
      scratch = new byte[Math.max(length, scratch.length * 2)];
    }
    buffer.get(offset, scratch, 0, length);
    out.write(Binary.fromReusedByteArray(scratch, 0, length), rep, definition);
  }

  @Override
  void writeRows(ByteBuffer buffer, int from, int to) {
    for (int row = from; row < to; row++) {
      if (buffer.get(nullOffset + row) != 0) {
        out.writeNull(0, 0);
      } else {
        int slot = valueOffset + row * ColumnKind.VAR_SLOT_WIDTH;
        writeBytes(buffer, buffer.getInt(slot), buffer.getInt(slot + 4), 0);
      }
    }
  }
}
