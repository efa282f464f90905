package org.parallelexport.readback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The Parquet types of every column type of the first slice, read with DuckDB's parquet_schema
 * (physical type, converted type or logical type) and DESCRIBE (the type a reader sees), for an
 * export with rows and for an export of zero rows (one part, full schema).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ParquetTypesTest {
  private static final String S = Fixtures.SCHEMA;

  /** What parquet_schema and DESCRIBE must say about one column. */
  record Expect(String physical, String annotation, String duckType) {}

  private static final String STRING = "STRING";

  /**
   * annotation: null for none; STRING (UTF8 / StringType); otherwise a converted_type that must
   * match, or a piece of logical_type that must occur. Checked by {@link #check}.
   */
  static final Map<String, Expect> EXPECT = new LinkedHashMap<>();

  static {
    EXPECT.put("id", new Expect("INT64", "INT64", "BIGINT"));
    EXPECT.put("c_bool", new Expect("BOOLEAN", null, "BOOLEAN"));
    EXPECT.put("c_int2", new Expect("INT32", "INT16", "SMALLINT"));
    EXPECT.put("c_int4", new Expect("INT32", "INT32", "INTEGER"));
    EXPECT.put("c_int8", new Expect("INT64", "INT64", "BIGINT"));
    EXPECT.put("c_float4", new Expect("FLOAT", null, "FLOAT"));
    EXPECT.put("c_float8", new Expect("DOUBLE", null, "DOUBLE"));
    EXPECT.put("c_num", new Expect("INT64", "DECIMAL(12,2)", "DECIMAL(12,2)"));
    EXPECT.put("c_num_small", new Expect("INT32|INT64", "DECIMAL(5,1)", "DECIMAL(5,1)"));
    EXPECT.put(
        "c_num38",
        new Expect("FIXED_LEN_BYTE_ARRAY|BYTE_ARRAY", "DECIMAL(38,10)", "DECIMAL(38,10)"));
    EXPECT.put("c_num_free", new Expect("BYTE_ARRAY", STRING, "VARCHAR"));
    EXPECT.put("c_text", new Expect("BYTE_ARRAY", STRING, "VARCHAR"));
    EXPECT.put("c_varchar", new Expect("BYTE_ARRAY", STRING, "VARCHAR"));
    EXPECT.put("c_char", new Expect("BYTE_ARRAY", STRING, "VARCHAR"));
    EXPECT.put("c_name", new Expect("BYTE_ARRAY", STRING, "VARCHAR"));
    EXPECT.put("c_bytea", new Expect("BYTE_ARRAY", null, "BLOB"));
    EXPECT.put("c_date", new Expect("INT32", "DATE", "DATE"));
    EXPECT.put("c_time", new Expect("INT64", "TIME_MICROS", "TIME"));
    EXPECT.put("c_ts", new Expect("INT64", "TIMESTAMP_MICROS_LOCAL", "TIMESTAMP"));
    EXPECT.put("c_tstz", new Expect("INT64", "TIMESTAMP_MICROS_UTC", "TIMESTAMP WITH TIME ZONE"));
    EXPECT.put("c_uuid", new Expect("FIXED_LEN_BYTE_ARRAY", "UUID", "UUID"));
    EXPECT.put("c_json", new Expect("BYTE_ARRAY", "JSON", "JSON"));
    EXPECT.put("c_jsonb", new Expect("BYTE_ARRAY", "JSON", "JSON"));
    EXPECT.put(
        "c_interval",
        new Expect(
            "GROUP",
            null,
            "STRUCT(\"months\" INTEGER, \"days\" INTEGER," + " \"microseconds\" BIGINT)"));
    EXPECT.put("c_int4_arr", new Expect("GROUP", "LIST", "INTEGER[]"));
    EXPECT.put("c_inet", new Expect("BYTE_ARRAY", STRING, "VARCHAR"));
  }

  private Connection pg;
  private Connection duck;

  @BeforeAll
  void setUp() throws SQLException {
    Fixtures.ensure();
    pg = Env.postgres();
    duck = Env.duckdb();
  }

  @AfterAll
  void tearDown() throws SQLException {
    if (pg != null) {
      pg.close();
    }
    if (duck != null) {
      duck.close();
    }
  }

  @Test
  void typesOfAnExportWithRows() throws SQLException {
    Path dir = Env.exportDir("types-w2");
    long n = Env.export(pg, S + ".types_small", dir, 2);
    assertEquals(1001, n);
    List<Path> parts = Env.assertLayout(duck, dir, 1, 2, n);
    for (Path p : parts) {
      checkSchema(p);
    }
    checkDescribe(dir);
    String select = "SELECT * FROM " + S + ".types_small";
    List<Rows.Column> cols = Rows.columnsOf(pg, select);
    Rows.assertSameRows(
        Rows.fromPostgres(pg, select, cols), Rows.fromParquet(duck, dir, cols), "types_small");
    Env.discard(dir);
  }

  @Test
  void zeroRowsGiveOnePartWithTheFullSchema() throws SQLException {
    Path dir = Env.exportDir("empty-w4");
    long n = Env.export(pg, S + ".types_empty", dir, 4);
    assertEquals(0, n);
    List<Path> parts = Env.assertLayout(duck, dir, 1, 1, 0);
    checkSchema(parts.get(0));
    checkDescribe(dir);
    Env.discard(dir);
  }

  @Test
  void zeroRowsFromAQuery() throws SQLException {
    Path dir = Env.exportDir("emptyq-w2");
    long n = Env.export(pg, "SELECT * FROM " + S + ".alltypes WHERE id < 0", dir, 2);
    assertEquals(0, n);
    List<Path> parts = Env.assertLayout(duck, dir, 1, 1, 0);
    checkSchema(parts.get(0));
    checkDescribe(dir);
    Env.discard(dir);
  }

  /** parquet_schema of one part: every column, in order, with its physical and logical type. */
  private void checkSchema(Path part) throws SQLException {
    List<String> names = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    try (Statement st = duck.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT name, type, type_length, converted_type, scale, precision, logical_type,"
                    + " num_children FROM parquet_schema("
                    + Env.sqlString(part.toString())
                    + ")")) {
      boolean root = true;
      int nested = 0;
      while (rs.next()) {
        if (nested > 0) { // inside a group column (list, struct): TypesRoundTripTest checks those
          nested += rs.getInt("num_children") - 1;
          continue;
        }
        if (root) { // the schema's root element
          root = false;
          assertEquals(EXPECT.size(), rs.getInt("num_children"), part + ": number of columns");
          continue;
        }
        String name = rs.getString("name");
        names.add(name);
        nested = rs.getInt("num_children");
        Expect e = EXPECT.get(name);
        if (e == null) {
          problems.add(name + ": unexpected column");
          continue;
        }
        String problem =
            check(
                e,
                rs.getString("type"),
                rs.getObject("type_length") == null ? null : rs.getLong("type_length"),
                rs.getString("converted_type"),
                rs.getObject("precision") == null ? null : rs.getInt("precision"),
                rs.getObject("scale") == null ? null : rs.getInt("scale"),
                rs.getString("logical_type"));
        if (problem != null) {
          problems.add(
              name
                  + ": "
                  + problem
                  + " [type="
                  + rs.getString("type")
                  + " converted="
                  + rs.getString("converted_type")
                  + " logical="
                  + rs.getString("logical_type")
                  + "]");
        }
      }
    }
    assertEquals(new ArrayList<>(EXPECT.keySet()), names, part + ": columns or their order");
    assertTrue(problems.isEmpty(), part + ":\n  " + String.join("\n  ", problems));
  }

  static String check(
      Expect e,
      String physical,
      Long typeLength,
      String converted,
      Integer precision,
      Integer scale,
      String logical) {
    physical = Objects.toString(physical, "GROUP");
    if (!List.of(e.physical().split("\\|")).contains(physical)) {
      return "physical type " + physical + ", expected " + e.physical();
    }
    String c = Objects.toString(converted, "");
    String l = Objects.toString(logical, "");
    String a = e.annotation();
    if (a == null) {
      return c.isEmpty() && l.isEmpty() ? null : "expected no logical type";
    }
    boolean ok =
        switch (a) {
          case STRING -> c.equals("UTF8") || l.startsWith("StringType");
          case "INT16" ->
              c.equals("INT_16") || l.matches("IntType\\(bitWidth=16, isSigned=(1|true)\\)");
          case "INT32" ->
              c.isEmpty() && l.isEmpty()
                  || c.equals("INT_32")
                  || l.matches("IntType\\(bitWidth=32, isSigned=(1|true)\\)");
          case "INT64" ->
              c.isEmpty() && l.isEmpty()
                  || c.equals("INT_64")
                  || l.matches("IntType\\(bitWidth=64, isSigned=(1|true)\\)");
          case "DATE" -> c.equals("DATE") || l.startsWith("DateType");
          case "TIME_MICROS" ->
              l.startsWith("TimeType") && l.contains("MICROS=MicroSeconds()")
                  || l.isEmpty() && c.equals("TIME_MICROS");
          case "TIMESTAMP_MICROS_LOCAL" ->
              l.startsWith("TimestampType(isAdjustedToUTC=0")
                  && l.contains("MICROS=MicroSeconds()");
          case "TIMESTAMP_MICROS_UTC" ->
              l.startsWith("TimestampType(isAdjustedToUTC=1")
                  && l.contains("MICROS=MicroSeconds()");
          case "UUID" -> l.startsWith("UUIDType") && Long.valueOf(16).equals(typeLength);
          case "JSON" -> c.equals("JSON") || l.startsWith("JsonType");
          case "LIST" -> c.equals("LIST") || l.startsWith("ListType");
          default -> {
            // DECIMAL(p,s)
            String[] ps = a.substring("DECIMAL(".length(), a.length() - 1).split(",");
            yield "DECIMAL".equals(c)
                && Integer.valueOf(ps[0]).equals(precision)
                && Integer.valueOf(ps[1]).equals(scale);
          }
        };
    return ok ? null : "expected " + a;
  }

  /** The types a reader sees (DESCRIBE over read_parquet). */
  private void checkDescribe(Path dir) throws SQLException {
    Map<String, String> got = Env.readerTypes(duck, dir);
    Map<String, String> want = new LinkedHashMap<>();
    EXPECT.forEach((k, v) -> want.put(k, v.duckType()));
    assertEquals(want, got, dir + ": types as DuckDB reads them");
  }
}
