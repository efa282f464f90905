package org.parallelexport.readback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The unconstrained_numeric option, for numeric without a precision and numeric(p > 38): 'double'
 * gives DOUBLE columns equal bit for bit to PostgreSQL's own numeric-to-float8 cast (NaN and the
 * infinities included), 'decimal(P,S)' gives DECIMAL(P,S) columns with the exact values, and
 * refuses, naming the column, any value that would need rounding or more digits. The default, exact
 * text, is covered by TypesRoundTripTest.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UnconstrainedNumericTest {
  private static final String T = "regress_unum";
  private Connection pg;
  private Connection duck;

  @BeforeAll
  void setUp() throws SQLException {
    pg = Env.postgres();
    duck = Env.duckdb();
    Env.ensureExtension(pg);
    try (Statement st = pg.createStatement()) {
      st.execute("DROP TABLE IF EXISTS " + T);
      st.execute(
          "CREATE TABLE " + T + " (id integer, n numeric, wide numeric(60,20), arr numeric[])");
      st.execute(
          "INSERT INTO "
              + T
              + " VALUES"
              + " (1, 0, 0, '{}'),"
              + "(2, -0.5, 123456789012345678.12345678901234567890, '{1.25,NULL,-3}'),"
              + " (3, 123456789012345678.123456789, -1, '{0.1,0.2,0.3}'),"
              + " (4, 'NaN', NULL, '{NaN,Infinity,-Infinity}'),"
              + " (5, 'Infinity', 1e-20, NULL),"
              + " (6, '-Infinity', 9999999999999999999999999999999999999999.99999999999999999999, '{1e300}'),"
              + " (7, 1e100, NULL, '{1e-300}'),"
              + " (8, 1e-100, NULL, NULL),"
              + " (9, NULL, NULL, '{NULL}'),"
              + " (10, 0.1, 0.3, '{0.30000000000000004}')");
    }
  }

  @AfterAll
  void tearDown() throws SQLException {
    try (Statement st = pg.createStatement()) {
      st.execute("DROP TABLE IF EXISTS " + T);
    }
    pg.close();
    duck.close();
  }

  private long export(String source, Path dir, String choice) throws SQLException {
    return Env.export(pg, source, dir, 1, "unconstrained_numeric => " + Env.sqlString(choice));
  }

  private static String readBack(Path dir) {
    return "SELECT id, n, wide, arr FROM read_parquet(" + Env.glob(dir) + ")";
  }

  /**
   * The rows of {@code sql} (id, two numbers, an array of them) ordered by id, every cell as text:
   * doubles by their bits, so that NaN, -0.0 and rounding all count, decimals without trailing
   * zeros.
   */
  private static List<String> cells(Connection conn, String sql, boolean doubles)
      throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement st = conn.createStatement();
        ResultSet rs = st.executeQuery(sql + " ORDER BY id")) {
      while (rs.next()) {
        StringBuilder b = new StringBuilder().append(rs.getInt(1));
        for (int i = 2; i <= 3; i++) {
          b.append(" | ").append(doubles ? bits(rs.getObject(i)) : decimal(rs.getBigDecimal(i)));
        }
        Array arr = rs.getArray(4);
        b.append(" | ");
        if (arr == null) {
          b.append("null");
        } else {
          List<String> elems = new ArrayList<>();
          for (Object o : (Object[]) arr.getArray()) {
            elems.add(doubles ? bits(o) : decimal((BigDecimal) o));
          }
          b.append(elems);
        }
        out.add(b.toString());
      }
    }
    return out;
  }

  private static String bits(Object o) {
    return o == null
        ? "null"
        : Long.toHexString(Double.doubleToRawLongBits(((Number) o).doubleValue()));
  }

  private static String decimal(BigDecimal d) {
    return d == null ? "null" : d.stripTrailingZeros().toPlainString();
  }

  @Test
  void doubleMatchesPostgresCastBitForBit() throws SQLException {
    Path dir = Env.exportDir("unum-double");
    assertEquals(10, export(T, dir, "double"));
    Map<String, String> types = Env.readerTypes(duck, dir);
    assertEquals("DOUBLE", types.get("n"));
    assertEquals("DOUBLE", types.get("wide"));
    assertEquals("DOUBLE[]", types.get("arr"));
    List<String> expected =
        cells(pg, "SELECT id, n::float8, wide::float8, arr::float8[] FROM " + T, true);
    List<String> actual = cells(duck, readBack(dir), true);
    assertEquals(10, expected.size(), "premise: the fixture has 10 rows");
    assertTrue(expected.toString().contains("7ff8000000000000"), "premise: NaN is among them");
    assertEquals(expected, actual);
    Env.discard(dir);
  }

  @Test
  void decimalKeepsEveryValueThatFitsExactly() throws SQLException {
    String fits = "SELECT id, n, wide, arr FROM " + T + " WHERE id IN (1, 2, 3, 9, 10)";
    Path dir = Env.exportDir("unum-decimal");
    assertEquals(5, export(fits, dir, "decimal(38,20)"));
    Map<String, String> types = Env.readerTypes(duck, dir);
    assertEquals("DECIMAL(38,20)", types.get("n"));
    assertEquals("DECIMAL(38,20)", types.get("wide"));
    assertEquals("DECIMAL(38,20)[]", types.get("arr"));
    List<String> expected = cells(pg, fits, false);
    List<String> actual = cells(duck, readBack(dir), false);
    assertTrue(
        expected.toString().contains("123456789012345678.1234567890123456789"),
        "premise: a value with 20 fraction digits is among them");
    assertEquals(expected, actual);
    Env.discard(dir);
  }

  @Test
  void decimalRefusesWhatWouldNeedRoundingOrMoreDigits() throws SQLException {
    String[][] cases = {
      {"SELECT n FROM " + T + " WHERE id = 8", "decimal(38,9)", "\"n\"", "without rounding"},
      {"SELECT n FROM " + T + " WHERE id = 4", "decimal(38,9)", "\"n\"", "NaN"},
      {"SELECT n FROM " + T + " WHERE id = 7", "decimal(38,9)", "\"n\"", "exceeds the precision"},
      {"SELECT wide FROM " + T + " WHERE id = 6", "decimal(38,20)", "\"wide\"", "exceeds"},
      {"SELECT arr FROM " + T + " WHERE id = 4", "decimal(10,2)", "\"arr\"", "NaN"},
      // up to 18 digits the C side decodes the value; its refusals say the same
      {"SELECT n FROM " + T + " WHERE id = 8", "decimal(10,2)", "\"n\"", "not rounded"},
      {"SELECT n FROM " + T + " WHERE id = 7", "decimal(18,2)", "\"n\"", "more digits than"},
      {"SELECT n FROM " + T + " WHERE id = 3", "decimal(18,9)", "\"n\"", "more digits than"},
      {"SELECT n FROM " + T + " WHERE id = 5", "decimal(18,0)", "\"n\"", "Infinity"},
    };
    for (String[] c : cases) {
      Path dir = Env.exportDir("unum-refused");
      SQLException e = assertThrows(SQLException.class, () -> export(c[0], dir, c[1]));
      assertTrue(e.getMessage().contains(c[2]) && e.getMessage().contains(c[3]), e.getMessage());
      assertFalse(Files.exists(dir), dir + " must not exist after a refused export");
    }
    // control: the same column exports when its values fit
    Path ok = Env.exportDir("unum-refused-control");
    assertEquals(1, export("SELECT n FROM " + T + " WHERE id = 2", ok, "decimal(38,9)"));
    Env.discard(ok);
  }
}
