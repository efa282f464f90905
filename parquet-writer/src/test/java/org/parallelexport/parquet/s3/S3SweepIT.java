package org.parallelexport.parquet.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * S3SweepIT: S3Sweep against S3Proxy, on records written the way a killed export leaves them.
 *
 * <p>Each case builds the export's objects and uploads for real (pending uploads with bytes in
 * them, completed objects, _SUCCESS), writes the record through S3Ledger, and puts beside them what
 * the sweep must never touch: an object someone else put under the prefix and a pending upload of
 * another key under the prefix. Every case asserts its premise (all of it is there, as
 * ListObjectsV2 and ListMultipartUploads show it) before it sweeps, then that exactly the export's
 * own objects and uploads are gone, and that a _SUCCESS the export replaced, or did not write, is
 * whole afterwards.
 */
class S3SweepIT {
  private static final String BUCKET = "lake";
  private static final String EXPORT_ID = "0123456789ab";

  private static S3ProxyServer server;
  private static S3Session session;

  @TempDir Path dir;

  @BeforeAll
  static void startServer() throws Exception {
    server = new S3ProxyServer(BUCKET);
    session = new S3Session(server.settings(""));
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (session != null) {
      session.close();
    }
    server.close();
  }

  /** What one case put under its prefix. */
  private static final class Scene {
    final String prefix;
    final Path ledger;
    final String foreignObject;
    final String foreignUpload;

    Scene(String prefix, Path ledger, String foreignObject, String foreignUpload) {
      this.prefix = prefix;
      this.ledger = ledger;
      this.foreignObject = foreignObject;
      this.foreignUpload = foreignUpload;
    }
  }

  /**
   * A killed export under {@code prefix}: part 0 completed, part 1 pending with its id recorded,
   * part 2 pending with only its key recorded (the crash fell between the request and its line),
   * and _SUCCESS written. Beside it: a foreign object and a foreign pending upload.
   */
  private Scene deadExport(String prefix) throws Exception {
    String foreignObject = prefix + "foreign.parquet";
    session.put(BUCKET, foreignObject, bytes("someone else's"), "application/octet-stream");
    String foreignUpload = session.createUpload(BUCKET, prefix + "part-00009-foreign.parquet");
    Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Path path = dir.resolve(prefix.replace('/', '-') + "ledger");
    Files.writeString(path, "export\t" + started + "\ts3://" + BUCKET + "/" + prefix + "\t\n");
    try (S3Ledger ledger = S3Ledger.open(path)) {
      completed(ledger, prefix + "part-00000-x.parquet", 1);

      String part1 = prefix + "part-00001-x.parquet";
      ledger.key(part1);
      PendingUpload file1 = upload(part1, 2);
      ledger.upload(part1, file1.uploadId());

      String part2 = prefix + "part-00002-x.parquet";
      ledger.key(part2);
      session.createUpload(BUCKET, part2);

      ledger.success(EXPORT_ID);
      session.put(BUCKET, prefix + "_SUCCESS", manifest(EXPORT_ID), "application/json");
    }
    assertEquals(
        List.of(prefix + "_SUCCESS", prefix + "foreign.parquet", prefix + "part-00000-x.parquet"),
        session.listKeys(BUCKET, prefix, 100),
        "premise: the export's objects and the foreign one");
    assertEquals(
        List.of(
            prefix + "part-00001-x.parquet",
            prefix + "part-00002-x.parquet",
            prefix + "part-00009-foreign.parquet"),
        uploadKeys(prefix).stream().sorted().toList(),
        "premise: pending uploads");
    return new Scene(prefix, path, foreignObject, foreignUpload);
  }

  @Test
  void deadExportIsUndoneExactly() throws Exception {
    Scene scene = deadExport("dead/");
    try (S3Sweep sweep = new S3Sweep(S3Ledger.read(scene.ledger), session)) {
      sweep.run();
      assertEquals(2, sweep.uploadsAborted(), "part 1 by its id, part 2 found by its key");
      assertEquals(2, sweep.objectsDeleted(), "_SUCCESS and part 0");
    }
    assertOnlyForeignLeft(scene);
  }

