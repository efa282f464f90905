package org.parallelexport.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * WithoutHadoopTest: an export's whole Java path (prepare, field ids, part metrics from the footer,
 * one-snapshot commit, settle) through both kinds of catalog, with no Hadoop class on the class
 * path, as in a worker's JVM. Surefire's no-hadoop execution runs it alone, leaving
 * hadoop-client-api off the class path; the rows are not read back here (Iceberg's Parquet reader
 * needs Hadoop), CommitterContract does that.
 */
class WithoutHadoopTest {
  @TempDir Path scratch;

  @Test
  void exportsWithNoHadoopClassLoadable() throws Exception {
    assertThrows(
        ClassNotFoundException.class,
        () -> Class.forName("org.apache.hadoop.conf.Configuration"),
        "premise: this execution runs without Hadoop");
    try (JdbcCatalog jdbc =
        Catalogs.jdbc(
            "here",
            "jdbc:sqlite:" + scratch.resolve("catalog.db"),
            Map.of("warehouse", scratch.resolve("jdbc").toUri().toString()))) {
      exportTwice(jdbc);
    }
    LocalRestCatalog server = new LocalRestCatalog(scratch.resolve("rest"));
    try (RESTCatalog rest = Catalogs.rest("lake", Map.of("uri", server.uri()))) {
      exportTwice(rest);
    } finally {
      server.stop();
    }
  }

  private static void exportTwice(Catalog catalog) throws Exception {
    MessageType type = TestParts.schema();
    export(catalog, type, "e1", 1);
    export(catalog, type, "e2", 2);
    Table table = catalog.loadTable(CommitterContract.EVENTS);
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(task -> files.add(task.file()));
    }
    assertEquals(2, files.size());
    assertEquals(2, files.stream().mapToLong(DataFile::recordCount).sum());
    assertEquals(2, table.currentSnapshot().sequenceNumber(), "one snapshot per export");
  }

  private static void export(Catalog catalog, MessageType type, String exportId, long id)
      throws Exception {
    IcebergCommitter committer =
        IcebergCommitter.prepare(catalog, CommitterContract.EVENTS, type, false, 2);
    String location = committer.dataLocation() + "/" + exportId + ".parquet";
    Path file = LocalFileIO.path(location);
    Files.createDirectories(file.getParent());
    TestParts.write(
        file,
        IcebergSchemas.withFieldIds(type, committer.table().schema()),
        List.of(new TestParts.Row(id, "n", 1, new UUID(id, id), List.of("t"), 1.0)));
    long snapshot =
        committer.commit(
            List.of(PartDataFiles.of(committer.table(), file, location)),
            new ExportInfo(exportId, "public.events", "1.0.0", "15.10"));
    assertEquals(
        Optional.of(snapshot),
        IcebergCommitter.settle(catalog, CommitterContract.EVENTS, exportId));
  }
}
