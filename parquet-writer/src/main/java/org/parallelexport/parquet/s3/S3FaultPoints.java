package org.parallelexport.parquet.s3;

/**
 * S3FaultPoints: the names of the object-store fault points of the failure tests, defined once.
 *
 * <p>The superuser-only setting parallel_export_parquet.fault_injection names a fault point, which
 * C parses (extension/src/testhooks/pep_fault.c); a worker hands an object-store point's name to
 * its session (S3Export.injectFault, S3Sweep.injectFault), and S3Faults switches on these names. C
 * takes them from the header the C build makes of this file's constants
 * (extension/include/pep_contract.h, as for OptionNames), so a point renamed or dropped here fails
 * the C build, and one C spells otherwise fails it too, instead of a test's fault silently never
 * firing.
 */
final class S3FaultPoints {
  static final String S3_ERROR = "s3_error";
  static final String S3_SUCCESS_LOST = "s3_success_lost";
  static final String S3_SUCCESS_DENIED = "s3_success_denied";
  static final String S3_CONDITIONS_501 = "s3_conditions_501";
  static final String S3_DELETE_DENIED = "s3_delete_denied";
  // Not a failure: this worker's uploads hold 3 parts of 5 MiB (S3Settings.partSizeLimit 13.5 MiB),
  // so that a test sees a part end at the limit without writing 70 GiB.
  static final String S3_SMALL_UPLOADS = "s3_small_uploads";

  private S3FaultPoints() {}
}
