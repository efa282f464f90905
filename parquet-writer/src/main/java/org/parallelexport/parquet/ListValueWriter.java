package org.parallelexport.parquet;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;

/**
 * ListValueWriter: a PostgreSQL array (kind LIST) as Parquet's three-level LIST:
 *
 * <pre>
 * optional group &lt;name&gt; (LIST) { repeated group list { optional &lt;element type&gt; element; } }
 * </pre>
 *
 * <p>The value is a nested payload in the var area, written by the C side
 * (extension/src/encode/pep_nested.c, whose header is the reference for this format; all integers
 * native-endian):
 *
 * <pre>
 * LIST payload    int32 count, count null bytes (1 = NULL element), then each non-NULL
 *                 element in its nested form
 * STRUCT payload  per field, in order: a null byte, then the field's nested form unless NULL
 * nested form     a fixed width kind: its bytes as in a batch value area; any other kind:
 *                 int32 length, then that many bytes (text, bytes, or a LIST/STRUCT payload)
 * </pre>
 *
 * <p>The three absent cases get three definition levels, so they stay distinct for every reader: a
 * NULL array is missing at the parent's level (ValueWriter.writeRows or the enclosing payload), an
 * empty array is the list group alone (this node's level), a NULL element is an entry of the
 * repeated group without its element (one more). The first element continues the repetition level
 * the list was reached with; each further one repeats at the repeated group's level.
 */
final class ListValueWriter extends VarWidthValueWriter {
  static final String LIST = "list";
  static final String ELEMENT = "element";

  private final ValueWriter element;

  ListValueWriter(Column column, GroupType parquetType, Levels levels, ValueWriter element) {
    super(column, parquetType, levels);
    this.element = requireNonNull(element, "element is null");
  }

  @Override
  void bind(ColumnWriteStore store, MessageType schema) {
    element.bind(store, schema);
  }

  @Override
  void writeNull(int rep, int def) {
    element.writeNull(rep, def);
  }

  @Override
  void writeBytes(ByteBuffer buffer, int offset, int length, int rep) {
    checkEnd("list", writePayload(buffer, offset, rep), offset, length);
  }

  private int writePayload(ByteBuffer buffer, int pos, int rep) {
    int count = buffer.getInt(pos);
    if (count < 0) {
      throw new IllegalArgumentException(
          String.format("column \"%s\": list of %d elements", name, count));
    }
    int nulls = pos + 4;
    int at = nulls + count;
    if (count == 0) {
      element.writeNull(rep, definition);
      return at;
    }
    int entry = rep;
    for (int i = 0; i < count; i++) {
      if (buffer.get(nulls + i) == 0) {
        at = element.writeNested(buffer, at, entry);
      } else {
        element.writeNull(entry, definition + 1);
      }
      entry = element.repetition;
    }
    return at;
  }
}
