package org.parallelexport.parquet.s3;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Base64;
import java.util.Objects;

/**
 * S3Ledger: a worker's writer of its export's ledger file, and the reader of a record.
 *
 * <p>The caller's backend creates the ledger file, holds its lock for the export's life and writes
 * the first two lines (extension/src/output/s3/pep_s3ledger.c); workers open it by the path it
 * gives them and append one line per step, each fsynced before the step it records, so that
 * whatever the export did before a crash is in the file: "key K" before CreateMultipartUpload of K,
 * "upload K ID" once it answered, "complete K" before CompleteMultipartUpload, "previous MANIFEST"
 * (with overwrite, the replaced export's manifest in base64) and "success EXPORTID" before the
 * _SUCCESS PUT, "superseded K" before a replaced export's part is deleted. Every line is one write
 * to a file opened for appending (O_APPEND), so lines of several workers never interleave. The file
 * is never created here and a symbolic link in its place is refused, not followed: the path must
 * name the regular file the caller made.
 */
public final class S3Ledger implements Closeable {
  private final Path path;
  private final FileChannel channel;

  private S3Ledger(Path path, FileChannel channel) {
    this.path = path;
    this.channel = channel;
  }

  /** Opens the ledger file at {@code path} for appending; it must exist and not be a link. */
  public static S3Ledger open(Path path) throws IOException {
    requireNonNull(path, "path is null");
    Object before = regularFile(path);
    FileChannel channel =
        FileChannel.open(
            path, StandardOpenOption.WRITE, StandardOpenOption.APPEND, LinkOption.NOFOLLOW_LINKS);
    try {
      if (!Objects.equals(before, regularFile(path))) {
        throw new IOException("ledger file \"" + path + "\" was replaced while it was opened");
      }
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    return new S3Ledger(path, channel);
  }

  /** Reads and parses the record at {@code path}, which must not be a link. */
  public static S3Record read(Path path) throws IOException {
    return read(path, StandardCharsets.UTF_8);
  }

  /**
   * Reads and parses the record at {@code path}, which must not be a link; a record written before
   * names were UTF-8 has its first line in {@code oldCharset} (S3Record).
   */
  public static S3Record read(Path path, Charset oldCharset) throws IOException {
    regularFile(path);
    try (InputStream in = Files.newInputStream(path, LinkOption.NOFOLLOW_LINKS)) {
      return S3Record.parse(in.readAllBytes(), path.toString(), oldCharset);
    }
  }

  /**
   * The charset named {@code name} (the database encoding, from C), for the first line of a record
   * written before names were UTF-8.
   */
  public static Charset oldCharset(String name) throws IOException {
    try {
      return Charset.forName(name);
    } catch (IllegalArgumentException e) {
      throw new IOException("the database encoding \"" + name + "\" has no Java charset", e);
    }
  }

  /** Before CreateMultipartUpload of {@code key}. */
  public void key(String key) throws IOException {
    append(S3RecordWords.KEY + " " + checkKey(key));
  }

  /** Once CreateMultipartUpload of {@code key} answered with {@code uploadId}. */
  public void upload(String key, String uploadId) throws IOException {
    requireNonNull(uploadId, "uploadId is null");
    if (uploadId.isEmpty() || !uploadId.codePoints().allMatch(c -> c > ' ' && c != 0x7f)) {
      throw new IllegalArgumentException("an upload id must be printable without spaces");
    }
    append(S3RecordWords.UPLOAD + " " + checkKey(key) + " " + uploadId);
  }

  /** Before CompleteMultipartUpload of {@code key}. */
  public void complete(String key) throws IOException {
    append(S3RecordWords.COMPLETE + " " + checkKey(key));
  }

  /**
   * Before the _SUCCESS PUT that replaces {@code manifest}, the previous export's, with overwrite:
   * the sweep puts it back if this export never commits.
   */
  public void previous(byte[] manifest) throws IOException {
    append(S3RecordWords.PREVIOUS + " " + Base64.getEncoder().encodeToString(manifest));
  }

  /** Before the _SUCCESS PUT of the export {@code exportId}, whose manifest names it. */
  public void success(String exportId) throws IOException {
    if (!S3Record.isExportId(exportId)) {
      throw new IllegalArgumentException("an export id is 12 lower-case hex digits");
    }
    append(S3RecordWords.SUCCESS + " " + exportId);
  }

  /** Before a replaced export's part {@code key} is deleted. */
  public void superseded(String key) throws IOException {
    append(S3RecordWords.SUPERSEDED + " " + checkKey(key));
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }

  private synchronized void append(String line) throws IOException {
    ByteBuffer bytes = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
    // A regular file takes a small write whole; a short one would leave a line torn, so refuse.
    if (channel.write(bytes) != bytes.limit()) {
      throw new IOException("could not write a whole line to ledger file \"" + path + "\"");
    }
    channel.force(false);
  }

  private static String checkKey(String key) {
    requireNonNull(key, "key is null");
    if (key.isEmpty() || key.indexOf('\n') >= 0 || key.indexOf('\r') >= 0) {
      throw new IllegalArgumentException("a ledger key must be one non-empty line");
    }
    return key;
  }

  /** The file's identity, once it is known to be a regular file and not a link. */
  private static Object regularFile(Path path) throws IOException {
    BasicFileAttributes attributes =
        Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (!attributes.isRegularFile()) {
      throw new IOException(
          "ledger file \""
              + path
              + "\" is "
              + (attributes.isSymbolicLink() ? "a symbolic link" : "not a regular file"));
    }
    return attributes.fileKey();
  }
}
