package org.parallelexport.readback;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.postgresql.PGConnection;

/**
 * A stand-in for the extension, written with DuckDB, used only with -Dpep.exporter=fake to check
 * this harness itself (that the comparison machinery accepts a faithful export and the layout
 * checks pass) while the extension cannot run. It is never used by default.
 *
 * <p>It copies {@code SELECT * FROM source} out of PostgreSQL as CSV in the caller's transaction,
 * casts each column in DuckDB to the Parquet type the product promises, and writes up to {@code
 * workers} parts plus a _SUCCESS manifest of them with the fields the read-back checks.
 */
final class ReferenceExporter {
  private static final Pattern QUERY = Pattern.compile("(?is)\\s*(select|with|values|table)\\b.*");

  private ReferenceExporter() {}

  static String selectOf(String source) {
    return QUERY.matcher(source).matches() ? source : "SELECT * FROM " + source;
  }

  static long export(Connection pg, String source, Path dir, int workers) throws SQLException {
    String select = selectOf(source);
    List<Rows.Column> cols = Rows.columnsOf(pg, select);
    List<String> pgExprs = new ArrayList<>();
    List<String> duckCasts = new ArrayList<>();
    StringBuilder csvColumns = new StringBuilder();
    for (int i = 0; i < cols.size(); i++) {
      Rows.Column c = cols.get(i);
      String q = "s." + Rows.ident(c.name());
      String x = "c" + i;
      if (i > 0) {
        csvColumns.append(", ");
      }
      csvColumns.append("'").append(x).append("': 'VARCHAR'");
      String pgExpr;
      String cast;
      switch (c.typname()) {
        case "bool" -> {
          pgExpr = q + "::text";
          cast = "CAST(" + x + " AS BOOLEAN)";
        }
        case "int2" -> {
          pgExpr = q + "::text";
          cast = "CAST(" + x + " AS SMALLINT)";
        }
        case "int4" -> {
          pgExpr = q + "::text";
          cast = "CAST(" + x + " AS INTEGER)";
        }
        case "int8" -> {
          pgExpr = q + "::text";
          cast = "CAST(" + x + " AS BIGINT)";
        }
        case "float4" -> {
          pgExpr = q + "::text";
          cast = "CAST(" + x + " AS FLOAT)";
        }
        case "float8" -> {
          pgExpr = q + "::text";
          cast = "CAST(" + x + " AS DOUBLE)";
        }
        case "bytea" -> {
          pgExpr = "encode(" + q + ", 'hex')";
          cast = "unhex(" + x + ")";
        }
        case "date" -> {
          pgExpr = "(" + q + " - DATE '1970-01-01')::text";
          cast = "DATE '1970-01-01' + CAST(" + x + " AS INTEGER)";
        }
        case "time" -> {
          pgExpr = "(extract(epoch FROM " + q + ") * 1000000)::bigint::text";
          cast = "TIME '00:00:00' + to_microseconds(CAST(" + x + " AS BIGINT))";
        }
        case "timestamp" -> {
          pgExpr = "(extract(epoch FROM " + q + ") * 1000000)::bigint::text";
          cast = "make_timestamp(CAST(" + x + " AS BIGINT))";
        }
        case "timestamptz" -> {
          pgExpr = "(extract(epoch FROM " + q + ") * 1000000)::bigint::text";
          cast = "CAST(make_timestamp(CAST(" + x + " AS BIGINT)) AS TIMESTAMPTZ)";
        }
        case "uuid" -> {
          pgExpr = q + "::text";
          cast = "CAST(" + x + " AS UUID)";
        }
        case "json", "jsonb" -> {
          pgExpr = q + "::text";
          cast = "CAST(" + x + " AS JSON)";
        }
        case "text", "varchar", "bpchar", "name" -> {
          pgExpr = q; // COPY keeps char(n) padding; ::text would strip it
          cast = x;
        }
        default -> {
          pgExpr = q; // COPY writes the type's text output (inet::text would add /32)
          cast =
              c.kind() == Rows.Kind.DECIMAL
                  ? "CAST(" + x + " AS DECIMAL(" + c.precision() + "," + c.scale() + "))"
                  : x;
        }
      }
      pgExprs.add(pgExpr);
      duckCasts.add(cast + " AS " + Rows.ident(c.name()));
    }
    try {
      Path csv = Files.createTempFile("pep-fake-", ".csv");
      try {
        long rows;
        try (OutputStream out = Files.newOutputStream(csv)) {
          rows =
              pg.unwrap(PGConnection.class)
                  .getCopyAPI()
                  .copyOut(
                      "COPY (SELECT "
                          + String.join(", ", pgExprs)
                          + " FROM ("
                          + select
                          + ") AS s) TO STDOUT WITH (FORMAT csv, NULL '\\N', FORCE_QUOTE *)",
                      out);
        }
        Files.createDirectory(dir);
        int parts = (int) Math.max(1, Math.min(workers, rows));
        try (Connection duck = Env.duckdb();
            Statement st = duck.createStatement()) {
          st.execute(
              "CREATE TABLE fake AS SELECT "
                  + String.join(", ", duckCasts)
                  + " FROM read_csv("
                  + Env.sqlString(csv.toString())
                  + ", header = false, auto_detect = false, delim = ',', quote = '\"',"
                  + " escape = '\"', nullstr = '\\N', allow_quoted_nulls = false, columns = {"
                  + csvColumns
                  + "})");
          StringBuilder listed = new StringBuilder();
          for (int i = 0; i < parts; i++) {
            String where = " FROM fake WHERE rowid % " + parts + " = " + i;
            Path part = dir.resolve(String.format("part-%05d.parquet", i));
            st.execute(
                "COPY (SELECT *"
                    + where
                    + ") TO "
                    + Env.sqlString(part.toString())
                    + " (FORMAT parquet)");
            try (ResultSet rs = st.executeQuery("SELECT count(*)" + where)) {
              rs.next();
              listed
                  .append(i == 0 ? "" : ", ")
                  .append(
                      String.format(
                          "{\"name\": \"%s\", \"rows\": %d, \"bytes\": %d}",
                          part.getFileName(), rs.getLong(1), Files.size(part)));
            }
          }
          Files.writeString(
              dir.resolve("_SUCCESS"),
              "{\"format\": \"parallel_export_parquet\", \"manifest_version\": 2, \"parts\": ["
                  + listed
                  + "], \"rows\": "
                  + rows
                  + ", \"versions\": {\"parallel_export_parquet\": \"fake\"}}");
        }
        return rows;
      } finally {
        Files.deleteIfExists(csv);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
