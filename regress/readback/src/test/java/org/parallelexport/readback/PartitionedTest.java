package org.parallelexport.readback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * partition_by read back through DuckDB's Hive partitioning, value by value against PostgreSQL: one
 * and two levels, NULLs, values that need escapes (slash, equals, percent, space, non-ASCII),
 * dates, timestamps with and without time zone, 1, 2 and 4 workers, table and query sources, and
 * write_partition_columns both ways. Partition columns come back with their types: given to DuckDB
 * as hive_types, and for dates and integers also as DuckDB infers them on its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PartitionedTest {
  private static final String TABLE = "regress_partitioned_t";
  private static final long ROWS = 20_000;
  // Every column as text that both engines print alike: timestamps as epoch microseconds, dates as
  // days since 1970.
  private static final String PG_ROW =
      "id::text, region, (d - date '1970-01-01')::text,"
          + " (extract(epoch FROM ts) * 1000000)::bigint::text,"
          + " (extract(epoch FROM tz) * 1000000)::bigint::text, k::text, payload";
  private static final String DUCK_ROW =
      "CAST(id AS VARCHAR), region, CAST(datediff('day', DATE '1970-01-01', d) AS VARCHAR),"
          + " CAST(epoch_us(ts) AS VARCHAR), CAST(epoch_us(tz) AS VARCHAR), CAST(k AS VARCHAR),"
          + " payload";
  // The partition columns' types, for DuckDB's hive_types.
  private static final java.util.Map<String, String> HIVE_TYPES =
      java.util.Map.of(
          "region", "VARCHAR", "d", "DATE", "ts", "TIMESTAMP", "tz", "TIMESTAMPTZ", "k", "INTEGER");
  private Connection pg;
  private Connection duck;

  @BeforeAll
  void setUp() throws SQLException {
    pg = Env.postgres();
    duck = Env.duckdb();
    Env.ensureExtension(pg);
    try (Statement st = pg.createStatement()) {
      st.execute("DROP TABLE IF EXISTS " + TABLE);
      st.execute(
          "CREATE TABLE "
              + TABLE
              + " AS SELECT g AS id,"
              + " CASE WHEN g % 11 = 0 THEN NULL"
              + " ELSE (ARRAY['eu/west', 'a=b', '50%', 'with space', 'zürich', 'plain'])[g % 6 + 1]"
              + " END AS region,"
              + " date '2026-11-28' + g % 3 AS d,"
              + " timestamp '2026-11-30 12:34:56.789' + (g % 2) * interval '1 hour' AS ts,"
              + " timestamptz '2026-11-30 23:30:00+00' + (g % 2) * interval '1 hour' AS tz,"
              + " (g % 4)::integer AS k, md5(g::text) AS payload"
              + " FROM generate_series(1, "
              + ROWS
              + ") AS g");
    }
  }

  @AfterAll
  void tearDown() throws SQLException {
    try (Statement st = pg.createStatement()) {
      st.execute("DROP TABLE IF EXISTS " + TABLE);
    }
    pg.close();
    duck.close();
  }

  private static List<String> rows(Connection c, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder row = new StringBuilder();
        for (int i = 1; i <= n; i++) {
          row.append(i > 1 ? "|" : "").append(rs.getString(i));
        }
        out.add(row.toString());
      }
    }
    return out;
  }

  /** Equal lists of rows; a failure names the first row that differs, not all of them. */
  private static void assertSameRows(List<String> expected, List<String> actual) {
    assertEquals(expected.size(), actual.size(), "rows DuckDB reads");
    for (int i = 0; i < expected.size(); i++) {
      assertEquals(expected.get(i), actual.get(i), "row " + i + " as DuckDB reads it back");
    }
  }

  private static String hive(Path dir, String... levels) {
    List<String> types = new ArrayList<>();
    for (String level : levels) {
      types.add("'" + level + "': " + HIVE_TYPES.get(level));
    }
    return "read_parquet("
        + Env.sqlString(dir + "/**/*.parquet")
        + ", hive_partitioning = true, hive_types = {"
        + String.join(", ", types)
        + "})";
  }

  /** The relative paths of every part, each under as many folders as there are levels. */
  private static List<Path> parts(Path dir, int levels) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      List<Path> parts =
          walk.filter(p -> Env.PART.matcher(p.getFileName().toString()).matches())
              .map(dir::relativize)
              .toList();
      for (Path part : parts) {
        assertEquals(levels + 1, part.getNameCount(), part + " lies at the wrong depth");
      }
      return parts;
    }
  }

  @ParameterizedTest(name = "{0} by {1}, {2} workers, write_partition_columns {3}")
  @CsvSource({
    "table, region, 1, false",
    "table, 'region,d', 2, false",
    "table, 'region,d', 4, true",
    "query, 'd,ts', 2, false",
    "query, 'tz,k', 4, true",
    "table, k, 2, true",
  })
  void readsBackValueByValue(String source, String by, int workers, boolean inFiles)
      throws SQLException, IOException {
    String[] levels = by.split(",");
    Path dir =
        Env.exportDir("partitioned-" + source + "-" + String.join("-", levels) + "-" + workers);
    String arg = source.equals("table") ? TABLE : "SELECT * FROM " + TABLE + " WHERE id > 0";
    String array = "ARRAY['" + String.join("', '", levels) + "']";
    assertEquals(
        ROWS,
        Env.export(
            pg,
            arg,
            dir,
            workers,
            "partition_by => " + array + ", write_partition_columns => " + inFiles),
        "rows returned");
    assertTrue(Files.exists(dir.resolve("_SUCCESS")), "_SUCCESS at the root");
    assertTrue(parts(dir, levels.length).size() >= 1, "parts in the leaf folders");
    Manifests.assertManifest(duck, dir, ROWS, true);

    assertSameRows(
        rows(pg, "SELECT " + PG_ROW + " FROM " + TABLE + " AS t ORDER BY t.id"),
        rows(duck, "SELECT " + DUCK_ROW + " FROM " + hive(dir, levels) + " AS t ORDER BY t.id"));

    // The files themselves hold the partition columns exactly when asked to.
    List<String> fileColumns =
        rows(
            duck,
            "SELECT DISTINCT name FROM parquet_schema("
                + Env.sqlString(dir + "/**/*.parquet")
                + ") ORDER BY name");
    for (String level : levels) {
      assertEquals(inFiles, fileColumns.contains(level), level + " stored in the files");
    }
  }

  /**
   * The rows a worker holds in its round (pep_route.c: copied as values into an arena of 32 MB,
   * rounds of at most 65,536 rows) come back intact: a query of 150,000 rows, so several rounds,
   * whose first 50 carry 1 MB of text each but every fifth (40 MB), so the first round fills the
   * arena and keeps one row beside it, with NULLs and fixed-length by-reference values (uuid) among
   * them; one worker, so every round is that worker's.
   */
  @Test
  void roundsOfLargeRowsReadBackValueByValue() throws SQLException, IOException {
    Path dir = Env.exportDir("partitioned-rounds");
    String query =
        "SELECT g AS id, (g % 3)::integer AS k,"
            + " CASE WHEN g % 7 = 0 THEN NULL ELSE md5(g::text)::uuid END AS u,"
            + " CASE WHEN g % 5 = 0 THEN NULL WHEN g <= 50 THEN repeat(md5(g::text), 32768)"
            + " ELSE md5(g::text) END AS payload"
            + " FROM generate_series(1, 150000) AS g";
    assertEquals(150_000, Env.export(pg, query, dir, 1, "partition_by => ARRAY['k']"), "rows");
    String row = "CAST(id AS VARCHAR), CAST(k AS VARCHAR), CAST(u AS VARCHAR), md5(payload)";
    assertSameRows(
        rows(
            pg,
            "SELECT id::text, k::text, u::text, md5(payload) FROM ("
                + query
                + ") AS t ORDER BY t.id"),
        rows(duck, "SELECT " + row + " FROM " + hive(dir, "k") + " AS t ORDER BY t.id"));
  }

  @Test
  void duckDbInfersDatesAndIntegersFromTheFolders() throws SQLException {
    Path dir = Env.exportDir("partitioned-infer");
    Env.export(pg, TABLE, dir, 2, "partition_by => ARRAY['d', 'k']");
    assertEquals(
        List.of("DATE|BIGINT"),
        rows(
            duck,
            "SELECT DISTINCT typeof(d) || '|' || typeof(k) FROM read_parquet("
                + Env.sqlString(dir + "/**/*.parquet")
                + ", hive_partitioning = true)"));
  }

  @Test
  void nullsAndEscapedValuesKeepTheirOwnFolders() throws SQLException, IOException {
    Path dir = Env.exportDir("partitioned-nulls");
    Env.export(pg, TABLE, dir, 2, "partition_by => ARRAY['region']");
    List<String> folders;
    try (Stream<Path> list = Files.list(dir)) {
      folders =
          list.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
    }
    assertEquals(
        List.of(
            "region=50%25",
            "region=__HIVE_DEFAULT_PARTITION__",
            "region=a%3Db",
            "region=eu%2Fwest",
            "region=plain",
            "region=with space",
            "region=zürich"),
        folders);
    // Both sides sort by byte: DuckDB always, PostgreSQL whatever the database's collation is.
    assertEquals(
        rows(
            pg,
            "SELECT region, count(*) FROM "
                + TABLE
                + " GROUP BY 1 ORDER BY region COLLATE \"C\" NULLS FIRST"),
        rows(
            duck,
            "SELECT region, count(*) FROM "
                + hive(dir, "region")
                + " GROUP BY 1 ORDER BY 1 NULLS FIRST"),
        "NULL and every escaped value read back as themselves, none merged");
  }
}
