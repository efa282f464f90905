package org.parallelexport.readback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Multi-dimensional arrays: a column declared with N dimensions is N nested Parquet LISTs, read
 * back by DuckDB as such and compared with PostgreSQL value by value (both sides render a row as
 * JSON: array_to_json in PostgreSQL, to_json in DuckDB), from a table, through a view and from a
 * query; values of other dimensions or other lower bounds are refused naming the column.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MultiDimArraysTest {
  private static final String T = "regress_md";
  private static final String PG_JSON =
      "SELECT id, array_to_json(a)::text, array_to_json(t)::text, array_to_json(c)::text,"
          + " array_to_json(one)::text FROM ";
  private static final String DUCK_JSON =
      "SELECT id, to_json(a)::VARCHAR, to_json(t)::VARCHAR, to_json(c)::VARCHAR,"
          + " to_json(one)::VARCHAR FROM read_parquet(%s)";
  private Connection pg;
  private Connection duck;

  @BeforeAll
  void setUp() throws SQLException {
    pg = Env.postgres();
    duck = Env.duckdb();
    Env.ensureExtension(pg);
    try (Statement st = pg.createStatement()) {
      st.execute("DROP VIEW IF EXISTS " + T + "_v");
      st.execute("DROP TABLE IF EXISTS " + T + ", " + T + "_bad, " + T + "_dom");
      st.execute("DROP TYPE IF EXISTS " + T + "_pair");
      st.execute("DROP DOMAIN IF EXISTS " + T + "_grid");
      st.execute("CREATE TYPE " + T + "_pair AS (k integer, v integer[][])");
      st.execute(
          "CREATE TABLE "
              + T
              + " (id integer, a integer[][], t text[][][], c "
              + T
              + "_pair[][], one integer[])");
      st.execute(
          "INSERT INTO "
              + T
              + " VALUES"
              + " (1, '{{1,2,3},{4,NULL,-2147483648}}', '{{{a,b},{c,d}},{{e,NULL},{\"\",ü}}}',"
              + "  ARRAY[ARRAY[ROW(1, '{{1,2},{3,4}}')::"
              + T
              + "_pair, ROW(2, NULL)::"
              + T
              + "_pair]], '{1,NULL}'),"
              + " (2, '{}', '{}', '{}', '{}'),"
              + " (3, NULL, NULL, NULL, NULL),"
              + " (4, '{{7}}', '{{{x}}}', ARRAY[ARRAY[NULL::"
              + T
              + "_pair]], '{NULL}'),"
              + " (5, '{{1},{2},{3}}', '{{{\"a b\",\"c,d\"}}}', ARRAY[ARRAY[ROW(NULL, '{}')::"
              + T
              + "_pair]], '{2147483647}')");
      st.execute("CREATE VIEW " + T + "_v AS SELECT * FROM " + T);
    }
  }

  @AfterAll
  void tearDown() throws SQLException {
    try (Statement st = pg.createStatement()) {
      st.execute("DROP VIEW IF EXISTS " + T + "_v");
      st.execute("DROP TABLE IF EXISTS " + T + ", " + T + "_bad, " + T + "_dom");
      st.execute("DROP TYPE IF EXISTS " + T + "_pair");
      st.execute("DROP DOMAIN IF EXISTS " + T + "_grid");
    }
    pg.close();
    duck.close();
  }

  private Map<Integer, String> rows(Connection conn, String sql) throws SQLException {
    Map<Integer, String> rows = new LinkedHashMap<>();
    try (Statement st = conn.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder b = new StringBuilder();
        for (int i = 2; i <= n; i++) {
          b.append(rs.getString(i)).append(" | ");
        }
        rows.put(rs.getInt(1), b.toString());
      }
    }
    return rows;
  }

  private void assertSameAsTable(Path dir) throws SQLException {
    Map<Integer, String> expected = rows(pg, PG_JSON + T + " ORDER BY id");
    Map<Integer, String> actual =
        rows(duck, String.format(DUCK_JSON, Env.glob(dir)) + " ORDER BY id");
    assertEquals(5, expected.size(), "premise: the fixture has 5 rows");
    assertEquals(expected, actual);
  }

  @Test
  void tableColumnsNestAsDeclared() throws SQLException {
    Path dir = Env.exportDir("md-table");
    assertEquals(5, Env.export(pg, T, dir, 2));
    assertSameAsTable(dir);
    Map<String, String> types = Env.readerTypes(duck, dir);
    assertEquals("INTEGER[][]", types.get("a"));
    assertEquals("VARCHAR[][][]", types.get("t"));
    assertEquals("STRUCT(k INTEGER, v INTEGER[][])[][]", types.get("c"));
    assertEquals("INTEGER[]", types.get("one"));
    // Three-level lists at every depth: a LIST group, a repeated "list", an "element".
    Path part = dir.resolve("part-00000.parquet");
    try (Statement st = duck.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT count(*) FILTER (WHERE name = 'list' AND repetition_type = 'REPEATED'),"
                    + " count(*) FILTER (WHERE converted_type = 'LIST')"
                    + " FROM parquet_schema("
                    + Env.sqlString(part.toString())
                    + ")")) {
      rs.next();
      // a: 2, t: 3, c: 2 + its field v: 2, one: 1
      assertEquals(10, rs.getInt(1));
      assertEquals(10, rs.getInt(2));
    }
    Env.discard(dir);
  }

  @Test
  void viewAndQueryColumnsNestLikeTheirTable() throws SQLException {
    Path view = Env.exportDir("md-view");
    assertEquals(5, Env.export(pg, T + "_v", view, 2));
    assertSameAsTable(view);
    Env.discard(view);

    Path query = Env.exportDir("md-query");
    assertEquals(
        5, Env.export(pg, "SELECT id, a, t, c, one FROM " + T + "_v WHERE true", query, 1));
    assertSameAsTable(query);
    Env.discard(query);
  }

  @Test
  void aDomainOverAnArrayNestsAsTheDomainIsDeclared() throws SQLException {
    try (Statement st = pg.createStatement()) {
      st.execute("CREATE DOMAIN " + T + "_grid AS integer[][] CHECK (VALUE IS DISTINCT FROM '{}')");
      st.execute("CREATE TABLE " + T + "_dom (id integer, g " + T + "_grid)");
      st.execute("INSERT INTO " + T + "_dom VALUES (1, '{{1,2},{3,NULL}}'), (2, NULL)");
    }
    Path dir = Env.exportDir("md-domain");
    assertEquals(2, Env.export(pg, T + "_dom", dir, 1));
    assertEquals("INTEGER[][]", Env.readerTypes(duck, dir).get("g"));
    assertEquals(
        rows(pg, "SELECT id, array_to_json(g)::text FROM " + T + "_dom ORDER BY id"),
        rows(
            duck,
            "SELECT id, to_json(g)::VARCHAR FROM read_parquet(" + Env.glob(dir) + ") ORDER BY id"));
    Env.discard(dir);
  }

  @Test
  void otherShapesAreRefusedNamingTheColumn() throws SQLException {
    try (Statement st = pg.createStatement()) {
      st.execute("CREATE TABLE " + T + "_bad (id integer, a integer[][])");
      st.execute("INSERT INTO " + T + "_bad VALUES (1, '{{1,2}}')");
    }
    // control: the table exports while its values have the declared dimensions
    Path ok = Env.exportDir("md-bad-control");
    assertEquals(1, Env.export(pg, T + "_bad", ok, 1));
    Env.discard(ok);

    String[][] cases = {
      {"INSERT INTO " + T + "_bad VALUES (2, '{1,2}')", "1-dimensional array in column \"a\""},
      {"UPDATE " + T + "_bad SET a = '[1:1][0:1]={{1,2}}'", "lower bound 0 in column \"a\""},
    };
    for (String[] c : cases) {
      try (Statement st = pg.createStatement()) {
        st.execute("TRUNCATE " + T + "_bad");
        st.execute("INSERT INTO " + T + "_bad VALUES (1, '{{1,2}}')");
        st.execute(c[0]);
      }
      Path dir = Env.exportDir("md-bad");
      SQLException e = assertThrows(SQLException.class, () -> Env.export(pg, T + "_bad", dir, 1));
      assertTrue(e.getMessage().contains(c[1]), e.getMessage());
      assertFalse(Files.exists(dir), dir + " must not exist after a refused export");
    }
  }
}
