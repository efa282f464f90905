package org.parallelexport.matrix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.parallelexport.matrix.Matrix.Cell;
import org.parallelexport.matrix.Matrix.Status;
import org.parallelexport.readback.TypeCases;

/**
 * The reader matrix: the read-back type fixtures exported once as they are and once with
 * compatibility => 'spark', multi-dimensional arrays, numeric under each unconstrained_numeric
 * mapping, the fixtures partitioned by four computed columns (partition_by, read as Hive datasets),
 * and the fixtures exported to s3:// on an S3Proxy started once for the run; every column of every
 * export read by every reader (each started once for all of them), each cell compared value by
 * value with PostgreSQL. One test per cell checks it against the committed matrix (expected.tsv),
 * so CI fails when a reader stops reading a type it read, or reads it differently, and one checks
 * that no committed cell went unobserved; the Spark profile is checked to be read whole by Spark,
 * and to leave every other column as it was; the s3:// export's _SUCCESS manifest is checked
 * against the objects listed and the rows read; one more test checks that docs/types.md shows what
 * this run observed. With -Dpep.matrix.update=true the run writes both files instead.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReaderMatrixTest {
  private static final Path HOME = Paths.get(System.getProperty("pep.matrix.dir", "."));
  private static final Path EXPECTED = HOME.resolve("expected.tsv");
  private static final Path TYPES_PAGE = HOME.resolve("../../docs/types.md").normalize();
  private static final boolean UPDATE = Boolean.getBoolean("pep.matrix.update");
  private static final int NOTE_MAX = 200;
  static final String FAITHFUL = "types";
  static final String SPARK = "types-spark";
  static final String PARTITIONED = "partitioned";
  static final String PARTITIONED_IN_FILES = "partitioned-in-files";
  static final String OBJECT_STORE = "types-s3";
  static final String PARTITIONED_OBJECT_STORE = "partitioned-s3";
  private static final int S3_WORKERS = 2;

  /** How each reader reaches an s3:// export here (the words of docs/types.md). */
  private static final Map<String, String> S3_ACCESS =
      Map.of(
          "duckdb",
              "reads the S3 server's folder (httpfs is downloaded from extensions.duckdb.org,"
                  + " which CI cannot reach)",
          "arrow", "reads through Arrow C++'s S3 filesystem (`s3://` URI with `endpoint_override`)",
          "spark",
              "reads the S3 server's folder (s3a's hadoop-aws needs the 641 MB AWS SDK bundle)",
          "polars", "reads through `scanParquet` of the prefix's glob with `cloudOptions`",
          "hyparquet", "reads each listed object through a presigned GET URL");

  /**
   * One export of the matrix: what the readers read, and per column how to read it and PostgreSQL's
   * side; dir is what the run removes at the end (null: the S3 server's, removed with it).
   */
  private record Export(String name, Source source, Path dir, List<Column> columns) {
    List<String> names() {
      return columns.stream().map(c -> c.col().name()).toList();
    }
  }

  /** A column, PostgreSQL's cells by id, and whether its cells say which type the reader chose. */
  private record Column(TypeCases.Column col, Map<Integer, ?> expected, boolean typed) {
    Column(TypeCases.Column col, Map<Integer, ?> expected) {
      this(col, expected, false);
    }
  }

  private final List<Cell> observed = new ArrayList<>();
  private final Map<String, String> readerNames = new LinkedHashMap<>();
  private final Map<String, String> sparkWholeFile = new LinkedHashMap<>();
  private S3Lake lake;

  /** The s3:// exports by name: where, and what the object store lists and the manifest says. */
  private final Map<String, S3Written> s3Exports = new LinkedHashMap<>();

  /** Export name to the rows DuckDB read from each of its objects. */
  private final Map<String, Map<String, Long>> s3RowsByPart = new LinkedHashMap<>();

  /** Reader to the ids it read of the s3:// export. */
  private final Map<String, Map<String, Set<Integer>>> s3Ids = new LinkedHashMap<>();

  private Set<Integer> fixtureIds;
  private String preamble;
  private long last = System.nanoTime();

  @AfterAll
  void stopLake() throws Exception {
    if (lake != null) {
      lake.close();
    }
  }

  @BeforeAll
  void run() throws Exception {
    lake = new S3Lake(HOME.resolve("../lib/s3proxy.sh").normalize());
    lap("S3Proxy started");
    List<Export> exports;
    try (Connection pg = TypeCases.connect()) {
      exports = exportAll(pg);
    }
    // export name -> reader -> column -> what the reader made of it
    Map<String, Map<String, Map<String, Reader.Read>>> reads = new LinkedHashMap<>();
    exports.forEach(e -> reads.put(e.name(), new LinkedHashMap<>()));
    lap("fixtures, " + exports.size() + " exports and PostgreSQL's side");
    try (DuckDbReader duck = new DuckDbReader()) {
      readAll("duckdb", duck, exports, reads);
      for (Map.Entry<String, S3Written> e : s3Exports.entrySet()) {
        s3RowsByPart.put(e.getKey(), duck.rowsByFile(e.getValue().source()));
      }
    }
    try (ArrowReader arrow = new ArrowReader()) {
      readAll("arrow", arrow, exports, reads);
    }
    try (SparkReader spark = new SparkReader()) {
      readAll("spark", spark, exports, reads);
      for (Export e : exports) {
        sparkWholeFile.put(e.name(), spark.wholeFile(e.source()));
      }
    }
    NodeReaders node = new NodeReaders(HOME.resolve("js"));
    Map<Source, List<String>> sources = new LinkedHashMap<>();
    exports.forEach(e -> sources.put(e.source(), e.names()));
    Path target = Files.createDirectories(HOME.resolve("target"));
    List<NodeReaders.FileReads> js = node.read(sources, target);
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
          observed.add(
              judge(e.name(), c, r.getKey(), r.getValue().get(c.col().name()), e.source()));
        }
      }
    }
    for (String name : s3Exports.keySet()) {
      Map<String, Set<Integer>> ids = new LinkedHashMap<>();
      // a reader that read no column of the export has its cells, all ✗, and no rows to count
      reads
          .get(name)
          .forEach(
              (reader, columns) ->
                  columns.values().stream()
                      .filter(r -> r.error() == null)
                      .findFirst()
                      .ifPresent(r -> ids.put(reader, r.values().keySet())));
      s3Ids.put(name, ids);
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
    Matrix.save(target.resolve("observed.tsv"), observed);
    Files.writeString(target.resolve("observed.md"), markdown(), StandardCharsets.UTF_8);
    if (UPDATE) {
      Matrix.save(EXPECTED, observed);
      String page = Files.readString(TYPES_PAGE, StandardCharsets.UTF_8);
      Files.writeString(
          TYPES_PAGE, Matrix.replaceSection(page, markdown()), StandardCharsets.UTF_8);
    }
    exports.stream().filter(e -> e.dir() != null).forEach(e -> TypeCases.discard(e.dir()));
  }

  /** Every export of the matrix, with PostgreSQL's side of each column. */
  private List<Export> exportAll(Connection pg) throws Exception {
    List<Export> exports = new ArrayList<>();
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
    exports.add(new Export(FAITHFUL, single(faithful), faithful, none));
    exports.add(new Export(SPARK, single(spark), spark, asSpark));
    for (MoreCases.Export m : MoreCases.exports()) {
      Path dir = TypeCases.exportDir("matrix-" + m.name());
      TypeCases.export(pg, m.source(), dir, m.options());
      List<Column> cols = new ArrayList<>();
      for (TypeCases.Column c : m.columns()) {
        cols.add(new Column(c, MoreCases.expected(pg, m, c)));
      }
      exports.add(new Export(m.name(), single(dir), dir, cols));
    }
    exports.add(partitioned(pg, PARTITIONED, none));
    exports.add(partitioned(pg, PARTITIONED_IN_FILES, List.of()));
    exports.add(objectStore(pg, OBJECT_STORE, "types", none, List.of()));
    exports.add(
        objectStore(pg, PARTITIONED_OBJECT_STORE, "partitioned", none, PartitionCases.KEYS));
    return exports;
  }

  /**
   * The fixtures' columns (fixture: none for the export of the partition columns alone, kept in the
   * files too) exported with partition_by on PartitionCases' columns.
   */
  private Export partitioned(Connection pg, String name, List<Column> fixture) throws Exception {
    boolean inFiles = fixture.isEmpty();
    Path tree = TypeCases.exportDir("matrix-" + name);
    TypeCases.export(pg, PartitionCases.source(!inFiles), tree, PartitionCases.options(inFiles));
    List<Column> cols = new ArrayList<>(fixture);
    for (PartitionCases.Key k : PartitionCases.KEYS) {
      cols.add(new Column(k.column(inFiles), PartitionCases.expected(pg, k), true));
    }
    return new Export(name, Source.hive(tree, PartitionCases.names()), tree, cols);
  }

  /** An s3:// export: what the readers read, the objects listed and the manifest. */
  private record S3Written(Source source, List<S3Lake.Listed> listed, S3Lake.Manifest manifest) {}

  /**
   * The fixtures exported into s3:// under key, as they are (fixture's columns) or, with keys, with
   * PartitionCases' columns and partition_by on them; with what the object store holds.
   */
  private Export objectStore(
      Connection pg, String name, String key, List<Column> fixture, List<PartitionCases.Key> keys)
      throws Exception {
    S3Lake.Prefix prefix = lake.prefix(key);
    lake.register(pg);
    TypeCases.export(
        pg,
        keys.isEmpty() ? TypeCases.TABLE : PartitionCases.source(true),
        prefix.url(),
        S3_WORKERS,
        "s3_server => '"
            + S3Lake.SERVER
            + "'"
            + (keys.isEmpty() ? "" : ", " + PartitionCases.options(false)));
    lake.unregister(pg);
    List<Column> cols = new ArrayList<>(fixture);
    for (PartitionCases.Key k : keys) {
      cols.add(new Column(k.column(false), PartitionCases.expected(pg, k), true));
    }
    Source source = Source.s3(prefix, keys.stream().map(PartitionCases.Key::name).toList());
    S3Written written = new S3Written(source, lake.list(prefix), lake.manifest(prefix));
    s3Exports.put(name, written);
    System.out.printf(
        "matrix: the s3:// export %s wrote %d parts%n", name, written.manifest().parts().size());
    fixtureIds = fixture.get(0).expected().keySet();
    return new Export(name, source, null, cols);
  }

  private static Source single(Path dir) {
    return Source.file(dir.resolve("part-00000.parquet"));
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
      reads.get(e.name()).put(key, reader.read(e.source(), e.names()));
      lap(key + " read " + e.name());
    }
  }

  /**
   * The docs/types.md section: the faithful encodings (the type fixtures, multi-dimensional arrays,
   * the numeric mappings), the columns compatibility => 'spark' writes otherwise, the partition
   * columns of the partitioned exports, and the cells of the partitioned and s3:// exports that
   * differ from the faithful export's.
   */
  private String markdown() {
    Map<String, Cell> faithfulByColumn = new LinkedHashMap<>();
    List<Cell> faithful = new ArrayList<>();
    List<Cell> spark = new ArrayList<>();
    for (Cell c : observed) {
      if (FAITHFUL.equals(c.export())) {
        faithfulByColumn.put(c.column() + "\t" + c.reader(), c);
      }
      if (!Set.of(SPARK, PARTITIONED, PARTITIONED_IN_FILES, OBJECT_STORE, PARTITIONED_OBJECT_STORE)
          .contains(c.export())) {
        faithful.add(c);
      } else if (c.export().equals(SPARK) && c.pgType().endsWith(" as text")) {
        spark.add(c);
      }
    }
    // a row of the layout tables: a partition column, or a column some reader reads there
    // otherwise than in the faithful export (then with every reader's cell)
    Set<String> shown = new HashSet<>();
    int[] same = new int[2];
    int[] all = new int[2];
    for (Cell c : observed) {
      boolean inS3 = s3Exports.containsKey(c.export());
      boolean tree = !inS3 && c.export().startsWith(PARTITIONED);
      if (!tree && !inS3) {
        continue;
      }
      Cell f = faithfulByColumn.get(c.column() + "\t" + c.reader());
      if (f == null) {
        shown.add(c.export() + "\t" + c.column());
        continue;
      }
      int i = tree ? 0 : 1;
      all[i]++;
      if (f.status() == c.status() && f.note().equals(c.note())) {
        same[i]++;
      } else {
        shown.add(c.export() + "\t" + c.column());
      }
    }
    List<Cell> partitioned = new ArrayList<>();
    List<Cell> s3 = new ArrayList<>();
    for (Cell c : observed) {
      if (shown.contains(c.export() + "\t" + c.column())) {
        (s3Exports.containsKey(c.export()) ? s3 : partitioned).add(c);
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
                spark),
            new Matrix.Table(
                "`partition_by`, read as a Hive-partitioned dataset",
                "The type fixtures with four more columns computed from the id, exported with"
                    + " `partition_by` on them (`"
                    + PartitionCases.options(false)
                    + "`: NULLs in the integer and text folders, text values with `/ = % : ? # [ ]`"
                    + " that Hive escapes, a space and UTF-8), and the partition columns alone"
                    + " exported again with `write_partition_columns => true`. Each reader reads the"
                    + " tree from its root: DuckDB `read_parquet('DIR/**/*.parquet',"
                    + " hive_partitioning = true)`, Arrow Java's `FileSystemDatasetFactory` on the"
                    + " folder (its Java binding has no partitioning option), Spark"
                    + " `spark.read.parquet(DIR)`, Polars `scanParquet('DIR/**/*.parquet',"
                    + " {hivePartitioning: true})`; hyparquet reads single files, so it is handed"
                    + " each part file. A cell says the type the reader gave the column. Of the"
                    + " fixtures' other cells, "
                    + same[0]
                    + " of "
                    + all[0]
                    + " are read as in the first table"
                    + (same[0] == all[0] ? "." : "; the others are below."),
                partitioned),
            new Matrix.Table(
                "`s3://`, read from the object store",
                "The type fixtures exported to `s3://` on S3Proxy ("
                    + S3_WORKERS
                    + " workers, `s3_server`), once as they are and once with the `partition_by` of"
                    + " the table above (its partition columns are the rows below). Arrow's ✗ there"
                    + " comes from S3Proxy's filesystem backend, which lists each folder as a key"
                    + " ending in `/` of 4,096 bytes that Arrow's S3 filesystem opens as a file; S3"
                    + " itself lists no such keys. "
                    + readerNames.keySet().stream()
                        .filter(S3_ACCESS::containsKey)
                        .map(r -> readerNames.get(r) + " " + S3_ACCESS.get(r))
                        .collect(Collectors.joining("; "))
                    + ". The `_SUCCESS` manifest lists exactly the parts listed under the prefix,"
                    + " with their sizes and the rows DuckDB counts in each, and every reader that"
                    + " reads a column of an export read every row of it (the matrix checks both). "
                    + same[1]
                    + " of "
                    + all[1]
                    + " cells are read as in the first table"
                    + (same[1] == all[1] ? "." : "; the others are below."),
                s3)),
        readerNames,
        preamble);
  }

  /** Prints how long the step since the previous lap took (the suite's time budget). */
  private void lap(String step) {
    long now = System.nanoTime();
    System.out.printf("matrix: %s took %.1f s%n", step, (now - last) / 1e9);
    last = now;
  }

  private Cell judge(String export, Column column, String reader, Reader.Read read, Source src) {
    TypeCases.Column c = column.col();
    if (read.error() != null) {
      return new Cell(
          export, c.name(), c.pgType(), reader, Status.UNREADABLE, clean(read.error(), src));
    }
    String as = column.typed() && read.type() != null ? "as `" + read.type() + "`" : "";
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
                + ")"
                + (as.isEmpty() ? "" : ", " + as);
        return new Cell(export, c.name(), c.pgType(), reader, Status.DIFFERS, clean(note, src));
      }
    }
    return new Cell(export, c.name(), c.pgType(), reader, Status.EXACT, as);
  }

  /**
   * A note on one line, without the run's paths, URLs and keys, short enough for a table's
   * footnote.
   */
  private String clean(String s, Source src) {
    String name = src.kind() == Source.Kind.FILE ? "FILE" : "DIR";
    String t = s;
    if (src.s3() != null) {
      t =
          t.replace(lake.arrowUri(src.s3()), "PREFIX")
              .replace(src.s3().url(), "PREFIX/")
              .replace(lake.credential(), "KEY");
    }
    String uri = src.local().toUri().toString();
    t =
        t.replace(uri, uri.endsWith("/") ? name + "/" : name)
            .replace(src.local().toString(), name)
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

  /** A committed cell this run did not produce (an export or reader left out) fails too. */
  @Test
  void everyCommittedCellWasObserved() throws Exception {
    Set<String> seen = new HashSet<>();
    observed.forEach(c -> seen.add(c.key()));
    List<String> missing =
        Matrix.load(EXPECTED).keySet().stream().filter(k -> !seen.contains(k)).toList();
    assertEquals(List.of(), missing, "cells of regress/matrix/expected.tsv this run did not read");
  }

  /**
   * Each s3:// export as a lake reader meets it: the _SUCCESS manifest lists exactly the objects
   * ListObjectsV2 lists under the prefix (besides itself), with their sizes; its rows per part are
   * the rows DuckDB reads from each object, and add up to the fixtures' rows; every reader read the
   * rows of every part.
   */
  @TestFactory
  Stream<DynamicTest> s3ManifestIsWhatTheReadersRead() {
    List<DynamicTest> tests = new ArrayList<>();
    s3Exports.forEach(
        (name, written) -> {
          Map<String, Long> listed = new TreeMap<>();
          written.listed().forEach(o -> listed.put(o.name(), o.bytes()));
          Map<String, Long> bytes = new TreeMap<>();
          Map<String, Long> rows = new TreeMap<>();
          written
              .manifest()
              .parts()
              .forEach(
                  (part, rowsAndBytes) -> {
                    rows.put(part, rowsAndBytes[0]);
                    bytes.put(part, rowsAndBytes[1]);
                  });
          tests.add(
              DynamicTest.dynamicTest(
                  name + ": the manifest lists exactly the objects under the prefix, with sizes",
                  () -> {
                    assertTrue(listed.remove("_SUCCESS") != null, "_SUCCESS listed: " + listed);
                    assertFalse(bytes.isEmpty(), "the manifest lists parts");
                    assertEquals(bytes, listed);
                  }));
          tests.add(
              DynamicTest.dynamicTest(
                  name + ": the manifest's rows per part are the rows read from each object",
                  () -> assertEquals(rows, s3RowsByPart.get(name))));
          tests.add(
              DynamicTest.dynamicTest(
                  name + ": the manifest's rows are the fixtures' rows",
                  () -> {
                    assertEquals(fixtureIds.size(), written.manifest().rows(), "rows");
                    assertEquals(
                        written.manifest().rows(),
                        rows.values().stream().mapToLong(Long::longValue).sum(),
                        "the parts' rows");
                  }));
          s3Ids
              .get(name)
              .forEach(
                  (reader, ids) ->
                      tests.add(
                          DynamicTest.dynamicTest(
                              name + ": " + reader + " read every row",
                              () -> assertEquals(fixtureIds, ids))));
        });
    return tests.stream();
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
  Stream<DynamicTest> typesPageShowsThisRun() throws Exception {
    String page = Files.readString(TYPES_PAGE, StandardCharsets.UTF_8);
    String want = markdown();
    return Stream.of(
        DynamicTest.dynamicTest(
            "docs/types.md reader matrix", () -> assertEquals(want, Matrix.section(page))));
  }
}
