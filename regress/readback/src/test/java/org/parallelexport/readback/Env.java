package org.parallelexport.readback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Settings and shared steps of the read-back tests: connections, the export call, and the checks of
 * an export directory's layout.
 *
 * <p>System properties (set by the pom from -D options): pep.jdbc.url, pep.outdir, pep.keep,
 * pep.exporter ({@code extension}, the default, or {@code fake}: see {@link ReferenceExporter}).
 */
final class Env {
  static final String JDBC_URL =
      System.getProperty(
          "pep.jdbc.url", "jdbc:postgresql://127.0.0.1:54329/postgres?user=postgres");
  static final Path OUTDIR = Paths.get(System.getProperty("pep.outdir", "/tmp/pep-cluster/out"));
  static final boolean KEEP = Boolean.getBoolean("pep.keep");
  static final boolean FAKE = "fake".equals(System.getProperty("pep.exporter", "extension"));
  static final Pattern PART = Pattern.compile("part-\\d{5}\\.parquet");

  /** A directory name prefix unique to this run, so the tests can be run again on one cluster. */
  static final String RUN =
      "readback-"
          + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS"));

  private Env() {}

  /** A PostgreSQL session in UTC, autocommit on. */
  static Connection postgres() throws SQLException {
    Connection c = DriverManager.getConnection(JDBC_URL);
    try (Statement st = c.createStatement()) {
      st.execute("SET TimeZone = 'UTC'");
      st.execute("SET client_min_messages = warning");
    }
    return c;
  }

