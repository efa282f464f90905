package org.parallelexport.parquet.s3;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.regex.Pattern;
import org.parallelexport.parquet.BatchSink;
import org.parallelexport.parquet.CreatedByStamp;
import org.parallelexport.parquet.Manifest;
import org.parallelexport.parquet.PartFile;

/**
 * S3Export: one worker's side of an export into s3://bucket/prefix, the object the C side drives.
 *
 * <p>The protocol is DESIGN.md's "Object storage: never a partial export". A worker opens one (its
 * S3Session and threads start here, under the C side's blocked signals) and attaches it to its
 * BatchSink, so that every part the sink opens is a MultipartOutputFile under the prefix whose
 * upload stays pending after close (partClosed hands it over). A partitioned export's sink keeps
 * several parts open, one per partition folder, so several uploads may be open at once; a part's
 * name then starts with its folders ("region=eu/part-..."). Worker 0 checks the target before any
 * worker reads a row (probe, firstKey, previousExportProblem). In the PUBLISH phase each worker
 * completes its own pending uploads (completeAll); worker 0 then writes _SUCCESS last, the JSON
 * manifest of the whole export (writeSuccess), and after the commit deletes the parts of the export
 * it replaced (supersede, then deleteSuperseded). Worker 0 sends the checks' requests as soon as
 * its session is open (startChecks), so that they travel while its Parquet writer is set up; probe
 * and firstKey then wait for their answers.
 *
 * <p>Every step is recorded in the export's ledger file first (S3Ledger; DESIGN.md, "The ledger
 * file"): "key K" before an upload is created, "upload K ID" once it has its id, "complete K"
 * before it is completed, "success" before _SUCCESS, "superseded K" before a replaced part is
 * deleted, so that the sweep can undo what a worker killed outright made. Worker 0 sweeps a dead
 * export's record through this session before anything else (startSweep, sweepStep).
 *
 * <p>Worker 0 seals every manifest it writes (S3ManifestSeal, with the key the C side hands it by
 * sealWith), and an overwrite replaces only a prefix whose manifest's seal verifies with that key:
 * the parts it will delete are then ones an export of this server named (DESIGN.md, "Overwrite:
 * whose manifest").
 *
 * <p>_SUCCESS is written conditionally, so that of two servers exporting into one prefix exactly
 * one publishes: only if absent (If-None-Match: *), or, replacing an export, only if it is still
 * the manifest read at the start (If-Match its ETag). Before it, the record gets the replaced
 * manifest ("previous") and this export's id ("success ID").
 *
 * <p>undo() is the worker's exit path after a failure: _SUCCESS first, and only if it is this
 * export's (takeBackSuccess: put back as it was when this export replaced one, else deleted), then
 * the open parts' uploads and the pending ones aborted and the completed objects deleted: exactly
 * what this worker made, nothing found by listing. No part a _SUCCESS that may be up names is
 * deleted before that _SUCCESS is known taken back: once worker 0 may have sent it, the other
 * workers leave their completed parts to worker 0 (the C side tells them), which deletes every part
 * its manifest names after taking it back, and which, when it cannot, deletes none and leaves them
 * all with the record for the sweep. It uses the session's short-timeout view and never throws: it
 * returns what it could not undo. The sweep of a dead record takes _SUCCESS back the same way, from
 * the record (S3Sweep), before it deletes a part, so a failure before the commit point ends with
 * the previous export whole however it ends.
 */
public final class S3Export implements PartFile.Factory {
  /** The key of the manifest under the prefix, written last. */
  public static final String SUCCESS = "_SUCCESS";

  // Most keys a prefix to overwrite may hold: an unpartitioned export has at most 8192 parts, a
  // partitioned one a few per partition (max_partitions is 20,000 by default).
  private static final int LIST_LIMIT = 200_000;
  // A part's name under the prefix: Hive partition folders ("name=value", 32 levels at most, each
  // with exactly one "=" as both sides are escaped), then part-NNNNN-EXPORTID.parquet.
  private static final Pattern PART_NAME =
      Pattern.compile("(?:[^/=]+=[^/=]+/){0,32}part-\\d{5,}-[0-9a-f]{12}\\.parquet");

