package org.parallelexport.readback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.apache.parquet.Version;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.function.Executable;

/**
 * Every PostgreSQL type and its array, exported and read back value by value, on a UTF8 database
 * and on a LATIN1 one.
 *
 * <p>One wide table per database holds a column v_NAME and an array column a_NAME per case (see
 * {@link #CASES}): rows 1..n hold each edge value once, then a row of NULLs, then arrays holding
 * every value, an empty array, and an array with NULL elements. Each cell is reduced to text by an
 * expression on each side (PostgreSQL over the table, DuckDB over the export) and normalized in
 * Java where the two print one value differently (floats, decimals). Arrays are compared element by
 * element, so a NULL array, an empty array and a NULL element stay distinct.
 *
 * <p>parquet-java's own reader (Hadoop, test scope) is the second reader for what DuckDB cannot
 * show or might paper over: the Parquet schema (3-level lists, UINT32, TIME adjusted to UTC, the
 * interval group), the raw values of oid and time 24:00, and timestamps outside DuckDB's range.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TypesRoundTripTest {
  static final String S = "regress_types";
  private static final String LATIN1_DB = "regress_types_latin1";
  private static final String SQL_ASCII_DB = "regress_types_sqlascii";
  private static final String NUL = "~null~";

  /** Text of a cell on each side: %1$s is the value expression; norm evens out printing. */
  record Case(
      String name,
      String pgType,
      String pgText,
      String duckText,
      UnaryOperator<String> norm,
      boolean array,
      List<String> values) {}

  static final String PG_GENERIC = "format('%%s', %1$s)";
  static final String DUCK_GENERIC = "CAST(%1$s AS VARCHAR)";
  private static final String PG_MICROS = "(extract(epoch FROM %1$s) * 1000000)::bigint::text";
  private static final String DUCK_MICROS = "CAST(epoch_us(%1$s) AS VARCHAR)";

  static final List<Case> CASES = new ArrayList<>();

  /**
   * The cases compatibility => 'spark' writes as the text of their output function (docs/usage.md,
   * "compatibility"); every other case keeps its faithful encoding.
   */
  static final Set<String> SPARK_AS_TEXT = Set.of("uuid", "time", "timetz");

  /** c compared as PostgreSQL's text output of each value, as a profile writes it. */
  static Case asText(Case c) {
    return new Case(c.name, c.pgType, PG_GENERIC, DUCK_GENERIC, s -> s, true, c.values);
  }

  private static void add(String name, String type, String... values) {
    CASES.add(new Case(name, type, PG_GENERIC, DUCK_GENERIC, s -> s, true, List.of(values)));
  }

  private static void add(
      String name,
      String type,
      String pg,
      String duck,
      UnaryOperator<String> norm,
      String... values) {
    CASES.add(new Case(name, type, pg, duck, norm, true, List.of(values)));
  }

  private static String floatBits(String s) {
    String t = s.trim().toLowerCase(Locale.ROOT);
    double d =
        switch (t) {
          case "nan" -> Double.NaN;
          case "inf", "infinity" -> Double.POSITIVE_INFINITY;
          case "-inf", "-infinity" -> Double.NEGATIVE_INFINITY;
          default -> Double.parseDouble(t);
        };
    return Long.toHexString(Double.doubleToRawLongBits(d));
  }

  private static String float4Bits(String s) {
    return Integer.toHexString(
        Float.floatToRawIntBits((float) Double.parseDouble(floatBitsInput(s))));
  }

  private static String floatBitsInput(String s) {
    String t = s.trim().toLowerCase(Locale.ROOT);
    return switch (t) {
      case "nan" -> "NaN";
      case "inf", "infinity" -> "Infinity";
      case "-inf", "-infinity" -> "-Infinity";
      default -> t;
    };
  }

  private static String decimal(String s) {
    return new BigDecimal(s).toPlainString();
  }

  static {
    add("bool", "boolean", "%1$s::text", DUCK_GENERIC, x -> x, "true", "false");
    add("int2", "smallint", "-32768", "32767", "0", "-1");
    add("int4", "integer", "-2147483648", "2147483647", "0", "-1");
    add("int8", "bigint", "-9223372036854775808", "9223372036854775807", "0", "-1");
    add("oid", "oid", "0", "1", "2147483648", "4294967295");
    add(
        "float4",
        "real",
        PG_GENERIC,
        DUCK_GENERIC,
        TypesRoundTripTest::float4Bits,
        "0",
        "'-0'",
        "1.5",
        "-3.4028235e38",
        "1.4e-45",
        "'NaN'",
        "'Infinity'",
        "'-Infinity'");
    add(
        "float8",
        "double precision",
        PG_GENERIC,
        DUCK_GENERIC,
        TypesRoundTripTest::floatBits,
        "0",
        "'-0'",
        "0.1",
        "1.7976931348623157e308",
        "4.9e-324",
        "'NaN'",
        "'Infinity'",
        "'-Infinity'");
    add(
        "num",
        "numeric(10,2)",
        PG_GENERIC,
        DUCK_GENERIC,
        TypesRoundTripTest::decimal,
        "0",
        "-99999999.99",
        "99999999.99",
        "0.01");
    add(
        "num4",
        "numeric(4,4)",
        PG_GENERIC,
        DUCK_GENERIC,
        TypesRoundTripTest::decimal,
        "0",
        "-0.9999",
        "0.0001");
    add(
        "num18",
        "numeric(18,3)",
        PG_GENERIC,
        DUCK_GENERIC,
        TypesRoundTripTest::decimal,
        "0",
        "-999999999999999.999",
        "999999999999999.999",
        "1.5");
    add(
        "num38",
        "numeric(38,6)",
        PG_GENERIC,
        DUCK_GENERIC,
        TypesRoundTripTest::decimal,
        "0",
        "-99999999999999999999999999999999.999999",
        "99999999999999999999999999999999.999999",
        "-1.5");
    add(
        "num_negscale",
        "numeric(5,-2)",
        PG_GENERIC,
        DUCK_GENERIC,
        TypesRoundTripTest::decimal,
        "0",
        "12300",
        "-9999900");
    add(
        "num_bigscale",
        "numeric(3,5)",
        PG_GENERIC,
        DUCK_GENERIC,
        TypesRoundTripTest::decimal,
        "0",
        "0.00123",
        "-0.00999");
    add(
        "numfree",
        "numeric",
        "0",
        "'-0.000001'",
        "'123456789012345678901234567890.123456789012345678901234567890'",
        "1e-30",
        "'NaN'",
        "'Infinity'",
        "'-Infinity'");
    add(
        "text",
        "text",
        "''",
        "'plain'",
        "'ünïcödé ß ÿ Ä'",
        "'quote '' and \" and \\ and , and {}'",
        "E'tab\\there\\nnewline'",
        "' '");
    add("varchar", "varchar(20)", "''", "'äbc'", "'x'");
    add("bpchar", "char(5)", "''", "'ab'", "'äbcde'");
    add("name", "name", "''", "'pg_class'", "'nämé'");
    add(
        "bytea",
        "bytea",
        "encode(%1$s, 'hex')",
        "lower(hex(%1$s))",
        s -> s,
        "'\\x'",
        "'\\x00ff'",
        "'\\x414243'");
    add("json", "json", "'{\"a\": [1, 2.50, \"x\"]}'", "'[]'", "'\"ü\"'", "'null'");
    add("jsonb", "jsonb", "'{\"a\": [1, 2.50, \"x\"]}'", "'[]'", "'\"ü\"'", "'null'");
    add(
        "date",
        "date",
        "(%1$s - DATE '1970-01-01')::text",
        "CAST((%1$s - DATE '1970-01-01') AS VARCHAR)",
        s -> s,
        "'2024-02-29'",
        "'1970-01-01'",
        "'1582-10-04'",
        "'1582-10-15'",
        "'1200-02-29'",
        "'1000-03-01'",
        "'0001-01-01'",
        "'0044-03-15 BC'",
        "'4713-01-01 BC'",
        "'5874897-12-31'");
    add(
        "time",
        "time",
        PG_MICROS,
        DUCK_MICROS,
        s -> s,
        "'00:00'",
        "'23:59:59.999999'",
        "'24:00:00'",
        "'12:34:56.789'");
    add(
        "timetz",
        "timetz",
        "(((extract(epoch FROM %1$s) * 1000000)::bigint %% 86400000000 + 86400000000)"
            + " %% 86400000000)::text",
        DUCK_MICROS,
        s -> s,
        "'04:05:06.789-08'",
        "'23:00:00+05'",
        "'00:00:00+00'",
        "'23:00:00-01'",
        "'23:59:59.999999-15:59'",
        "'00:00:01+15:59'");
    add(
        "ts",
        "timestamp",
        PG_MICROS,
        DUCK_MICROS,
        s -> s,
        "'2024-02-29 12:34:56.789012'",
        "'1970-01-01 00:00'",
        "'1969-12-31 23:59:59.999999'",
        "'1582-10-10 00:00'",
        "'0001-01-01 00:00'",
        "'4713-01-01 00:00 BC'",
        "'200000-12-31 23:59:59.999999'");
    add(
        "tstz",
        "timestamptz",
        PG_MICROS,
        DUCK_MICROS,
        s -> s,
        "'2024-06-01 12:00:00+02'",
        "'1970-01-01 00:00+00'",
        "'0001-01-01 00:00+00'",
        "'4713-01-01 00:00+00 BC'",
        "'200000-12-31 23:59:59.999999+00'");
    add(
        "interval",
        "interval",
        "(extract(year FROM %1$s) * 12 + extract(month FROM %1$s))::int || ',' ||"
            + " extract(day FROM %1$s)::int || ',' || (extract(hour FROM %1$s) * 3600000000 +"
            + " extract(minute FROM %1$s) * 60000000 + extract(microseconds FROM %1$s))::bigint",
        "%1$s.months || ',' || %1$s.days || ',' || %1$s.microseconds",
        s -> s,
        "'1 year 2 mons -3 days 04:05:06.789'",
        "'0'",
        "'-178000000 years'",
        "'178000000 years'",
        "'-00:00:00.000001'",
        "'2147483647 days'",
        "'-2147483648 days'",
        "'2562047788:00:54.775807'",
        "'-2562047788:00:54.775807'",
        "'1 mon -30 days'");
    add(
        "uuid",
        "uuid",
        "'00000000-0000-0000-0000-000000000000'",
        "'ffffffff-ffff-ffff-ffff-ffffffffffff'",
        "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'");
    add("mood", S + ".mood", "'sad'", "'happy'", "'ünï'");
    add("inet", "inet", "'192.168.0.1'", "'::1/128'", "'10.0.0.0/8'", "'192.168.0.1/24'");
    add("cidr", "cidr", "'10.0.0.0/8'", "'::/0'");
    add("macaddr", "macaddr", "'08:00:2b:01:02:03'");
    add("money", "money", "'-1234.56'", "'0'");
    add("bit", "bit(3)", "B'101'", "B'000'");
    add("varbit", "varbit", "B''", "B'1'", "B'10101010101'");
    add("xml", "xml", "'<a b=\"ü\">x</a>'", "''");
    add("tsvector", "tsvector", "'a fat cat'", "''");
    add("point", "point", "'(1.5,-2)'");
    add("int4range", "int4range", "'[1,5)'", "'empty'", "'(,)'", "'[-2147483648,0]'");
    add("tstzrange", "tstzrange", "'[2024-01-01,infinity)'", "'(,2024-01-01 12:00+00]'");
    add("daterange", "daterange", "'[2024-01-01,2024-02-01)'");
    add("posint", S + ".posint", "1", "2147483647");
    // char and xid-like types: text of the output function
    add("char1", "\"char\"", "'a'", "''");
    add(
        "comp",
        S + ".comp",
        "concat_ws('|', coalesce((%1$s).a::text, '"
            + NUL
            + "'), coalesce((%1$s).b, '"
            + NUL
            + "'), coalesce(array_to_string((%1$s).c, ',', '"
            + NUL
            + "'), '"
            + NUL
            + "'),"
            + " coalesce(((%1$s).d).x::text, '"
            + NUL
            + "'), coalesce(array_to_string(((%1$s).d).y,"
            + " ',', '"
            + NUL
            + "'), '"
            + NUL
            + "'))",
        "concat_ws('|', coalesce(CAST(%1$s.a AS VARCHAR), '"
            + NUL
            + "'), coalesce(%1$s.b, '"
            + NUL
            + "'), coalesce(array_to_string(list_transform(%1$s.c, lambda q: coalesce(CAST(q"
            + " AS VARCHAR), '"
            + NUL
            + "')), ','), '"
            + NUL
            + "'), coalesce(CAST(%1$s.d.x AS"
            + " VARCHAR), '"
            + NUL
            + "'), coalesce(array_to_string(list_transform(%1$s.d.y, lambda"
            + " q: coalesce(q, '"
            + NUL
            + "')), ','), '"
            + NUL
            + "'))",
        TypesRoundTripTest::decimalsIn,
        "ROW(1, 'x', '{1.50,NULL}', ROW(7, '{a,NULL,\"\"}'))",
        "ROW(NULL, NULL, NULL, NULL)",
        "ROW(-1, '', '{}', ROW(NULL, '{}'))");
  }

  // Decimal text inside a composite's rendering is printed alike on both sides; nothing to do.
  private static String decimalsIn(String s) {
    return s;
  }

  private final Map<String, String> urls = new LinkedHashMap<>();
  private Connection duck;

  @BeforeAll
  void setUp() throws SQLException {
    duck = Env.duckdb();
    urls.put("utf8", Env.JDBC_URL);
    urls.put("latin1", databaseUrl(LATIN1_DB));
    try (Connection pg = Env.postgres();
        Statement st = pg.createStatement()) {
      recreate(st, LATIN1_DB, "LATIN1");
      recreate(st, SQL_ASCII_DB, "SQL_ASCII");
    }
    for (String url : urls.values()) {
      try (Connection pg = connect(url)) {
        createFixtures(pg);
      }
    }
  }

  @AfterAll
  void tearDown() throws SQLException {
    if (duck != null) {
      duck.close();
    }
  }

  private static void recreate(Statement st, String db, String encoding) throws SQLException {
    st.execute("DROP DATABASE IF EXISTS " + db);
    st.execute(
        "CREATE DATABASE "
            + db
            + " ENCODING '"
            + encoding
            + "' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'");
  }

  private static String databaseUrl(String db) {
    return Env.JDBC_URL.replaceFirst("/[^/?]*(\\?|$)", "/" + db + "$1");
  }

  static Connection connect(String url) throws SQLException {
    Connection c = DriverManager.getConnection(url);
    try (Statement st = c.createStatement()) {
      st.execute("SET TimeZone = 'UTC'");
      st.execute("SET client_min_messages = warning");
      st.execute("SET extra_float_digits = 1");
    }
    return c;
  }

  static void createFixtures(Connection pg) throws SQLException {
    try (Statement st = pg.createStatement()) {
      st.execute("CREATE EXTENSION IF NOT EXISTS parallel_export_parquet");
      st.execute("DROP SCHEMA IF EXISTS " + S + " CASCADE");
      st.execute("CREATE SCHEMA " + S);
      st.execute("CREATE TYPE " + S + ".mood AS ENUM ('sad', 'happy', 'ünï')");
      st.execute("CREATE DOMAIN " + S + ".posint AS integer CHECK (VALUE > 0)");
      st.execute("CREATE TYPE " + S + ".inner AS (x integer, y text[])");
      st.execute(
          "CREATE TYPE "
              + S
              + ".comp AS (a integer, b text, c numeric(10,2)[], d "
              + S
              + ".inner)");
      StringBuilder cols = new StringBuilder("id integer");
      int n = 0;
      for (Case c : CASES) {
        cols.append(", v_").append(c.name).append(' ').append(c.pgType);
        cols.append(", a_").append(c.name).append(' ').append(c.pgType).append("[]");
        n = Math.max(n, c.values.size());
      }
      st.execute("CREATE TABLE " + S + ".t (" + cols + ")");
      for (int row = 1; row <= n + 4; row++) {
        StringBuilder vals = new StringBuilder(Integer.toString(row));
        for (Case c : CASES) {
          String v = "NULL";
          String a = "NULL";
          String cast = "::" + c.pgType;
          if (row <= c.values.size()) {
            v = "(" + c.values.get(row - 1) + ")" + cast;
          } else if (row == n + 2) {
            List<String> all = new ArrayList<>();
            for (String value : c.values) {
              all.add("(" + value + ")" + cast);
            }
            a = "ARRAY[" + String.join(", ", all) + "]";
          } else if (row == n + 3) {
            a = "'{}'";
          } else if (row == n + 4) {
            a = "ARRAY[NULL, (" + c.values.get(0) + ")" + cast + ", NULL]";
          }
          vals.append(", ").append(v).append(", ").append(a).append(cast).append("[]");
        }
        st.execute("INSERT INTO " + S + ".t VALUES (" + vals + ")");
      }
    }
  }

  @Test
  void everyTypeAndItsArrayOnUtf8() throws Exception {
    roundTrip("utf8");
  }

  @Test
  void everyTypeAndItsArrayOnLatin1() throws Exception {
    roundTrip("latin1");
  }

  private void roundTrip(String db) throws Exception {
    Path dir = Env.exportDir("types-" + db);
    try (Connection pg = connect(urls.get(db))) {
      try (Statement st = pg.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT pg_encoding_to_char(encoding) FROM pg_database"
                      + " WHERE datname = current_database()")) {
        rs.next();
        assertEquals(db.equals("utf8") ? "UTF8" : "LATIN1", rs.getString(1));
      }
      long rows = Env.export(pg, S + ".t", dir, 2);
      Env.assertLayout(duck, dir, 1, 2, rows);
      org.junit.jupiter.api.Assertions.assertAll(valueChecks(pg, dir, db, CASES));
      checkWithParquetJava(dir, pg);
    }
    Env.discard(dir);
  }

  /** PostgreSQL and DuckDB over dir, value by value, for every column of the cases. */
  private List<Executable> valueChecks(Connection pg, Path dir, String label, List<Case> cases)
      throws SQLException {
    List<Executable> checks = new ArrayList<>();
    for (Case c : cases) {
      Map<Integer, String> pv = pgScalar(pg, c);
      Map<Integer, String> dv = duckScalar(dir, c);
      checks.add(() -> assertEquals(pv, dv, label + ": v_" + c.name));
      Map<Integer, List<String>> pa = pgArray(pg, c);
      Map<Integer, List<String>> da = duckArray(dir, c);
      checks.add(() -> assertEquals(pa, da, label + ": a_" + c.name));
    }
    return checks;
  }

  /**
   * compatibility => 'spark': uuid, time and timetz (and their arrays) are STRING columns holding
   * PostgreSQL's text of every value, every other column is exactly what the faithful export
   * writes, value by value, and each part's footer names the profile.
   */
  @Test
  void everyTypeAndItsArrayWithTheSparkProfile() throws Exception {
    Path faithful = Env.exportDir("types-none");
    Path spark = Env.exportDir("types-spark");
    try (Connection pg = connect(urls.get("utf8"))) {
      long rows = Env.export(pg, S + ".t", faithful, 1);
      assertEquals(rows, Env.export(pg, S + ".t", spark, 2, "compatibility => 'spark'"));
      Env.assertLayout(duck, spark, 1, 2, rows);
      List<Case> cases = new ArrayList<>();
      for (Case c : CASES) {
        cases.add(SPARK_AS_TEXT.contains(c.name) ? asText(c) : c);
      }
      List<Executable> checks = valueChecks(pg, spark, "spark", cases);
      Map<String, String> want = Env.readerTypes(duck, faithful);
      assertTrue(
          SPARK_AS_TEXT.stream().allMatch(n -> !want.get("v_" + n).equals("VARCHAR")),
          "premise: the faithful export writes these types as something other than text: " + want);
      for (String n : SPARK_AS_TEXT) {
        want.put("v_" + n, "VARCHAR");
        want.put("a_" + n, "VARCHAR[]");
      }
      Map<String, String> got = Env.readerTypes(duck, spark);
      checks.add(() -> assertEquals(want, got, "spark: the column types"));
      checks.add(() -> assertEquals("none", compatibilityOf(faithful)));
      checks.add(() -> assertEquals("spark", compatibilityOf(spark)));
      org.junit.jupiter.api.Assertions.assertAll(checks);
    }
    Env.discard(faithful);
    Env.discard(spark);
  }

  /** The profile reaches these types inside composites and through domains too. */
  @Test
  void theSparkProfileReachesCompositeFieldsAndDomains() throws Exception {
    Path dir = Env.exportDir("types-spark-nested");
    try (Connection pg = connect(urls.get("utf8"));
        Statement st = pg.createStatement()) {
      st.execute("CREATE TYPE " + S + ".spark_inner AS (u uuid, t time[], tz timetz)");
      st.execute("CREATE DOMAIN " + S + ".spark_uuid AS uuid");
      String row =
          "SELECT 1 AS id, ROW('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{24:00:00,NULL}',"
              + " '23:59:59.999999-15:59')::"
              + S
              + ".spark_inner AS c, 'ffffffff-ffff-ffff-ffff-ffffffffffff'::"
              + S
              + ".spark_uuid AS d";
      assertEquals(1, Env.export(pg, row, dir, 1, "compatibility => 'spark'"));
      Map<String, String> types = Env.readerTypes(duck, dir);
      assertEquals("STRUCT(u VARCHAR, t VARCHAR[], tz VARCHAR)", types.get("c"));
      assertEquals("VARCHAR", types.get("d"));
      try (Statement ds = duck.createStatement();
          ResultSet rs =
              ds.executeQuery(
                  "SELECT c.u, CAST(c.t AS VARCHAR), c.tz, d FROM read_parquet("
                      + Env.glob(dir)
                      + ")")) {
        rs.next();
        assertEquals("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", rs.getString(1));
        assertEquals("['24:00:00', NULL]", rs.getString(2));
        assertEquals("23:59:59.999999-15:59", rs.getString(3));
        assertEquals("ffffffff-ffff-ffff-ffff-ffffffffffff", rs.getString(4));
      }
    }
    Env.discard(dir);
  }

  /** The reader profile every part of an export names in its footer; fails if they disagree. */
  private String compatibilityOf(Path dir) throws SQLException {
    List<String> values = new ArrayList<>();
    try (Statement st = duck.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT DISTINCT decode(value) FROM parquet_kv_metadata("
                    + Env.glob(dir)
                    + ") WHERE decode(key) = 'parallel_export_parquet.compatibility'")) {
      while (rs.next()) {
        values.add(rs.getString(1));
      }
    }
    assertEquals(1, values.size(), dir + ": " + values);
    return values.get(0);
  }

  private static String pgCell(Case c, String x) {
    return "CASE WHEN num_nulls("
        + x
        + ") = 1 THEN NULL ELSE "
        + String.format(c.pgText, x)
        + " END";
  }

  private static String duckCell(Case c, String x) {
    return "CASE WHEN " + x + " IS NULL THEN NULL ELSE " + String.format(c.duckText, x) + " END";
  }

  static Map<Integer, String> pgScalar(Connection pg, Case c) throws SQLException {
    return scalars(pg, "SELECT id, " + pgCell(c, "t.v_" + c.name) + " FROM " + S + ".t t", c);
  }

  private Map<Integer, String> duckScalar(Path dir, Case c) throws SQLException {
    return scalars(
        duck,
        "SELECT id, "
            + duckCell(c, "s.v_" + c.name)
            + " FROM read_parquet("
            + Env.glob(dir)
            + ") s",
        c);
  }

  private static Map<Integer, String> scalars(Connection conn, String sql, Case c)
      throws SQLException {
    Map<Integer, String> out = new TreeMap<>();
    try (Statement st = conn.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        String v = rs.getString(2);
        out.put(rs.getInt(1), v == null ? null : c.norm.apply(v));
      }
    }
    return out;
  }

  static Map<Integer, List<String>> pgArray(Connection pg, Case c) throws SQLException {
    String a = "t.a_" + c.name;
    return arrays(
        pg,
        "SELECT id, CASE WHEN "
            + a
            + " IS NULL THEN NULL ELSE ARRAY(SELECT "
            + pgCell(c, a + "[i]")
            + " FROM generate_subscripts("
            + a
            + ", 1) i ORDER BY i)"
            + "::text[] END FROM "
            + S
            + ".t t",
        c);
  }

  private Map<Integer, List<String>> duckArray(Path dir, Case c) throws SQLException {
    String a = "s.a_" + c.name;
    return arrays(
        duck,
        "SELECT id, CAST(list_transform("
            + a
            + ", lambda e: "
            + duckCell(c, "e")
            + ") AS VARCHAR[]) FROM read_parquet("
            + Env.glob(dir)
            + ") s",
        c);
  }

  private static Map<Integer, List<String>> arrays(Connection conn, String sql, Case c)
      throws SQLException {
    Map<Integer, List<String>> out = new TreeMap<>();
    try (Statement st = conn.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        Array arr = rs.getArray(2);
        if (arr == null) {
          out.put(rs.getInt(1), null);
          continue;
        }
        List<String> list = new ArrayList<>();
        for (Object o : (Object[]) arr.getArray()) {
          list.add(o == null ? null : c.norm.apply(o.toString()));
        }
        out.put(rs.getInt(1), list);
      }
    }
    return out;
  }

  /** parquet-java's reader: schema shapes, and raw values DuckDB converts before showing. */
  private void checkWithParquetJava(Path dir, Connection pg) throws Exception {
    List<Group> rows = new ArrayList<>();
    MessageType schema = null;
    for (Path part : Env.assertLayout(duck, dir, 1, 2, rowCount(pg))) {
      // A local InputFile, not Hadoop's FileSystem, which fails on JDK 23 and later.
      try (ParquetReader<Group> reader =
          new ParquetReader.Builder<Group>(
              new LocalInputFile(part), new PlainParquetConfiguration()) {
            @Override
            protected ReadSupport<Group> getReadSupport() {
              return new GroupReadSupport();
            }
          }.build()) {
        for (Group g = reader.read(); g != null; g = reader.read()) {
          rows.add(g);
          schema = (MessageType) g.getType();
        }
      }
    }
    assertTrue(schema != null, dir + ": no rows");
    // 3-level lists named as the spec says
    GroupType list = schema.getType("a_int4").asGroupType();
    assertEquals(LogicalTypeAnnotation.listType(), list.getLogicalTypeAnnotation());
    GroupType repeated = list.getType(0).asGroupType();
    assertEquals("list", repeated.getName());
    assertEquals(Type.Repetition.REPEATED, repeated.getRepetition());
    assertEquals("element", repeated.getType(0).getName());
    assertEquals(Type.Repetition.OPTIONAL, repeated.getType(0).getRepetition());
    assertEquals(
        LogicalTypeAnnotation.intType(32, false),
        schema.getType("v_oid").getLogicalTypeAnnotation());
    assertEquals(
        LogicalTypeAnnotation.timeType(true, LogicalTypeAnnotation.TimeUnit.MICROS),
        schema.getType("v_timetz").getLogicalTypeAnnotation());
    assertEquals(
        LogicalTypeAnnotation.enumType(), schema.getType("v_mood").getLogicalTypeAnnotation());
    GroupType interval = schema.getType("v_interval").asGroupType();
    assertEquals("months", interval.getType(0).getName());
    assertEquals(
        PrimitiveType.PrimitiveTypeName.INT64,
        interval.getType(2).asPrimitiveType().getPrimitiveTypeName());
    GroupType comp = schema.getType("v_comp").asGroupType();
    assertEquals(
        Arrays.asList("a", "b", "c", "d"), comp.getFields().stream().map(Type::getName).toList());

    Map<Integer, Group> byId = new TreeMap<>();
    for (Group g : rows) {
      byId.put(g.getInteger("id", 0), g);
    }
    // oid 4294967295 is the INT32 bit pattern -1 under INTEGER(32, unsigned)
    assertEquals(-1, byId.get(4).getInteger("v_oid", 0));
    // time 24:00:00 is 86400000000 microseconds, not 0
    assertEquals(86_400_000_000L, byId.get(3).getLong("v_time", 0));
    // a timestamp far from the epoch, as plain microseconds, equal to PostgreSQL's count
    try (Statement st = pg.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT (extract(epoch FROM v_ts) * 1000000)::bigint FROM "
                    + S
                    + ".t WHERE id = 7")) {
      rs.next();
      assertEquals(rs.getLong(1), byId.get(7).getLong("v_ts", 0));
    }
    // interval fields exactly as PostgreSQL keeps them
    Group iv = byId.get(1).getGroup("v_interval", 0);
    assertEquals(14, iv.getInteger("months", 0));
    assertEquals(-3, iv.getInteger("days", 0));
    assertEquals(14_706_789_000L, iv.getLong("microseconds", 0));
    // NULL array, empty array, NULL elements
    int n = 0;
    for (Case c : CASES) {
      n = Math.max(n, c.values.size());
    }
    assertEquals(0, byId.get(n + 1).getFieldRepetitionCount("a_int4"));
    Group empty = byId.get(n + 3).getGroup("a_int4", 0);
    assertEquals(0, empty.getFieldRepetitionCount("list"));
    Group withNulls = byId.get(n + 4).getGroup("a_int4", 0);
    assertEquals(3, withNulls.getFieldRepetitionCount("list"));
    assertEquals(0, withNulls.getGroup("list", 0).getFieldRepetitionCount("element"));
    assertEquals(-2147483648, withNulls.getGroup("list", 1).getInteger("element", 0));
    assertEquals(0, withNulls.getGroup("list", 2).getFieldRepetitionCount("element"));
    // a struct whose fields are all NULL is a present group with no fields
    Group allNull = byId.get(2).getGroup("v_comp", 0);
    for (int f = 0; f < 4; f++) {
      assertEquals(0, allNull.getFieldRepetitionCount(f));
    }
  }

  private static long rowCount(Connection pg) throws SQLException {
    try (Statement st = pg.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM " + S + ".t")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  // ---- what is refused, and how ----

  private static SQLException exportFails(Connection pg, String query, String name)
      throws SQLException {
    Path dir = Env.exportDir("refused-" + name);
    return assertThrows(SQLException.class, () -> Env.export(pg, query, dir, 1));
  }

  @Test
  void valuesParquetCannotHoldAreRefusedNamingTheColumn() throws SQLException {
    try (Connection pg = connect(urls.get("utf8"))) {
      String[][] cases = {
        {"SELECT 'infinity'::date AS d_inf", "d_inf"},
        {"SELECT '-infinity'::timestamp AS ts_inf", "ts_inf"},
        {"SELECT 'infinity'::timestamptz AS tstz_inf", "tstz_inf"},
        {"SELECT ARRAY['infinity'::date] AS da_inf", "da_inf"},
        {"SELECT 'NaN'::numeric(10,2) AS n_nan", "n_nan"},
        {"SELECT '{{1,2},{3,4}}'::int[] AS md", "md"},
        {"SELECT '[0:1]={1,2}'::int[] AS lb", "lb"},
      };
      for (String[] c : cases) {
        SQLException e = exportFails(pg, c[0], c[1]);
        assertTrue(
            e.getMessage().contains("\"" + c[1] + "\""),
            c[0] + ": message does not name the column: " + e.getMessage());
      }
      assertTrue(
          exportFails(pg, "SELECT 'NaN'::numeric(10,2) AS n_nan", "nan2")
              .getMessage()
              .contains("NaN"));
      assertTrue(
          exportFails(pg, "SELECT '{{1,2},{3,4}}'::int[] AS md", "md2")
              .getMessage()
              .contains("2-dimensional"));
      assertTrue(
          exportFails(pg, "SELECT '[0:1]={1,2}'::int[] AS lb", "lb2")
              .getMessage()
              .contains("lower bound 0"));
    }
  }

  @Test
  void sqlAsciiDatabaseExportsUtf8AndRefusesInvalidBytes() throws SQLException {
    try (Connection pg = connect(databaseUrl(SQL_ASCII_DB));
        Statement st = pg.createStatement()) {
      st.execute("CREATE EXTENSION IF NOT EXISTS parallel_export_parquet");
      // valid UTF-8 bytes pass through unchanged
      Path dir = Env.exportDir("sqlascii-ok");
      Env.export(pg, "SELECT E'\\xc3\\xbc' AS u, ARRAY[E'\\xc3\\xa4'] AS ua", dir, 1);
      try (Statement ds = duck.createStatement();
          ResultSet rs =
              ds.executeQuery("SELECT u, ua[1] FROM read_parquet(" + Env.glob(dir) + ")")) {
        rs.next();
        assertEquals("ü", rs.getString(1));
        assertEquals("ä", rs.getString(2));
      }
      Env.discard(dir);
      SQLException e = exportFails(pg, "SELECT E'abc\\xff' AS bad", "sqlascii-bad");
      assertTrue(e.getMessage().contains("invalid UTF-8 in column \"bad\""), e.getMessage());
      e = exportFails(pg, "SELECT ARRAY['ok', E'\\xff'] AS bad_arr", "sqlascii-bad-arr");
      assertTrue(e.getMessage().contains("\"bad_arr\""), e.getMessage());
    }
  }

  @Test
  void largeValuesRoundTrip() throws SQLException {
    try (Connection pg = connect(urls.get("utf8"));
        Statement st = pg.createStatement()) {
      st.execute("DROP TABLE IF EXISTS " + S + ".big");
      st.execute("CREATE TABLE " + S + ".big (id integer, t text, b bytea)");
      // 1 MB of text, compressed by TOAST; 100 MB of bytea, in a TOAST table
      st.execute(
          "INSERT INTO "
              + S
              + ".big VALUES (1, repeat('0123456789abcdé', 65536), NULL),"
              + " (2, NULL, convert_to(repeat(md5('x'), 100 * 1024 * 1024 / 32), 'UTF8'))");
      // parquet-java holds a value several times (page buffer, compression, dictionary attempt):
      // 100 MB needs a bigger heap than the default -Xmx512m (which is not enough)
      st.execute(
          "SET parallel_export_parquet.jvm_options = '-Xmx1g -Xss2m -XX:+UseSerialGC"
              + " -XX:-UsePerfData'");
      Path dir = Env.exportDir("large");
      assertEquals(2, Env.export(pg, S + ".big", dir, 1));
      Map<Integer, String> pgSums = new TreeMap<>();
      try (ResultSet rs =
          st.executeQuery(
              "SELECT id, md5(t), md5(b), octet_length(t), octet_length(b) FROM " + S + ".big")) {
        while (rs.next()) {
          pgSums.put(
              rs.getInt(1), rs.getString(2) + rs.getString(3) + rs.getLong(4) + rs.getLong(5));
        }
      }
      Map<Integer, String> duckSums = new TreeMap<>();
      try (Statement ds = duck.createStatement();
          ResultSet rs =
              ds.executeQuery(
                  "SELECT id, md5(t), md5(b), octet_length(encode(t)), octet_length(b) FROM"
                      + " read_parquet("
                      + Env.glob(dir)
                      + ")")) {
        while (rs.next()) {
          duckSums.put(
              rs.getInt(1), rs.getString(2) + rs.getString(3) + rs.getLong(4) + rs.getLong(5));
        }
      }
      assertEquals(pgSums, duckSums);
      assertTrue(pgSums.get(2).contains("104857600"), pgSums.toString());
      Env.discard(dir);
    }
  }

  @Test
  void fileMetadataNamesTheWriter() throws SQLException {
    try (Connection pg = connect(urls.get("utf8"))) {
      Path dir = Env.exportDir("metadata");
      Env.export(pg, "SELECT 1::oid AS o, ARRAY[1] AS a", dir, 1);
      Path part = dir.resolve("part-00000.parquet");
      try (Statement st = duck.createStatement()) {
        try (ResultSet rs =
            st.executeQuery(
                "SELECT created_by FROM parquet_file_metadata("
                    + Env.sqlString(part.toString())
                    + ")")) {
          rs.next();
          assertEquals(
              "parallel_export_parquet version 1.2 (build parquet-java "
                  + Version.VERSION_NUMBER
                  + ")",
              rs.getString(1));
        }
        Map<String, String> kv = new TreeMap<>();
        try (ResultSet rs =
            st.executeQuery(
                "SELECT decode(key), decode(value) FROM parquet_kv_metadata("
                    + Env.sqlString(part.toString())
                    + ")")) {
          while (rs.next()) {
            kv.put(rs.getString(1), rs.getString(2));
          }
        }
        assertTrue(
            kv.get("parallel_export_parquet.version").startsWith("parallel_export_parquet "),
            kv.toString());
        assertEquals(
            "{\"o\":\"oid\",\"a\":\"integer[]\"}", kv.get("parallel_export_parquet.pg_types"));
        assertTrue(kv.get("parquet.avro.schema").contains("\"type\":\"array\""), kv.toString());
      }
      Env.discard(dir);
    }
  }
}
