package org.parallelexport.parquet.s3;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * S3Sweep: undoes exactly what a dead object-store export recorded in its ledger file.
 *
 * <p>The record's owner is provably dead (the caller took the ledger's lock; DESIGN.md, "The ledger
 * file"), so what it lists can be undone without racing it. Without "committed" the export never
 * reached its outcome, and is undone: first _SUCCESS, if "success" was recorded and the object
 * there is still this export's manifest (by its export id), is put back as the "previous" manifest
 * it replaced, or deleted when there was none (S3Export.takeBackSuccess, as the exit path does), so
 * that no reader trusts a half-removed export and a replaced one is whole again; then every
 * "complete" key is deleted and every upload of a recorded key is aborted: by the recorded id, and
 * also any other pending upload of exactly that key that the server says was initiated at or after
 * the record's start. The second rule covers a crash between CreateMultipartUpload and its "upload
 * K ID" line, and a CreateMultipartUpload that the SDK sent again after a lost answer, whose first
 * upload no line names. With "committed" the export is whole, and only the parts of the export it
 * replaced are deleted: those its recorded "previous" manifest names that the committed export did
 * not complete, with any "superseded" line's. They are derived from the manifest, not from the
 * "superseded" lines, because a worker killed between "committed" and those lines leaves none, and
 * the replaced parts would stay forever beside the new ones. The manifest was recorded only after
 * the overwrite checked it (its seal, its parts: see S3Export.previousExportProblem), so this names
 * only parts an export of this server wrote.
 *
 * <p>It never lists the prefix to decide what to remove: every key it touches is one the record
 * names (S3Record refuses a record naming a key outside its target), so an object someone else put
 * under the prefix is never touched, nor is an upload of another key. Every request is safe to
 * repeat (an upload already gone counts as aborted, a key already gone as deleted), so a sweep
 * interrupted halfway runs again from the start. The work is split into steps of one or two
 * requests each, so that the worker that drives it from C checks for interrupts between them.
 */
public final class S3Sweep implements AutoCloseable {
  private interface Step {
    void run() throws IOException;
  }

  private final S3Record record;
  private final S3Session session;
  private final boolean ownsSession;
  private final Deque<Step> steps = new ArrayDeque<>();
  private int uploadsAborted;
  private int objectsDeleted;

  /** A sweep of {@code record} through {@code session}, which stays the caller's. */
  public S3Sweep(S3Record record, S3Session session) throws IOException {
    this(record, session, false);
  }

  private S3Sweep(S3Record record, S3Session session, boolean ownsSession) throws IOException {
    this.record = requireNonNull(record, "record is null");
    this.session = requireNonNull(session, "session is null");
    this.ownsSession = ownsSession;
    plan();
  }

  /**
   * The sweep function's entry: reads the ledger file at {@code ledgerPath} (a record from before
   * names were UTF-8 has its first line in the charset named {@code oldCharset}), checks that it is
   * the record of {@code url}, and opens a session with {@code settings} that close() closes.
   */
  public static S3Sweep open(String settings, String ledgerPath, String url, String oldCharset)
      throws IOException {
    S3Record record = S3Ledger.read(Path.of(ledgerPath), S3Ledger.oldCharset(oldCharset));
    if (!record.url().equals(url)) {
      throw new IOException(
          "ledger file \"" + ledgerPath + "\" is the record of " + record.url() + ", not " + url);
    }
    S3Session session = new S3Session(S3Settings.parse(settings));
    try {
      return new S3Sweep(record, session, true);
    } catch (IOException | RuntimeException e) {
      session.close();
      throw e;
    }
  }

  /** Fault injection: the fault of {@code point} on the sweep's requests from now on (S3Faults). */
  public void injectFault(String point) {
    session.injectFault(point);
  }

  /** Takes the next step; false once there is none left. */
  public boolean step() throws IOException {
    Step next = steps.peekFirst();
    if (next == null) {
      return false;
    }
    next.run();
    steps.removeFirst();
    return true;
  }

  /** Takes every step. */
  public void run() throws IOException {
    while (step()) {}
  }

  /** Pending uploads found and aborted so far. */
  public int uploadsAborted() {
    return uploadsAborted;
  }

  /** Objects deleted so far (a key already gone counts: S3 does not tell them apart). */
  public int objectsDeleted() {
    return objectsDeleted;
  }

  @Override
  public void close() {
    if (ownsSession) {
      session.close();
    }
  }

  private void plan() throws IOException {
    String bucket = record.bucket();
    if (record.committed()) {
      Set<String> replaced = new LinkedHashSet<>(record.superseded());
      byte[] previous = record.previousManifest();
      if (previous != null) {
        replaced.addAll(S3Export.partKeys(previous, record.prefix()));
      }
      // Never a part of the committed export, nor its manifest, whatever the record says.
      replaced.removeAll(record.completed());
      replaced.remove(record.successKey());
      for (String key : replaced) {
        steps.add(() -> delete(bucket, key));
      }
      return;
    }
    if (record.success()) {
      steps.add(
          () -> {
            if (S3Export.takeBackSuccess(
                session,
                bucket,
                record.successKey(),
                record.exportId(),
                record.previousManifest())) {
              objectsDeleted++;
            }
          });
    }
    for (String key : record.completed()) {
      steps.add(() -> delete(bucket, key));
    }
    Map<String, Set<String>> uploads = record.uploads();
    for (String key : record.keys()) {
      steps.add(() -> abortAll(bucket, key, uploads.getOrDefault(key, Set.of())));
    }
    uploads.forEach(
        (key, ids) -> {
          if (!record.keys().contains(key)) {
            steps.add(() -> abortAll(bucket, key, ids));
          }
        });
  }

  private void delete(String bucket, String key) throws IOException {
    session.delete(bucket, List.of(key));
    objectsDeleted++;
  }

  /**
   * Aborts the recorded uploads of {@code key} and any other upload of exactly that key begun since
   * the export started. An upload whose start the server does not report is left alone: it cannot
   * be proven to be the export's. A recorded id is aborted even if the listing misses it, but only
   * a pending upload the listing showed is counted: some servers (S3Proxy) accept the abort of an
   * upload that was completed.
   */
  private void abortAll(String bucket, String key, Set<String> ids) throws IOException {
    Map<String, Instant> pending = session.uploadsOf(bucket, key);
    for (String id : ids) {
      if (session.abort(bucket, key, id) && pending.remove(id) != null) {
        uploadsAborted++;
      }
    }
    for (Map.Entry<String, Instant> upload : pending.entrySet()) {
      Instant initiated = upload.getValue();
      if (initiated != null
          && !initiated.isBefore(record.started())
          && session.abort(bucket, key, upload.getKey())) {
        uploadsAborted++;
      }
    }
  }
}
