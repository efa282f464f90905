package org.parallelexport.parquet.s3;

import java.io.IOException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * S3Failure: an object-store request that failed for good, with a message a user can act on.
 *
 * <p>By the time one is made the SDK's retry strategy has given up, so the cause is persistent:
 * wrong credentials, a missing bucket, a wrong region, a refused connection. The message names the
 * bucket (and the key, when there is one) and says what the server answered; it never holds a
 * credential, because the SDK's messages carry none and nothing else goes into it. status() and
 * code() let the C side choose the SQLSTATE.
 */
public final class S3Failure extends IOException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String code;

  private S3Failure(String message, int status, String code, Throwable cause) {
    super(message, cause);
    this.status = status;
    this.code = code;
  }

  /** HTTP status of the last answer, or 0 when no answer came. */
  public int status() {
    return status;
  }

  /** The S3 error code (AccessDenied, NoSuchBucket, ...), or "" when there is none. */
  public String code() {
    return code;
  }

  static S3Failure of(String bucket, String key, SdkException e) {
    String where = "bucket \"" + bucket + "\"" + (key == null ? "" : ", key \"" + key + "\"");
    if (e instanceof AwsServiceException) {
      AwsServiceException service = (AwsServiceException) e;
      int status = service.statusCode();
      String code =
          service.awsErrorDetails() == null || service.awsErrorDetails().errorCode() == null
              ? ""
              : service.awsErrorDetails().errorCode();
      String said =
          service.awsErrorDetails() == null || service.awsErrorDetails().errorMessage() == null
              ? ""
              : ": " + service.awsErrorDetails().errorMessage();
      return new S3Failure(
          where + ": " + meaning(status, code) + " (HTTP " + status + " " + code + said + ")",
          status,
          code,
          e);
    }
    String reason = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    if (e instanceof SdkClientException && e.getCause() != null) {
      reason = reason + " (" + e.getCause().getClass().getSimpleName() + ")";
    }
    return new S3Failure(where + ": could not reach the object store: " + reason, 0, "", e);
  }

  private static String meaning(int status, String code) {
    switch (code) {
      case "NoSuchBucket":
        return "the bucket does not exist";
      case "AccessDenied":
      case "InvalidAccessKeyId":
      case "SignatureDoesNotMatch":
        return "access denied: check the credentials and the bucket's policy";
      case "AuthorizationHeaderMalformed":
      case "PermanentRedirect":
      case "IllegalLocationConstraintException":
        return "the bucket is in another region than the one configured";
      default:
        break;
    }
    if (status == 301 || status == 307) {
      return "the bucket is in another region than the one configured";
    }
    if (status == 403) {
      return "access denied: check the credentials and the bucket's policy";
    }
    if (status == 404) {
      return "not found";
    }
    if (status == 412) {
      return "another writer created or changed the object first, so the conditional write was"
          + " refused";
    }
    if (status == 501) {
      return "the object store does not implement this request";
    }
    if (status >= 500 || "SlowDown".equals(code)) {
      return "the object store kept failing or throttling after every retry";
    }
    return "the object store refused the request";
  }
}
