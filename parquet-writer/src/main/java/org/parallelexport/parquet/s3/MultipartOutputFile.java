package org.parallelexport.parquet.s3;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Future;
import org.apache.parquet.io.PositionOutputStream;
import org.parallelexport.parquet.CreatedByStamp;
import org.parallelexport.parquet.PartFile;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * MultipartOutputFile: streams one Parquet part into an S3 multipart upload while parquet-java
 * writes it, and leaves the upload pending.
 *
 * <p>Bytes collect in a buffer; each time it holds part_size bytes it goes to the session's pool as
 * the next upload part, and writing goes on into another buffer. At most uploads_in_flight parts
 * are on the wire at once; a writer that gets ahead waits for the oldest. close() uploads the rest
 * as the last part (any size; a file smaller than part_size is a one-part upload) and returns with
 * the upload still pending: pending() then hands it to publication, which completes it only once
 * the whole export is written. abort() aborts it. Nothing here ever completes.
 *
 * <p>The footer gets this extension's created_by (CreatedByStamp) like a local part, but uploaded
 * bytes cannot be rewritten in place. The buffer of the part uploaded last is therefore kept until
 * the next part is sent: when the footer starts in it, that part is uploaded again under its number
 * with the new tail and becomes the last part (S3 replaces a part sent twice), and the current
 * buffer is dropped. A footer larger than part_size, which would start even earlier, fails with a
 * clear message.
 *
 * <p>S3 numbers an upload's parts 1 to 10,000 (max_parts): a part file that would need more fails,
 * so the worker ends its parts at nine tenths of that room (S3Settings.partSizeLimit).
 *
 * <p>Memory: the buffer being filled, the parts in flight, and the kept one: at most
 * (uploads_in_flight + 2) * part_size bytes of heap (S3Settings.maxBufferedBytes), whatever the
 * part file's size; the first buffer grows from 64 KiB, so a small part costs little.
 */
public final class MultipartOutputFile implements PartFile {
  private static final int FIRST_BUFFER_BYTES = 64 * 1024;

  private final S3Session session;
  private final String bucket;
  private final String key;
  private final CreatedByStamp stamp;
  private final UploadCreated created;
  private String uploadId;
  private Stream stream;
  private PendingUpload pending;

  public MultipartOutputFile(S3Session session, String bucket, String key, CreatedByStamp stamp) {
    this(session, bucket, key, stamp, (k, id) -> {});
  }

  /** As above; {@code created} hears of the upload as soon as S3 gave it an id. */
  MultipartOutputFile(
      S3Session session, String bucket, String key, CreatedByStamp stamp, UploadCreated created) {
    this.session = requireNonNull(session, "session is null");
    this.bucket = requireNonNull(bucket, "bucket is null");
    this.key = requireNonNull(key, "key is null");
    this.stamp = requireNonNull(stamp, "stamp is null");
    this.created = requireNonNull(created, "created is null");
  }

  /** Told of each upload this file creates, before a byte of it is sent (the ledger's line). */
  interface UploadCreated {
    void created(String key, String uploadId) throws IOException;
  }

  @Override
  public PositionOutputStream create(long blockSizeHint) throws IOException {
    if (uploadId != null) {
      throw new IllegalStateException("upload already created: " + getPath());
    }
    uploadId = session.createUpload(bucket, key);
    created.created(key, uploadId);
    stream = new Stream();
    return stream;
  }

  @Override
  public PositionOutputStream createOrOverwrite(long blockSizeHint) throws IOException {
    return create(blockSizeHint);
  }

  @Override
  public boolean supportsBlockSize() {
    return false;
  }

  @Override
  public long defaultBlockSize() {
    return 0;
  }

  @Override
  public String getPath() {
    return "s3://" + bucket + "/" + key;
  }

  /** The upload id once created, else null: the C side records it before anything else. */
  public String uploadId() {
    return uploadId;
  }

  /** Whether a close succeeded: pending() then has the upload. */
  public boolean finished() {
    return pending != null;
  }

