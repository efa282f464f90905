/*
 * ColumnKind: the integer kind codes shared with the C side.
 *
 * The C side fills each column of the batch buffer in the binary form its kind names, and passes
 * the code in BatchSink.create's kinds array. The numbers are part of the JNI contract: the C
 * header defines the same values, and neither side may renumber them.
 */
package org.parallelexport.parquet;

final class ColumnKind {
  static final int BOOL = 0;
  static final int INT16 = 1;
  static final int INT32 = 2;
  static final int INT64 = 3;
  static final int FLOAT32 = 4;
  static final int FLOAT64 = 5;
  static final int DECIMAL = 6;
  static final int STRING = 7;
  static final int JSON = 8;
  static final int BYTES = 9;
  static final int DATE = 10;
  static final int TIME = 11;
  static final int TIMESTAMP = 12;
  static final int TIMESTAMPTZ = 13;
  static final int UUID = 14;
  // A list of one element node; its value is a nested payload (ListValueWriter).
  static final int LIST = 15;
  // A group of field nodes; its value is a nested payload (StructValueWriter).
  static final int STRUCT = 16;
  // 16 bytes: int32 months, int32 days, int64 microseconds.
  static final int INTERVAL = 17;
  // The label as UTF-8, like STRING.
  static final int ENUM = 18;
  // int64 microseconds of the day, normalized to UTC.
  static final int TIMETZ = 19;
  // 4 bytes, an unsigned 32-bit integer (oid).
  static final int UINT32 = 20;
  // 8 bytes, the unscaled int64 of a DECIMAL of at most 18 digits (value * 10^scale).
  static final int DECIMAL64 = 21;

  private ColumnKind() {}
}
