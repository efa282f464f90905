package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.schema.Type;

/**
 * FixedWidthValueWriter: the common half of every leaf kind of fixed width (booleans, integers,
 * floats, unscaled decimals, uuid): its value is the same bytes in a batch's value area and in a
 * nested payload, so a subclass only says how to write the value at a position.
 */
abstract class FixedWidthValueWriter extends ValueWriter {
  private final int width;

  FixedWidthValueWriter(Column column, Type parquetType, Levels levels) {
    super(column, parquetType, levels);
    this.width = ColumnKind.width(column.kind);
  }

  @Override
  final int valueWidth() {
    return width;
  }

  @Override
  final void write(ByteBuffer buffer, int row, int rep) {
    writeAt(buffer, valueOffset + row * width, rep);
  }

  @Override
  final int writeNested(ByteBuffer buffer, int pos, int rep) {
    writeAt(buffer, pos, rep);
    return pos + width;
  }

  /** Writes the present value whose bytes start at {@code pos}. */
  abstract void writeAt(ByteBuffer buffer, int pos, int rep);
}