  /** Bytes of the buffers the stream holds now: filling, on the wire, kept and spare. */
  @Override
  public long heldBytes() {
    return stream == null ? 0 : stream.heldBytes();
  }

  /** After a successful close: the finished upload, not yet completed. */
  public PendingUpload pending() {
    if (pending == null) {
      throw new IllegalStateException("part not finished: " + getPath());
    }
    return pending;
  }

  /** Bytes written so far; after close, the object's size. */
  @Override
  public long position() {
    return pending != null ? pending.size() : stream == null ? 0 : stream.position;
  }

  /** A closed stream without a pending upload failed in its footer: never publishable. */
  @Override
  public boolean footerMissing() {
    return stream != null && stream.closed && pending == null;
  }

  /**
   * Gives the part up: abort() with its failure swallowed, for BatchSink's error path; the upload's
   * owner (S3Export) aborts it again, and reports, if this one did not get through.
   */
  @Override
  public void abandon() {
    try {
      abort();
    } catch (IOException | RuntimeException e) {
      // The owner's cleanup retries the abort; the caller already has an error to report.
    }
  }

  /**
   * Waits for parts on the wire, then aborts the upload, so that no part can arrive after the
   * abort. Safe to repeat; throws only if the abort itself failed.
   */
  public void abort() throws IOException {
    abort(session);
  }

  /** abort() with the request sent through {@code via}, e.g. the session's forCleanup view. */
  void abort(S3Session via) throws IOException {
    if (stream != null) {
      stream.drop();
    }
    if (uploadId != null) {
      via.abort(bucket, key, uploadId);
    }
    pending = null;
  }

  private final class Stream extends PositionOutputStream {
    private final int partBytes = session.settings().partBytes;
    private final int maxInFlight = session.settings().uploadsInFlight;
    private final int maxParts = session.settings().maxParts;
    private final Deque<Future<CompletedPart>> inFlight = new ArrayDeque<>();
    private final Deque<byte[]> inFlightBuffers = new ArrayDeque<>();
    private final Deque<byte[]> free = new ArrayDeque<>();
    private final List<CompletedPart> done = new ArrayList<>();
    private byte[] current = new byte[FIRST_BUFFER_BYTES];
    private int currentLength;
    private long currentStart;
    // The part sent last, kept for the footer (see the header); its number and first byte.
    private byte[] kept;
    private int keptLength;
    private int keptNumber;
    private long keptStart;
    private int nextNumber = 1;
    private long position;
    private boolean closed;

    @Override
    public long getPos() {
      return position;
    }

    @Override
    public void write(int b) throws IOException {
      ensureOpen();
      if (currentLength == current.length) {
        makeRoom();
      }
      current[currentLength++] = (byte) b;
      position++;
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      ensureOpen();
      Objects.checkFromIndexSize(offset, length, bytes.length);
      int written = 0;
      while (written < length) {
        if (currentLength == current.length) {
          makeRoom();
        }
        int n = Math.min(current.length - currentLength, length - written);
        System.arraycopy(bytes, offset + written, current, currentLength, n);
        currentLength += n;
        written += n;
      }
      position += length;
    }

    @Override
    public void flush() {
      // Parts leave when full; an early flush would send a part under S3's 5 MiB minimum.
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      try {
        waitAll();
        finish();
      } catch (IOException | RuntimeException | Error e) {
        release();
        throw e;
      }
      release();
    }

    /** Grows the first buffer up to part_size, then sends it and starts another. */
    private void makeRoom() throws IOException {
      if (current.length < partBytes) {
        current = Arrays.copyOf(current, (int) Math.min(partBytes, 2L * current.length));
        return;
      }
      if (nextNumber >= maxParts) {
        // The last number stays free for close()'s last part. The worker ends its parts well
        // before this (S3Settings.partSizeLimit).
        throw new IOException(
            getPath()
                + ": a part file larger than "
                + maxParts
                + " upload parts of "
                + partBytes
                + " bytes, the most one upload holds");
      }
      while (inFlight.size() >= maxInFlight) {
        collectOldest();
      }
      int number = nextNumber++;
      inFlight.add(session.uploadPart(bucket, key, uploadId, number, current, currentLength));
      inFlightBuffers.add(current);
      // The part sent before this one is no longer needed for the footer.
      if (kept != null && !inFlightBuffers.contains(kept)) {
        free.add(kept);
      }
      kept = current;
      keptLength = currentLength;
      keptNumber = number;
      keptStart = currentStart;
      currentStart += currentLength;
      current = free.isEmpty() ? new byte[partBytes] : free.poll();
      currentLength = 0;
    }

