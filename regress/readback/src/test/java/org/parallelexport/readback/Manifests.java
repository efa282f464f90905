package org.parallelexport.readback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * An export's _SUCCESS manifest as DuckDB's read_json reads it (DESIGN.md, "The _SUCCESS
 * manifest"), compared with the files: it lists exactly the part files below the directory, by
 * their paths under it, each with its file's size and the rows DuckDB reads from it, and the rows
 * add up to what the export returned; the readers that glob the directory (read_parquet of
 * dir/*.parquet, or dir/**&#47;*.parquet for a partitioned export) read those rows and nothing of
 * _SUCCESS.
 */
final class Manifests {
  private Manifests() {}

  /** Asserts the above for the export in dir, which returned expectedRows. */
  static void assertManifest(Connection duck, Path dir, long expectedRows) throws SQLException {
    List<String> onDisk = new ArrayList<>();
    boolean partitioned;
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.filter(Files::isRegularFile).sorted().toList()) {
        if (Env.PART.matcher(p.getFileName().toString()).matches()) {
          onDisk.add(
              dir.relativize(p).toString()
                  + " "
                  + count(duck, "read_parquet(" + Env.sqlString(p.toString()) + ")")
                  + " "
                  + Files.size(p));
        }
      }
      partitioned = onDisk.stream().anyMatch(n -> n.contains("/"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String manifest = Env.sqlString(dir.resolve("_SUCCESS").toString());
    List<String> listed = new ArrayList<>();
    long total;
    try (Statement st = duck.createStatement()) {
      try (ResultSet rs =
          st.executeQuery(
              "SELECT p.name || ' ' || p.\"rows\" || ' ' || p.bytes AS part FROM (SELECT"
                  + " unnest(parts) AS p FROM read_json("
                  + manifest
                  + ")) ORDER BY part")) {
        while (rs.next()) {
          listed.add(rs.getString(1));
        }
      }
      try (ResultSet rs =
          st.executeQuery(
              "SELECT format, manifest_version, \"rows\", versions.parallel_export_parquet FROM"
                  + " read_json("
                  + manifest
                  + ")")) {
        rs.next();
        assertEquals("parallel_export_parquet", rs.getString(1), dir + ": manifest format");
        assertEquals(2, rs.getInt(2), dir + ": manifest_version");
        total = rs.getLong(3);
        assertNotNull(rs.getString(4), dir + ": the extension's version");
      }
    }
    assertEquals(onDisk.stream().sorted().toList(), listed, dir + ": the manifest's parts");
    assertEquals(expectedRows, total, dir + ": the manifest's rows");
    String glob = dir + (partitioned ? "/**/*.parquet" : "/*.parquet");
    assertEquals(
        expectedRows,
        count(duck, "read_parquet(" + Env.sqlString(glob) + ")"),
        glob + ": a glob reader reads every row and nothing of _SUCCESS");
  }

  private static long count(Connection duck, String from) throws SQLException {
    try (Statement st = duck.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM " + from)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