  @Test
  void interruptedSweepRunsAgain() throws Exception {
    Scene scene = deadExport("again/");
    S3Record record = S3Ledger.read(scene.ledger);
    try (S3Sweep first = new S3Sweep(record, session)) {
      assertTrue(first.step());
      assertTrue(first.step());
      assertEquals(List.of(scene.foreignObject), session.listKeys(BUCKET, scene.prefix, 100));
      assertEquals(3, uploadKeys(scene.prefix).size(), "premise: stopped before any abort");
    }
    try (S3Sweep second = new S3Sweep(record, session)) {
      second.run();
      assertEquals(2, second.uploadsAborted());
    }
    try (S3Sweep third = new S3Sweep(record, session)) {
      third.run();
      assertEquals(0, third.uploadsAborted(), "nothing left to abort");
    }
    assertOnlyForeignLeft(scene);
  }

  @Test
  void committedExportKeepsItsPartsAndDropsOnlySuperseded() throws Exception {
    String prefix = "committed/";
    String old0 = prefix + "part-00000-old.parquet";
    String old1 = prefix + "part-00001-old.parquet";
    String part = prefix + "part-00000-new.parquet";
    session.put(BUCKET, old0, bytes("old 0"), "application/octet-stream");
    session.put(BUCKET, old1, bytes("old 1"), "application/octet-stream");
    session.put(BUCKET, prefix + "foreign.parquet", bytes("theirs"), "application/octet-stream");
    Path path = dir.resolve("committed.ledger");
    Files.writeString(
        path,
        "export\t" + Instant.now().truncatedTo(ChronoUnit.SECONDS) + "\ts3://lake/committed/\t\n");
    try (S3Ledger ledger = S3Ledger.open(path)) {
      completed(ledger, part, 3);
      ledger.success(EXPORT_ID);
      session.put(BUCKET, prefix + "_SUCCESS", manifest(EXPORT_ID), "application/json");
      ledger.superseded(old0);
      ledger.superseded(old1);
    }
    Files.writeString(path, "committed\n", java.nio.file.StandardOpenOption.APPEND);
    assertEquals(5, session.listKeys(BUCKET, prefix, 100).size(), "premise: all five objects");

    try (S3Sweep sweep = new S3Sweep(S3Ledger.read(path), session)) {
      sweep.run();
      assertEquals(0, sweep.uploadsAborted());
      assertEquals(2, sweep.objectsDeleted());
    }
    assertEquals(
        List.of(prefix + "_SUCCESS", prefix + "foreign.parquet", part),
        session.listKeys(BUCKET, prefix, 100));
  }

  /**
   * An overwrite whose worker 0 was killed after the caller recorded "committed", before any
   * "superseded" line (issue 42, 4): the sweep derives the replaced parts from the recorded
   * "previous" manifest and deletes exactly those, never a part the committed export completed nor
   * an object the manifest does not name; a second sweep of the same record is harmless.
   */
  @Test
  void committedRecordWithoutSupersededLinesDeletesThePreviousManifestsParts() throws Exception {
    String prefix = "committed-early/";
    String old0 = "part-00000-aaaaaaaaaaaa.parquet";
    String old1 = "region=eu/part-00001-aaaaaaaaaaaa.parquet";
    String part = prefix + "part-00000-" + EXPORT_ID + ".parquet";
    session.put(BUCKET, prefix + old0, bytes("old 0"), "application/octet-stream");
    session.put(BUCKET, prefix + old1, bytes("old 1"), "application/octet-stream");
    session.put(BUCKET, prefix + "foreign.parquet", bytes("theirs"), "application/octet-stream");
    byte[] previous =
        bytes(
            "{\"format\": \"parallel_export_parquet\", \"export_id\": \"aaaaaaaaaaaa\","
                + " \"parts\": [{\"name\": \""
                + old0
                + "\"}, {\"name\": \""
                + old1
                + "\"}, {\"name\": \"part-00000-"
                + EXPORT_ID
                + ".parquet\"}]}");
    Path path = dir.resolve("committed-early.ledger");
    Files.writeString(
        path,
        "export\t"
            + Instant.now().truncatedTo(ChronoUnit.SECONDS)
            + "\ts3://lake/committed-early/\t\n");
    try (S3Ledger ledger = S3Ledger.open(path)) {
      completed(ledger, part, 3);
      ledger.previous(previous);
      ledger.success(EXPORT_ID);
      session.put(BUCKET, prefix + "_SUCCESS", manifest(EXPORT_ID), "application/json");
    }
    Files.writeString(path, "committed\n", java.nio.file.StandardOpenOption.APPEND);
    assertEquals(5, objects(prefix).size(), "premise: all five objects");

    for (int round = 0; round < 2; round++) {
      try (S3Sweep sweep = new S3Sweep(S3Ledger.read(path), session)) {
        sweep.run();
        assertEquals(2, sweep.objectsDeleted(), "the two replaced parts, round " + round);
      }
      assertEquals(List.of(prefix + "_SUCCESS", prefix + "foreign.parquet", part), objects(prefix));
    }
  }

