/*
 * StructValueWriter: a PostgreSQL composite value (kind STRUCT) as a Parquet group with one
 * optional field per attribute, in attribute order, named as PostgreSQL names them.
 *
 * The value is a STRUCT payload (format in ListValueWriter's header and extension/pep_nested.c):
 * per field a null byte, then the field's nested form unless it is NULL. A NULL field is left out
 * of the group; a NULL composite never reaches this writer, so the two stay distinct.
 */
package org.parallelexport.parquet;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.GroupType;

final class StructValueWriter extends ValueWriter {
  private final ValueWriter[] fields;

  StructValueWriter(Column column, GroupType parquetType, ValueWriter[] fields) {
    super(column, parquetType);
    this.fields = requireNonNull(fields, "fields is null").clone();
  }

  @Override
  int valueWidth() {
    return 8;
  }

  @Override
  void write(RecordConsumer consumer, ByteBuffer buffer, int row) {
    int slot = valueOffset + row * 8;
    int start = buffer.getInt(slot);
    checkEnd(writePayload(consumer, buffer, start), start + buffer.getInt(slot + 4));
  }

  @Override
  int writeNested(RecordConsumer consumer, ByteBuffer buffer, int pos) {
    int length = buffer.getInt(pos);
    int end = writePayload(consumer, buffer, pos + 4);
    checkEnd(end, pos + 4 + length);
    return end;
  }

  private int writePayload(RecordConsumer consumer, ByteBuffer buffer, int pos) {
    int at = pos;
    consumer.startGroup();
    for (int i = 0; i < fields.length; i++) {
      boolean isNull = buffer.get(at++) != 0;
      if (!isNull) {
        ValueWriter field = fields[i];
        consumer.startField(field.name, i);
        at = field.writeNested(consumer, buffer, at);
        consumer.endField(field.name, i);
      }
    }
    consumer.endGroup();
    return at;
  }

  private void checkEnd(int end, int expected) {
    if (end != expected) {
      throw new IllegalArgumentException(
          String.format(
              "column \"%s\": struct value ends at %d, its length says %d", name, end, expected));
    }
  }
}
