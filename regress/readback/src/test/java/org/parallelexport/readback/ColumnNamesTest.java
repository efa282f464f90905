package org.parallelexport.readback;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Column names reach the Parquet schema exactly as PostgreSQL shows them: spaces, quotes, dots,
 * case, non-ASCII letters and characters outside the Basic Multilingual Plane, from a UTF8 and from
 * a LATIN1 database (whose names are converted to UTF-8), read back by DuckDB with their values.
 */
class ColumnNamesTest {
  private static final String LATIN1_DB = "regress_names_latin1";

  private static List<String> namesAndValues(Connection duck, Path dir) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement st = duck.createStatement();
        ResultSet rs = st.executeQuery("SELECT * FROM read_parquet(" + Env.glob(dir) + ")")) {
      rs.next();
      for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
        out.add(rs.getMetaData().getColumnName(i) + "=" + rs.getString(i));
      }
    }
    return out;
  }

  @Test
  void namesSurviveExactlyInUtf8() throws SQLException {
    try (Connection pg = Env.postgres();
        Connection duck = Env.duckdb()) {
      Env.ensureExtension(pg);
      Path dir = Env.exportDir("names-utf8");
      Env.export(
          pg,
          "SELECT 1 AS \"with space\", 2 AS \"quote\"\"d\", 3 AS \"dot.ted\", 4 AS \"UPPER\","
              + " 5 AS \"ünïcødé\", 6 AS \"\uD83D\uDE00 smile\", 7 AS lower",
          dir,
          1);
      assertEquals(
          List.of(
              "with space=1",
              "quote\"d=2",
              "dot.ted=3",
              "UPPER=4",
              "ünïcødé=5",
              "\uD83D\uDE00 smile=6",
              "lower=7"),
          namesAndValues(duck, dir));
      Env.discard(dir);
    }
  }

  @Test
  void namesOfALatin1DatabaseBecomeUtf8() throws SQLException {
    try (Connection admin = Env.postgres();
        Statement st = admin.createStatement()) {
      st.execute("DROP DATABASE IF EXISTS " + LATIN1_DB);
      st.execute(
          "CREATE DATABASE "
              + LATIN1_DB
              + " ENCODING 'LATIN1' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'");
    }
    String url = Env.JDBC_URL.replaceFirst("/[^/?]*(\\?|$)", "/" + LATIN1_DB + "$1");
    try (Connection pg = DriverManager.getConnection(url);
        Connection duck = Env.duckdb();
        Statement st = pg.createStatement()) {
      Env.ensureExtension(pg);
      st.execute("CREATE TABLE \"Tëst\" (\"größe\" integer, \"café au lait\" text)");
      st.execute("INSERT INTO \"Tëst\" VALUES (1, 'crème')");
      Path dir = Env.exportDir("names-latin1");
      Env.export(pg, "\"Tëst\"", dir, 1);
      assertEquals(List.of("größe=1", "café au lait=crème"), namesAndValues(duck, dir));
      Env.discard(dir);
    }
    try (Connection admin = Env.postgres();
        Statement st = admin.createStatement()) {
      st.execute("DROP DATABASE " + LATIN1_DB);
    }
  }
}
