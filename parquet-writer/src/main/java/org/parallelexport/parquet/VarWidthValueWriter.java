package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.schema.Type;

/**
 * VarWidthValueWriter: the common half of every variable-width kind (text, bytes, decimal text,
 * lists, structs).
 *
 * <p>A top-level value is an (int32 offset, int32 length) pair in the column's value area pointing
 * into the var area; a nested value (a list element or struct field) is an int32 length followed by
 * its bytes. Either way a subclass sees only where its bytes start and how many there are.
 */
abstract class VarWidthValueWriter extends ValueWriter {
  VarWidthValueWriter(Column column, Type parquetType, Levels levels) {
    super(column, parquetType, levels);
  }

  @Override
  final int valueWidth() {
    return ColumnKind.VAR_SLOT_WIDTH;
  }

  @Override
  final void write(ByteBuffer buffer, int row, int rep) {
    int slot = valueOffset + row * ColumnKind.VAR_SLOT_WIDTH;
    writeBytes(buffer, buffer.getInt(slot), buffer.getInt(slot + 4), rep);
  }

  @Override
  final int writeNested(ByteBuffer buffer, int pos, int rep) {
    int length = buffer.getInt(pos);
    writeBytes(buffer, pos + 4, length, rep);
    return pos + 4 + length;
  }

  /** Writes the value whose {@code length} bytes start at {@code offset} in the buffer. */
  abstract void writeBytes(ByteBuffer buffer, int offset, int length, int rep);

  /** A nested payload must end exactly where its length says: anything else is a format bug. */
  final void checkEnd(String what, int end, int offset, int length) {
    if (end != offset + length) {
      throw new IllegalArgumentException(
          String.format(
              "column \"%s\": %s value ends at %d, its length says %d",
              name, what, end, offset + length));
    }
  }
}