    private void collectOldest() throws IOException {
      Future<CompletedPart> part = inFlight.poll();
      byte[] buffer = inFlightBuffers.poll();
      done.add(S3Session.await(part));
      if (buffer != kept) {
        free.add(buffer);
      }
    }

    private void waitAll() throws IOException {
      while (!inFlight.isEmpty()) {
        collectOldest();
      }
    }

    /** Stamps the footer and sends the last part; the upload stays pending. */
    private void finish() throws IOException {
      long size = position;
      long footerStart = CreatedByStamp.footerStart(bytesAt(size - 8, 8), size);
      byte[] tail =
          stamp.restampedTail(
              bytesAt(footerStart, (int) (size - CreatedByStamp.TAIL_BYTES - footerStart)));
      byte[] last;
      int lastNumber;
      long lastStart;
      if (footerStart >= currentStart) {
        last = current;
        lastNumber = nextNumber;
        lastStart = currentStart;
      } else if (kept != null && footerStart >= keptStart) {
        // The footer began in the part already sent: send that part again, ending with the tail.
        last = kept;
        lastNumber = keptNumber;
        lastStart = keptStart;
        done.removeIf(p -> p.partNumber() == keptNumber);
      } else {
        throw new IOException(
            getPath()
                + ": the Parquet footer ("
                + (size - footerStart)
                + " bytes) is larger than the upload part size ("
                + partBytes
                + " bytes); export with a smaller file_size_bytes");
      }
      int head = (int) (footerStart - lastStart);
      // Nothing is in flight now; spare buffers go before the copy, so the bound above holds.
      free.clear();
      byte[] body = Arrays.copyOf(last, head + tail.length);
      System.arraycopy(tail, 0, body, head, tail.length);
      done.add(
          S3Session.await(
              session.uploadPart(bucket, key, uploadId, lastNumber, body, body.length)));
      done.sort(Comparator.comparingInt(CompletedPart::partNumber));
      pending = new PendingUpload(bucket, key, uploadId, done, footerStart + tail.length);
    }

    /** Bytes [from, from + length) of the file, from the kept and current buffers. */
    private byte[] bytesAt(long from, int length) throws IOException {
      long start = kept != null ? keptStart : currentStart;
      if (from < start || length < 0) {
        throw new IOException(getPath() + ": Parquet footer starts before the buffered bytes");
      }
      byte[] out = new byte[length];
      for (int i = 0; i < length; i++) {
        long at = from + i;
        out[i] =
            at >= currentStart ? current[(int) (at - currentStart)] : kept[(int) (at - keptStart)];
      }
      return out;
    }

    long heldBytes() {
      long bytes = current == null ? 0 : current.length;
      for (byte[] buffer : inFlightBuffers) {
        bytes += buffer.length;
      }
      if (kept != null && kept != current && !inFlightBuffers.contains(kept)) {
        bytes += kept.length;
      }
      for (byte[] buffer : free) {
        bytes += buffer.length;
      }
      return bytes;
    }

    /** Gives up: waits for the parts on the wire (their errors do not matter) and frees memory. */
    void drop() {
      closed = true;
      while (!inFlight.isEmpty()) {
        try {
          collectOldest();
        } catch (IOException | RuntimeException e) {
          // The upload is being aborted; its parts' outcome is irrelevant.
        }
      }
      release();
    }

    private void release() {
      current = null;
      kept = null;
      free.clear();
      inFlightBuffers.clear();
    }

    private void ensureOpen() throws IOException {
      if (closed) {
        throw new IOException("stream is closed");
      }
    }
  }
}