  /** The objects under the prefix, without the folder markers S3Proxy's filesystem store lists. */
  private static List<String> objects(String prefix) throws IOException {
    return session.listKeys(BUCKET, prefix, 100).stream().filter(k -> !k.endsWith("/")).toList();
  }

  /** A committed record whose previous manifest names no part of ours is refused, untouched. */
  @Test
  void committedRecordWithAForeignPreviousManifestIsRefused() throws Exception {
    Path path = dir.resolve("committed-odd.ledger");
    Files.writeString(
        path,
        "export\t"
            + Instant.now().truncatedTo(ChronoUnit.SECONDS)
            + "\ts3://lake/committed-odd/\t\n");
    try (S3Ledger ledger = S3Ledger.open(path)) {
      ledger.previous(
          bytes(
              "{\"format\": \"parallel_export_parquet\", \"parts\": [{\"name\":"
                  + " \"../elsewhere/data.parquet\"}]}"));
      ledger.success(EXPORT_ID);
    }
    Files.writeString(path, "committed\n", java.nio.file.StandardOpenOption.APPEND);
    S3Record record = S3Ledger.read(path);
    IOException e = assertThrows(IOException.class, () -> new S3Sweep(record, session));
    assertTrue(e.getMessage().contains("not a part name"), e.getMessage());
  }

  /**
   * An overwrite killed after its _SUCCESS replaced the previous export's, before the commit: the
   * sweep puts the previous manifest back, byte for byte, and removes the new part; the previous
   * export's parts are never touched. The control: the same record where _SUCCESS is not this
   * export's (its PUT was refused or never sent) leaves that _SUCCESS as it is.
   */
  @Test
  void overwriteKilledBeforeTheCommitLeavesThePreviousExportWhole() throws Exception {
    for (boolean ours : List.of(true, false)) {
      String prefix = ours ? "replaced/" : "unreplaced/";
      String old = prefix + "part-00000-aaaaaaaaaaaa.parquet";
      String part = prefix + "part-00000-" + EXPORT_ID + ".parquet";
      byte[] previous = manifest("aaaaaaaaaaaa");
      session.put(BUCKET, old, bytes("old 0"), "application/octet-stream");
      session.put(BUCKET, prefix + "_SUCCESS", previous, "application/json");
      Path path = dir.resolve(prefix.replace('/', '-') + "ledger");
      Files.writeString(
          path,
          "export\t"
              + Instant.now().truncatedTo(ChronoUnit.SECONDS)
              + "\ts3://lake/"
              + prefix
              + "\t\n");
      try (S3Ledger ledger = S3Ledger.open(path)) {
        completed(ledger, part, 4);
        ledger.previous(previous);
        ledger.success(EXPORT_ID);
        if (ours) {
          session.put(BUCKET, prefix + "_SUCCESS", manifest(EXPORT_ID), "application/json");
        }
      }
      assertArrayEquals(
          ours ? manifest(EXPORT_ID) : previous,
          session.get(BUCKET, prefix + "_SUCCESS").orElseThrow(),
          "premise: whose _SUCCESS is there");

      try (S3Sweep sweep = new S3Sweep(S3Ledger.read(path), session)) {
        sweep.run();
        assertEquals(ours ? 2 : 1, sweep.objectsDeleted(), "our _SUCCESS taken back, our part");
      }
      assertArrayEquals(previous, session.get(BUCKET, prefix + "_SUCCESS").orElseThrow());
      assertEquals(List.of(prefix + "_SUCCESS", old), session.listKeys(BUCKET, prefix, 100));
    }
  }

