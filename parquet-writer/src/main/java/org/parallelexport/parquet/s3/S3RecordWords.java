package org.parallelexport.parquet.s3;

/**
 * S3RecordWords: the first word of each line of an export's crash record (DESIGN.md, "Object
 * storage"), defined once.
 *
 * <p>C writes the first lines and the last (extension/src/output/s3/pep_s3ledger.c: export, owner,
 * committed), the workers' S3Ledger writes the others, and S3Record reads them all. C takes these
 * words from the header the C build makes of this file's constants
 * (extension/include/pep_contract.h, as for OptionNames), so a word renamed or dropped here fails
 * the C build instead of making records unreadable.
 */
final class S3RecordWords {
  static final String EXPORT = "export";

  /**
   * The last field of the first line: the whole record is UTF-8 (extension/include/pep_s3ledger.h).
   */
  static final String UTF8 = "utf8";

  static final String OWNER = "owner";
  static final String KEY = "key";
  static final String UPLOAD = "upload";
  static final String COMPLETE = "complete";
  static final String PREVIOUS = "previous";
  static final String SUCCESS = "success";
  static final String SUPERSEDED = "superseded";
  static final String COMMITTED = "committed";

  private S3RecordWords() {}
}
