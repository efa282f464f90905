package org.parallelexport.readback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A result set reduced to exact, comparable cells, read either from PostgreSQL ({@code SELECT *
 * FROM source}) or from an export directory with DuckDB ({@code read_parquet('DIR/*.parquet')}).
 *
 * <p>Each column is read through an expression chosen by its PostgreSQL type on both sides, so no
 * JDBC time zone or formatting enters the comparison: integers as longs; real and double as their
 * IEEE bits (NaN, infinities and -0 included); numeric(p,s) with p <= 38 as BigDecimal with its
 * scale; date as days and time, timestamp, timestamptz as microseconds since the epoch (computed in
 * SQL on each side); bytea as hex; character types as the strings PostgreSQL returns (char(n)
 * blank-padded); uuid, json, jsonb, unconstrained numeric and every other type as PostgreSQL's text
 * output (the type's output function, as JDBC's getString returns it; not a ::text cast).
 */
final class Rows {
  enum Kind {
    BOOL,
    LONG,
    FLOAT4,
    FLOAT8,
    DECIMAL,
    STRING
  }

  /** One column of the source: name, PostgreSQL type, how it is read on each side. */
  record Column(String name, String pgType, String typname, int precision, int scale, Kind kind) {

    String pgExpr() {
      String q = "s." + ident(name);
      return switch (typname) {
        case "bytea" -> "encode(" + q + ", 'hex')";
        case "date" -> "(" + q + " - DATE '1970-01-01')";
        case "time", "timestamp", "timestamptz" ->
            "(extract(epoch FROM " + q + ") * 1000000)::bigint";
        // interval is a group (months, days, microseconds); int4[] a list
        case "interval" ->
            "(extract(year FROM "
                + q
                + ") * 12 + extract(month FROM "
                + q
                + "))::int || ',' ||"
                + " extract(day FROM "
                + q
                + ")::int || ',' || (extract(hour FROM "
                + q
                + ") * 3600000000 + extract(minute FROM "
                + q
                + ") * 60000000 +"
                + " extract(microseconds FROM "
                + q
                + "))::bigint";
        case "_int4" -> "array_to_string(" + q + ", ',', '~null~')";
        // Everything else is read with getString: the type's text output, as the export
        // writes it. Never a ::text cast, which differs for some types (inet adds /32).
        default -> q;
      };
    }

    String duckExpr() {
      String q = "s." + ident(name);
      return switch (typname) {
        case "bytea" -> "lower(hex(" + q + "))";
        case "date" -> "(" + q + " - DATE '1970-01-01')";
        case "time", "timestamp", "timestamptz" -> "epoch_us(" + q + ")";
        case "interval" -> q + ".months || ',' || " + q + ".days || ',' || " + q + ".microseconds";
        case "_int4" ->
            "array_to_string(list_transform("
                + q
                + ", lambda e: coalesce(CAST(e AS VARCHAR), '~null~')), ',')";
        case "bool",
            "int2",
            "int4",
            "int8",
            "float4",
            "float8",
            "text",
            "varchar",
            "bpchar",
            "name" ->
            q;
        default -> kind == Kind.DECIMAL ? q : "CAST(" + q + " AS VARCHAR)";
      };
    }
  }

  final List<Column> columns;
  final List<String[]> rows;

  private Rows(List<Column> columns, List<String[]> rows) {
    this.columns = columns;
    this.rows = rows;
  }

  static String ident(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }

  /** The columns of a query, with their declared types, through a temporary view. */
  static List<Column> columnsOf(Connection pg, String selectSql) throws SQLException {
    List<Column> cols = new ArrayList<>();
    try (Statement st = pg.createStatement()) {
      st.execute("CREATE TEMP VIEW pep_readback_probe AS " + selectSql);
      try (ResultSet rs =
          st.executeQuery(
              "SELECT a.attname, format_type(a.atttypid, a.atttypmod), t.typname, a.atttypmod"
                  + " FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid"
                  + " WHERE a.attrelid = 'pg_temp.pep_readback_probe'::regclass"
                  + " AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum")) {
        while (rs.next()) {
          String typname = rs.getString(3);
          int typmod = rs.getInt(4);
          int precision = 0;
          int scale = 0;
          Kind kind;
          switch (typname) {
            case "bool" -> kind = Kind.BOOL;
            case "int2", "int4", "int8", "date", "time", "timestamp", "timestamptz" ->
                kind = Kind.LONG;
            case "float4" -> kind = Kind.FLOAT4;
            case "float8" -> kind = Kind.FLOAT8;
            case "numeric" -> {
              if (typmod >= 4) {
                precision = ((typmod - 4) >> 16) & 0xffff;
                scale = (typmod - 4) & 0xffff;
              }
              kind = precision >= 1 && precision <= 38 ? Kind.DECIMAL : Kind.STRING;
            }
            default -> kind = Kind.STRING;
          }
          cols.add(new Column(rs.getString(1), rs.getString(2), typname, precision, scale, kind));
        }
      }
      st.execute("DROP VIEW pg_temp.pep_readback_probe");
    }
    return cols;
  }

  /** Rows of selectSql (equivalent to SELECT * FROM source) read from PostgreSQL. */
  static Rows fromPostgres(Connection pg, String selectSql, List<Column> cols) throws SQLException {
    String sql =
        "SELECT "
            + cols.stream().map(Column::pgExpr).collect(Collectors.joining(", "))
            + " FROM ("
            + selectSql
            + ") AS s";
    try (Statement st = pg.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      return new Rows(cols, read(rs, cols));
    }
  }

