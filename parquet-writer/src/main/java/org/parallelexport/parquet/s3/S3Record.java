package org.parallelexport.parquet.s3;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * S3Record: what one object-store export recorded in its ledger file, parsed.
 *
 * <p>The ledger file (extension/include/pep_s3ledger.h has the format) holds one line per step,
 * each fsynced before the step it records; S3Sweep undoes a dead export from this value alone.
 * Parsing is strict, because a sweep acts on it: an unknown line, a malformed first line, or a key
 * outside the record's own target makes the whole record unusable, and nothing is swept. The one
 * thing tolerated is a last line without its newline: the write of that line did not finish, so the
 * step it would have recorded was never taken (a lost "upload K ID" leaves "key K", which the sweep
 * resolves by listing the uploads of exactly that key). The "owner" line is the caller's to check
 * (extension/src/output/s3/pep_s3ledger.c): a record of another server is never read here.
 *
 * <p>A record is UTF-8, and its first line ends in a "utf8" field that says so. A record written
 * before (version 1.1) has no such field, and its first line holds the target in the database
 * encoding (the caller names that charset) while the steps are UTF-8; that export used as its key
 * prefix the target's UTF-8 bytes read once more as the database encoding (it converted the prefix
 * twice), so its keys are checked against that prefix, and its _SUCCESS is there.
 */
public final class S3Record {
  static final String SUCCESS_NAME = "_SUCCESS";

  private static final Pattern EXPORT_ID = Pattern.compile("[0-9a-f]{12}");

  private final String url;
  private final String bucket;
  private final String prefix;
  private final String server;
  private final Instant started;
  private final Set<String> keys = new LinkedHashSet<>();
  private final Map<String, Set<String>> uploads = new LinkedHashMap<>();
  private final Set<String> completed = new LinkedHashSet<>();
  private final Set<String> superseded = new LinkedHashSet<>();
  private String exportId;
  private byte[] previous;
  private boolean committed;

  private S3Record(String url, String bucket, String prefix, String server, Instant started) {
    this.url = url;
    this.bucket = bucket;
    this.prefix = prefix;
    this.server = server;
    this.started = started;
  }

  /** The target as messages show it, "s3://bucket/prefix/". */
  public String url() {
    return url;
  }

  public String bucket() {
    return bucket;
  }

  /** The key prefix, ending in "/", or "" for the bucket's root. */
  public String prefix() {
    return prefix;
  }

  /** The foreign server the export used, "" for the SDK's chain. */
  public String server() {
    return server;
  }

  /** When the export started, to the second, by the database server's clock. */
  public Instant started() {
    return started;
  }

  /** Every key whose upload the export was about to create, in the order recorded. */
  public Set<String> keys() {
    return Set.copyOf(keys);
  }

  /** The upload ids recorded for a key; empty if the crash fell before its id was recorded. */
  public Set<String> uploadIds(String key) {
    return Set.copyOf(uploads.getOrDefault(key, Set.of()));
  }

  /** Every key and upload id recorded, as key to ids. */
  public Map<String, Set<String>> uploads() {
    Map<String, Set<String>> copy = new LinkedHashMap<>();
    uploads.forEach((k, ids) -> copy.put(k, Set.copyOf(ids)));
    return copy;
  }

  /** Keys whose upload the export was about to complete (or completed). */
  public Set<String> completed() {
    return Set.copyOf(completed);
  }

  /** Whether the export was about to write (or wrote) _SUCCESS. */
  public boolean success() {
    return exportId != null;
  }

  /** The export id its _SUCCESS manifest names, once "success" is recorded; else null. */
  public String exportId() {
    return exportId;
  }

  /** The manifest its _SUCCESS was about to replace (overwrite), or null if there was none. */
  public byte[] previousManifest() {
    return previous == null ? null : previous.clone();
  }

  /** Whether {@code id} has the form of an export id: 12 lower-case hex digits. */
  static boolean isExportId(String id) {
    return id != null && EXPORT_ID.matcher(id).matches();
  }

  /** The key of this target's _SUCCESS. */
  public String successKey() {
    return prefix + SUCCESS_NAME;
  }

  /** Whether the caller recorded the export as committed. */
  public boolean committed() {
    return committed;
  }

  /** Parts of a replaced export that the committed export was about to delete. */
  public Set<String> superseded() {
    return Set.copyOf(superseded);
  }

  /** Parses a ledger file's bytes, a record in UTF-8; {@code where} names it in errors. */
  public static S3Record parse(byte[] bytes, String where) throws IOException {
    return parse(bytes, where, StandardCharsets.UTF_8);
  }

