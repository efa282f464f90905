/*
 * ListValueWriter: a PostgreSQL array (kind LIST) as Parquet's three-level LIST:
 *
 *   optional group <name> (LIST) { repeated group list { optional <element type> element; } }
 *
 * The value is a nested payload in the var area, written by the C side (extension/pep_nested.c,
 * whose header is the reference for this format; all integers native-endian):
 *
 *   LIST payload    int32 count, count null bytes (1 = NULL element), then each non-NULL
 *                   element in its nested form
 *   STRUCT payload  per field, in order: a null byte, then the field's nested form unless NULL
 *   nested form     a fixed width kind: its bytes as in a batch value area; any other kind:
 *                   int32 length, then that many bytes (text, bytes, or a LIST/STRUCT payload)
 *
 * A NULL element is an empty repeated group (definition level of the list entry); an empty
 * array is the group with no list field at all; a NULL array never reaches this writer. So the
 * three stay distinct for every reader.
 */
package org.parallelexport.parquet;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.GroupType;

final class ListValueWriter extends VarWidthValueWriter {
  static final String LIST = "list";
  static final String ELEMENT = "element";

  private final ValueWriter element;

  ListValueWriter(Column column, GroupType parquetType, ValueWriter element) {
    super(column, parquetType);
    this.element = requireNonNull(element, "element is null");
  }

  @Override
  void writeBytes(RecordConsumer consumer, ByteBuffer buffer, int offset, int length) {
    checkEnd("list", writePayload(consumer, buffer, offset), offset, length);
  }

  private int writePayload(RecordConsumer consumer, ByteBuffer buffer, int pos) {
    int count = buffer.getInt(pos);
    if (count < 0) {
      throw new IllegalArgumentException(
          String.format("column \"%s\": list of %d elements", name, count));
    }
    int nulls = pos + 4;
    int at = nulls + count;
    consumer.startGroup();
    if (count > 0) {
      consumer.startField(LIST, 0);
      for (int i = 0; i < count; i++) {
        consumer.startGroup();
        if (buffer.get(nulls + i) == 0) {
          consumer.startField(ELEMENT, 0);
          at = element.writeNested(consumer, buffer, at);
          consumer.endField(ELEMENT, 0);
        }
        consumer.endGroup();
      }
      consumer.endField(LIST, 0);
    }
    consumer.endGroup();
    return at;
  }
}