  private final S3Session session;
  private final S3Ledger ledger;
  private final Path ledgerPath;
  // The charset of a dead record's first line if it predates UTF-8 records (S3Record).
  private final Charset oldCharset;
  private S3Sweep sweep;
  // Worker 0: seals the manifest it writes and checks the one it replaces.
  private S3ManifestSeal seal;
  private final String bucket;
  private final String prefix;
  private final String exportId;
  // Uploads of parts the sink has open, by key.
  private final Map<String, MultipartOutputFile> open = new LinkedHashMap<>();
  private final List<PendingUpload> pending = new ArrayList<>();
  private final List<String> completed = new ArrayList<>();
  // Worker 0: the replaced export's part keys and manifest, whether our _SUCCESS went out, and the
  // keys of every worker's parts it names.
  private final List<String> superseded = new ArrayList<>();
  private byte[] previousManifest;
  private String previousETag;
  private boolean successSent;
  private final List<String> named = new ArrayList<>();
  // Worker 0: the checks' requests sent by startChecks, until probe and firstKey take them.
  private Future<?> probed;
  private Future<List<String>> listed;

  private S3Export(
      S3Session session,
      S3Ledger ledger,
      Path ledgerPath,
      Charset oldCharset,
      String bucket,
      String prefix,
      String exportId) {
    this.session = session;
    this.ledger = ledger;
    this.ledgerPath = ledgerPath;
    this.oldCharset = oldCharset;
    this.bucket = requireNonNull(bucket, "bucket is null");
    this.prefix = requireNonNull(prefix, "prefix is null");
    this.exportId = requireNonNull(exportId, "exportId is null");
  }

  /**
   * A worker's export: {@code settings} are S3Settings lines (they may hold a secret, which nothing
   * here prints), {@code prefix} is "" or ends in "/", {@code ledgerPath} the export's ledger file,
   * which the leader created and locked, {@code oldCharset} the charset of the first line of a dead
   * record written before names were UTF-8 (S3Record).
   */
  public static S3Export open(
      String settings,
      String bucket,
      String prefix,
      String exportId,
      String ledgerPath,
      String oldCharset)
      throws IOException {
    Path path = Path.of(ledgerPath);
    Charset charset = S3Ledger.oldCharset(oldCharset);
    S3Ledger ledger = S3Ledger.open(path);
    try {
      return new S3Export(
          new S3Session(S3Settings.parse(settings)),
          ledger,
          path,
          charset,
          bucket,
          prefix,
          exportId);
    } catch (RuntimeException e) {
      ledger.close();
      throw e;
    }
  }

  /**
   * Worker 0: the manifest key, 64 hex digits, that seals this export's manifest and must verify
   * the one an overwrite replaces.
   */
  public void sealWith(String hexKey) {
    seal = S3ManifestSeal.ofHex(hexKey);
  }

  /** Worker 0, first, when the ledger file held a dead export's record: plans its sweep. */
  public void startSweep() throws IOException {
    sweep = new S3Sweep(S3Ledger.read(ledgerPath, oldCharset), session);
  }

  /** Takes one step of the sweep; false once it is done. */
  public boolean sweepStep() throws IOException {
    if (sweep.step()) {
      return true;
    }
    sweep = null;
    return false;
  }

  /** From now on {@code sink} writes its parts as uploads under the prefix. */
  public void attach(BatchSink sink) {
    sink.usePartFiles(this);
  }

  @Override
  public PartFile create(String name, CreatedByStamp stamp) throws IOException {
    String key = prefix + name;
    if (open.containsKey(key)) {
      throw new IllegalStateException("part " + open.get(key).getPath() + " is still open");
    }
    ledger.key(key);
    MultipartOutputFile file = new MultipartOutputFile(session, bucket, key, stamp, ledger::upload);
    open.put(key, file);
    return file;
  }

  @Override
  public long partSizeLimit() {
    return session.settings().partSizeLimit();
  }

