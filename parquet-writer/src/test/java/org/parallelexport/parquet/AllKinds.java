package org.parallelexport.parquet;

import java.util.UUID;

/**
 * AllKinds: a batch with one column of every kind and three rows (values, all NULL, edge values),
 * shared by the unit tests and the shaded-jar smoke run, which has no JUnit.
 */
final class AllKinds {
  static final String[] NAMES = {
    "b", "s", "i", "l", "f", "d", "n9", "n18", "n38", "t", "j", "by", "dt", "tm", "ts", "tz", "u"
  };
  static final int[] KINDS = {0, 1, 2, 3, 4, 5, 21, 21, 6, 7, 8, 9, 10, 11, 12, 13, 14};
  static final int[] PRECISIONS = {0, 0, 0, 0, 0, 0, 9, 18, 38, 0, 0, 0, 0, 0, 0, 0, 0};
  static final int[] SCALES = {0, 0, 0, 0, 0, 0, 2, 4, 10, 0, 0, 0, 0, 0, 0, 0, 0};
  static final String[] PG_TYPES = {
    "boolean",
    "smallint",
    "integer",
    "bigint",
    "real",
    "double precision",
    "numeric(9,2)",
    "numeric(18,4)",
    "numeric(38,10)",
    "text",
    "jsonb",
    "bytea",
    "date",
    "time without time zone",
    "timestamp without time zone",
    "timestamp with time zone",
    "uuid"
  };
  static final UUID UUID_A = UUID.fromString("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");

  static TestBatch batch() {
    TestBatch batch = new TestBatch(4, KINDS, 4096);
    // row 0: ordinary values
    batch.setBool(0, 0, true);
    batch.setShort(1, 0, (short) -32768);
    batch.setInt(2, 0, 2147483647);
    batch.setLong(3, 0, -9223372036854775808L);
    batch.setFloat(4, 0, 1.5f);
    batch.setDouble(5, 0, -2.25);
    batch.setLong(6, 0, -1230);
    batch.setLong(7, 0, 999999999999999999L);
    batch.setString(8, 0, "-1234567890123456789012345678.0123456789");
    batch.setString(9, 0, "héllo, wörld");
    batch.setString(10, 0, "{\"a\": [1, 2]}");
    batch.setBytes(11, 0, new byte[] {0, 1, (byte) 0xFF});
    batch.setInt(12, 0, 19_000);
    batch.setLong(13, 0, 86_399_999_999L);
    batch.setLong(14, 0, 1_700_000_000_123_456L);
    batch.setLong(15, 0, -1L);
    batch.setUuid(16, 0, UUID_A);
    // row 1: all NULL, over garbage value bytes
    for (int c = 0; c < KINDS.length; c++) {
      batch.setNull(c, 1);
    }
    // row 2: other edges
    batch.setBool(0, 2, false);
    batch.setShort(1, 2, (short) 7);
    batch.setInt(2, 2, 0);
    batch.setLong(3, 2, 42);
    batch.setFloat(4, 2, Float.NaN);
    batch.setDouble(5, 2, Double.NEGATIVE_INFINITY);
    batch.setLong(6, 2, 0);
    batch.setLong(7, 2, -50000);
    batch.setString(8, 2, "0.5");
    batch.setString(9, 2, "");
    batch.setString(10, 2, "null");
    batch.setBytes(11, 2, new byte[0]);
    batch.setInt(12, 2, -719_528);
    batch.setLong(13, 2, 0);
    batch.setLong(14, 2, 0);
    batch.setLong(15, 2, 1_000_000L);
    batch.setUuid(16, 2, new UUID(0, 0));
    return batch;
  }

  static BatchSink sink(TestBatch batch, String options) {
    return BatchSink.create(
        NAMES,
        KINDS,
        PRECISIONS,
        SCALES,
        PG_TYPES,
        batch.capacity,
        batch.nullOffsets,
        batch.valueOffsets,
        batch.buffer,
        options);
  }

  private AllKinds() {}
}
