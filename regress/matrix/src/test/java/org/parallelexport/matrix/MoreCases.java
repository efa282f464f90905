package org.parallelexport.matrix;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.parallelexport.readback.TypeCases;

/**
 * The matrix's fixtures beyond the read-back type table: multi-dimensional arrays (also with field
 * ids and footer key-value pairs, options that must not change what a reader reads, and compressed
 * with brotli, which some readers cannot decode), and numeric without a precision under the
 * mappings unconstrained_numeric chooses other than its default text (which the type table's
 * numeric column shows). One table holds them; each mapping is an export of its own, as the option
 * applies to a whole export. PostgreSQL's side of each cell is in the canonical form of {@link
 * TypeCases#expected}: a double by its bits, a decimal with the mapping's scale, a
 * multi-dimensional array as nested Lists (parsed from array_to_json).
 */
final class MoreCases {
  static final String SCHEMA = "regress_matrix";
  static final String TABLE = SCHEMA + ".more";
  private static final String DECIMAL = "decimal(38,10)";

  /**
   * An export of the table: its source, options and columns; cast is the SQL that gives
   * PostgreSQL's value (%1$s) of a leaf as the mapping writes it, or null when the columns are
   * multi-dimensional arrays, compared through array_to_json.
   */
  record Export(
      String name, String source, String options, String cast, List<TypeCases.Column> columns) {}

  private MoreCases() {}

  static void create(Connection pg) throws SQLException {
    try (Statement st = pg.createStatement()) {
      st.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
      st.execute("CREATE SCHEMA " + SCHEMA);
      st.execute(
          "CREATE TABLE "
              + TABLE
              + " (id integer, md_int4 integer[][], md_text text[][][], unum numeric,"
              + " a_unum numeric[])");
      // rows 1 to 5 fit DECIMAL(38,10); 6 and 7 hold what only DOUBLE and text can
      st.execute(
          "INSERT INTO "
              + TABLE
              + " VALUES"
              + " (1, '{{1,2,3},{4,NULL,-2147483648}}', '{{{a,b},{c,d}},{{e,NULL},{\"\",ü}}}',"
              + "  0, '{}'),"
              + " (2, '{}', '{}', -0.000001, '{1.25,NULL,-3}'),"
              + " (3, NULL, NULL, 1234567890123456789012345678.0123456789, '{0.1,0.2,0.3}'),"
              + " (4, '{{7}}', '{{{x}}}', 0.1, NULL),"
              + " (5, '{{1},{2},{3}}', '{{{\"a b\",\"c,d\"}}}', NULL, '{NULL}'),"
              + " (6, '{{2147483647,NULL}}', '{{{NULL}}}', 'NaN', '{NaN,Infinity,-Infinity}'),"
              + " (7, NULL, NULL, '-Infinity', '{1e300,1e-300}')");
    }
  }

