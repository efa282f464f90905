package org.parallelexport.parquet;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import org.apache.parquet.io.PositionOutputStream;

/**
 * SyncingOutputFile: the local-file OutputFile that every Parquet part is written through.
 *
 * <p>The export protocol (DESIGN.md, "Output protocol") publishes a part by renaming it after the
 * worker reported it done, so the bytes must be on disk when closePart returns: close() here forces
 * the file to stable storage, which parquet-common's LocalOutputFile never does. The file is
 * created with CREATE_NEW because the C side records every path in its ledger before asking for it,
 * and an existing file at that path means something else owns it; NOFOLLOW_LINKS as well, so no
 * link is ever followed at the last step. The C side passes a path through the worker's open
 * descriptor of the staging directory (/proc/self/fd/N/part-K.parquet), so the directory cannot be
 * swapped under the writer either. Before the sync, the finished footer gets this extension's
 * created_by (CreatedByStamp). abort() gives the file handle back without a footer or a sync, for a
 * part that failed; the C side deletes the file.
 *
 * <p>The write buffer is direct, and a direct buffer's memory returns to the system only when the
 * garbage collector gets to its object: a partitioned export that writes thousands of small parts
 * would pile up their buffers. So it comes from the sink's DirectBuffers and goes back there when
 * the part is closed or given up.
 *
 * <p>A write or sync that fails on a full file system is reported as a DiskFullException.
 */
final class SyncingOutputFile implements PartFile {
  private final Path path;
  private final CreatedByStamp stamp;
  private final DirectBuffers buffers;
  private Stream stream;

  /** A file whose buffer comes from, and goes back to, {@code buffers}. */
  SyncingOutputFile(Path path, CreatedByStamp stamp, DirectBuffers buffers) {
    this.path = requireNonNull(path, "path is null");
    this.stamp = requireNonNull(stamp, "stamp is null");
    this.buffers = requireNonNull(buffers, "buffers is null");
  }

  /** A file with a buffer of its own. */
  SyncingOutputFile(Path path, CreatedByStamp stamp) {
    this(path, stamp, new DirectBuffers());
  }

  @Override
  public PositionOutputStream create(long blockSizeHint) throws IOException {
    if (stream != null) {
      throw new IllegalStateException("file already created: " + path);
    }
    FileChannel channel =
        FileChannel.open(
            path,
            StandardOpenOption.CREATE_NEW,
            StandardOpenOption.READ,
            StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS);
    stream = new Stream(path, channel, stamp, buffers);
    return stream;
  }

  @Override
  public PositionOutputStream createOrOverwrite(long blockSizeHint) throws IOException {
    // Overwriting could destroy a file this export does not own.
    throw new UnsupportedOperationException("parts are never overwritten: " + path);
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
    return path.toString();
  }

  @Override
  public long position() {
    return stream == null ? 0 : stream.position;
  }

  @Override
  public boolean footerMissing() {
    return stream != null && stream.footerMissing;
  }

  /** Releases the file handle without flushing or syncing; the C side deletes the file. */
  @Override
  public void abandon() {
    if (stream != null) {
      stream.abort();
    }
  }

  private static final class Stream extends PositionOutputStream {
    private final Path path;
    private final FileChannel channel;
    private final CreatedByStamp stamp;
    private final DirectBuffers buffers;
    // Direct, so the channel writes it without the JDK's per-thread temporary copy.
    private final ByteBuffer buffer;
    private long position;
    // Set by a close that found no footer to stamp.
    private boolean footerMissing;
    private boolean closed;

    Stream(Path path, FileChannel channel, CreatedByStamp stamp, DirectBuffers buffers) {
      this.path = path;
      this.channel = channel;
      this.stamp = stamp;
      this.buffers = buffers;
      this.buffer = buffers.take();
    }

    @Override
    public long getPos() {
      return position;
    }

    @Override
    public void write(int b) throws IOException {
      ensureOpen();
      if (!buffer.hasRemaining()) {
        drain();
      }
      buffer.put((byte) b);
      position++;
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      ensureOpen();
      Objects.checkFromIndexSize(offset, length, bytes.length);
      int done = 0;
      while (done < length) {
        if (!buffer.hasRemaining()) {
          drain();
        }
        int n = Math.min(buffer.remaining(), length - done);
        buffer.put(bytes, offset + done, n);
        done += n;
      }
      position += length;
    }

    @Override
    public void flush() throws IOException {
      ensureOpen();
      drain();
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      try (channel) {
        drain();
        // parquet-java closes the stream after it wrote the whole footer, and also from a finally
        // block after a failure (an OutOfMemoryError while flushing the last row group) left the
        // file without one. Any exception thrown here would then replace that failure, so a file
        // without a footer is only closed: the caller sees the real error and deletes the file.
        if (CreatedByStamp.hasFooter(channel, position)) {
          try {
            position = stamp.apply(channel, position);
            channel.force(true);
          } catch (IOException e) {
            throw DiskFullException.of(e, path, 0);
          }
        } else {
          footerMissing = true;
        }
      } finally {
        buffers.give(buffer);
      }
    }

    void abort() {
      if (closed) {
        return;
      }
      closed = true;
      buffers.give(buffer);
      try {
        channel.close();
      } catch (IOException | RuntimeException ignored) {
        // The part is being thrown away; the caller deletes the file, and has an error to report.
      }
    }

    private void drain() throws IOException {
      buffer.flip();
      try {
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
      } catch (IOException e) {
        throw DiskFullException.of(e, path, buffer.remaining());
      }
      buffer.clear();
    }

    private void ensureOpen() throws IOException {
      if (closed) {
        throw new IOException("stream is closed");
      }
    }
  }
}
