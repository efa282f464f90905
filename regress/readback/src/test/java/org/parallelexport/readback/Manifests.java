package org.parallelexport.readback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

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

  /**
   * Asserts the above for the export in dir, which returned expectedRows, partitioned or not. The
   * files are listed, measured and counted by DuckDB too (glob, read_blob, read_parquet), so that
   * folder names in UTF-8 compare as the manifest holds them, whatever the JVM's locale.
   */
  static void assertManifest(Connection duck, Path dir, long expectedRows, boolean partitioned)
      throws SQLException {
    String glob = Env.sqlString(dir + (partitioned ? "/**/*.parquet" : "/*.parquet"));
    String manifest = Env.sqlString(dir.resolve("_SUCCESS").toString());
    int root = dir.toString().length() + 2;
    List<String> onDisk =
        strings(
            duck,
            "SELECT substr(b.filename, "
                + root
                + ") || ' ' || coalesce(c.n, 0) || ' ' || b.size AS part FROM read_blob("
                + glob
                + ") AS b LEFT JOIN (SELECT filename, count(*) AS n FROM read_parquet("
                + glob
                + ", filename = true, hive_partitioning = false) GROUP BY filename) AS c USING"
                + " (filename) ORDER BY part");
    List<String> listed =
        strings(
            duck,
            "SELECT p.name || ' ' || p.\"rows\" || ' ' || p.bytes AS part FROM (SELECT"
                + " unnest(parts) AS p FROM read_json("
                + manifest
                + ")) ORDER BY part");
    assertEquals(onDisk, listed, dir + ": the manifest's parts");
    try (Statement st = duck.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT \"format\", manifest_version, \"rows\","
                    + " versions.parallel_export_parquet FROM read_json("
                    + manifest
                    + ")")) {
      rs.next();
      assertEquals("parallel_export_parquet", rs.getString(1), dir + ": manifest format");
      assertEquals(2, rs.getInt(2), dir + ": manifest_version");
      assertEquals(expectedRows, rs.getLong(3), dir + ": the manifest's rows");
      assertNotNull(rs.getString(4), dir + ": the extension's version");
    }
    assertEquals(
        expectedRows,
        count(duck, "read_parquet(" + glob + ")"),
        glob + ": a glob reader reads every row and nothing of _SUCCESS");
  }

  private static List<String> strings(Connection duck, String query) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement st = duck.createStatement();
        ResultSet rs = st.executeQuery(query)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  private static long count(Connection duck, String from) throws SQLException {
    try (Statement st = duck.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM " + from)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
