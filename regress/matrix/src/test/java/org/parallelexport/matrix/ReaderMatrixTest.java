package org.parallelexport.matrix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.parallelexport.matrix.Matrix.Cell;
import org.parallelexport.matrix.Matrix.Status;
import org.parallelexport.readback.TypeCases;

/**
 * The reader matrix: the read-back type fixtures exported once as they are and once with
 * compatibility => 'spark', multi-dimensional arrays, and numeric under each unconstrained_numeric
 * mapping; every column of every export read by every reader (each started once for all of them),
 * each cell compared value by value with PostgreSQL. One test per cell checks it against the
 * committed matrix (expected.tsv), so CI fails when a reader stops reading a type it read, or reads
 * it differently; the Spark profile is checked to be read whole by Spark, and to leave every other
 * column as it was; one more test checks that README.md shows what this run observed. With
 * -Dpep.matrix.update=true the run writes both files instead.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReaderMatrixTest {
  private static final Path HOME = Paths.get(System.getProperty("pep.matrix.dir", "."));
  private static final Path EXPECTED = HOME.resolve("expected.tsv");
  private static final Path README = HOME.resolve("../../README.md").normalize();
  private static final boolean UPDATE = Boolean.getBoolean("pep.matrix.update");
  private static final int NOTE_MAX = 200;
  static final String FAITHFUL = "types";
  static final String SPARK = "types-spark";

  /** One export of the matrix: its file, and per column how to read it and PostgreSQL's side. */
  private record Export(String name, Path dir, List<Column> columns) {
    Path file() {
      return dir.resolve("part-00000.parquet");
    }

    List<String> names() {
      return columns.stream().map(c -> c.col().name()).toList();
    }
  }

  private record Column(TypeCases.Column col, Map<Integer, ?> expected) {}

  private final List<Cell> observed = new ArrayList<>();
  private final Map<String, String> readerNames = new LinkedHashMap<>();
  private final Map<String, String> sparkWholeFile = new LinkedHashMap<>();
  private String preamble;
  private long last = System.nanoTime();

  @BeforeAll
  void run() throws Exception {
    List<Export> exports = new ArrayList<>();
    try (Connection pg = TypeCases.connect()) {
      TypeCases.create(pg);
      MoreCases.create(pg);
      Path faithful = TypeCases.exportDir("matrix");
      TypeCases.export(pg, faithful);
      Path spark = TypeCases.exportDir("matrix-spark");
      TypeCases.export(pg, TypeCases.TABLE, spark, "compatibility => 'spark'");
      List<Column> none = new ArrayList<>();
      List<Column> asSpark = new ArrayList<>();
      for (TypeCases.Column c : TypeCases.columns()) {
        none.add(new Column(c, TypeCases.expected(pg, c)));
        asSpark.add(
            TypeCases.sparkAsText(c)
                ? new Column(
                    new TypeCases.Column(c.name(), "text", c.pgType() + " as text", c.array()),
                    TypeCases.expectedText(pg, c))
                : new Column(c, TypeCases.expected(pg, c)));
      }
      exports.add(new Export(FAITHFUL, faithful, none));
      exports.add(new Export(SPARK, spark, asSpark));
      for (MoreCases.Export m : MoreCases.exports()) {
        Path dir = TypeCases.exportDir("matrix-" + m.name());
        TypeCases.export(pg, m.source(), dir, m.options());
        List<Column> cols = new ArrayList<>();
        for (TypeCases.Column c : m.columns()) {
          cols.add(new Column(c, MoreCases.expected(pg, m, c)));
        }
        exports.add(new Export(m.name(), dir, cols));
      }
    }
    // export name -> reader -> column -> what the reader made of it
    Map<String, Map<String, Map<String, Reader.Read>>> reads = new LinkedHashMap<>();
    exports.forEach(e -> reads.put(e.name(), new LinkedHashMap<>()));
    lap("fixtures, " + exports.size() + " exports and PostgreSQL's side");
    try (DuckDbReader duck = new DuckDbReader()) {
      readAll("duckdb", duck, exports, reads);
    }
    try (ArrowReader arrow = new ArrowReader()) {
      readAll("arrow", arrow, exports, reads);
    }
    try (SparkReader spark = new SparkReader()) {
      readAll("spark", spark, exports, reads);
      for (Export e : exports) {
        sparkWholeFile.put(e.name(), spark.wholeFile(e.file()));
      }
    }
    NodeReaders node = new NodeReaders(HOME.resolve("js"));
    Map<Path, List<String>> files = new LinkedHashMap<>();
    exports.forEach(e -> files.put(e.file(), e.names()));
    List<NodeReaders.FileReads> js = node.read(files);
    for (String r : NodeReaders.NAMES) {
      readerNames.put(r, node.name(r));
      for (int i = 0; i < exports.size(); i++) {
        reads.get(exports.get(i).name()).put(r, js.get(i).byReader().get(r));
      }
    }
    lap("polars and hyparquet");
    for (Export e : exports) {
      for (Column c : e.columns()) {
        for (Map.Entry<String, Map<String, Reader.Read>> r : reads.get(e.name()).entrySet()) {
          observed.add(judge(e.name(), c, r.getKey(), r.getValue().get(c.col().name()), e.file()));
        }
      }
    }
    preamble =
        "Generated by the reader matrix (regress/matrix, run by tools/test.sh): the "
            + TypeCases.columns().size()
            + " columns of the read-back type fixtures (every edge value, NULL, empty and"
            + " NULL-element arrays), multi-dimensional arrays and `numeric` under each"
            + " `unconstrained_numeric` mapping, exported and read by each reader through its own"
            + " API (DuckDB's JDBC driver, Arrow Java's vectors over the C++ reader, Spark's Rows"
            + " with java.time values, the JavaScript values of nodejs-polars and hyparquet), each"
            + " started once. exact: every value equals PostgreSQL's; ≈: read, with the difference"
            + " noted (the first differing row: PostgreSQL's value, then the reader's, in the"
            + " canonical form of the read-back test: days, microseconds, float bits,"
            + " months,days,microseconds); ✗: cannot read the column. Spark reads each column with"
            + " the schema its own converter gives for that column.";
    // the run's own result, always: tools/test.sh shows its diff with expected.tsv on failure
    Path target = Files.createDirectories(HOME.resolve("target"));
    Matrix.save(target.resolve("observed.tsv"), observed);
    Files.writeString(target.resolve("observed.md"), markdown(), StandardCharsets.UTF_8);
    if (UPDATE) {
      Matrix.save(EXPECTED, observed);
      String readme = Files.readString(README, StandardCharsets.UTF_8);
      Files.writeString(README, Matrix.replaceSection(readme, markdown()), StandardCharsets.UTF_8);
    }
    exports.forEach(e -> TypeCases.discard(e.dir()));
  }

  /** One reader over every export, started once by the caller. */
  private void readAll(
      String key,
      Reader reader,
      List<Export> exports,
      Map<String, Map<String, Map<String, Reader.Read>>> reads)
      throws Exception {
    readerNames.put(key, reader.name());
    lap(key + " started");
    for (Export e : exports) {
      reads.get(e.name()).put(key, reader.read(e.file(), e.names()));
      lap(key + " read " + e.name());
    }
  }

  /**
   * The README section: the faithful encodings (the type fixtures, multi-dimensional arrays, the
   * numeric mappings), then the columns compatibility => 'spark' writes otherwise.
   */
  private String markdown() {
    List<Cell> faithful = new ArrayList<>();
    List<Cell> spark = new ArrayList<>();
    for (Cell c : observed) {
      if (!c.export().equals(SPARK)) {
        faithful.add(c);
      } else if (c.pgType().endsWith(" as text")) {
        spark.add(c);
      }
    }
    String whole = sparkWholeFile.get(FAITHFUL);
    return Matrix.markdown(
        List.of(
            new Matrix.Table(
                "Faithful encodings (the default)",
                "`spark.read.parquet` with an inferred schema "
                    + (whole == null
                        ? "reads the whole file."
                        : "fails for the whole file of the type fixtures: " + whole + "."),
                faithful),
            new Matrix.Table(
                "`compatibility => 'spark'`",
                "The same type fixtures exported with `compatibility => 'spark'`: the types below"
                    + " are written as the text of their output function, compared with"
                    + " PostgreSQL's text of each value; every other column is written and read"
                    + " exactly as in the table above (the matrix checks each of its cells)."
                    + " `spark.read.parquet` with an inferred schema "
                    + (sparkWholeFile.get(SPARK) == null
                        ? "reads the whole file."
                        : "fails for the whole file: " + sparkWholeFile.get(SPARK) + "."),
                spark)),
        readerNames,
        preamble);
  }

  /** Prints how long the step since the previous lap took (the suite's time budget). */
  private void lap(String step) {
    long now = System.nanoTime();
    System.out.printf("matrix: %s took %.1f s%n", step, (now - last) / 1e9);
    last = now;
  }

  private static Cell judge(
      String export, Column column, String reader, Reader.Read read, Path file) {
    TypeCases.Column c = column.col();
    if (read.error() != null) {
      return new Cell(
          export, c.name(), c.pgType(), reader, Status.UNREADABLE, clean(read.error(), file));
    }
    for (Map.Entry<Integer, ?> e : column.expected().entrySet()) {
      Object raw = read.values().get(e.getKey());
      Object got;
      try {
        got = Canon.of(c, raw);
      } catch (Exception x) {
        got = "(" + x.getMessage() + ")";
      }
      if (!Objects.equals(e.getValue(), got)) {
        String note =
            "id "
                + e.getKey()
                + ": "
                + e.getValue()
                + " read as "
                + got
                + " ("
                + Canon.typeOf(raw)
                + ")";
        return new Cell(export, c.name(), c.pgType(), reader, Status.DIFFERS, clean(note, file));
      }
    }
    return new Cell(export, c.name(), c.pgType(), reader, Status.EXACT, "");
  }

  /** A note on one line, without the run's paths, short enough for a table's footnote. */
  private static String clean(String s, Path file) {
    String t =
        s.replace(file.toString(), "FILE")
            .replace(file.toUri().toString(), "FILE")
            .replaceAll("\\s+", " ")
            .trim();
    // a byte a reader decoded as text may be a control character: keep the note printable
    t =
        t.codePoints()
            .mapToObj(cp -> cp < 0x20 ? String.format("\\u%04x", cp) : Character.toString(cp))
            .collect(java.util.stream.Collectors.joining());
    return t.length() > NOTE_MAX ? t.substring(0, NOTE_MAX) + "…" : t;
  }

  @TestFactory
  Stream<DynamicTest> everyCellAsCommitted() throws Exception {
    Map<String, Cell> expected = Matrix.load(EXPECTED);
    return observed.stream()
        .map(
            o ->
                DynamicTest.dynamicTest(
                    o.export() + ": " + o.column() + " by " + o.reader(),
                    () -> {
                      Cell e = expected.get(o.key());
                      assertEquals(
                          e == null ? "(not in expected.tsv)" : e.tsv(),
                          o.tsv(),
                          "regress/matrix/expected.tsv");
                    }));
  }

  /**
   * The profile's promise, whatever expected.tsv says: Spark reads the whole file with an inferred
   * schema, every reader that can read a column the profile turns into text reads it exactly, and
   * every other column is read as in the faithful export.
   */
  @TestFactory
  Stream<DynamicTest> sparkProfileKeepsItsPromise() {
    Map<String, Cell> faithful = new LinkedHashMap<>();
    observed.stream()
        .filter(c -> c.export().equals(FAITHFUL))
        .forEach(c -> faithful.put(c.column() + "\t" + c.reader(), c));
    List<DynamicTest> tests = new ArrayList<>();
    tests.add(
        DynamicTest.dynamicTest(
            "Spark reads the whole spark-profile file",
            () -> assertNull(sparkWholeFile.get(SPARK), "spark.read.parquet of the file")));
    for (Cell c : observed) {
      if (!c.export().equals(SPARK)) {
        continue;
      }
      Cell f = faithful.get(c.column() + "\t" + c.reader());
      boolean asText = c.pgType().endsWith(" as text");
      tests.add(
          DynamicTest.dynamicTest(
              c.column() + " by " + c.reader(),
              () ->
                  assertEquals(
                      asText ? Status.EXACT + " " : f.status() + " " + f.note(),
                      c.status() + " " + c.note(),
                      asText ? "a column the profile writes as text" : "as without the profile")));
    }
    return tests.stream();
  }

  @TestFactory
  Stream<DynamicTest> readmeShowsThisRun() throws Exception {
    String readme = Files.readString(README, StandardCharsets.UTF_8);
    String want = markdown();
    return Stream.of(
        DynamicTest.dynamicTest(
            "README.md reader matrix", () -> assertEquals(want, Matrix.section(readme))));
  }
}
