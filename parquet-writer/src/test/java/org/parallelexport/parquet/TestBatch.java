package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * TestBatch: lays out a batch buffer the way the C side does, for tests and the smoke run.
 *
 * <p>Null areas, then value areas, then the var area, in one direct buffer of native byte order.
 * The buffer starts filled with garbage so that tests notice a writer reading bytes it should not
 * (NULL rows' values, unset null bytes are nonzero and so NULL).
 */
final class TestBatch {
  final int capacity;
  final int[] kinds;
  final int[] nullOffsets;
  final int[] valueOffsets;
  final int varStart;
  ByteBuffer buffer;
  private int varPosition;

  TestBatch(int capacity, int[] kinds, int varBytes) {
    this.capacity = capacity;
    this.kinds = kinds.clone();
    nullOffsets = new int[kinds.length];
    valueOffsets = new int[kinds.length];
    int at = 0;
    for (int c = 0; c < kinds.length; c++) {
      nullOffsets[c] = at;
      at += capacity;
    }
    for (int c = 0; c < kinds.length; c++) {
      valueOffsets[c] = at;
      at += capacity * ColumnKind.width(kinds[c]);
    }
    varStart = at;
    varPosition = at;
    buffer = ByteBuffer.allocateDirect(at + varBytes).order(ByteOrder.nativeOrder());
    garbage();
  }

  void garbage() {
    for (int i = 0; i < buffer.capacity(); i++) {
      buffer.put(i, (byte) 0x5A);
    }
    varPosition = varStart;
  }

  void setNull(int c, int r) {
    buffer.put(nullOffsets[c] + r, (byte) 1);
  }

  private int at(int c, int r) {
    buffer.put(nullOffsets[c] + r, (byte) 0);
    return valueOffsets[c] + r * ColumnKind.width(kinds[c]);
  }

  void setBool(int c, int r, boolean v) {
    buffer.put(at(c, r), (byte) (v ? 1 : 0));
  }

  void setShort(int c, int r, short v) {
    buffer.putShort(at(c, r), v);
  }

  void setInt(int c, int r, int v) {
    buffer.putInt(at(c, r), v);
  }

  void setLong(int c, int r, long v) {
    buffer.putLong(at(c, r), v);
  }

  void setFloat(int c, int r, float v) {
    buffer.putFloat(at(c, r), v);
  }

  void setDouble(int c, int r, double v) {
    buffer.putDouble(at(c, r), v);
  }

  void setBytes(int c, int r, byte[] v) {
    int slot = at(c, r);
    buffer.putInt(slot, varPosition);
    buffer.putInt(slot + 4, v.length);
    buffer.put(varPosition, v);
    varPosition += v.length;
  }

  void setString(int c, int r, String v) {
    setBytes(c, r, v.getBytes(StandardCharsets.UTF_8));
  }

  void setInterval(int c, int r, int months, int days, long micros) {
    int slot = at(c, r);
    buffer.putInt(slot, months);
    buffer.putInt(slot + 4, days);
    buffer.putLong(slot + 8, micros);
  }

  void setUuid(int c, int r, UUID v) {
    int slot = at(c, r);
    buffer.putLong(slot, Long.reverseBytes(v.getMostSignificantBits()));
    buffer.putLong(slot + 8, Long.reverseBytes(v.getLeastSignificantBits()));
    if (ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN) {
      buffer.putLong(slot, v.getMostSignificantBits());
      buffer.putLong(slot + 8, v.getLeastSignificantBits());
    }
  }

  /** A sink over this batch for flat columns of these names and PostgreSQL types. */
  BatchSink sink(String[] names, String[] pgTypes, String options) {
    return BatchSink.create(
        names,
        kinds,
        new int[kinds.length],
        new int[kinds.length],
        pgTypes,
        capacity,
        nullOffsets,
        valueOffsets,
        buffer,
        options);
  }

  /** A larger buffer with the same layout and contents, as C builds when its var area grows. */
  ByteBuffer grown(int extraBytes) {
    ByteBuffer bigger =
        ByteBuffer.allocateDirect(buffer.capacity() + extraBytes).order(ByteOrder.nativeOrder());
    bigger.put(0, buffer, 0, buffer.capacity());
    buffer = bigger;
    return bigger;
  }
}
