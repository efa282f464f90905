package org.parallelexport.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.junit.jupiter.api.Test;

/** IcebergSchemasTest: the Iceberg schema, the field ids and the fit check, without a catalog. */
class IcebergSchemasTest {
  private static final Schema EXPECTED =
      new Schema(
          Types.NestedField.optional(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()),
          Types.NestedField.optional(3, "score", Types.IntegerType.get()),
          Types.NestedField.optional(4, "uuid", Types.UUIDType.get()),
          Types.NestedField.optional(
              5, "tags", Types.ListType.ofOptional(7, Types.StringType.get())),
          Types.NestedField.optional(
              6,
              "pt",
              Types.StructType.of(Types.NestedField.optional(8, "x", Types.DoubleType.get()))));

  @Test
  void convertsWithIcebergsIdOrderAndKeepsUuids() {
    // Iceberg numbers the top-level fields first, then nested ones, breadth first.
    assertEquals(EXPECTED.asStruct(), IcebergSchemas.fromParquet(TestParts.schema()).asStruct());
  }

  @Test
  void fieldIdsNameEveryParquetNodeWithAnIcebergField() {
    assertEquals(
        "{\"id\":1,\"name\":2,\"score\":3,\"uuid\":4,\"tags\":5,\"tags.list.element\":7,"
            + "\"pt\":6,\"pt.x\":8}",
        IcebergSchemas.fieldIdsJson(TestParts.schema(), EXPECTED));
  }

  @Test
  void fieldIdsFollowTheTableNotTheExportsOrder() {
    Schema table =
        new Schema(
            Types.NestedField.optional(10, "pt", EXPECTED.findType("pt")),
            Types.NestedField.optional(
                11, "tags", Types.ListType.ofOptional(12, Types.StringType.get())),
            Types.NestedField.optional(13, "uuid", Types.UUIDType.get()),
            Types.NestedField.optional(14, "score", Types.LongType.get()),
            Types.NestedField.optional(15, "name", Types.StringType.get()),
            Types.NestedField.optional(16, "id", Types.LongType.get()),
            Types.NestedField.optional(17, "extra", Types.StringType.get()));
    IcebergSchemas.requireWritable(table, IcebergSchemas.fromParquet(TestParts.schema()), "t");
    assertEquals(
        "{\"id\":16,\"name\":15,\"score\":14,\"uuid\":13,\"tags\":11,\"tags.list.element\":12,"
            + "\"pt\":10,\"pt.x\":8}",
        IcebergSchemas.fieldIdsJson(TestParts.schema(), table));
  }

  @Test
  void refusesAColumnTheTableLacks() {
    Schema table = new Schema(EXPECTED.columns().subList(0, 5));
    IcebergRefusal refusal =
        assertThrows(
            IcebergRefusal.class,
            () ->
                IcebergSchemas.requireWritable(
                    table, IcebergSchemas.fromParquet(TestParts.schema()), "raw.events"));
    assertEquals(IcebergRefusal.UNDEFINED_COLUMN, refusal.sqlState());
    assertTrue(refusal.getMessage().contains("\"pt\""), refusal.getMessage());
  }

  @Test
  void refusesANestedTypeNamingItsPath() {
    Schema table =
        new Schema(
            Types.NestedField.optional(
                6,
                "pt",
                Types.StructType.of(Types.NestedField.optional(8, "x", Types.FloatType.get()))));
    MessageType export =
        org.apache.parquet.schema.Types.buildMessage()
            .optionalGroup()
            .optional(PrimitiveTypeName.DOUBLE)
            .named("x")
            .named("pt")
            .named("row");
    IcebergRefusal refusal =
        assertThrows(
            IcebergRefusal.class,
            () -> IcebergSchemas.requireWritable(table, IcebergSchemas.fromParquet(export), "t"));
    assertEquals(IcebergRefusal.DATATYPE_MISMATCH, refusal.sqlState());
    assertTrue(refusal.getMessage().contains("\"pt.x\""), refusal.getMessage());
  }

  @Test
  void refusesARequiredTableColumn() {
    Schema table =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()));
    MessageType export =
        org.apache.parquet.schema.Types.buildMessage()
            .optional(PrimitiveTypeName.BINARY)
            .as(org.apache.parquet.schema.LogicalTypeAnnotation.stringType())
            .named("name")
            .named("row");
    IcebergRefusal refusal =
        assertThrows(
            IcebergRefusal.class,
            () -> IcebergSchemas.requireWritable(table, IcebergSchemas.fromParquet(export), "t"));
    assertEquals(IcebergRefusal.NOT_NULL_VIOLATION, refusal.sqlState());
    assertTrue(refusal.getMessage().contains("\"id\""), refusal.getMessage());
  }
}