  /** The sink closed a part: its upload waits, pending, for publication. */
  public void partClosed() {
    int before = pending.size();
    for (Iterator<MultipartOutputFile> it = open.values().iterator(); it.hasNext(); ) {
      MultipartOutputFile file = it.next();
      if (file.finished()) {
        pending.add(file.pending());
        it.remove();
      }
    }
    if (pending.size() == before) {
      throw new IllegalStateException("no open part was finished");
    }
  }

  /**
   * Worker 0, when it has no dead record to sweep first: sends the requests of probe and firstKey
   * now, without waiting. They only read, and no row is read and nothing created before probe and
   * firstKey have their answers.
   */
  public void startChecks() {
    probed = session.probeLater(bucket);
    listed = session.listKeysLater(bucket, prefix, 1);
  }

  /** Worker 0, first: the bucket exists and these credentials reach it. */
  public void probe() throws IOException {
    Future<?> request = probed != null ? probed : session.probeLater(bucket);
    probed = null;
    S3Session.await(request);
  }

  /** Worker 0: the first key under the prefix, or null when the prefix is empty. */
  public String firstKey() throws IOException {
    Future<List<String>> request =
        listed != null ? listed : session.listKeysLater(bucket, prefix, 1);
    listed = null;
    List<String> keys = S3Session.await(request);
    return keys.isEmpty() ? null : keys.get(0);
  }

  /**
   * Worker 0, for overwrite: null if the prefix holds exactly a previous export of this server (its
   * _SUCCESS manifest, sealed with this server's key, and the parts it lists, nothing else; the
   * seal is checked before the listing is believed), whose parts then become this export's to
   * delete once it commits; else why not, as a sentence. A key that ends in "/" and names a
   * partition folder of a listed part is a folder marker, no object of anyone's data (S3Proxy's
   * filesystem store lists its directories so, tools make them on S3): it is let be, never deleted.
   */
  public String previousExportProblem() throws IOException {
    Optional<S3Session.Fetched> manifest = session.fetch(bucket, prefix + SUCCESS);
    if (manifest.isEmpty()) {
      return "It has no " + SUCCESS + " object, so it holds no complete export.";
    }
    JsonNode root;
    try {
      root = Manifest.mapper().readTree(manifest.get().bytes());
    } catch (IOException e) {
      return "Its " + SUCCESS + " object is not a manifest of this extension.";
    }
    JsonNode parts = root.path("parts");
    if (!Manifest.FORMAT.equals(root.path("format").asText()) || !parts.isArray()) {
      return "Its " + SUCCESS + " object is not a manifest of this extension.";
    }
    List<String> names = new ArrayList<>();
    Set<String> listed = new HashSet<>();
    Set<String> folders = new HashSet<>();
    for (JsonNode part : parts) {
      String name = part.path("name").asText();
      if (!PART_NAME.matcher(name).matches()) {
        return "Its manifest lists \"" + name + "\", which is not a part name of this extension.";
      }
      names.add(name);
      listed.add(prefix + name);
      for (int slash = name.indexOf('/'); slash > 0; slash = name.indexOf('/', slash + 1)) {
        folders.add(prefix + name.substring(0, slash + 1));
      }
    }
    String sealProblem = sealProblem(root, names);
    if (sealProblem != null) {
      return sealProblem;
    }
    List<String> keys = session.listKeys(bucket, prefix, LIST_LIMIT + 1);
    if (keys.size() > LIST_LIMIT) {
      return "It holds more than " + LIST_LIMIT + " objects.";
    }
    Set<String> present = new HashSet<>(keys);
    for (String key : keys) {
      if (!key.equals(prefix + SUCCESS) && !listed.contains(key) && !folders.contains(key)) {
        return "It holds \"" + key + "\", which its manifest does not list.";
      }
    }
    for (String key : listed) {
      if (!present.contains(key)) {
        return "Part \"" + key + "\" of its manifest is missing.";
      }
    }
    superseded.clear();
    superseded.addAll(listed);
    previousManifest = manifest.get().bytes();
    previousETag = manifest.get().eTag();
    return null;
  }