  /** Rows of an export directory read with DuckDB; asserts the column names and order first. */
  static Rows fromParquet(Connection duck, Path dir, List<Column> cols) throws SQLException {
    String from = "read_parquet(" + Env.glob(dir) + ")";
    List<String> names = new ArrayList<>();
    try (Statement st = duck.createStatement();
        ResultSet rs = st.executeQuery("DESCRIBE SELECT * FROM " + from)) {
      while (rs.next()) {
        names.add(rs.getString("column_name"));
      }
    }
    assertEquals(
        cols.stream().map(Column::name).toList(), names, dir + ": column names or order differ");
    String sql =
        "SELECT "
            + cols.stream().map(Column::duckExpr).collect(Collectors.joining(", "))
            + " FROM "
            + from
            + " AS s";
    try (Statement st = duck.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      return new Rows(cols, read(rs, cols));
    }
  }

  private static List<String[]> read(ResultSet rs, List<Column> cols) throws SQLException {
    List<String[]> out = new ArrayList<>();
    int n = cols.size();
    while (rs.next()) {
      String[] row = new String[n];
      for (int i = 0; i < n; i++) {
        row[i] = cell(rs, i + 1, cols.get(i).kind());
      }
      out.add(row);
    }
    return out;
  }

  /** One value in exact canonical form; null for SQL NULL. */
  private static String cell(ResultSet rs, int i, Kind kind) throws SQLException {
    String v =
        switch (kind) {
          case BOOL -> rs.getBoolean(i) ? "t" : "f";
          case LONG -> Long.toString(rs.getLong(i));
          case FLOAT4 -> {
            float f = rs.getFloat(i);
            yield String.format("%08x(%s)", Float.floatToIntBits(f), f);
          }
          case FLOAT8 -> {
            double d = rs.getDouble(i);
            yield String.format("%016x(%s)", Double.doubleToLongBits(d), d);
          }
          case DECIMAL -> {
            java.math.BigDecimal b = rs.getBigDecimal(i);
            yield b == null ? null : b.toPlainString();
          }
          case STRING -> rs.getString(i);
        };
    return rs.wasNull() ? null : v;
  }

  private static String key(String[] row) {
    StringBuilder b = new StringBuilder();
    for (String v : row) {
      if (v == null) {
        b.append("N;");
      } else {
        b.append('V').append(v.length()).append(':').append(v).append(';');
      }
    }
    return b.toString();
  }

  /** Asserts both hold the same rows, as multisets, value by value. */
  static void assertSameRows(Rows expected, Rows actual, String what) {
    assertEquals(
        expected.columns.size(), actual.columns.size(), what + ": number of columns differs");
    if (expected.rows.size() != actual.rows.size()) {
      fail(
          what
              + ": "
              + expected.rows.size()
              + " rows in PostgreSQL, "
              + actual.rows.size()
              + " in Parquet"
              + columnReport(expected, actual));
    }
    List<String> e = expected.rows.stream().map(Rows::key).sorted().toList();
    List<String> a = actual.rows.stream().map(Rows::key).sorted().toList();
    if (e.equals(a)) {
      return;
    }
    StringBuilder msg = new StringBuilder(what + ": rows differ");
    int shown = 0;
    for (int i = 0; i < e.size() && shown < 3; i++) {
      if (!e.get(i).equals(a.get(i))) {
        msg.append("\n  sorted row ").append(i).append("\n    PostgreSQL: ").append(clip(e.get(i)));
        msg.append("\n    Parquet:    ").append(clip(a.get(i)));
        shown++;
      }
    }
    fail(msg + columnReport(expected, actual));
  }

  /** Which columns differ as multisets of values, with the first difference of each. */
  private static String columnReport(Rows expected, Rows actual) {
    StringBuilder b = new StringBuilder();
    Comparator<String> nullsFirst = Comparator.nullsFirst(Comparator.naturalOrder());
    for (int c = 0; c < expected.columns.size(); c++) {
      final int col = c;
      List<String> e = expected.rows.stream().map(r -> r[col]).sorted(nullsFirst).toList();
      List<String> a = actual.rows.stream().map(r -> r[col]).sorted(nullsFirst).toList();
      if (e.equals(a)) {
        continue;
      }
      b.append("\n  column ")
          .append(expected.columns.get(c).name())
          .append(" (")
          .append(expected.columns.get(c).pgType())
          .append(") differs");
      for (int i = 0; i < Math.min(e.size(), a.size()); i++) {
        if (!java.util.Objects.equals(e.get(i), a.get(i))) {
          b.append(": PostgreSQL ")
              .append(clip(String.valueOf(e.get(i))))
              .append(" vs Parquet ")
              .append(clip(String.valueOf(a.get(i))));
          break;
        }
      }
    }
    return b.toString();
  }

  private static String clip(String s) {
    return s.length() > 400 ? s.substring(0, 400) + "...(" + s.length() + " chars)" : s;
  }

  int size() {
    return rows.size();
  }

  /** Values of one column, for checks such as uniqueness. */
  List<String> column(String name) {
    int i = columns.stream().map(Column::name).toList().indexOf(name);
    return rows.stream().map(r -> r[i]).toList();
  }

  @Override
  public String toString() {
    return rows.size()
        + " rows of "
        + Arrays.toString(columns.stream().map(Column::name).toArray());
  }
}
