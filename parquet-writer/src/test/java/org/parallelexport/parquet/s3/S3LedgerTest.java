package org.parallelexport.parquet.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * S3LedgerTest: the ledger file's lines as workers append them, and the record parsed back: every
 * step, a last line cut short by a crash, a record that names a key outside its target, links and
 * missing files refused, and lines of concurrent writers that never interleave.
 */
class S3LedgerTest {
  /** The first line as pep_s3ledger_begin writes it, with an escaped tab in the server name. */
  static final String HEADER =
      "export\t2026-12-01T05:30:00Z\ts3://lake/raw/q/\tmy\\tserver\nowner 7/8/9\n";

  @TempDir Path dir;

  private Path ledgerFile(String content) throws IOException {
    Path path = dir.resolve("0123.ledger");
    Files.writeString(path, content);
    return path;
  }

  @Test
  void everyStepIsAppendedAndReadBack() throws IOException {
    Path path = ledgerFile(HEADER);
    try (S3Ledger ledger = S3Ledger.open(path)) {
      ledger.key("raw/q/part-00000-a.parquet");
      ledger.upload("raw/q/part-00000-a.parquet", "id-0");
      ledger.key("raw/q/part 00001.parquet");
      ledger.upload("raw/q/part 00001.parquet", "id-1");
      ledger.key("raw/q/part-00002-a.parquet");
      ledger.complete("raw/q/part-00000-a.parquet");
      ledger.previous(new byte[] {'{', '}', '\n', (byte) 0xff});
      ledger.success("0123456789ab");
      ledger.superseded("raw/q/part-00000-old.parquet");
    }
    Files.writeString(path, "committed\n", java.nio.file.StandardOpenOption.APPEND);

    S3Record record = S3Ledger.read(path);
    assertEquals("s3://lake/raw/q/", record.url());
    assertEquals("lake", record.bucket());
    assertEquals("raw/q/", record.prefix());
    assertEquals("my\tserver", record.server());
    assertEquals(Instant.parse("2026-12-01T05:30:00Z"), record.started());
    assertEquals(
        Set.of(
            "raw/q/part-00000-a.parquet", "raw/q/part 00001.parquet", "raw/q/part-00002-a.parquet"),
        record.keys());
    assertEquals(
        Map.of(
            "raw/q/part-00000-a.parquet",
            Set.of("id-0"),
            "raw/q/part 00001.parquet",
            Set.of("id-1")),
        record.uploads());
    assertEquals(Set.of(), record.uploadIds("raw/q/part-00002-a.parquet"));
    assertEquals(Set.of("raw/q/part-00000-a.parquet"), record.completed());
    assertTrue(record.success());
    assertEquals("0123456789ab", record.exportId());
    assertArrayEquals(new byte[] {'{', '}', '\n', (byte) 0xff}, record.previousManifest());
    assertEquals("raw/q/_SUCCESS", record.successKey());
    assertEquals(Set.of("raw/q/part-00000-old.parquet"), record.superseded());
    assertTrue(record.committed());
  }

  @Test
  void headerOnlyIsAnEmptyRecord() throws IOException {
    S3Record record = S3Ledger.read(ledgerFile("export\t2026-12-01T05:30:00Z\ts3://lake/\t\n"));
    assertEquals("", record.prefix());
    assertEquals("", record.server());
    assertEquals(Set.of(), record.keys());
    assertFalse(record.success());
    assertNull(record.previousManifest());
    assertFalse(record.committed());
  }