  /**
   * Parses a ledger file's bytes; {@code oldCharset} is the database encoding, which the first line
   * of a record without the "utf8" field is in; {@code where} names the file in errors.
   */
  public static S3Record parse(byte[] bytes, String where, Charset oldCharset) throws IOException {
    int newline = 0;
    while (newline < bytes.length && bytes[newline] != '\n') {
      newline++;
    }
    if (newline == bytes.length) {
      throw corrupt(where, "it has no complete first line");
    }
    // A tab byte is a tab in UTF-8 and in every server encoding: the fields can be told apart
    // before the line is decoded. An old first line has four fields (its server may be "utf8").
    byte[] head = Arrays.copyOf(bytes, newline);
    byte[] marker = ("\t" + S3RecordWords.UTF8).getBytes(StandardCharsets.US_ASCII);
    int tabs = 0;
    for (byte b : head) {
      tabs += b == '\t' ? 1 : 0;
    }
    boolean utf8 =
        tabs == 4
            && head.length >= marker.length
            && Arrays.equals(
                head, head.length - marker.length, head.length, marker, 0, marker.length);
    String firstLine;
    if (utf8) {
      firstLine = decode(Arrays.copyOf(head, head.length - marker.length), UTF_8, where);
    } else {
      firstLine = decode(head, oldCharset, where);
    }
    String text = decode(Arrays.copyOfRange(bytes, newline + 1, bytes.length), UTF_8, where);
    List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
    // The piece after the last newline is "" for a whole file, or a line whose write did not end.
    lines.remove(lines.size() - 1);
    S3Record record = first(firstLine, where, utf8 ? UTF_8 : oldCharset);
    for (String line : lines) {
      record.step(line, where);
    }
    return record;
  }

  private static String decode(byte[] bytes, Charset charset, String where) throws IOException {
    try {
      return charset
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw corrupt(where, "it is not valid " + charset.name());
    }
  }

  /**
   * The first line; {@code charset} the one it was written in: the key prefix of an old record (see
   * the class comment) is its target's prefix encoded in UTF-8 and decoded in that charset.
   */
  private static S3Record first(String line, String where, Charset charset) throws IOException {
    String[] fields = line.split("\t", -1);
    if (fields.length != 4 || !fields[0].equals(S3RecordWords.EXPORT)) {
      throw corrupt(where, "its first line is not \"export<TAB>STARTED<TAB>URL<TAB>SERVER\"");
    }
    Instant started;
    try {
      started = Instant.parse(fields[1]);
    } catch (DateTimeParseException e) {
      throw corrupt(where, "its start time \"" + fields[1] + "\" is not a UTC time");
    }
    String url = fields[2];
    int slash = url.indexOf('/', "s3://".length());
    if (!url.startsWith("s3://") || slash <= "s3://".length()) {
      throw corrupt(where, "its target \"" + url + "\" is not an s3:// URL");
    }
    String prefix = url.substring(slash + 1);
    if (!prefix.isEmpty() && !prefix.endsWith("/")) {
      throw corrupt(where, "its target \"" + url + "\" does not end in \"/\"");
    }
    if (!charset.equals(UTF_8)) {
      prefix = new String(prefix.getBytes(UTF_8), charset);
    }
    return new S3Record(
        url, url.substring("s3://".length(), slash), prefix, unescape(fields[3], where), started);
  }

  private void step(String line, String where) throws IOException {
    int space = line.indexOf(' ');
    String verb = space < 0 ? line : line.substring(0, space);
    String rest = space < 0 ? null : line.substring(space + 1);
    switch (verb) {
      case S3RecordWords.KEY:
        keys.add(key(rest, line, where));
        break;
      case S3RecordWords.UPLOAD:
        int last = rest == null ? -1 : rest.lastIndexOf(' ');
        if (last <= 0 || last == rest.length() - 1) {
          throw corrupt(where, "line \"" + line + "\" is not \"upload KEY ID\"");
        }
        uploads
            .computeIfAbsent(key(rest.substring(0, last), line, where), k -> new LinkedHashSet<>())
            .add(rest.substring(last + 1));
        break;
      case S3RecordWords.COMPLETE:
        completed.add(key(rest, line, where));
        break;
      case S3RecordWords.SUPERSEDED:
        superseded.add(key(rest, line, where));
        break;
      case S3RecordWords.OWNER:
        // Who wrote the record: the caller checked it before anyone read this far.
        break;
      case S3RecordWords.PREVIOUS:
        try {
          previous = Base64.getDecoder().decode(rest == null ? "?" : rest);
        } catch (IllegalArgumentException e) {
          throw corrupt(where, "line \"previous\" holds no base64 manifest");
        }
        break;
      case S3RecordWords.SUCCESS:
        if (!isExportId(rest)) {
          throw corrupt(where, "line \"" + line + "\" is not \"success EXPORTID\"");
        }
        exportId = rest;
        break;
      case S3RecordWords.COMMITTED:
        committed = bare(rest, line, where);
        break;
      default:
        throw corrupt(where, "line \"" + line + "\" records no known step");
    }
  }

  /** A key of this target: under its prefix and more than the prefix. */
  private String key(String key, String line, String where) throws IOException {
    if (key == null || key.length() <= prefix.length() || !key.startsWith(prefix)) {
      throw corrupt(where, "line \"" + line + "\" names no key under " + url);
    }
    return key;
  }

  private static boolean bare(String rest, String line, String where) throws IOException {
    if (rest != null) {
      throw corrupt(where, "line \"" + line + "\" records no known step");
    }
    return true;
  }

  private static String unescape(String text, String where) throws IOException {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char next = ++i < text.length() ? text.charAt(i) : '?';
      switch (next) {
        case '\\':
          out.append('\\');
          break;
        case 't':
          out.append('\t');
          break;
        case 'r':
          out.append('\r');
          break;
        case 'n':
          out.append('\n');
          break;
        default:
          throw corrupt(where, "its server name has an unknown escape");
      }
    }
    return out.toString();
  }

  private static IOException corrupt(String where, String why) {
    return new IOException("cannot use ledger file \"" + where + "\": " + why);
  }
}