  /** An in-memory DuckDB in UTC. */
  static Connection duckdb() throws SQLException {
    Connection c = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement st = c.createStatement()) {
      st.execute("SET TimeZone = 'UTC'");
    }
    return c;
  }

  /** A fresh export directory path (not created: the export creates it). */
  static Path exportDir(String name) {
    return OUTDIR.resolve(RUN + "-" + name);
  }

  /** Calls parallel_export_parquet(source text, dir, workers) in pg's current transaction. */
  static long export(Connection pg, String source, Path dir, int workers) throws SQLException {
    return export(pg, source, dir, workers, "");
  }

  /**
   * The same with named options, given as the SQL that follows the worker count (for example {@code
   * "compression => 'zstd'"}); the stand-in exporter takes none.
   */
  static long export(Connection pg, String source, Path dir, int workers, String options)
      throws SQLException {
    if (FAKE) {
      if (!options.isEmpty()) {
        throw new IllegalStateException("the stand-in exporter takes no options: " + options);
      }
      return ReferenceExporter.export(pg, source, dir, workers);
    }
    return export(pg, source, dir.toString(), workers, options);
  }

  /** The same into a target given as text: a directory, or an s3:// URL. */
  static long export(Connection pg, String source, String target, int workers, String options)
      throws SQLException {
    try (PreparedStatement ps =
        pg.prepareStatement(
            "SELECT parallel_export_parquet(?::text, ?::text, ?::integer"
                + (options.isEmpty() ? "" : ", " + options)
                + ")")) {
      ps.setString(1, source);
      ps.setString(2, target);
      ps.setInt(3, workers);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** The extension, installed once per database (the cluster is throwaway). */
  static void ensureExtension(Connection pg) throws SQLException {
    if (FAKE) {
      return;
    }
    try (Statement st = pg.createStatement()) {
      st.execute("CREATE EXTENSION IF NOT EXISTS parallel_export_parquet");
    }
  }

  static String sqlString(String s) {
    return "'" + s.replace("'", "''") + "'";
  }

  static String glob(Path dir) {
    return sqlString(dir + "/*.parquet");
  }

  /**
   * Asserts a complete export: part-00000.parquet .. part-(n-1) with minParts <= n <= maxParts, a
   * _SUCCESS manifest of them (Manifests), nothing else; every part readable by DuckDB, holding
   * rows unless the export is empty (then exactly one part), all parts with the same schema, and
   * the parts' rows adding up to expectedRows. Returns the part files.
   */
  static List<Path> assertLayout(
      Connection duck, Path dir, int minParts, int maxParts, long expectedRows)
      throws SQLException {
    List<String> names = list(dir);
    List<String> parts = names.stream().filter(n -> PART.matcher(n).matches()).sorted().toList();
    int n = parts.size();
    assertTrue(
        n >= minParts && n <= maxParts,
        () -> dir + ": " + n + " parts, expected " + minParts + " to " + maxParts + ": " + names);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      expected.add(String.format("part-%05d.parquet", i));
    }
    assertEquals(expected, parts, dir + ": part files are not numbered 0.." + (n - 1));
    expected.add("_SUCCESS");
    assertEquals(
        expected.stream().sorted().toList(),
        names.stream().sorted().toList(),
        dir + ": directory holds something besides the parts and _SUCCESS");
    assertTrue(
        Files.isRegularFile(dir.resolve("_SUCCESS")), dir + ": _SUCCESS is not a regular file");
    Manifests.assertManifest(duck, dir, expectedRows, false);
    if (expectedRows == 0) {
      assertEquals(1, n, dir + ": an empty export has exactly one part");
    }
    List<Path> partPaths = parts.stream().map(dir::resolve).toList();
    long total = 0;
    String firstSchema = null;
    try (Statement st = duck.createStatement()) {
      for (Path p : partPaths) {
        long rows;
        try (ResultSet rs =
            st.executeQuery("SELECT count(*) FROM read_parquet(" + sqlString(p.toString()) + ")")) {
          rs.next();
          rows = rs.getLong(1);
        }
        try (ResultSet rs =
            st.executeQuery(
                "SELECT coalesce(sum(row_group_num_rows), 0) FROM (SELECT DISTINCT row_group_id,"
                    + " row_group_num_rows FROM parquet_metadata("
                    + sqlString(p.toString())
                    + "))")) {
          rs.next();
          assertEquals(rows, rs.getLong(1), p + ": row groups do not add up to the rows read");
        }
        if (expectedRows > 0) {
          assertTrue(rows > 0, p + ": a part without rows in a non-empty export");
        }
        total += rows;
        String schema = schemaOf(st, p);
        if (firstSchema == null) {
          firstSchema = schema;
        } else {
          assertEquals(firstSchema, schema, p + ": schema differs from part-00000's");
        }
      }
    }
    assertEquals(expectedRows, total, dir + ": the parts' rows do not add up");
    return partPaths;
  }

  /** Column name to type, as a reader sees the export (DuckDB's DESCRIBE over read_parquet). */
  static Map<String, String> readerTypes(Connection duck, Path dir) throws SQLException {
    Map<String, String> types = new LinkedHashMap<>();
    try (Statement st = duck.createStatement();
        ResultSet rs = st.executeQuery("DESCRIBE SELECT * FROM read_parquet(" + glob(dir) + ")")) {
      while (rs.next()) {
        types.put(rs.getString("column_name"), rs.getString("column_type"));
      }
    }
    return types;
  }

  static String schemaOf(Statement duck, Path part) throws SQLException {
    StringBuilder b = new StringBuilder();
    try (ResultSet rs =
        duck.executeQuery(
            "SELECT name, type, type_length, repetition_type, converted_type, scale, precision,"
                + " logical_type FROM parquet_schema("
                + sqlString(part.toString())
                + ")")) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        for (int i = 1; i <= n; i++) {
          b.append(rs.getString(i)).append(i < n ? " " : "\n");
        }
      }
    }
    return b.toString();
  }

  static List<String> list(Path dir) {
    if (!Files.isDirectory(dir)) {
      fail(dir + " is not a directory");
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Removes an export directory after a passing test, unless -Dpep.keep=true. */
  static void discard(Path dir) {
    if (KEEP || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
