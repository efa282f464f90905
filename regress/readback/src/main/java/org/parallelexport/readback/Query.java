package org.parallelexport.readback;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs one query in DuckDB over an export directory, as the view {@code parts} of {@code
 * read_parquet('DIR/*.parquet')}, and prints each result row with its values separated by tabs
 * (NULL as an empty value), the way {@code psql -A -t -F TAB} prints them. Used by
 * tools/image/run.sh to compare a fingerprint of the exported values with PostgreSQL's. With {@code
 * --hive}, {@code parts} reads a partitioned export: {@code DIR/**}{@code /*.parquet} with DuckDB's
 * Hive partitioning, so the partition columns come from the folder names.
 *
 * <p>Usage: {@code Query [--hive] DIR SQL}, e.g. {@code mvn -q -pl regress/readback exec:java
 * -Dpep.main=org.parallelexport.readback.Query -Dexec.args="/exports/t 'SELECT count(*) FROM
 * parts'"}.
 */
public final class Query {
  private Query() {}

  public static void main(String[] args) throws SQLException {
    boolean hive = args.length == 3 && args[0].equals("--hive");
    if (args.length != (hive ? 3 : 2)) {
      System.err.println("usage: Query [--hive] DIR SQL");
      System.exit(2);
    }
    String dir = args[args.length - 2];
    String sql = args[args.length - 1];
    try (Connection duck = DriverManager.getConnection("jdbc:duckdb:");
        Statement st = duck.createStatement()) {
      st.execute("SET TimeZone = 'UTC'");
      st.execute(
          "CREATE VIEW parts AS SELECT * FROM read_parquet("
              + (hive
                  ? Peek.quote(dir + "/**/*.parquet") + ", hive_partitioning = true"
                  : Peek.quote(dir + "/*.parquet"))
              + ")");
      try (ResultSet rs = st.executeQuery(sql)) {
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          List<String> values = new ArrayList<>();
          for (int i = 1; i <= n; i++) {
            String v = rs.getString(i);
            values.add(v == null ? "" : v);
          }
          System.out.println(String.join("\t", values));
        }
      }
    }
  }
}
