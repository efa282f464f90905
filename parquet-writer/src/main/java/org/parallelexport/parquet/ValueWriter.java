package org.parallelexport.parquet;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * ValueWriter: writes one column of a batch, or one node of a nested value, straight into
 * parquet-java's column writers, with the definition and repetition levels computed here.
 *
 * <p>PartWriter hands each top-level writer a slice of rows of the batch buffer (writeRows); a
 * writer reads its column's NULL bytes and values and calls the ColumnWriter of every leaf below
 * it, so a batch is written a column at a time with no RecordConsumer in between. The levels are
 * those parquet-java's own record path (MessageColumnIO) produces for the same values:
 *
 * <pre>
 * definition  a present value at this node gets this node's maximum definition level (every
 *             node is OPTIONAL, a LIST's repeated group adds one, an INTERVAL's fields are
 *             REQUIRED); a value missing below a present parent gets the parent's level
 * repetition  a new row starts at 0; the second and later entries of a list get the level of
 *             that list's repeated group; everything else inherits its parent's
 * </pre>
 *
 * <p>bind() checks both against the column descriptors parquet-java derives from the schema. The
 * same writer serves as a list element or struct field (writeNested), where its value sits inline
 * in a nested payload; variable-width kinds share VarWidthValueWriter. Subclasses are created only
 * by ValueWriters.
 */
abstract class ValueWriter {
  final Column column;
  final Type parquetType;
  // Errors' name for the value: the column's, with the fields down to this one (Column.label).
  final String name;
  final int index;
  final int nullOffset;
  final int valueOffset;
  // This node's path in the schema, and the levels of a present value at this node.
  final String[] path;
  final int definition;
  final int repetition;
  // A leaf kind's column writer in the current row group; LIST, STRUCT and INTERVAL have none.
  ColumnWriter out;
  // The NULL bytes of the slice being written, for the writeRows loops that read them in bulk.
  final byte[] nulls = new byte[PartWriter.SLICE_ROWS];

  ValueWriter(Column column, Type parquetType, Levels levels) {
    this.column = requireNonNull(column, "column is null");
    this.parquetType = requireNonNull(parquetType, "parquetType is null");
    this.name = column.label;
    this.index = column.index;
    this.nullOffset = column.nullOffset;
    this.valueOffset = column.valueOffset;
    this.path = requireNonNull(levels, "levels is null").path;
    this.definition = levels.definition;
    this.repetition = levels.repetition;
  }

  /** Bytes per row in the value area: the fixed width, or 8 for an (offset, length) pair. */
  abstract int valueWidth();

  /**
   * Points every leaf below this node at its column writer of a new row group. A leaf kind is one
   * column, this node's; the group kinds override this and writeNull.
   */
  void bind(ColumnWriteStore store, MessageType schema) {
    out = LeafColumns.writer(store, schema, path, definition, repetition);
  }

  /**
   * The batch buffer C fills, at the start and whenever C replaces it: a top-level writer that
   * reads its values through a typed view of the buffer (valueArea) makes the view here.
   */
  void useBuffer(ByteBuffer buffer) {}

  /**
   * Writes rows {@code from} to {@code to - 1} of this top-level column, each starting a row; at
   * most PartWriter.SLICE_ROWS rows. The common leaf kinds override this with the same loop over
   * their own value reads: in this one loop every kind's value goes through the same two call sites
   * (write, then writeAt or writeBytes), which the JIT sees with many receivers and compiles as two
   * virtual calls per value; in the subclass both are this final class's own methods, inlined, and
   * the slice's NULL bytes and values are read with one bulk copy each (readNulls, a typed view's
   * bulk get) instead of a bounds- and scope-checked buffer read per value.
   */
  void writeRows(ByteBuffer buffer, int from, int to) {
    for (int row = from; row < to; row++) {
      if (buffer.get(nullOffset + row) != 0) {
        writeNull(0, 0);
      } else {
        write(buffer, row, 0);
      }
    }
  }

  /** Reads the NULL bytes of rows {@code from} to {@code to - 1} into nulls, from index 0. */
  final void readNulls(ByteBuffer buffer, int from, int to) {
    buffer.get(nullOffset + from, nulls, 0, to - from);
  }

  /**
   * This column's value area of the batch buffer, from its first row on, in native order: the base
   * of a typed view, whose index is the row (a value area need not be aligned to its width).
   */
  final ByteBuffer valueArea(ByteBuffer buffer) {
    return buffer.slice(valueOffset, buffer.limit() - valueOffset).order(ByteOrder.nativeOrder());
  }

  /** Writes the present value of row {@code row} of this top-level column. */
  abstract void write(ByteBuffer buffer, int row, int rep);

  /**
   * Writes the value stored at {@code pos} in its nested form (inside a list or struct, see
   * ListValueWriter) and returns the position after it.
   */
  abstract int writeNested(ByteBuffer buffer, int pos, int rep);

  /** Writes a value missing at definition level {@code def} to every leaf below this node. */
  void writeNull(int rep, int def) {
    out.writeNull(rep, def);
  }

  /** Where a node sits: its schema path and the levels of a present value there. */
  static final class Levels {
    final String[] path;
    final int definition;
    final int repetition;

    private Levels(String[] path, int definition, int repetition) {
      this.path = path;
      this.definition = definition;
      this.repetition = repetition;
    }

    /** A top-level column: optional, in no list. */
    static Levels column(String name) {
      return new Levels(new String[] {name}, 1, 0);
    }

    /** An optional child {@code name} of this group node. */
    Levels field(String name) {
      return new Levels(append(name), definition + 1, repetition);
    }

    /** A required child {@code name} of this group node: present whenever the group is. */
    Levels requiredField(String name) {
      return new Levels(append(name), definition, repetition);
    }

    /** The optional element of this LIST node, under its repeated group {@code list}. */
    Levels element(String list, String element) {
      String[] within = Arrays.copyOf(path, path.length + 2);
      within[path.length] = list;
      within[path.length + 1] = element;
      return new Levels(within, definition + 2, repetition + 1);
    }

    private String[] append(String child) {
      String[] result = Arrays.copyOf(path, path.length + 1);
      result[path.length] = child;
      return result;
    }
  }
}
