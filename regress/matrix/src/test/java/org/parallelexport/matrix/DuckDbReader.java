package org.parallelexport.matrix;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * DuckDB (C++) through its JDBC driver: read_parquet, values as getObject returns them; a
 * partitioned tree with hive_partitioning; an s3:// export from the S3 server's folder, as its
 * httpfs extension is downloaded from extensions.duckdb.org, which CI cannot reach.
 */
final class DuckDbReader implements Reader {
  private final Connection duck;
  private final String version;

  DuckDbReader() throws SQLException {
    duck = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement st = duck.createStatement()) {
      st.execute("SET TimeZone = 'UTC'");
    }
    try (Statement st = duck.createStatement();
        ResultSet rs = st.executeQuery("SELECT version()")) {
      rs.next();
      version = rs.getString(1);
    }
  }

  @Override
  public String name() {
    return "DuckDB " + version;
  }

  @Override
  public Map<String, Read> read(Source source, List<String> columns) {
    String from =
        "read_parquet('"
            + source.glob()
            + "'"
            + (source.partitioned() ? ", hive_partitioning = true" : "")
            + ")";
    Map<String, Read> out = new LinkedHashMap<>();
    for (String c : columns) {
      try (Statement st = duck.createStatement();
          ResultSet rs =
              st.executeQuery("SELECT id, \"" + c + "\" FROM " + from + " ORDER BY id")) {
        Map<Integer, Object> values = new TreeMap<>();
        while (rs.next()) {
          values.put(rs.getInt(1), Reader.guarded(() -> rs.getObject(2)));
        }
        out.put(c, new Read(values, null, rs.getMetaData().getColumnTypeName(2)));
      } catch (SQLException | RuntimeException e) {
        // the driver builds a list's java.time values while fetching the row
        out.put(c, Read.failed(e));
      }
    }
    return out;
  }

  /** The rows of each part file under source's folder, by its path relative to the folder. */
  Map<String, Long> rowsByFile(Source source) throws SQLException {
    Map<String, Long> out = new TreeMap<>();
    try (Statement st = duck.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT filename, count(*) FROM read_parquet('"
                    + source.glob()
                    + "', filename = true) GROUP BY ALL")) {
      while (rs.next()) {
        out.put(source.local().relativize(Path.of(rs.getString(1))).toString(), rs.getLong(2));
      }
    }
    return out;
  }

  @Override
  public void close() throws SQLException {
    duck.close();
  }
}