  @Test
  void aUtf8RecordSaysSo() throws IOException {
    Path path =
        ledgerFile("export\t2026-12-01T05:30:00Z\ts3://lake/café/\tsrv\tutf8\nowner 7/8/9\n");
    Files.writeString(
        path, "key café/p.parquet\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    S3Record record = S3Ledger.read(path, StandardCharsets.ISO_8859_1);
    assertEquals("s3://lake/café/", record.url());
    assertEquals("café/", record.prefix());
    assertEquals("srv", record.server());
    assertEquals(Set.of("café/p.parquet"), record.keys());
  }

  @Test
  void anOldRecordIsReadInTheDatabaseEncoding() throws IOException {
    // Version 1.1 in a LATIN1 database: the first line in LATIN1, keys under the prefix it
    // converted to UTF-8 twice, written by the workers in UTF-8.
    Path path = dir.resolve("old.ledger");
    Files.write(
        path,
        "export\t2026-12-01T05:30:00Z\ts3://lake/café/\tutf8\nowner 7/8/9\n"
            .getBytes(StandardCharsets.ISO_8859_1));
    Files.writeString(
        path, "key cafÃ©/p.parquet\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    S3Record record = S3Ledger.read(path, StandardCharsets.ISO_8859_1);
    assertEquals("s3://lake/café/", record.url());
    assertEquals("cafÃ©/", record.prefix());
    assertEquals("cafÃ©/_SUCCESS", record.successKey());
    assertEquals("utf8", record.server(), "a server named utf8, not the marker");
    assertEquals(Set.of("cafÃ©/p.parquet"), record.keys());

    Files.writeString(
        path, "key café/p.parquet\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    assertThrows(
        IOException.class,
        () -> S3Ledger.read(path, StandardCharsets.ISO_8859_1),
        "a key outside the prefix that export used");
    IOException e =
        assertThrows(IOException.class, () -> S3Ledger.read(path, StandardCharsets.UTF_8));
    assertTrue(e.getMessage().contains("not valid UTF-8"), e.getMessage());
  }

  @Test
  void lastLineCutShortWasNeverTaken() throws IOException {
    S3Record record =
        S3Ledger.read(ledgerFile(HEADER + "key raw/q/p-0.parquet\nupload raw/q/p-0.parquet id-"));
    assertEquals(Set.of("raw/q/p-0.parquet"), record.keys());
    assertEquals(Set.of(), record.uploadIds("raw/q/p-0.parquet"), "the torn id is not used");

    assertFalse(S3Ledger.read(ledgerFile(HEADER + "succ")).success());
  }

  @Test
  void malformedRecordsAreRefused() throws IOException {
    for (String bad :
        List.of(
            "",
            "export\t2026-12-01T05:30:00Z\ts3://lake/raw/q/\n",
            "export\tyesterday\ts3://lake/raw/q/\t\n",
            "export\t2026-12-01T05:30:00Z\thttp://lake/raw/q/\t\n",
            "export\t2026-12-01T05:30:00Z\ts3://lake/raw/q\t\n",
            "export\t2026-12-01T05:30:00Z\ts3://lake/raw/q/\tbad\\x\n",
            HEADER + "key other/p-0.parquet\n",
            HEADER + "key raw/q/\n",
            HEADER + "complete raw/other/p-0.parquet\n",
            HEADER + "upload raw/q/p-0.parquet\n",
            HEADER + "upload raw/q/p-0.parquet \n",
            HEADER + "success now\n",
            HEADER + "success\n",
            HEADER + "previous {}\n",
            HEADER + "delete raw/q/p-0.parquet\n")) {
      IOException e = assertThrows(IOException.class, () -> S3Ledger.read(ledgerFile(bad)), bad);
      assertTrue(e.getMessage().startsWith("cannot use ledger file"), e.getMessage());
    }
    Path invalid = dir.resolve("invalid.ledger");
    Files.write(invalid, new byte[] {'k', 'e', 'y', ' ', (byte) 0xff, '\n'});
    assertThrows(IOException.class, () -> S3Ledger.read(invalid));
  }

  @Test
  void linksAndMissingFilesAreRefused() throws IOException {
    Path real = ledgerFile(HEADER);
    Path link = Files.createSymbolicLink(dir.resolve("link.ledger"), real);
    IOException open = assertThrows(IOException.class, () -> S3Ledger.open(link));
    assertTrue(open.getMessage().contains("symbolic link"), open.getMessage());
    assertThrows(IOException.class, () -> S3Ledger.read(link));
    assertEquals(HEADER, Files.readString(real), "nothing written through the link");

    Path missing = dir.resolve("missing.ledger");
    assertThrows(NoSuchFileException.class, () -> S3Ledger.open(missing));
    assertFalse(Files.exists(missing), "open never creates the file");

    Path directory = Files.createDirectory(dir.resolve("dir.ledger"));
    assertThrows(IOException.class, () -> S3Ledger.open(directory));
  }

  @Test
  void keysAndIdsThatWouldBreakALineAreRefused() throws IOException {
    try (S3Ledger ledger = S3Ledger.open(ledgerFile(HEADER))) {
      assertThrows(IllegalArgumentException.class, () -> ledger.key("raw/q/a\nsuccess"));
      assertThrows(IllegalArgumentException.class, () -> ledger.complete("raw/q/a\r"));
      assertThrows(IllegalArgumentException.class, () -> ledger.key(""));
      assertThrows(IllegalArgumentException.class, () -> ledger.upload("raw/q/a", "id 2"));
      assertThrows(IllegalArgumentException.class, () -> ledger.upload("raw/q/a", ""));
    }
    assertEquals(HEADER, Files.readString(dir.resolve("0123.ledger")));
  }

  @Test
  void concurrentWritersNeverInterleave() throws Exception {
    Path path = ledgerFile(HEADER);
    int writers = 4;
    int lines = 200;
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int worker = w;
      threads.add(
          new Thread(
              () -> {
                // Each worker opens the file on its own, as each process does.
                try (S3Ledger ledger = S3Ledger.open(path)) {
                  for (int i = 0; i < lines; i++) {
                    ledger.key("raw/q/part-" + worker + "-" + i + "-" + "x".repeat(i) + ".parquet");
                  }
                } catch (IOException e) {
                  synchronized (failures) {
                    failures.add(e);
                  }
                }
              }));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join();
    }
    assertEquals(List.of(), failures);
    assertEquals(writers * lines, S3Ledger.read(path).keys().size());
    assertEquals(
        writers * lines + HEADER.lines().count(),
        Files.readString(path, StandardCharsets.UTF_8).lines().count(),
        "one line per step");
  }
}
