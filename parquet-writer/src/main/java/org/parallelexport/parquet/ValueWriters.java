package org.parallelexport.parquet;

import static org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit.MICROS;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BINARY;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BOOLEAN;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.DOUBLE;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.FLOAT;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT32;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT64;

import org.apache.parquet.schema.ColumnOrder;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * ValueWriters: the one place that maps a column's kind to its Parquet type and value writer.
 *
 * <p>BatchSink.create calls it once per column, and it calls itself for the element of a LIST and
 * the fields of a STRUCT, handing each node its schema path and levels (ValueWriter.Levels); the
 * Parquet schema is the writers' types in column order. Every column is OPTIONAL because any
 * PostgreSQL value may be NULL (a NOT NULL constraint does not hold for a query's or view's
 * output). The type table is docs/types.md's ("Types"); the last line throws for a kind code this
 * side does not know, which means the C side is newer.
 */
final class ValueWriters {
  private static final int MAX_INT32_DIGITS = 9;
  private static final int MAX_INT64_DIGITS = 18;

  private ValueWriters() {}

  /**
   * FLOAT or DOUBLE with the type-defined column order, which every reader knows. parquet-java 1.18
   * defaults them to IEEE_754_TOTAL_ORDER, a ColumnOrder added to the format in 2025 that readers
   * built before it reject for the whole file (Polars 0.25: "ColumnOrder union has no variant set",
   * see regress/matrix). Statistics stay valid: min and max skip NaN and write -0 and +0 as that
   * order asks.
   */
  private static PrimitiveType floatType(PrimitiveTypeName type, String name) {
    return Types.optional(type).columnOrder(ColumnOrder.typeDefined()).named(name);
  }

  /**
   * The writer of a top-level column; the variable-width kinds read their values through {@code
   * varBytes}, which the part writer loads before each slice of rows.
   */
  static ValueWriter create(Column column, VarBytes varBytes) {
    return create(column, ValueWriter.Levels.column(column.name), varBytes);
  }

