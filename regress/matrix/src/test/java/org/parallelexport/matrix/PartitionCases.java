package org.parallelexport.matrix;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.parallelexport.readback.TypeCases;

/**
 * The partitioned exports of the matrix: the type fixtures with four partition columns computed
 * from the id, of the types partition_by writes as folder names that readers type by themselves:
 * boolean, date, integer (NULL in some rows: the folder __HIVE_DEFAULT_PARTITION__) and text (NULL
 * in some rows, and values Hive escapes: "/", "=", "%", ":", "?", "#", "[", "]"; a space and UTF-8
 * as they are). All four follow id % 4, so the tree has four leaf folders: a reader's cost grows
 * with the number of files, not with the values' variety. One export keeps the partition columns in
 * the folder names only (the default), one also in the files (write_partition_columns), which a
 * reader of single files needs.
 */
final class PartitionCases {
  /** A partition column: its SQL over the fixture table t, and its value in canonical text. */
  record Key(String name, String kind, String pgType, String expr, String canon) {
    TypeCases.Column column(boolean inFiles) {
      return new TypeCases.Column(
          name,
          kind,
          pgType + ", partition_by" + (inFiles ? ", write_partition_columns" : ""),
          false);
    }
  }

  static final List<Key> KEYS =
      List.of(
          new Key("p_bool", "bool", "boolean", "t.id % 4 < 2", "%s::text"),
          new Key(
              "p_date",
              "date",
              "date",
              "date '2026-11-28' + t.id % 2",
              "(%s - date '1970-01-01')::text"),
          new Key(
              "p_int",
              "int4",
              "integer",
              "CASE WHEN t.id % 4 < 3 THEN t.id % 4 - 1 END",
              "%s::text"),
          new Key(
              "p_text",
              "text",
              "text",
              "CASE t.id % 4 WHEN 0 THEN 'a/b=c%d' WHEN 1 THEN 'zürich west'"
                  + " WHEN 2 THEN 'x:y?#[1]' END",
              "%s"));

  private PartitionCases() {}

  static List<String> names() {
    return KEYS.stream().map(Key::name).toList();
  }

  /** The fixture table with the partition columns; only the id besides them if !allColumns. */
  static String source(boolean allColumns) {
    StringBuilder b = new StringBuilder("SELECT ").append(allColumns ? "t.*" : "t.id");
    KEYS.forEach(k -> b.append(", ").append(k.expr()).append(" AS ").append(k.name()));
    return b.append(" FROM ").append(TypeCases.TABLE).append(" t").toString();
  }

  static String options(boolean inFiles) {
    return "partition_by => ARRAY['"
        + String.join("', '", names())
        + "']"
        + (inFiles ? ", write_partition_columns => true" : "");
  }

  /** PostgreSQL's canonical cells of a partition column by id (null for NULL). */
  static Map<Integer, ?> expected(Connection pg, Key k) throws SQLException {
    Map<Integer, Object> out = new TreeMap<>();
    try (Statement st = pg.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT t.id, "
                    + String.format(k.canon(), "(" + k.expr() + ")")
                    + " FROM "
                    + TypeCases.TABLE
                    + " t")) {
      while (rs.next()) {
        out.put(rs.getInt(1), rs.getString(2));
      }
    }
    return out;
  }
}
