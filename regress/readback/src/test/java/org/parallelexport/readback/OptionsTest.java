package org.parallelexport.readback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The export options, each checked where a reader sees its effect: DuckDB's parquet_metadata
 * (codec, row groups, encodings, statistics, bloom filters) and the part files themselves, with the
 * exported values compared to PostgreSQL's every time, so that no option trades correctness for its
 * effect.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OptionsTest {
  private static final String TABLE = "regress_options_t";
  private static final long ROWS = 60_000;
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
              + " AS SELECT g::bigint AS id, (g % 7)::integer AS small,"
              + " repeat(md5((g % 1000)::text), 3) AS txt"
              + " FROM generate_series(1, "
              + ROWS
              + ") AS g");
      st.execute("ANALYZE " + TABLE);
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

  /** Exports the table with 1 worker and the given named options; checks values against PG. */
  private Path export(String name, String options) throws SQLException {
    Path dir = Env.exportDir("options-" + name);
    assertEquals(ROWS, Env.export(pg, TABLE, dir, 1, options), name + ": rows returned");
    assertEquals(
        fingerprint(pg, TABLE),
        fingerprint(duck, "read_parquet(" + Env.glob(dir) + ")"),
        name + ": exported values differ from PostgreSQL's");
    return dir;
  }

  private static String fingerprint(Connection c, String from) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT count(*), sum(id), sum(small), sum(length(txt)), min(txt), max(txt) FROM "
                    + from)) {
      rs.next();
      return rs.getString(1)
          + " "
          + rs.getString(2)
          + " "
          + rs.getString(3)
          + " "
          + rs.getString(4)
          + " "
          + rs.getString(5)
          + " "
          + rs.getString(6);
    }
  }

  private List<String> strings(String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement st = duck.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  private long number(String sql) throws SQLException {
    try (Statement st = duck.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static String meta(Path dir) {
    return "parquet_metadata(" + Env.glob(dir) + ")";
  }

  @ParameterizedTest
  @CsvSource({
    "uncompressed,UNCOMPRESSED",
    "snappy,SNAPPY",
    "gzip,GZIP",
    "zstd,ZSTD",
    "lz4_raw,LZ4_RAW",
    "brotli,BROTLI"
  })
  void compressionIsTheCodecAskedFor(String option, String codec) throws SQLException {
    Path dir = export("codec-" + option, "compression => '" + option + "'");
    assertEquals(List.of(codec), strings("SELECT DISTINCT compression FROM " + meta(dir)));
  }

  @Test
  void defaultCompressionIsSnappy() throws SQLException {
    Path dir = export("codec-default", "");
    assertEquals(List.of("SNAPPY"), strings("SELECT DISTINCT compression FROM " + meta(dir)));
  }

  @ParameterizedTest
  @CsvSource({"zstd,1,19", "brotli,0,11"})
  void compressionLevelIsApplied(String codec, int low, int high) throws SQLException, IOException {
    String options = "compression => '" + codec + "', compression_level => ";
    Path fast = export(codec + "-" + low, options + low);
    Path small = export(codec + "-" + high, options + high);
    long fastBytes = Files.size(fast.resolve("part-00000.parquet"));
    long smallBytes = Files.size(small.resolve("part-00000.parquet"));
    assertTrue(
        smallBytes < fastBytes,
        codec
            + " level "
            + high
            + " ("
            + smallBytes
            + " bytes) is not smaller than level "
            + low
            + " ("
            + fastBytes
            + ")");
  }

  @Test
  void rowGroupRowsBoundsEveryRowGroup() throws SQLException {
    Path dir = export("row-groups", "row_group_rows => 10000");
    assertEquals(6, number("SELECT count(DISTINCT row_group_id) FROM " + meta(dir)));
    assertEquals(10000, number("SELECT max(row_group_num_rows) FROM " + meta(dir)));
  }

  @Test
  void fileSizeBytesSplitsAWorkersOutputIntoParts() throws SQLException {
    Path dir = export("file-size", "file_size_bytes => 200000, row_group_rows => 4096");
    List<Path> parts = Env.assertLayout(duck, dir, 3, 1000, ROWS);
    assertTrue(parts.size() >= 3, "only " + parts.size() + " parts");
  }

  @Test
  void dictionaryCanBeTurnedOff() throws SQLException {
    Path on = export("dictionary-on", "dictionary => true");
    Path off = export("dictionary-off", "dictionary => false");
    assertTrue(
        strings("SELECT encodings FROM " + meta(on) + " WHERE path_in_schema = 'small'").stream()
            .allMatch(e -> e.contains("DICTIONARY")),
        "dictionary => true: no dictionary");
    assertTrue(
        strings("SELECT encodings FROM " + meta(off)).stream()
            .noneMatch(e -> e.contains("DICTIONARY")),
        "dictionary => false: a dictionary");
  }

  @Test
  void dictionaryByDefaultFollowsTheStatistics() throws SQLException {
    Path dir = export("dictionary-auto", "");
    String encodings = "SELECT DISTINCT encodings FROM %s WHERE path_in_schema = '%s'";
    assertTrue(
        strings(String.format(encodings, meta(dir), "small")).toString().contains("DICTIONARY"),
        "7 distinct values: the column keeps its dictionary");
    assertFalse(
        strings(String.format(encodings, meta(dir), "id")).toString().contains("DICTIONARY"),
        "unique values: no dictionary is attempted");
  }

  @Test
  void statisticsCanBeTurnedOff() throws SQLException {
    Path on = export("statistics-on", "statistics => true");
    Path off = export("statistics-off", "statistics => false");
    assertEquals(0, number("SELECT count(*) FROM " + meta(on) + " WHERE stats_min_value IS NULL"));
    assertEquals(
        0, number("SELECT count(*) FROM " + meta(off) + " WHERE stats_min_value IS NOT NULL"));
  }

  @Test
  void parquetVersion2UsesDeltaEncodings() throws SQLException {
    Path v1 = export("version-1", "parquet_version => 'v1', dictionary => false");
    Path v2 = export("version-2", "parquet_version => 'v2', dictionary => false");
    String idEncodings = "SELECT DISTINCT encodings FROM %s WHERE path_in_schema = 'id'";
    assertFalse(strings(String.format(idEncodings, meta(v1))).toString().contains("DELTA"));
    assertTrue(
        strings(String.format(idEncodings, meta(v2))).toString().contains("DELTA_BINARY_PACKED"));
  }

  @Test
  void bloomFilterOnlyForNamedColumns() throws SQLException {
    Path dir = export("bloom", "bloom_filter_columns => '{id}'");
    assertEquals(
        List.of("id"),
        strings(
            "SELECT DISTINCT path_in_schema FROM "
                + meta(dir)
                + " WHERE bloom_filter_offset IS NOT NULL"));
  }
}
