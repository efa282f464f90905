package org.parallelexport.parquet.s3;

/**
 * S3SettingNames: the keys of the "key=value" lines in which the C side passes an object store's
 * settings (S3Settings), defined once.
 *
 * <p>S3Settings parses these keys. The C side writes the ones a foreign server or user mapping
 * gives (extension/src/output/s3/pep_s3server.c) from the header the C build makes of this file's
 * constants (extension/include/pep_contract.h, as for OptionNames), so a key renamed or dropped
 * here fails the C build. The option names of the foreign-data wrapper are these keys.
 */
final class S3SettingNames {
  static final String ENDPOINT = "endpoint";
  static final String REGION = "region";
  static final String PROFILE = "profile";
  static final String ACCESS_KEY_ID = "access_key_id";
  static final String SECRET_ACCESS_KEY = "secret_access_key";
  static final String SESSION_TOKEN = "session_token";
  // true, false or auto (decided by the endpoint).
  static final String PATH_STYLE = "path_style";
  static final String CHECKSUM = "checksum";
  static final String CHECKSUM_WHEN_REQUIRED = "when_required";
  static final String CHECKSUM_WHEN_SUPPORTED = "when_supported";
  static final String PART_SIZE = "part_size";
  // Most parts of one upload: S3's 10,000 unless a test asks for fewer.
  static final String MAX_PARTS = "max_parts";
  static final String UPLOADS_IN_FLIGHT = "uploads_in_flight";
  static final String MAX_ATTEMPTS = "max_attempts";
  static final String CALL_TIMEOUT_MS = "call_timeout_ms";

  private S3SettingNames() {}
}
