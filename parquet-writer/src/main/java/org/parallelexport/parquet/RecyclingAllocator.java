package org.parallelexport.parquet;

import java.lang.ref.SoftReference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import org.apache.parquet.bytes.ByteBufferAllocator;

/**
 * RecyclingAllocator: the heap buffers parquet-java writes pages into, handed back out again
 * instead of allocated and zeroed anew.
 *
 * <p>parquet-java takes every page buffer from the ParquetProperties' allocator and releases it
 * when the page is written (the encoders' slabs) or when the row group is (the compressed pages):
 * the default allocator drops them, so each page allocates and zeroes fresh arrays, which was 8% of
 * a worker's time in memset. This one keeps released buffers by size class and reuses them for the
 * next request of that class: the same column asks for the same slab sizes page after page, and row
 * group after row group. Classes are eighths of a power of two, so a buffer is at most 1/8 larger
 * than asked (its limit is the requested size). Buffers above MAX_POOLED bytes, and any beyond the
 * sink's retain limit held in total, are left to the garbage collector, and the pool holds the
 * others through soft references, which the JVM clears before it would throw OutOfMemoryError: the
 * pool never costs a worker heap it needs for a row group. One per sink; not thread-safe, like the
 * sink.
 *
 * <p>The retain limit is what one row group may buffer (row_group_bytes), at least MIN_RETAINED: a
 * row group's compressed pages are all released when it is written, and the next one asks for as
 * many again. A lower limit dropped the excess at every row group end and allocated it anew in the
 * next (a 50-column table at the 64 MB default: 30 MB a row group), which the young collections
 * copied into the old generation, where it forced a full collection per row group
 * (bench/results/pool.md).
 */
final class RecyclingAllocator implements ByteBufferAllocator {
  static final int MAX_POOLED = 4 * 1024 * 1024;
  static final long MIN_RETAINED = 32L * 1024 * 1024;
  private static final int MIN_CLASS = 64;

  private final long maxRetained;
  private final Map<Integer, ArrayDeque<SoftReference<ByteBuffer>>> free = new HashMap<>();
  // Bytes released into the pool and not taken out since, cleared references included.
  private long retained;

  /** A pool that holds at most {@code maxRetained} bytes of released buffers. */
  private RecyclingAllocator(long maxRetained) {
    this.maxRetained = maxRetained;
  }

  /** The pool of a sink whose row groups buffer up to {@code rowGroupBytes}. */
  static RecyclingAllocator forRowGroups(long rowGroupBytes) {
    return new RecyclingAllocator(Math.max(MIN_RETAINED, rowGroupBytes));
  }

  @Override
  public ByteBuffer allocate(int size) {
    if (size > MAX_POOLED) {
      return ByteBuffer.allocate(size);
    }
    int capacity = sizeClass(size);
    ArrayDeque<SoftReference<ByteBuffer>> pool = free.get(capacity);
    ByteBuffer buffer = null;
    while (buffer == null && pool != null && !pool.isEmpty()) {
      buffer = pool.pollLast().get();
      retained -= capacity;
    }
    if (buffer == null) {
      buffer = ByteBuffer.allocate(capacity);
    } else {
      buffer.clear().order(ByteOrder.BIG_ENDIAN);
    }
    return buffer.limit(size);
  }

  @Override
  public void release(ByteBuffer buffer) {
    int capacity = buffer.capacity();
    if (capacity > MAX_POOLED
        || capacity != sizeClass(capacity)
        || retained + capacity > maxRetained
        || buffer.isDirect()) {
      return;
    }
    free.computeIfAbsent(capacity, c -> new ArrayDeque<>()).addLast(new SoftReference<>(buffer));
    retained += capacity;
  }

  @Override
  public boolean isDirect() {
    return false;
  }

  /** Bytes held for reuse; for tests. */
  long retained() {
    return retained;
  }

  /** {@code size} rounded up to the next eighth of its power of two, at least MIN_CLASS. */
  static int sizeClass(int size) {
    if (size <= MIN_CLASS) {
      return MIN_CLASS;
    }
    int step = Integer.highestOneBit(size - 1) / 8;
    return (size + step - 1) / step * step;
  }
}