  private static ValueWriter create(Column column, ValueWriter.Levels levels, VarBytes varBytes) {
    String name = column.name;
    switch (column.kind) {
      case ColumnKind.BOOL:
        return new BooleanValueWriter(column, Types.optional(BOOLEAN).named(name), levels);
      case ColumnKind.INT16:
        return new Int16ValueWriter(
            column,
            Types.optional(INT32).as(LogicalTypeAnnotation.intType(16, true)).named(name),
            levels);
      case ColumnKind.INT32:
        return new Int32ValueWriter(column, Types.optional(INT32).named(name), levels);
      case ColumnKind.INT64:
        return new Int64ValueWriter(column, Types.optional(INT64).named(name), levels);
      case ColumnKind.FLOAT32:
        return new FloatValueWriter(column, floatType(FLOAT, name), levels);
      case ColumnKind.FLOAT64:
        return new DoubleValueWriter(column, floatType(DOUBLE, name), levels);
      case ColumnKind.DECIMAL:
        if (column.precision <= MAX_INT64_DIGITS) {
          throw new IllegalArgumentException(
              String.format(
                  "column \"%s\": DECIMAL(%d,%d) fits an unscaled int64 and must come as DECIMAL64",
                  name, column.precision, column.scale));
        }
        return new DecimalValueWriter(column, decimalType(column), levels);
      case ColumnKind.DECIMAL64:
        if (column.precision > MAX_INT64_DIGITS) {
          throw new IllegalArgumentException(
              String.format(
                  "column \"%s\": an unscaled int64 cannot hold DECIMAL(%d,%d)",
                  name, column.precision, column.scale));
        }
        return new UnscaledDecimalValueWriter(column, decimalType(column), levels);
      case ColumnKind.STRING:
        return new BinaryValueWriter(
            column,
            Types.optional(BINARY).as(LogicalTypeAnnotation.stringType()).named(name),
            levels,
            varBytes);
      case ColumnKind.JSON:
        return new BinaryValueWriter(
            column,
            Types.optional(BINARY).as(LogicalTypeAnnotation.jsonType()).named(name),
            levels,
            varBytes);
      case ColumnKind.BYTES:
        return new BinaryValueWriter(column, Types.optional(BINARY).named(name), levels, varBytes);
      case ColumnKind.DATE:
        return new Int32ValueWriter(
            column, Types.optional(INT32).as(LogicalTypeAnnotation.dateType()).named(name), levels);
      case ColumnKind.TIME:
        return new Int64ValueWriter(
            column,
            Types.optional(INT64).as(LogicalTypeAnnotation.timeType(false, MICROS)).named(name),
            levels);
      case ColumnKind.TIMESTAMP:
        return new Int64ValueWriter(
            column,
            Types.optional(INT64)
                .as(LogicalTypeAnnotation.timestampType(false, MICROS))
                .named(name),
            levels);
      case ColumnKind.TIMESTAMPTZ:
        return new Int64ValueWriter(
            column,
            Types.optional(INT64).as(LogicalTypeAnnotation.timestampType(true, MICROS)).named(name),
            levels);
      case ColumnKind.UINT32:
        return new Int32ValueWriter(
            column,
            Types.optional(INT32).as(LogicalTypeAnnotation.intType(32, false)).named(name),
            levels);
      case ColumnKind.TIMETZ:
        return new Int64ValueWriter(
            column,
            Types.optional(INT64).as(LogicalTypeAnnotation.timeType(true, MICROS)).named(name),
            levels);
      case ColumnKind.ENUM:
        return new BinaryValueWriter(
            column,
            Types.optional(BINARY).as(LogicalTypeAnnotation.enumType()).named(name),
            levels,
            varBytes);
      case ColumnKind.INTERVAL:
        return new IntervalValueWriter(
            column,
            Types.optionalGroup()
                .required(INT32)
                .named(IntervalValueWriter.MONTHS)
                .required(INT32)
                .named(IntervalValueWriter.DAYS)
                .required(INT64)
                .named(IntervalValueWriter.MICROSECONDS)
                .named(name),
            levels);
      case ColumnKind.LIST:
        {
          if (column.children.size() != 1) {
            throw new IllegalArgumentException(
                String.format(
                    "column \"%s\": a list needs one element node, not %d",
                    name, column.children.size()));
          }
          ValueWriter element =
              create(
                  column.children.get(0).labeled(column.label),
                  levels.element(ListValueWriter.LIST, ListValueWriter.ELEMENT),
                  varBytes);
          return new ListValueWriter(
              column,
              Types.optionalGroup()
                  .as(LogicalTypeAnnotation.listType())
                  .addField(
                      Types.repeatedGroup()
                          .addField(element.parquetType)
                          .named(ListValueWriter.LIST))
                  .named(name),
              levels,
              element);
        }
      case ColumnKind.STRUCT:
        {
          if (column.children.isEmpty()) {
            throw new IllegalArgumentException(
                String.format("column \"%s\": a struct needs at least one field", name));
          }
          ValueWriter[] fields = new ValueWriter[column.children.size()];
          Types.GroupBuilder<GroupType> group = Types.optionalGroup();
          for (int i = 0; i < fields.length; i++) {
            Column field = column.children.get(i);
            fields[i] =
                create(
                    field.labeled(column.label + "." + field.name),
                    levels.field(field.name),
                    varBytes);
            group.addField(fields[i].parquetType);
          }
          return new StructValueWriter(column, group.named(name), levels, fields);
        }
      case ColumnKind.UUID:
        return new UuidValueWriter(
            column,
            Types.optional(FIXED_LEN_BYTE_ARRAY)
                .length(16)
                .as(LogicalTypeAnnotation.uuidType())
                .named(name),
            levels);
      default:
        break;
    }
    throw new IllegalArgumentException(String.format("unsupported kind: %d", column.kind));
  }

  private static PrimitiveType decimalType(Column column) {
    int precision = column.precision;
    int scale = column.scale;
    // Parquet allows 0 <= scale <= precision; PostgreSQL 15 also allows negative scales and
    // scales above the precision, which the C side must map before it gets here.
    if (precision < 1
        || precision > DecimalValueWriter.MAX_PRECISION
        || scale < 0
        || scale > precision) {
      throw new IllegalArgumentException(
          String.format(
              "column \"%s\": DECIMAL(%d,%d) is not supported: precision must be 1 to %d and"
                  + " scale 0 to the precision",
              column.name, precision, scale, DecimalValueWriter.MAX_PRECISION));
    }
    LogicalTypeAnnotation decimal = LogicalTypeAnnotation.decimalType(scale, precision);
    if (precision <= MAX_INT32_DIGITS) {
      return Types.optional(INT32).as(decimal).named(column.name);
    }
    if (precision <= MAX_INT64_DIGITS) {
      return Types.optional(INT64).as(decimal).named(column.name);
    }
    return Types.optional(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY)
        .length(DecimalValueWriter.fixedLength(precision))
        .as(decimal)
        .named(column.name);
  }
}
