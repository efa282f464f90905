package org.parallelexport.parquet;

import java.lang.annotation.Native;

/**
 * OptionDefaults: the defaults of the writer options that the SQL function exposes, defined once.
 *
 * <p>SinkOptions starts from these. The C side reads the numeric ones from the header that javac -h
 * generates from this file (org_parallelexport_parquet_OptionDefaults.h, every constant here being
 * {@code @Native}) and applies them to arguments passed as NULL; the Strings, which cannot be
 * {@code @Native}, it reads from the header the build makes with javap -constants
 * (extension/include/pep_contract.h). The SQL function's DEFAULT clauses and the option table of
 * docs/usage.md restate them for users, and OptionDefaultsTest fails when either disagrees with
 * this file.
 */
final class OptionDefaults {
  static final String COMPRESSION = "snappy";
  // The codec's own default level.
  @Native static final int COMPRESSION_LEVEL = -1;
  // DuckDB's row group size: it bounds a worker's heap for narrow tables as ROW_GROUP_BYTES does
  // for wide ones (parquet-java's default is unlimited).
  @Native static final int ROW_GROUP_ROWS = 122_880;
  @Native static final long ROW_GROUP_BYTES = 64L * 1024 * 1024;
  // A worker's part ends once it holds this much (0: never). An unbounded part made a worker's heap
  // grow with the table: parquet-java keeps every row group's footer metadata and page indexes
  // until the part ends, 14 to 18 KB a row group of the benchmark table, so a part of a few hundred
  // GB would not fit the default -Xmx. 1 GiB is Trino's and Delta Lake's target file size.
  @Native static final long FILE_SIZE_BYTES = 1024L * 1024 * 1024;
  @Native static final int PAGE_SIZE = 1024 * 1024;
  @Native static final boolean STATISTICS = true;
  static final String WRITER_VERSION = "v1";
  static final String COMPATIBILITY = "none";

  private OptionDefaults() {}
}