  /**
   * Null if the manifest's seal verifies with this server's key, else why it cannot be shown to be
   * an export of this server's. Checked before anything else of the prefix is believed.
   */
  private String sealProblem(JsonNode root, List<String> names) {
    if (seal == null) {
      throw new IllegalStateException("no manifest key was given");
    }
    JsonNode sealNode = root.path("seal");
    if (!sealNode.isObject()) {
      return "Its manifest carries no seal, so nothing shows that an export of this server wrote it"
          + " (manifests of version 1.1 and earlier are not sealed).";
    }
    String id = root.path("export_id").asText(null);
    if (!algorithmOk(sealNode)
        || !S3Record.isExportId(id)
        || !seal.verifies(bucket, prefix, id, names, sealNode.path("mac").asText(null))) {
      return "Its manifest's seal does not verify with this server's manifest key: it was written"
          + " by another server, or forged, or altered.";
    }
    return null;
  }

  private static boolean algorithmOk(JsonNode sealNode) {
    return S3ManifestSeal.ALGORITHM.equals(sealNode.path("algorithm").asText());
  }

  /**
   * The keys of the parts {@code manifest} names under {@code prefix}, for the sweep of a committed
   * record: the replaced export's manifest, recorded once the overwrite had checked it.
   */
  static List<String> partKeys(byte[] manifest, String prefix) throws IOException {
    JsonNode root = Manifest.mapper().readTree(manifest);
    JsonNode parts = root == null ? null : root.path("parts");
    if (!Manifest.FORMAT.equals(root == null ? null : root.path("format").asText())
        || parts == null
        || !parts.isArray()) {
      throw new IOException("the recorded previous manifest is not a manifest of this extension");
    }
    List<String> keys = new ArrayList<>();
    for (JsonNode part : parts) {
      String name = part.path("name").asText();
      if (!PART_NAME.matcher(name).matches()) {
        throw new IOException(
            "the recorded previous manifest lists \"" + name + "\", which is not a part name");
      }
      keys.add(prefix + name);
    }
    return keys;
  }

  /** PUBLISH phase: completes this worker's pending uploads, which makes its parts visible. */
  public void completeAll() throws IOException {
    while (!pending.isEmpty()) {
      PendingUpload upload = pending.get(0);
      // Recorded first: an answer lost after the server completed it still gets it deleted.
      completed.add(upload.key());
      ledger.complete(upload.key());
      upload.complete(session);
      pending.remove(0);
    }
  }

  /**
   * Worker 0, last: PUTs _SUCCESS, the manifest of every part (Manifest: names relative to the
   * prefix, in part order, with rows and bytes), with this export's id and sealed.
   */
  public void writeSuccess(
      BatchSink sink,
      String[] names,
      long[] rows,
      long[] bytes,
      String extensionVersion,
      String postgresVersion)
      throws IOException {
    // First: from here on the other workers leave their parts to this one's exit path.
    named.clear();
    for (String name : names) {
      named.add(prefix + name);
    }
    ObjectNode root =
        Manifest.of(sink, exportId, names, rows, bytes, extensionVersion, postgresVersion);
    if (seal == null) {
      throw new IllegalStateException("no manifest key was given");
    }
    ObjectNode sealed = root.putObject("seal");
    sealed.put("algorithm", S3ManifestSeal.ALGORITHM);
    sealed.put("mac", seal.mac(bucket, prefix, exportId, List.of(names)));
    byte[] manifest = Manifest.bytes(root);
    if (previousManifest != null) {
      ledger.previous(previousManifest);
    }
    ledger.success(exportId);
    successSent = true;
    session.putConditionally(bucket, prefix + SUCCESS, manifest, "application/json", previousETag);
  }