  @Test
  void openReadsTheFileAndRefusesAnotherTargetsRecord() throws Exception {
    Scene scene = deadExport("opened/");
    String settings = server.settingsText("");
    IOException other =
        assertThrows(
            IOException.class,
            () -> S3Sweep.open(settings, scene.ledger.toString(), "s3://lake/elsewhere/", "UTF-8"));
    assertTrue(other.getMessage().contains("not s3://lake/elsewhere/"), other.getMessage());
    assertEquals(3, uploadKeys(scene.prefix).size(), "a refused record sweeps nothing");

    try (S3Sweep sweep =
        S3Sweep.open(settings, scene.ledger.toString(), "s3://lake/opened/", "UTF-8")) {
      sweep.run();
      assertEquals(2, sweep.uploadsAborted());
    }
    assertOnlyForeignLeft(scene);
  }

  /**
   * An upload of a recorded key whose id was never recorded is aborted only if the server says it
   * began at or after the export's start. S3Proxy reports the time of the listing as every upload's
   * start, so "before" is made with a record that starts an hour from now; the control, the same
   * record starting now, aborts it.
   */
  @Test
  void uploadBegunBeforeTheExportStartedIsLeftAlone() throws Exception {
    String key = "older/part-00000-x.parquet";
    String id = session.createUpload(BUCKET, key);
    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    for (Instant started : List.of(now.plus(1, ChronoUnit.HOURS), now)) {
      Path path = dir.resolve("older.ledger");
      Files.writeString(path, "export\t" + started + "\ts3://lake/older/\t\n");
      try (S3Ledger ledger = S3Ledger.open(path)) {
        ledger.key(key);
      }
      assertEquals(Set.of(id), session.uploadsOf(BUCKET, key).keySet(), "premise: it is pending");
      try (S3Sweep sweep = new S3Sweep(S3Ledger.read(path), session)) {
        sweep.run();
        assertEquals(started.equals(now) ? 1 : 0, sweep.uploadsAborted(), "start " + started);
      }
    }
    assertEquals(Set.of(), session.uploadsOf(BUCKET, key).keySet());
  }

  private void assertOnlyForeignLeft(Scene scene) throws IOException {
    assertEquals(
        List.of(scene.foreignObject),
        session.listKeys(BUCKET, scene.prefix, 100),
        "only the foreign object is left");
    List<String> ids = session.listUploads(BUCKET, scene.prefix).stream().map(u -> u[1]).toList();
    assertEquals(List.of(scene.foreignUpload), ids, "only the foreign upload is pending");
  }

  /** Records and completes an upload of {@code key}, as a worker does up to its completion. */
  private static void completed(S3Ledger ledger, String key, long seed) throws IOException {
    ledger.key(key);
    PendingUpload file = upload(key, seed);
    ledger.upload(key, file.uploadId());
    ledger.complete(key);
    file.complete(session);
  }

  /** A pending upload of {@code key} with a real part in it. */
  private static PendingUpload upload(String key, long seed) throws IOException {
    String id = session.createUpload(BUCKET, key);
    byte[] body = new byte[64 * 1024];
    new Random(seed).nextBytes(body);
    CompletedPart part = S3Session.await(session.uploadPart(BUCKET, key, id, 1, body, body.length));
    return new PendingUpload(BUCKET, key, id, List.of(part), body.length);
  }

  private static List<String> uploadKeys(String prefix) throws IOException {
    return session.listUploads(BUCKET, prefix).stream().map(u -> u[0]).toList();
  }

  /** The smallest manifest of export {@code id}: what the sweep reads of one. */
  private static byte[] manifest(String id) {
    return bytes("{\"format\": \"parallel_export_parquet\", \"export_id\": \"" + id + "\"}");
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
