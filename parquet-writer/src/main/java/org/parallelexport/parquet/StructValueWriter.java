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

final class StructValueWriter extends VarWidthValueWriter {
  private final ValueWriter[] fields;

  StructValueWriter(Column column, GroupType parquetType, ValueWriter[] fields) {
    super(column, parquetType);
    this.fields = requireNonNull(fields, "fields is null").clone();
  }

  @Override
  void writeBytes(RecordConsumer consumer, ByteBuffer buffer, int offset, int length) {
    checkEnd("struct", writePayload(consumer, buffer, offset), offset, length);
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
}
