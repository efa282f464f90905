package org.parallelexport.parquet;

import java.nio.ByteBuffer;

/**
 * VarBytes: a heap copy of the var-area bytes of the slice of rows being written, made once per
 * slice so that text and bytea values reach parquet-java without a copy each.
 *
 * <p>parquet-java hashes, compares and encodes array-backed Binary values fastest; a Binary over
 * the direct batch buffer would be copied again by the plain encoder and hashed a byte at a time by
 * the dictionary. So BinaryValueWriter copied each value into a scratch array, one small bulk copy
 * per value. PartWriter now copies the span of the slice's var values (SLICE_ROWS rows, all
 * var-width columns) here before the column writers run, and BinaryValueWriter hands parquet-java a
 * "reused" Binary over this array. Every consumer on the write path (parquet-java 1.18.1) copies
 * what it keeps or uses the bytes at once: the dictionary keeps copy() of a new value, statistics
 * keep copy() of a new min or max (and the column index takes those), DELTA_BYTE_ARRAY keeps
 * getBytes() of a reused value, the plain encoders write the bytes into the page, bloom filters
 * hash them and size statistics add the length. So the next slice may overwrite the array.
 *
 * <p>A slice whose values span more than MAX_SPAN bytes is not copied (holds() is then false for
 * every value), so a few huge values never make this array huge; the writer copies those values
 * itself.
 */
final class VarBytes {
  static final int MAX_SPAN = 1 << 20;
  private byte[] bytes = new byte[0];
  // The buffer positions [start, end) held in bytes; empty when the slice was not copied.
  private int start;
  private int end;
  // Writers that read values from here: with none, load() copies nothing.
  private int readers;

  /** A writer that reads its values through holds() and index() counts on the copy. */
  void addReader() {
    readers++;
  }

  /**
   * Holds the buffer's bytes [from, to) of the slice about to be written, or nothing when the span
   * is empty, too wide or has no reader; the previous slice's copy is gone either way.
   */
  void load(ByteBuffer buffer, int from, int to) {
    start = 0;
    end = 0;
    if (readers == 0 || to <= from || to - from > MAX_SPAN) {
      return;
    }
    int span = to - from;
    if (span > bytes.length) {
      bytes = new byte[Math.min(MAX_SPAN, Math.max(span, bytes.length * 2))];
    }
    buffer.get(from, bytes, 0, span);
    start = from;
    end = to;
  }

  /** Whether the copy holds the {@code length} bytes at buffer position {@code offset}. */
  boolean holds(int offset, int length) {
    return offset >= start && offset + length <= end;
  }

  /** The copy; the value at buffer position {@code offset} starts at {@code index(offset)}. */
  byte[] bytes() {
    return bytes;
  }

  int index(int offset) {
    return offset - start;
  }
}
