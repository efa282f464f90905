package org.parallelexport.parquet;

import java.lang.annotation.Native;

/**
 * ColumnKind: the integer kind codes and value widths shared with the C side.
 *
 * <p>The C side fills each column of the batch buffer in the binary form its kind names, and passes
 * the code in BatchSink.create's kinds array. This class is the one definition of both: every
 * constant is {@code @Native}, so javac -h writes them into the header
 * org_parallelexport_parquet_ColumnKind.h that the C build generates from this file and includes
 * (extension/include/pep_contract.h). A constant the C side uses cannot be renamed or removed here
 * without the C build failing, and a changed number reaches both sides at once. No file records the
 * codes, so these two sides are all that must agree.
 */
final class ColumnKind {
  @Native static final int BOOL = 0;
  @Native static final int INT16 = 1;
  @Native static final int INT32 = 2;
  @Native static final int INT64 = 3;
  @Native static final int FLOAT32 = 4;
  @Native static final int FLOAT64 = 5;
  @Native static final int DECIMAL = 6;
  @Native static final int STRING = 7;
  @Native static final int JSON = 8;
  @Native static final int BYTES = 9;
  @Native static final int DATE = 10;
  @Native static final int TIME = 11;
  @Native static final int TIMESTAMP = 12;
  @Native static final int TIMESTAMPTZ = 13;
  @Native static final int UUID = 14;
  // A list of one element node; its value is a nested payload (ListValueWriter).
  @Native static final int LIST = 15;
  // A group of field nodes; its value is a nested payload (StructValueWriter).
  @Native static final int STRUCT = 16;
  // 16 bytes: int32 months, int32 days, int64 microseconds.
  @Native static final int INTERVAL = 17;
  // The label as UTF-8, like STRING.
  @Native static final int ENUM = 18;
  // int64 microseconds of the day, normalized to UTC.
  @Native static final int TIMETZ = 19;
  // 4 bytes, an unsigned 32-bit integer (oid).
  @Native static final int UINT32 = 20;
  // 8 bytes, the unscaled int64 of a DECIMAL of at most 18 digits (value * 10^scale).
  @Native static final int DECIMAL64 = 21;

  // Bytes per row in a batch's value area: a fixed-width kind's value, or for every other kind
  // (DECIMAL, STRING, JSON, BYTES, ENUM, LIST, STRUCT) an (int32 offset, int32 length) pair into
  // the var area. A fixed-width value nested in a LIST or STRUCT payload takes the same bytes.
  @Native static final int BOOL_WIDTH = 1;
  @Native static final int INT16_WIDTH = 2;
  @Native static final int INT32_WIDTH = 4;
  @Native static final int INT64_WIDTH = 8;
  @Native static final int FLOAT32_WIDTH = 4;
  @Native static final int FLOAT64_WIDTH = 8;
  @Native static final int DATE_WIDTH = 4;
  @Native static final int TIME_WIDTH = 8;
  @Native static final int TIMESTAMP_WIDTH = 8;
  @Native static final int TIMESTAMPTZ_WIDTH = 8;
  @Native static final int UUID_WIDTH = 16;
  @Native static final int INTERVAL_WIDTH = 16;
  @Native static final int TIMETZ_WIDTH = 8;
  @Native static final int UINT32_WIDTH = 4;
  @Native static final int DECIMAL64_WIDTH = 8;
  @Native static final int VAR_SLOT_WIDTH = 8;

  private ColumnKind() {}

  /** Whether a kind's value lives in the var area, its value area holding (offset, length). */
  static boolean isVar(int kind) {
    switch (kind) {
      case DECIMAL:
      case STRING:
      case JSON:
      case BYTES:
      case ENUM:
      case LIST:
      case STRUCT:
        return true;
      default:
        return false;
    }
  }

  /** Bytes per row in the value area of a column of this kind. */
  static int width(int kind) {
    switch (kind) {
      case BOOL:
        return BOOL_WIDTH;
      case INT16:
        return INT16_WIDTH;
      case INT32:
        return INT32_WIDTH;
      case INT64:
        return INT64_WIDTH;
      case FLOAT32:
        return FLOAT32_WIDTH;
      case FLOAT64:
        return FLOAT64_WIDTH;
      case DATE:
        return DATE_WIDTH;
      case TIME:
        return TIME_WIDTH;
      case TIMESTAMP:
        return TIMESTAMP_WIDTH;
      case TIMESTAMPTZ:
        return TIMESTAMPTZ_WIDTH;
      case UUID:
        return UUID_WIDTH;
      case INTERVAL:
        return INTERVAL_WIDTH;
      case TIMETZ:
        return TIMETZ_WIDTH;
      case UINT32:
        return UINT32_WIDTH;
      case DECIMAL64:
        return DECIMAL64_WIDTH;
      default:
        if (isVar(kind)) {
          return VAR_SLOT_WIDTH;
        }
        throw new IllegalArgumentException(String.format("unsupported kind: %d", kind));
    }
  }
}
