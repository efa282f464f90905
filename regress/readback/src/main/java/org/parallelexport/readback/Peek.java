package org.parallelexport.readback;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints what DuckDB reads from an export directory: row count, schema and the first rows of {@code
 * read_parquet('DIR/*.parquet')}. Used by tools/demo.sh.
 *
 * <p>Usage: {@code Peek DIR [ROWS]}, e.g. {@code mvn -q -pl regress/readback exec:java
 * -Dexec.args="/tmp/pep-cluster/out/events 5"}.
 */
public final class Peek {
  private Peek() {}

  public static void main(String[] args) throws SQLException {
    if (args.length < 1 || args.length > 2) {
      System.err.println("usage: Peek DIR [ROWS]");
      System.exit(2);
    }
    String glob = args[0] + "/*.parquet";
    int rows = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    try (Connection duck = DriverManager.getConnection("jdbc:duckdb:");
        Statement st = duck.createStatement()) {
      st.execute("SET TimeZone = 'UTC'");
      String from = "read_parquet(" + quote(glob) + ")";
      try (ResultSet rs = st.executeQuery("SELECT count(*) FROM " + from)) {
        rs.next();
        System.out.println("DuckDB reads " + rs.getLong(1) + " rows from " + glob);
      }
      System.out.println("schema:");
      List<String> asText = new ArrayList<>();
      try (ResultSet rs = st.executeQuery("DESCRIBE SELECT * FROM " + from)) {
        while (rs.next()) {
          String name = rs.getString("column_name");
          System.out.println("  " + name + " " + rs.getString("column_type"));
          String id = "\"" + name.replace("\"", "\"\"") + "\"";
          asText.add("CAST(" + id + " AS VARCHAR) AS " + id);
        }
      }
      System.out.println("first " + rows + " rows:");
      String select = "SELECT " + String.join(", ", asText) + " FROM " + from;
      try (ResultSet rs = st.executeQuery(select + " LIMIT " + rows)) {
        printTable(rs);
      }
    }
  }

  static String quote(String s) {
    return "'" + s.replace("'", "''") + "'";
  }

  private static void printTable(ResultSet rs) throws SQLException {
    ResultSetMetaData md = rs.getMetaData();
    int n = md.getColumnCount();
    List<String[]> lines = new ArrayList<>();
    String[] header = new String[n];
    for (int i = 0; i < n; i++) {
      header[i] = md.getColumnName(i + 1);
    }
    lines.add(header);
    while (rs.next()) {
      String[] line = new String[n];
      for (int i = 0; i < n; i++) {
        String v = rs.getString(i + 1);
        line[i] = v == null ? "NULL" : v;
      }
      lines.add(line);
    }
    int[] width = new int[n];
    for (String[] line : lines) {
      for (int i = 0; i < n; i++) {
        width[i] = Math.max(width[i], Math.min(line[i].length(), 60));
      }
    }
    for (String[] line : lines) {
      StringBuilder b = new StringBuilder(" ");
      for (int i = 0; i < n; i++) {
        String v = line[i].length() > 60 ? line[i].substring(0, 57) + "..." : line[i];
        b.append(' ').append(String.format("%-" + width[i] + "s", v)).append(i + 1 < n ? " |" : "");
      }
      System.out.println(b);
    }
  }
}
