package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * DirectBuffers: the direct write buffers of one sink's local parts, reused from part to part.
 *
 * <p>A direct buffer's memory goes back to the system only once the garbage collector has found its
 * object unreachable, which may be long after the part is closed: a worker that closes thousands of
 * small parts (a partitioned export meeting many folders) held hundreds of megabytes of dead
 * buffers outside its heap. SyncingOutputFile takes a buffer when its stream starts and gives it
 * back when the stream is closed or aborted, so a worker holds at most as many buffers as it ever
 * had parts open at once. Not thread-safe, like the sink.
 */
final class DirectBuffers {
  // Parquet hands over whole pages; a quarter megabyte keeps small footer writes from becoming
  // system calls without holding much memory per open part.
  static final int BUFFER_BYTES = 256 * 1024;

  private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();

  /** A cleared buffer of BUFFER_BYTES: one given back earlier, or a new one. */
  ByteBuffer take() {
    ByteBuffer buffer = free.poll();
    return buffer != null ? buffer.clear() : ByteBuffer.allocateDirect(BUFFER_BYTES);
  }

  /** Takes back a buffer that its stream no longer uses. */
  void give(ByteBuffer buffer) {
    free.push(buffer);
  }

  /** Buffers held for reuse; for tests. */
  int free() {
    return free.size();
  }
}
