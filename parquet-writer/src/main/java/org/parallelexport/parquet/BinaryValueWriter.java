package org.parallelexport.parquet;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType;

/**
 * BinaryValueWriter: variable-length values (kinds STRING, JSON, BYTES, ENUM) as Parquet BINARY;
 * the factory picks the annotation (STRING, JSON, none, ENUM).
 *
 * <p>The value area holds an (offset, length) pair per row pointing into the buffer's var area. The
 * C side overwrites the buffer with the next batch while parquet may still hold the value, so a
 * value reaches parquet as a "reused" Binary over a heap copy: the slice's copy in VarBytes (which
 * says why that is safe and why not the direct buffer itself), or, for a slice too wide to copy
 * whole, this writer's scratch array. A value larger than 64 kB gets an array of its own instead,
 * which parquet keeps without copying.
 */
final class BinaryValueWriter extends VarWidthValueWriter {
  // Above this many bytes a value is not copied through the scratch array (see writeBytes).
  private static final int LARGE_VALUE = 64 * 1024;
  private final VarBytes varBytes;
  private byte[] scratch = new byte[256];
  // The slice's (offset, length) pairs, read in one bulk copy by writeRows.
  private final int[] slots = new int[PartWriter.SLICE_ROWS * 2];
  private IntBuffer view;

  BinaryValueWriter(Column column, PrimitiveType parquetType, Levels levels, VarBytes varBytes) {
    super(column, parquetType, levels);
    this.varBytes = requireNonNull(varBytes, "varBytes is null");
    varBytes.addReader();
  }

  @Override
  void writeBytes(ByteBuffer buffer, int offset, int length, int rep) {
    if (length <= LARGE_VALUE && varBytes.holds(offset, length)) {
      out.write(
          Binary.fromReusedByteArray(varBytes.bytes(), varBytes.index(offset), length),
          rep,
          definition);
      return;
    }
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
  void useBuffer(ByteBuffer buffer) {
    view = valueArea(buffer).asIntBuffer();
  }

  @Override
  void writeRows(ByteBuffer buffer, int from, int to) {
    int n = to - from;
    readNulls(buffer, from, to);
    view.get(from * 2, slots, 0, n * 2);
    for (int i = 0; i < n; i++) {
      if (nulls[i] != 0) {
        out.writeNull(0, 0);
      } else {
        writeBytes(buffer, slots[2 * i], slots[2 * i + 1], 0);
      }
    }
  }
}
