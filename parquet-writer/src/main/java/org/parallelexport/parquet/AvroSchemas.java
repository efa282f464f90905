package org.parallelexport.parquet;

import java.util.List;
import java.util.Optional;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;

/**
 * AvroSchemas: the Avro schema embedded in every part as "parquet.avro.schema".
 *
 * <p>Avro-based readers (parquet-avro, Spark's and Hive's Avro paths) take this schema, when
 * present, instead of deriving one from the Parquet schema, so it is how they learn that a
 * FIXED_LEN_BYTE_ARRAY is a uuid or an INT64 a local timestamp. It mirrors ValueWriters' Parquet
 * types: record "row", one nullable field per column in column order. It is metadata only and never
 * drives the writer. Avro names are stricter than PostgreSQL's (no spaces, no leading digit): when
 * a column name is not a valid Avro name the schema is left out, because a schema that Avro readers
 * cannot parse would break them where no schema does not.
 */
final class AvroSchemas {
  static final String RECORD_NAME = "row";
  private static final int MAX_BYTES_DECIMAL_DIGITS = 18;

  private AvroSchemas() {}

  /** The schema's JSON, or empty when Avro cannot name some column. */
  static Optional<String> forColumns(List<Column> columns) {
    try {
      int[] names = {0};
      SchemaBuilder.FieldAssembler<Schema> fields = SchemaBuilder.record(RECORD_NAME).fields();
      for (Column column : columns) {
        fields = fields.name(column.name).type(nullable(column, names)).withDefault(null);
      }
      // toString also checks that no two named types (record, fixeds) share a name.
      return Optional.of(fields.endRecord().toString());
    } catch (AvroRuntimeException e) {
      return Optional.empty();
    }
  }

  private static Schema nullable(Column column, int[] names) {
    return Schema.createUnion(Schema.create(Schema.Type.NULL), avroType(column, names));
  }

  // Named types (records, fixeds) get a name of their own: nested nodes repeat names
  // ("element") and Avro wants each named type once.
  private static String typeName(Column column, int[] names) {
    return column.name + "_" + names[0]++;
  }

  private static Schema avroType(Column column, int[] names) {
    switch (column.kind) {
      case ColumnKind.UINT32:
        return Schema.create(Schema.Type.LONG);
      case ColumnKind.ENUM:
        return Schema.create(Schema.Type.STRING);
      case ColumnKind.TIMETZ:
        return LogicalTypes.timeMicros().addToSchema(Schema.create(Schema.Type.LONG));
      case ColumnKind.INTERVAL:
        return SchemaBuilder.record(typeName(column, names))
            .fields()
            .requiredInt(IntervalValueWriter.MONTHS)
            .requiredInt(IntervalValueWriter.DAYS)
            .requiredLong(IntervalValueWriter.MICROSECONDS)
            .endRecord();
      case ColumnKind.LIST:
        return Schema.createArray(nullable(column.children.get(0), names));
      case ColumnKind.STRUCT:
        {
          SchemaBuilder.FieldAssembler<Schema> fields =
              SchemaBuilder.record(typeName(column, names)).fields();
          for (Column field : column.children) {
            fields = fields.name(field.name).type(nullable(field, names)).withDefault(null);
          }
          return fields.endRecord();
        }
      case ColumnKind.BOOL:
        return Schema.create(Schema.Type.BOOLEAN);
      case ColumnKind.INT16:
      case ColumnKind.INT32:
        return Schema.create(Schema.Type.INT);
      case ColumnKind.INT64:
        return Schema.create(Schema.Type.LONG);
      case ColumnKind.FLOAT32:
        return Schema.create(Schema.Type.FLOAT);
      case ColumnKind.FLOAT64:
        return Schema.create(Schema.Type.DOUBLE);
      case ColumnKind.DECIMAL:
      case ColumnKind.DECIMAL64:
        {
          // bytes where Parquet uses INT32/INT64, fixed where it uses FIXED_LEN_BYTE_ARRAY,
          // as parquet-avro's own converter pairs them.
          Schema base =
              column.precision <= MAX_BYTES_DECIMAL_DIGITS
                  ? Schema.create(Schema.Type.BYTES)
                  : Schema.createFixed(
                      typeName(column, names),
                      null,
                      null,
                      DecimalValueWriter.fixedLength(column.precision));
          return LogicalTypes.decimal(column.precision, column.scale).addToSchema(base);
        }
      case ColumnKind.STRING:
      case ColumnKind.JSON:
        return Schema.create(Schema.Type.STRING);
      case ColumnKind.BYTES:
        return Schema.create(Schema.Type.BYTES);
      case ColumnKind.DATE:
        return LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT));
      case ColumnKind.TIME:
        return LogicalTypes.timeMicros().addToSchema(Schema.create(Schema.Type.LONG));
      case ColumnKind.TIMESTAMP:
        return LogicalTypes.localTimestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
      case ColumnKind.TIMESTAMPTZ:
        return LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
      case ColumnKind.UUID:
        return LogicalTypes.uuid()
            .addToSchema(Schema.createFixed(typeName(column, names), null, null, 16));
      default:
        break;
    }
    throw new IllegalArgumentException(String.format("unsupported kind: %d", column.kind));
  }
}
