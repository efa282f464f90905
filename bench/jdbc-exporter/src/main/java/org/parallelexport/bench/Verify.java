package org.parallelexport.bench;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Verify: the checks of bench/run.sh, run on DuckDB (which reads Parquet offline) and PostgreSQL.
 *
 * <p>A fingerprint is one row of named numbers (row count, sums, NULL counts, a sum of per-row
 * hashes) computed by a SQL file. The same fingerprint is written for PostgreSQL and for DuckDB
 * (bench/sql/fingerprint_pg.sql and fingerprint_duckdb.sql); the placeholder {{SRC}} in the text
 * becomes the relation to read. Values are compared as exact decimals by name.
 *
 * <p>Usage:
 *
 * <pre>
 * Verify expect JDBC_URL PG_SQL SOURCE OUT_FILE   fingerprint of SOURCE in PostgreSQL
 * Verify check DIR DUCKDB_SQL EXPECTED_FILE       fingerprint of DIR/*.parquet, compared
 * Verify rewrite DIR OUT_FILE ROW_GROUP_ROWS     DuckDB writes DIR's rows again (snappy)
 * </pre>
 *
 * <p>check prints "ok ROWS" and exits 0, or prints the differing names and exits 1. rewrite prints
 * the size in bytes of the file DuckDB wrote, for comparing output sizes.
 */
public final class Verify {
  private Verify() {}

  public static void main(String[] args) throws Exception {
    String mode = args.length > 0 ? args[0] : "";
    switch (mode) {
      case "expect":
        require(args, 5);
        expect(args[1], Paths.get(args[2]), args[3], Paths.get(args[4]));
        break;
      case "check":
        require(args, 4);
        System.exit(check(Paths.get(args[1]), Paths.get(args[2]), Paths.get(args[3])) ? 0 : 1);
        break;
      case "rewrite":
        require(args, 4);
        rewrite(Paths.get(args[1]), Paths.get(args[2]), Integer.parseInt(args[3]));
        break;
      default:
        System.err.println(
            "usage: Verify expect JDBC_URL PG_SQL SOURCE OUT | check DIR DUCKDB_SQL EXPECTED"
                + " | rewrite DIR OUT ROW_GROUP_ROWS");
        System.exit(2);
    }
  }

  private static void require(String[] args, int n) {
    if (args.length != n) {
      throw new IllegalArgumentException(args[0] + " takes " + (n - 1) + " arguments");
    }
  }

  private static void expect(String url, Path sql, String source, Path out)
      throws IOException, SQLException {
    try (Connection c = DriverManager.getConnection(url)) {
      Map<String, BigDecimal> fp = fingerprint(c, sql, source);
      List<String> lines = new ArrayList<>();
      fp.forEach((k, v) -> lines.add(k + "=" + v.toPlainString()));
      Files.write(out, lines, StandardCharsets.UTF_8);
    }
  }

  private static boolean check(Path dir, Path sql, Path expectedFile)
      throws IOException, SQLException {
    Map<String, BigDecimal> expected = new LinkedHashMap<>();
    for (String line : Files.readAllLines(expectedFile, StandardCharsets.UTF_8)) {
      int eq = line.indexOf('=');
      expected.put(line.substring(0, eq), new BigDecimal(line.substring(eq + 1)));
    }
    Map<String, BigDecimal> actual;
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:")) {
      actual = fingerprint(c, sql, parquetGlob(dir));
    }
    boolean ok = expected.keySet().equals(actual.keySet());
    for (Map.Entry<String, BigDecimal> e : expected.entrySet()) {
      BigDecimal a = actual.get(e.getKey());
      if (a == null || a.compareTo(e.getValue()) != 0) {
        ok = false;
        System.out.println(
            "mismatch " + e.getKey() + ": expected " + e.getValue() + ", parquet " + a);
      }
    }
    if (ok) {
      System.out.println("ok " + actual.get("rows").toPlainString());
    }
    return ok;
  }

  private static void rewrite(Path dir, Path out, int rowGroupRows) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute(
          "COPY (SELECT * FROM "
              + parquetGlob(dir)
              + ") TO '"
              + out.toString().replace("'", "''")
              + "' (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE "
              + rowGroupRows
              + ")");
    }
    System.out.println(out.toFile().length());
  }

  private static String parquetGlob(Path dir) {
    return "read_parquet('" + dir.resolve("*.parquet").toString().replace("'", "''") + "')";
  }

  /** Runs the one-row fingerprint query with {{SRC}} replaced; null values count as -1. */
  private static Map<String, BigDecimal> fingerprint(Connection c, Path sql, String source)
      throws IOException, SQLException {
    String text = Files.readString(sql, StandardCharsets.UTF_8).replace("{{SRC}}", source);
    Map<String, BigDecimal> fp = new LinkedHashMap<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(text)) {
      ResultSetMetaData md = rs.getMetaData();
      if (!rs.next()) {
        throw new SQLException("fingerprint query returned no row");
      }
      for (int i = 1; i <= md.getColumnCount(); i++) {
        Object v = rs.getObject(i);
        fp.put(
            md.getColumnLabel(i),
            v == null ? BigDecimal.ONE.negate() : new BigDecimal(v.toString()));
      }
    }
    return fp;
  }
}