  /**
   * Takes back the _SUCCESS at {@code key} if it is the manifest of export {@code exportId}: puts
   * {@code previous} back (only while it is still ours: If-Match its ETag), or deletes it when
   * there was no previous export. Anyone else's _SUCCESS, one our refused or unsent PUT left as it
   * was among them, is left alone. Returns whether it was ours.
   */
  static boolean takeBackSuccess(
      S3Session s3, String bucket, String key, String exportId, byte[] previous)
      throws IOException {
    Optional<S3Session.Fetched> current = s3.fetch(bucket, key);
    if (current.isEmpty() || !exportId.equals(exportIdOf(current.get().bytes()))) {
      return false;
    }
    if (previous != null) {
      s3.putConditionally(bucket, key, previous, "application/json", current.get().eTag());
    } else {
      s3.delete(bucket, List.of(key));
    }
    return true;
  }

  /** The export id a manifest names, or null if it is not a manifest of ours. */
  private static String exportIdOf(byte[] manifest) {
    try {
      JsonNode root = Manifest.mapper().readTree(manifest);
      return root != null && Manifest.FORMAT.equals(root.path("format").asText())
          ? root.path("export_id").asText(null)
          : null;
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * Worker 0, after the commit: records each replaced part as superseded, before deleteSuperseded
   * deletes them. The export is committed, so a failure only leaves the replaced parts, which the
   * record then still names (its "previous" manifest): returns null, or what failed as a sentence.
   */
  public String supersede() {
    try {
      for (String key : superseded) {
        ledger.superseded(key);
      }
      return null;
    } catch (IOException | RuntimeException e) {
      return "Parts of the replaced export are left under the prefix: " + e.getMessage();
    }
  }

  /** Worker 0, after supersede: deletes the replaced export's parts; returns as supersede does. */
  public String deleteSuperseded() {
    try {
      session.delete(bucket, superseded);
      superseded.clear();
      return null;
    } catch (IOException | RuntimeException e) {
      return "Parts of the replaced export are left under the prefix: " + e.getMessage();
    }
  }

  /**
   * Fault injection: the fault of {@code point} on this worker's requests from now on (S3Faults).
   */
  public void injectFault(String point) {
    session.injectFault(point);
  }

  /**
   * The exit path after a failure (see the header). {@code successMayNameParts}: worker 0's
   * _SUCCESS may be up, naming this worker's completed parts, so they are left for worker 0 to
   * delete once it took _SUCCESS back (DESIGN.md, "Failure at any point"); worker 0 passes false.
   * Never throws; returns null when everything this worker must undo is gone, else a sentence
   * naming what may be left.
   */
  public String undo(boolean successMayNameParts) {
    S3Session quick = session.forCleanup();
    List<String> left = new ArrayList<>();
    boolean keepCompleted = successMayNameParts;
    if (successSent) {
      try {
        takeBackSuccess(quick, bucket, prefix + SUCCESS, exportId, previousManifest);
        successSent = false;
      } catch (IOException | RuntimeException e) {
        // It may still be up and name every worker's parts: they stay for the sweep.
        left.add(prefix + SUCCESS);
        left.addAll(named);
        keepCompleted = true;
      }
    }
    if (!keepCompleted) {
      // No _SUCCESS of ours names them: the other workers left their parts to this one.
      for (String key : named) {
        if (!completed.contains(key)) {
          completed.add(key);
        }
      }
    }
    for (Iterator<MultipartOutputFile> it = open.values().iterator(); it.hasNext(); ) {
      MultipartOutputFile file = it.next();
      try {
        file.abort(quick);
        it.remove();
      } catch (IOException | RuntimeException e) {
        left.add(file.getPath());
      }
    }
    for (PendingUpload upload : new ArrayList<>(pending)) {
      try {
        upload.abort(quick);
        pending.remove(upload);
      } catch (IOException | RuntimeException e) {
        left.add(upload.key());
      }
    }
    if (!completed.isEmpty() && !keepCompleted) {
      try {
        quick.delete(bucket, completed);
        completed.clear();
      } catch (IOException | RuntimeException e) {
        left.addAll(completed);
      }
    }
    if (left.isEmpty()) {
      return null;
    }
    return "Could not remove "
        + left.size()
        + " object(s) or upload(s) of bucket \""
        + bucket
        + "\", among them \""
        + left.get(0)
        + "\".";
  }
}
