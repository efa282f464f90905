package org.parallelexport.iceberg;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Schema;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.JsonUtil;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;

/**
 * IcebergSchemas: the Iceberg side of the Parquet schema our writer produces.
 *
 * <p>Three jobs, all through Iceberg's own code so its rules hold: the schema of a new table
 * (ParquetSchemaUtil, then TypeUtil.assignFreshIds for Iceberg's id order, nested types included);
 * whether an export may write into an existing table (columns matched by name, Iceberg's type
 * promotions allowed, anything else refused naming the column); and the field ids the writer must
 * stamp on the Parquet nodes, taken from the table's schema by name (Iceberg's name mapping), as
 * the JSON object of dotted column paths that the writer's {@code field_ids} option reads.
 */
public final class IcebergSchemas {
  private IcebergSchemas() {}

  /** A new table's schema for the writer's Parquet schema, ids assigned as Iceberg assigns them. */
  public static Schema fromParquet(MessageType parquet) {
    Schema converted = ParquetSchemaUtil.convert(parquet);
    // ParquetSchemaUtil reads a uuid-annotated FIXED_LEN_BYTE_ARRAY(16) as fixed[16]; Iceberg
    // has a uuid type and writes it in exactly that Parquet form, so a uuid column stays a uuid.
    Types.StructType struct = withUuids(converted.asStruct(), parquet).asStructType();
    AtomicInteger lastId = new AtomicInteger(0);
    return TypeUtil.assignFreshIds(new Schema(struct.fields()), lastId::incrementAndGet);
  }

  private static Type withUuids(Type type, org.apache.parquet.schema.Type node) {
    if (type.isPrimitiveType()) {
      LogicalTypeAnnotation logical = node.getLogicalTypeAnnotation();
      boolean uuid = logical instanceof LogicalTypeAnnotation.UUIDLogicalTypeAnnotation;
      return uuid ? Types.UUIDType.get() : type;
    }
    GroupType group = node.asGroupType();
    if (type.isListType()) {
      Types.ListType list = type.asListType();
      Type element =
          withUuids(list.elementType(), ParquetSchemaUtil.determineListElementType(group));
      return list.isElementOptional()
          ? Types.ListType.ofOptional(list.elementId(), element)
          : Types.ListType.ofRequired(list.elementId(), element);
    }
    if (type.isStructType()) {
      List<Types.NestedField> fields = new ArrayList<>();
      for (Types.NestedField field : type.asStructType().fields()) {
        Type fieldType = withUuids(field.type(), group.getType(field.name()));
        fields.add(Types.NestedField.from(field).ofType(fieldType).build());
      }
      return Types.StructType.of(fields);
    }
    // The writer produces no maps; any other nested type passes through unchanged.
    return type;
  }

  /**
   * Refuses an export whose columns do not fit {@code table}: a column the table lacks, a type that
   * is neither the table's nor one Iceberg promotes to it, or a table column the export cannot fill
   * (required, or absent from the export and required). {@code tableName} is for messages only.
   */
  public static void requireWritable(Schema table, Schema export, String tableName) {
    checkStruct(table.asStruct(), export.asStruct(), "", tableName);
  }

  private static void checkStruct(
      Types.StructType table, Types.StructType export, String prefix, String tableName) {
    for (Types.NestedField field : export.fields()) {
      String column = prefix + field.name();
      Types.NestedField target = table.field(field.name());
      if (target == null) {
        throw new IcebergRefusal(
            IcebergRefusal.UNDEFINED_COLUMN,
            String.format(
                "column \"%s\" of the export does not exist in table %s", column, tableName));
      }
      requireNullable(target, column, tableName);
      checkType(target.type(), field.type(), column, tableName);
    }
    for (Types.NestedField target : table.fields()) {
      if (export.field(target.name()) == null && target.isRequired()) {
        throw new IcebergRefusal(
            IcebergRefusal.NOT_NULL_VIOLATION,
            String.format(
                "column \"%s\" of table %s is required, and the export does not have it",
                prefix + target.name(), tableName));
      }
    }
  }

  // Every column the writer produces may hold nulls, so it cannot fill a required one.
  private static void requireNullable(Types.NestedField target, String column, String tableName) {
    if (target.isRequired()) {
      throw new IcebergRefusal(
          IcebergRefusal.NOT_NULL_VIOLATION,
          String.format(
              "column \"%s\" of table %s is required, and the export may leave it null",
              column, tableName));
    }
  }

  private static void checkType(Type table, Type export, String column, String tableName) {
    if (export.isPrimitiveType() && table.isPrimitiveType()) {
      if (export.equals(table) || TypeUtil.isPromotionAllowed(export, table.asPrimitiveType())) {
        return;
      }
    } else if (export.isStructType() && table.isStructType()) {
      checkStruct(table.asStructType(), export.asStructType(), column + ".", tableName);
      return;
    } else if (export.isListType() && table.isListType()) {
      if (table.asListType().isElementRequired()) {
        throw new IcebergRefusal(
            IcebergRefusal.NOT_NULL_VIOLATION,
            String.format(
                "column \"%s\" of table %s has required elements, and the export's may be null",
                column, tableName));
      }
      checkType(
          table.asListType().elementType(), export.asListType().elementType(), column, tableName);
      return;
    }
    throw new IcebergRefusal(
        IcebergRefusal.DATATYPE_MISMATCH,
        String.format(
            "column \"%s\" is %s in table %s, and the export writes %s",
            column, table, tableName, export));
  }

  /** {@code parquet} with each node that has an Iceberg field carrying that field's id. */
  public static MessageType withFieldIds(MessageType parquet, Schema table) {
    return ParquetSchemaUtil.applyNameMapping(parquet, MappingUtil.create(table));
  }

  /** Dotted Parquet column path to field id, for every node of {@code parquet} with an id. */
  public static Map<String, Integer> fieldIds(MessageType parquet, Schema table) {
    Map<String, Integer> ids = new LinkedHashMap<>();
    collect(withFieldIds(parquet, table), "", ids);
    return ids;
  }

  private static void collect(GroupType group, String prefix, Map<String, Integer> ids) {
    for (org.apache.parquet.schema.Type node : group.getFields()) {
      String path = prefix + node.getName();
      if (node.getId() != null) {
        ids.put(path, node.getId().intValue());
      }
      if (!node.isPrimitive()) {
        collect(node.asGroupType(), path + ".", ids);
      }
    }
  }

  /** {@link #fieldIds} as the JSON object the writer's {@code field_ids} option takes. */
  public static String fieldIdsJson(MessageType parquet, Schema table) {
    Map<String, Integer> ids = fieldIds(parquet, table);
    return JsonUtil.generate(
        gen -> {
          gen.writeStartObject();
          for (Map.Entry<String, Integer> id : ids.entrySet()) {
            gen.writeNumberField(id.getKey(), id.getValue());
          }
          gen.writeEndObject();
        },
        false);
  }
}
