package org.parallelexport.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DeferredPointerCatalogTest: PostgreSQL as the catalog, with SQLite standing in for the database
 * and plain JDBC for the statements C will run through SPI in the caller's transaction.
 *
 * <p>The reader is Iceberg's own JdbcCatalog on the same database, as Spark or Trino configured
 * with a JDBC catalog would be: it must see nothing of an export until its swap is applied, see the
 * snapshot once it is, and never see an export whose swap was not applied (a rollback).
 */
class DeferredPointerCatalogTest {
  private static final String CATALOG = "here";

  @TempDir Path scratch;
  private String url;
  private String warehouse;
  private JdbcCatalog reader;

  @BeforeEach
  void open() {
    url = "jdbc:sqlite:" + scratch.resolve("catalog.db");
    warehouse = scratch.resolve("warehouse").toUri().toString();
    // Iceberg's JDBC catalog creates iceberg_tables, in the layout C will write.
    reader = Catalogs.jdbc(CATALOG, url, Map.of("warehouse", warehouse));
  }

  @AfterEach
  void close() throws IOException {
    reader.close();
  }

  /** What C reads at prepare: each table's metadata_location, as its transaction sees it. */
  private Map<TableIdentifier, String> pointers() throws SQLException {
    Map<TableIdentifier, String> pointers = new HashMap<>();
    try (Connection db = DriverManager.getConnection(url);
        PreparedStatement select =
            db.prepareStatement(
                "SELECT table_namespace, table_name, metadata_location FROM iceberg_tables"
                    + " WHERE catalog_name = ?")) {
      select.setString(1, CATALOG);
      try (ResultSet rows = select.executeQuery()) {
        while (rows.next()) {
          pointers.put(
              TableIdentifier.of(Namespace.of(rows.getString(1).split("\\.")), rows.getString(2)),
              rows.getString(3));
        }
      }
    }
    return pointers;
  }

  /** What C runs at commit: the compare-and-swap (or the insert of a new table); rows changed. */
  private int apply(DeferredPointerCatalog.Swap swap) throws SQLException {
    try (Connection db = DriverManager.getConnection(url)) {
      String namespace = String.join(".", swap.table().namespace().levels());
      if (swap.previous() == null) {
        try (PreparedStatement insert =
            db.prepareStatement(
                "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name,"
                    + " metadata_location, previous_metadata_location) VALUES (?, ?, ?, ?, NULL)")) {
          insert.setString(1, CATALOG);
          insert.setString(2, namespace);
          insert.setString(3, swap.table().name());
          insert.setString(4, swap.next());
          return insert.executeUpdate();
        }
      }
      try (PreparedStatement update =
          db.prepareStatement(
              "UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ?"
                  + " WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?"
                  + " AND metadata_location = ?")) {
        update.setString(1, swap.next());
        update.setString(2, swap.previous());
        update.setString(3, CATALOG);
        update.setString(4, namespace);
        update.setString(5, swap.table().name());
        update.setString(6, swap.previous());
        return update.executeUpdate();
      }
    }
  }

  /** An export through the deferred catalog: its one swap, not applied. */
  private DeferredPointerCatalog.Swap export(String exportId, long id) throws Exception {
    DeferredPointerCatalog catalog =
        new DeferredPointerCatalog(CATALOG, warehouse, new LocalFileIO(), pointers());
    MessageType type = TestParts.schema();
    IcebergCommitter committer =
        IcebergCommitter.prepare(catalog, CommitterContract.EVENTS, type, false, 2);
    List<DataFile> files =
        CommitterContract.write(
            committer, type, exportId, List.of(List.of(CommitterContract.row(id, "n", 1))));
    committer.commit(files, CommitterContract.info(exportId));
    List<DeferredPointerCatalog.Swap> swaps = catalog.swaps();
    assertEquals(1, swaps.size(), "one export, one swap");
    return swaps.get(0);
  }

  private List<Long> ids() throws IOException {
    List<Long> ids = new ArrayList<>();
    try (CloseableIterable<Record> rows =
        IcebergGenerics.read(reader.loadTable(CommitterContract.EVENTS)).build()) {
      rows.forEach(row -> ids.add((Long) row.getField("id")));
    }
    ids.sort(null);
    return ids;
  }

  @Test
  void aSnapshotIsVisibleExactlyWhenItsSwapIsApplied() throws Exception {
    DeferredPointerCatalog.Swap create = export("e1", 1);
    assertNull(create.previous(), "a created table is an insert");
    assertTrue(Files.exists(LocalFileIO.path(create.next())), "the metadata file is written");
    assertFalse(reader.tableExists(CommitterContract.EVENTS), "nothing visible before the swap");
    assertEquals(1, apply(create));
    assertEquals(List.of(1L), ids());

    DeferredPointerCatalog.Swap append = export("e2", 2);
    assertEquals(create.next(), append.previous(), "an append swaps from the location read");
    assertEquals(List.of(1L), ids(), "the append is invisible before its swap");
    assertEquals(1, apply(append));
    assertEquals(List.of(1L, 2L), ids());
    assertTrue(IcebergCommitter.settle(reader, CommitterContract.EVENTS, "e2").isPresent());
  }

  @Test
  void aConcurrentSwapChangesNoRow() throws Exception {
    assertEquals(1, apply(export("e1", 1)));
    DeferredPointerCatalog.Swap first = export("e2", 2);
    DeferredPointerCatalog.Swap second = export("e3", 3);
    assertEquals(first.previous(), second.previous(), "premise: both read the same location");
    assertEquals(1, apply(first));
    assertEquals(0, apply(second), "the second compare-and-swap finds its location gone");
    assertEquals(List.of(1L, 2L), ids());
    assertEquals(Optional.empty(), IcebergCommitter.settle(reader, CommitterContract.EVENTS, "e3"));
  }

  @Test
  void aRolledBackExportLeavesTheTableAndOnlyUnreferencedFiles() throws Exception {
    assertEquals(1, apply(export("e1", 1)));
    DeferredPointerCatalog.Swap rolledBack = export("e2", 2);
    // The caller's transaction rolls back: the swap is never applied.
    assertEquals(List.of(1L), ids());
    assertEquals(Optional.empty(), IcebergCommitter.settle(reader, CommitterContract.EVENTS, "e2"));
    assertTrue(Files.exists(LocalFileIO.path(rolledBack.next())), "its files stay for the sweep");
    List<String> referenced = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks =
        reader.loadTable(CommitterContract.EVENTS).newScan().planFiles()) {
      tasks.forEach(task -> referenced.add(task.file().location()));
    }
    assertEquals(1, referenced.size());
    assertFalse(referenced.get(0).contains("e2-"), "no reader reaches the rolled-back part");
  }
}
