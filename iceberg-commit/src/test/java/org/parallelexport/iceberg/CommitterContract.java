package org.parallelexport.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CommitterContract: what IcebergCommitter promises, against any catalog.
 *
 * <p>Each subclass supplies a catalog (Iceberg's REST server, Iceberg's JDBC catalog on SQLite);
 * every export writes real Parquet parts, and every check reads the table back through Iceberg's
 * own scan and generic reader, so a part registered wrongly (wrong ids, wrong metrics, lost rows)
 * shows as a wrong value rather than passing because our code agrees with itself.
 */
abstract class CommitterContract {
  static final TableIdentifier EVENTS = TableIdentifier.of(Namespace.of("raw"), "events");

  @TempDir Path scratch;

  /** The catalog under test; a fresh, empty one per test. */
  abstract Catalog catalog();

  static TestParts.Row row(long id, String name, int score) {
    return new TestParts.Row(
        id, name, score, new UUID(id, -id), List.of("t" + id, "u" + id), id / 2.0);
  }

  static ExportInfo info(String exportId) {
    return new ExportInfo(exportId, "public.events", "1.0.0", "15.10");
  }

  /** Prepares, writes one part per list of rows into the data location, commits. */
  private long export(
      MessageType type, boolean overwrite, String exportId, List<List<TestParts.Row>> parts)
      throws IOException {
    IcebergCommitter committer = IcebergCommitter.prepare(catalog(), EVENTS, type, overwrite, 2);
    return committer.commit(write(committer, type, exportId, parts), info(exportId));
  }