  static List<Export> exports() {
    TypeCases.Column unumDouble =
        new TypeCases.Column("unum", "float8", "numeric, unconstrained_numeric => 'double'", false);
    TypeCases.Column aunumDouble =
        new TypeCases.Column(
            "a_unum", "float8", "numeric[], unconstrained_numeric => 'double'", true);
    TypeCases.Column unumDecimal =
        new TypeCases.Column(
            "unum", "num38", "numeric, unconstrained_numeric => '" + DECIMAL + "'", false);
    TypeCases.Column aunumDecimal =
        new TypeCases.Column(
            "a_unum", "num38", "numeric[], unconstrained_numeric => '" + DECIMAL + "'", true);
    return List.of(
        new Export(
            "multidim",
            "SELECT id, md_int4, md_text FROM " + TABLE,
            "",
            null,
            List.of(
                new TypeCases.Column("md_int4", "int4", "integer[][]", true),
                new TypeCases.Column("md_text", "text", "text[][][]", true))),
        // The same with Parquet field ids on every field and an extra footer pair: each reader
        // still reads the values (Spark and Arrow match columns by field id only when asked to).
        new Export(
            "multidim-field-ids",
            "SELECT id, md_int4, md_text FROM " + TABLE,
            "field_ids => 'auto', kv_metadata => '{\"lake.source\": \"matrix\"}'",
            null,
            List.of(
                new TypeCases.Column("md_int4", "int4", "integer[][], field_ids => 'auto'", true),
                new TypeCases.Column("md_text", "text", "text[][][], field_ids => 'auto'", true))),
        // The same compressed with brotli, which not every reader decodes (docs/types.md).
        new Export(
            "multidim-brotli",
            "SELECT id, md_int4, md_text FROM " + TABLE,
            "compression => 'brotli'",
            null,
            List.of(
                new TypeCases.Column(
                    "md_int4", "int4", "integer[][], compression => 'brotli'", true),
                new TypeCases.Column(
                    "md_text", "text", "text[][][], compression => 'brotli'", true))),
        new Export(
            "numeric-double",
            "SELECT id, unum, a_unum FROM " + TABLE,
            "unconstrained_numeric => 'double'",
            "%1$s::float8",
            List.of(unumDouble, aunumDouble)),
        new Export(
            "numeric-decimal",
            "SELECT id, unum, a_unum FROM " + TABLE + " WHERE id <= 5",
            "unconstrained_numeric => '" + DECIMAL + "'",
            "%1$s::numeric(38,10)",
            List.of(unumDecimal, aunumDecimal)));
  }

  /** PostgreSQL's canonical cells of col in export e, by id (null for NULL). */
  static Map<Integer, ?> expected(Connection pg, Export e, TypeCases.Column col)
      throws SQLException, IOException {
    String rows = "(" + e.source() + ") s";
    Map<Integer, Object> out = new TreeMap<>();
    if (e.cast() == null) {
      ObjectMapper json = new ObjectMapper();
      try (Statement st = pg.createStatement();
          ResultSet rs =
              st.executeQuery("SELECT id, array_to_json(" + col.name() + ")::text FROM " + rows)) {
        while (rs.next()) {
          String text = rs.getString(2);
          out.put(rs.getInt(1), text == null ? null : nested(json.readTree(text)));
        }
      }
      return out;
    }
    String leaf = "CASE WHEN %1$s IS NULL THEN NULL ELSE format('%%s', " + e.cast() + ") END";
    String sql =
        col.array()
            ? "SELECT id, CASE WHEN a IS NULL THEN NULL ELSE ARRAY(SELECT "
                + String.format(leaf, "a[i]")
                + " FROM generate_subscripts(a, 1) i ORDER BY i) END FROM (SELECT id, "
                + col.name()
                + " AS a FROM "
                + rows
                + ") r"
            : "SELECT id, " + String.format(leaf, col.name()) + " FROM " + rows;
    try (Statement st = pg.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        if (!col.array()) {
          String v = rs.getString(2);
          out.put(rs.getInt(1), v == null ? null : TypeCases.normalize(col, v));
          continue;
        }
        java.sql.Array a = rs.getArray(2);
        if (a == null) {
          out.put(rs.getInt(1), null);
          continue;
        }
        List<String> list = new ArrayList<>();
        for (Object o : (Object[]) a.getArray()) {
          list.add(o == null ? null : TypeCases.normalize(col, o.toString()));
        }
        out.put(rs.getInt(1), list);
      }
    }
    return out;
  }

  /**
   * array_to_json's array as nested Lists of element texts (numbers as PostgreSQL printed them).
   */
  private static Object nested(JsonNode n) {
    if (n.isNull()) {
      return null;
    }
    if (n.isArray()) {
      List<Object> list = new ArrayList<>();
      n.forEach(x -> list.add(nested(x)));
      return list;
    }
    return n.isTextual() ? n.textValue() : n.asText();
  }
}
