package org.parallelexport.parquet;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;

/**
 * StructValueWriter: a PostgreSQL composite value (kind STRUCT) as a Parquet group with one
 * optional field per attribute, in attribute order, named as PostgreSQL names them.
 *
 * <p>The value is a STRUCT payload (format in ListValueWriter's header and
 * extension/src/encode/pep_nested.c): per field a null byte, then the field's nested form unless it
 * is NULL. A NULL field is missing at this group's definition level, a NULL composite at its
 * parent's, so the two stay distinct.
 */
final class StructValueWriter extends VarWidthValueWriter {
  private final ValueWriter[] fields;

  StructValueWriter(Column column, GroupType parquetType, Levels levels, ValueWriter[] fields) {
    super(column, parquetType, levels);
    this.fields = requireNonNull(fields, "fields is null").clone();
  }

  @Override
  void bind(ColumnWriteStore store, MessageType schema) {
    for (ValueWriter field : fields) {
      field.bind(store, schema);
    }
  }

  @Override
  void writeNull(int rep, int def) {
    for (ValueWriter field : fields) {
      field.writeNull(rep, def);
    }
  }

  @Override
  void writeBytes(ByteBuffer buffer, int offset, int length, int rep) {
    checkEnd("struct", writePayload(buffer, offset, rep), offset, length);
  }

  private int writePayload(ByteBuffer buffer, int pos, int rep) {
    int at = pos;
    for (ValueWriter field : fields) {
      if (buffer.get(at++) != 0) {
        field.writeNull(rep, definition);
      } else {
        at = field.writeNested(buffer, at, rep);
      }
    }
    return at;
  }
}
