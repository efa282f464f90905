package org.parallelexport.readback;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The type fixtures of {@link TypesRoundTripTest}, opened to the reader matrix (regress/matrix):
 * the table, its columns, the export call, and PostgreSQL's side of every cell in the canonical
 * text the read-back test compares (epoch days and microseconds, float bits, decimal text, an
 * interval as months,days,microseconds), so that both suites judge one value the same way.
 */
public final class TypeCases {
  /** The fixture table, one scalar column v_NAME and one array column a_NAME per case. */
  public static final String TABLE = TypesRoundTripTest.S + ".t";

  /** A column of the fixture table; kind is the case name, which fixes the canonical text. */
  public record Column(String name, String kind, String pgType, boolean array) {}

  private TypeCases() {}

  /** A session in UTC with shortest-exact floats, as the read-back test uses. */
  public static Connection connect() throws SQLException {
    return TypesRoundTripTest.connect(Env.JDBC_URL);
  }

  /** Creates the fixture table anew in pg's database. */
  public static void create(Connection pg) throws SQLException {
    TypesRoundTripTest.createFixtures(pg);
  }

  public static List<Column> columns() {
    List<Column> out = new ArrayList<>();
    for (TypesRoundTripTest.Case c : TypesRoundTripTest.CASES) {
      out.add(new Column("v_" + c.name(), c.name(), c.pgType(), false));
      out.add(new Column("a_" + c.name(), c.name(), c.pgType() + "[]", true));
    }
    return out;
  }

  /** The fresh export directory NAME under pep.outdir, unique to this run. */
  public static Path exportDir(String name) {
    return Env.exportDir(name);
  }

  /** Removes an export directory, unless -Dpep.keep=true. */
  public static void discard(Path dir) {
    Env.discard(dir);
  }

  public static long export(Connection pg, Path dir) throws SQLException {
    return Env.export(pg, TABLE, dir, 1);
  }

  /** Exports source (a relation or a query) into dir with one worker and the named options. */
  public static long export(Connection pg, String source, Path dir, String options)
      throws SQLException {
    return Env.export(pg, source, dir, 1, options);
  }

  /** Exports source into target (a directory or an s3:// URL) with workers and the options. */
  public static long export(
      Connection pg, String source, String target, int workers, String options)
      throws SQLException {
    return Env.export(pg, source, target, workers, options);
  }

  /** Whether compatibility => 'spark' writes col as the text of its type's output function. */
  public static boolean sparkAsText(Column col) {
    return TypesRoundTripTest.SPARK_AS_TEXT.contains(col.kind());
  }

  /**
   * PostgreSQL's cells of a column as the text of its type's output function (what a reader profile
   * writes for a type it turns into text), in the form of {@link #expected}.
   */
  public static Map<Integer, ?> expectedText(Connection pg, Column col) throws SQLException {
    TypesRoundTripTest.Case c = TypesRoundTripTest.asText(caseOf(col));
    return col.array() ? TypesRoundTripTest.pgArray(pg, c) : TypesRoundTripTest.pgScalar(pg, c);
  }

  /**
   * PostgreSQL's canonical cells of a column by id: a String, or for an array column a List of
   * Strings (null elements kept); null for NULL.
   */
  public static Map<Integer, ?> expected(Connection pg, Column col) throws SQLException {
    TypesRoundTripTest.Case c = caseOf(col);
    return col.array() ? TypesRoundTripTest.pgArray(pg, c) : TypesRoundTripTest.pgScalar(pg, c);
  }

  /** The read-back test's normalization of one leaf's text (float bits, plain decimals). */
  public static String normalize(Column col, String text) {
    return caseOf(col).norm().apply(text);
  }

  private static TypesRoundTripTest.Case caseOf(Column col) {
    for (TypesRoundTripTest.Case c : TypesRoundTripTest.CASES) {
      if (c.name().equals(col.kind())) {
        return c;
      }
    }
    throw new IllegalArgumentException(col.kind());
  }
}