  static List<DataFile> write(
      IcebergCommitter committer,
      MessageType type,
      String exportId,
      List<List<TestParts.Row>> parts)
      throws IOException {
    MessageType stamped = IcebergSchemas.withFieldIds(type, committer.table().schema());
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < parts.size(); i++) {
      String location =
          String.format("%s/%s-part-%04d.parquet", committer.dataLocation(), exportId, i);
      Path file = LocalFileIO.path(location);
      java.nio.file.Files.createDirectories(file.getParent());
      TestParts.write(file, stamped, parts.get(i));
      files.add(PartDataFiles.of(committer.table(), file, location));
    }
    return files;
  }

  private List<Record> rows() throws IOException {
    Table table = catalog().loadTable(EVENTS);
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      records.forEach(rows::add);
    }
    rows.sort(Comparator.comparing(r -> (Long) r.getField("id")));
    return rows;
  }

  private static void assertRow(TestParts.Row expected, Record actual) {
    assertEquals(expected.id(), actual.getField("id"));
    assertEquals(expected.name(), actual.getField("name"));
    assertEquals(expected.score(), ((Number) actual.getField("score")).intValue());
    assertEquals(expected.uuid(), actual.getField("uuid"));
    assertEquals(expected.tags(), actual.getField("tags"));
    assertEquals(expected.x(), ((Record) actual.getField("pt")).getField("x"));
  }

  @Test
  void createsTheTableInOneSnapshotVisibleOnlyAtCommit() throws IOException {
    MessageType type = TestParts.schema();
    IcebergCommitter committer = IcebergCommitter.prepare(catalog(), EVENTS, type, false, 2);
    assertFalse(catalog().tableExists(EVENTS), "a staged create is invisible before commit");
    List<TestParts.Row> first = List.of(row(1, "a", 10), row(2, null, 20));
    List<TestParts.Row> second = List.of(row(3, "c", 30));
    List<DataFile> files = write(committer, type, "e1", List.of(first, second));
    long snapshotId = committer.commit(files, info("e1"));

    Table table = catalog().loadTable(EVENTS);
    assertEquals(2, ((HasTableOperations) table).operations().current().formatVersion());
    List<Snapshot> snapshots = new ArrayList<>();
    table.snapshots().forEach(snapshots::add);
    assertEquals(1, snapshots.size());
    Snapshot snapshot = snapshots.get(0);
    assertEquals(snapshotId, snapshot.snapshotId());
    assertEquals("append", snapshot.operation());
    Map<String, String> summary = snapshot.summary();
    assertEquals("e1", summary.get(IcebergCommitter.EXPORT_ID));
    assertEquals("public.events", summary.get(IcebergCommitter.SOURCE));
    assertEquals("3", summary.get(IcebergCommitter.ROWS));
    assertEquals("1.0.0", summary.get(IcebergCommitter.VERSION));
    assertEquals("15.10", summary.get(IcebergCommitter.POSTGRES_VERSION));
    assertEquals("2", summary.get("added-data-files"));

    List<Record> rows = rows();
    assertEquals(3, rows.size());
    assertRow(first.get(0), rows.get(0));
    assertRow(first.get(1), rows.get(1));
    assertRow(second.get(0), rows.get(2));
  }

  @Test
  void registersEachPartWithItsFootersMetrics() throws IOException {
    export(
        TestParts.schema(),
        false,
        "e1",
        List.of(List.of(row(5, "m", 50), row(7, null, 70), row(6, "z", 60))));
    Table table = catalog().loadTable(EVENTS);
    Schema schema = table.schema();
    int id = schema.findField("id").fieldId();
    int name = schema.findField("name").fieldId();
    int tag = schema.findField("tags.element").fieldId();
    int x = schema.findField("pt.x").fieldId();
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().includeColumnStats().planFiles()) {
      tasks.forEach(task -> files.add(task.file()));
    }
    assertEquals(1, files.size());
    DataFile file = files.get(0);
    assertEquals(3, file.recordCount());
    assertEquals(
        java.nio.file.Files.size(LocalFileIO.path(file.location())), file.fileSizeInBytes());
    assertEquals(3L, file.valueCounts().get(id));
    assertEquals(0L, file.nullValueCounts().get(id));
    assertEquals(1L, file.nullValueCounts().get(name));
    // Iceberg keeps no counts for fields inside lists (its ParquetMetrics rule), bounds of a
    // struct's fields it does.
    assertEquals(null, file.valueCounts().get(tag));
    assertEquals(3L, file.valueCounts().get(x));
    assertEquals(2.5, bound(Types.DoubleType.get(), file.lowerBounds().get(x)));
    assertEquals(3.5, bound(Types.DoubleType.get(), file.upperBounds().get(x)));
    assertEquals(5L, bound(Types.LongType.get(), file.lowerBounds().get(id)));
    assertEquals(7L, bound(Types.LongType.get(), file.upperBounds().get(id)));
    assertEquals("m", bound(Types.StringType.get(), file.lowerBounds().get(name)).toString());
    assertEquals("z", bound(Types.StringType.get(), file.upperBounds().get(name)).toString());
  }

  private static Object bound(org.apache.iceberg.types.Type type, ByteBuffer value) {
    assertNotNull(value, "a bound is missing");
    return Conversions.fromByteBuffer(type, value);
  }

  @Test
  void appendsToAnExistingTableAsASecondSnapshot() throws IOException {
    export(TestParts.schema(), false, "e1", List.of(List.of(row(1, "a", 10))));
    long second = export(TestParts.schema(), false, "e2", List.of(List.of(row(2, "b", 20))));
    Table table = catalog().loadTable(EVENTS);
    assertEquals(second, table.currentSnapshot().snapshotId());
    assertEquals("append", table.currentSnapshot().operation());
    List<Record> rows = rows();
    assertEquals(2, rows.size());
    assertRow(row(1, "a", 10), rows.get(0));
    assertRow(row(2, "b", 20), rows.get(1));
  }

  @Test
  void overwriteReplacesEveryRowInOneSnapshot() throws IOException {
    export(TestParts.schema(), false, "e1", List.of(List.of(row(1, "a", 10), row(2, "b", 20))));
    Table before = catalog().loadTable(EVENTS);
    long parent = before.currentSnapshot().snapshotId();
    long replaced = export(TestParts.schema(), true, "e2", List.of(List.of(row(9, "z", 90))));
    Table table = catalog().loadTable(EVENTS);
    Snapshot snapshot = table.currentSnapshot();
    assertEquals(replaced, snapshot.snapshotId());
    assertEquals(parent, snapshot.parentId(), "the overwrite is one snapshot on the last");
    assertEquals("overwrite", snapshot.operation());
    assertEquals("1", snapshot.summary().get("deleted-data-files"));
    List<Record> rows = rows();
    assertEquals(1, rows.size());
    assertRow(row(9, "z", 90), rows.get(0));
  }

  @Test
  void refusesATypeTheTableCannotTakeNamingTheColumn() throws IOException {
    export(TestParts.schema(), false, "e1", List.of(List.of(row(1, "a", 10))));
    // Premise: the table's score is an int; a long cannot be narrowed into it.
    assertEquals(Types.IntegerType.get(), catalog().loadTable(EVENTS).schema().findType("score"));
    IcebergRefusal refusal =
        assertThrows(
            IcebergRefusal.class,
            () ->
                IcebergCommitter.prepare(
                    catalog(), EVENTS, TestParts.schema(PrimitiveTypeName.INT64), false, 2));
    assertEquals(IcebergRefusal.DATATYPE_MISMATCH, refusal.sqlState());
    assertTrue(refusal.getMessage().contains("\"score\""), refusal.getMessage());
    assertEquals(1, rows().size(), "a refused export leaves the table as it was");
  }

  @Test
  void allowsIcebergsTypePromotion() throws IOException {
    export(
        TestParts.schema(PrimitiveTypeName.INT64), false, "e1", List.of(List.of(row(1, "a", 10))));
    assertEquals(Types.LongType.get(), catalog().loadTable(EVENTS).schema().findType("score"));
    export(TestParts.schema(), false, "e2", List.of(List.of(row(2, "b", 20))));
    List<Record> rows = rows();
    assertEquals(2, rows.size());
    assertEquals(20L, rows.get(1).getField("score"), "an int part reads as the table's long");
  }

  @Test
  void refusesAnOverwriteWhoseTableChangedUnderneath() throws IOException {
    export(TestParts.schema(), false, "e1", List.of(List.of(row(1, "a", 10))));
    MessageType type = TestParts.schema();
    IcebergCommitter overwrite = IcebergCommitter.prepare(catalog(), EVENTS, type, true, 2);
    List<DataFile> files = write(overwrite, type, "e3", List.of(List.of(row(9, "z", 90))));
    export(type, false, "e2", List.of(List.of(row(2, "b", 20))));
    IcebergRefusal refusal =
        assertThrows(IcebergRefusal.class, () -> overwrite.commit(files, info("e3")));
    assertEquals(IcebergRefusal.SERIALIZATION_FAILURE, refusal.sqlState());
    assertEquals(Optional.empty(), IcebergCommitter.settle(catalog(), EVENTS, "e3"));
    assertEquals(2, rows().size(), "the refused overwrite replaced nothing");
  }

  @Test
  void letsTwoConcurrentAppendsBothLand() throws IOException {
    export(TestParts.schema(), false, "e1", List.of(List.of(row(1, "a", 10))));
    MessageType type = TestParts.schema();
    IcebergCommitter slow = IcebergCommitter.prepare(catalog(), EVENTS, type, false, 2);
    List<DataFile> files = write(slow, type, "e3", List.of(List.of(row(3, "c", 30))));
    export(type, false, "e2", List.of(List.of(row(2, "b", 20))));
    slow.commit(files, info("e3"));
    assertEquals(3, rows().size());
  }

  @Test
  void settlesWhetherAnExportCommitted() throws IOException {
    MessageType type = TestParts.schema();
    IcebergCommitter staged = IcebergCommitter.prepare(catalog(), EVENTS, type, false, 2);
    write(staged, type, "e0", List.of(List.of(row(1, "a", 10))));
    assertEquals(
        Optional.empty(),
        IcebergCommitter.settle(catalog(), EVENTS, "e0"),
        "a create never committed leaves no table");
    long committed = export(type, false, "e1", List.of(List.of(row(1, "a", 10))));
    assertEquals(Optional.of(committed), IcebergCommitter.settle(catalog(), EVENTS, "e1"));
    IcebergCommitter prepared = IcebergCommitter.prepare(catalog(), EVENTS, type, false, 2);
    write(prepared, type, "e2", List.of(List.of(row(2, "b", 20))));
    assertEquals(Optional.empty(), IcebergCommitter.settle(catalog(), EVENTS, "e2"));
  }

  @Test
  void createsFormatVersion3OnRequest() throws IOException {
    MessageType type = TestParts.schema();
    IcebergCommitter committer = IcebergCommitter.prepare(catalog(), EVENTS, type, false, 3);
    committer.commit(write(committer, type, "e1", List.of(List.of(row(1, "a", 10)))), info("e1"));
    TableMetadata metadata =
        ((HasTableOperations) catalog().loadTable(EVENTS)).operations().current();
    assertEquals(3, metadata.formatVersion());
    assertEquals(1, rows().size());
  }
}
