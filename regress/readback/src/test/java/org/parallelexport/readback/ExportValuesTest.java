package org.parallelexport.readback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Exports read back value by value: for each source and 1, 2 and 4 workers, the rows DuckDB reads
 * from the parts equal {@code SELECT * FROM source} in PostgreSQL as a multiset, and the directory
 * holds the parts and their _SUCCESS manifest. Also: an export in a transaction with its own
 * uncommitted inserts, updates and deletes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExportValuesTest {
  private static final String S = Fixtures.SCHEMA;

  /** label, the export's source argument, an equivalent SELECT * FROM source. */
  record Source(String label, String arg, String select) {}

  static final List<Source> SOURCES =
      List.of(
          new Source("table", S + ".alltypes", "SELECT * FROM " + S + ".alltypes"),
          new Source("partitioned", S + ".part", "SELECT * FROM " + S + ".part"),
          new Source("view", S + ".alltypes_v", "SELECT * FROM " + S + ".alltypes_v"),
          new Source(
              "query",
              "SELECT id, c_int4, c_float8, c_num, c_text, c_tstz, c_uuid, c_jsonb,"
                  + " c_int8 % 1000 AS c_int8_mod, upper(c_text) AS \"Upper Text\""
                  + " FROM "
                  + S
                  + ".alltypes WHERE id % 3 = 0 OR c_int4 IS NULL",
              null));

  private Connection pg;
  private Connection duck;
  private final Map<String, Rows> expected = new HashMap<>();
  private final Map<String, List<Rows.Column>> columns = new HashMap<>();

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

  static Stream<Arguments> sourcesAndWorkers() {
    return SOURCES.stream().flatMap(s -> Stream.of(1, 2, 4).map(w -> Arguments.of(s.label(), w)));
  }

  private Source source(String label) {
    return SOURCES.stream().filter(s -> s.label().equals(label)).findFirst().orElseThrow();
  }

  private static String selectOf(Source s) {
    return s.select() != null ? s.select() : s.arg();
  }

  @ParameterizedTest(name = "{0}, {1} workers")
  @MethodSource("sourcesAndWorkers")
  void exportEqualsSelectStar(String label, int workers) throws SQLException {
    Env.discard(exportAndCompare(label, workers, "", label + "-w" + workers));
  }

  /**
   * brotli, which only some readers decode (docs/types.md), at its default level: DuckDB reads
   * every value of every type back, and the pages are brotli's. The level changes only how hard the
   * encoder searches, not what a reader decodes; OptionsTest reads back level 0 and level 11 (which
   * costs minutes on this table, not seconds).
   */
  @Test
  void brotliExportEqualsSelectStar() throws SQLException {
    Path dir = exportAndCompare("table", 2, "compression => 'brotli'", "brotli");
    try (Statement st = duck.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT DISTINCT compression FROM parquet_metadata(" + Env.glob(dir) + ")")) {
      assertTrue(rs.next());
      assertEquals("BROTLI", rs.getString(1));
      assertFalse(rs.next(), "a column chunk of another codec");
    }
    Env.discard(dir);
  }

  /** Exports source label with options; its rows read by DuckDB equal SELECT * in PostgreSQL. */
  private Path exportAndCompare(String label, int workers, String options, String dirName)
      throws SQLException {
    Source s = source(label);
    String select = selectOf(s);
    List<Rows.Column> cols = columns.get(label);
    if (cols == null) {
      cols = Rows.columnsOf(pg, select);
      columns.put(label, cols);
      expected.put(label, Rows.fromPostgres(pg, select, cols));
    }
    Rows want = expected.get(label);
    Path dir = Env.exportDir(dirName);
    long n = Env.export(pg, s.arg(), dir, workers, options);
    assertEquals(want.size(), n, "returned row count");
    Env.assertLayout(duck, dir, 1, workers, want.size());
    Rows.assertSameRows(
        want, Rows.fromParquet(duck, dir, cols), label + ", " + workers + " workers " + options);
    return dir;
  }

  /**
   * A 200k-row query with 4 workers: the caller deals its rows round-robin in 64 kB chunks, so each
   * worker writes one part. Of a table's shared heap scan a worker gets what it takes while it
   * runs, so how many workers write parts is not certain: eight 4-worker exports of a 1100-block
   * table gave 2, 4, 4, 4, 4, 2, 4 and 3 parts.
   */
  @Test
  void queryExportSpreadsOverWorkers() throws SQLException {
    Path dir = Env.exportDir("spread-w4");
    long n = Env.export(pg, "SELECT * FROM " + S + ".alltypes", dir, 4);
    assertEquals(200000, n);
    Env.assertLayout(duck, dir, 4, 4, 200000);
    Env.discard(dir);
  }

  /**
   * In a transaction: insert, update and delete rows of a committed table, export, and compare the
   * export with SELECT * in the same transaction; every id once; then roll back.
   */
  @Test
  void exportSeesOwnUncommittedChanges() throws SQLException {
    String t = S + ".txn_base";
    try (Connection tx = Env.postgres()) {
      tx.setAutoCommit(false);
      try (Statement st = tx.createStatement()) {
        st.executeUpdate(
            "INSERT INTO "
                + t
                + " SELECT id + 1000000, c_bool, c_int2, c_int4, c_int8, c_float4,"
                + " c_float8, c_num, c_num_small, c_num38, c_num_free, 'inserted', c_varchar,"
                + " c_char, c_name, c_bytea, c_date, c_time, c_ts, c_tstz, c_uuid, c_json,"
                + " c_jsonb, c_interval, c_int4_arr, c_inet FROM "
                + S
                + ".alltypes"
                + " WHERE id BETWEEN 100001 AND 100500");
        st.executeUpdate(
            "UPDATE "
                + t
                + " SET c_text = 'updated', c_int4 = -c_int4 WHERE id BETWEEN 5001 AND 5300");
        st.executeUpdate("DELETE FROM " + t + " WHERE id BETWEEN 9001 AND 9200");
        String select = "SELECT * FROM " + t;
        List<Rows.Column> cols = Rows.columnsOf(tx, select);
        Rows want = Rows.fromPostgres(tx, select, cols);
        assertEquals(20000 + 500 - 200, want.size());
        Path dir = Env.exportDir("txn-w4");
        long n = Env.export(tx, t, dir, 4);
        assertEquals(want.size(), n, "returned row count");
        Env.assertLayout(duck, dir, 1, 4, n);
        Rows got = Rows.fromParquet(duck, dir, cols);
        List<String> ids = got.column("id");
        assertEquals(ids.size(), new HashSet<>(ids).size(), "an id appears more than once");
        assertTrue(ids.stream().noneMatch(Objects::isNull));
        Rows.assertSameRows(want, got, "in-transaction export");
        Env.discard(dir);
      } finally {
        tx.rollback();
      }
    }
    try (Statement st = pg.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT count(*), count(*) FILTER (WHERE c_text = 'updated') FROM " + t)) {
      rs.next();
      assertEquals(20000, rs.getLong(1), "rollback restored the table");
      assertEquals(0, rs.getLong(2), "rollback restored the table");
    }
  }
}
