/*
 * ValueWriter: writes one column's non-NULL value of one row from the batch buffer.
 *
 * BatchWriteSupport walks the columns of a row, checks the column's NULL byte and, for a present
 * value, brackets this writer's call with startField/endField. Each subclass reads one kind's
 * binary form (see ColumnKind) with absolute gets, so the hot path allocates only what parquet's
 * Binary needs. The same writer also serves as a list element or struct field (writeNested),
 * where its value sits inline in a nested value's bytes; variable-width kinds share
 * VarWidthValueWriter. The buffer is passed on every call because the C side may replace it
 * between batches (BatchSink.setBuffer). Subclasses are created only by ValueWriters.
 */
package org.parallelexport.parquet;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.Type;

abstract class ValueWriter {
  final Column column;
  final Type parquetType;
  // Copied out of column so the per-row loop reads fields of one object. Errors' name for the
  // value: the column's, with the fields down to this one (Column.label).
  final String name;
  final int index;
  final int nullOffset;
  final int valueOffset;

  ValueWriter(Column column, Type parquetType) {
    this.column = requireNonNull(column, "column is null");
    this.parquetType = requireNonNull(parquetType, "parquetType is null");
    this.name = column.label;
    this.index = column.index;
    this.nullOffset = column.nullOffset;
    this.valueOffset = column.valueOffset;
  }

  /** Bytes per row in the value area: the fixed width, or 8 for an (offset, length) pair. */
  abstract int valueWidth();

  /** Adds the value of row {@code row}, which the caller checked is not NULL. */
  abstract void write(RecordConsumer consumer, ByteBuffer buffer, int row);

  /**
   * Adds the value stored at {@code pos} in its nested form (inside a list or struct, see
   * ListValueWriter) and returns the position after it.
   */
  abstract int writeNested(RecordConsumer consumer, ByteBuffer buffer, int pos);
}
