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

/** DuckDB (C++) through its JDBC driver: read_parquet, values as getObject returns them. */
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
  public Map<String, Read> read(Path file, List<String> columns) {
    Map<String, Read> out = new LinkedHashMap<>();
    for (String c : columns) {
      try (Statement st = duck.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT id, \"" + c + "\" FROM read_parquet('" + file + "') ORDER BY id")) {
        Map<Integer, Object> values = new TreeMap<>();
        while (rs.next()) {
          values.put(rs.getInt(1), Reader.guarded(() -> rs.getObject(2)));
        }
        out.put(c, new Read(values, null));
      } catch (SQLException | RuntimeException e) {
        // the driver builds a list's java.time values while fetching the row
        out.put(c, Read.failed(e));
      }
    }
    return out;
  }

  @Override
  public void close() throws SQLException {
    duck.close();
  }
}
