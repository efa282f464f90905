package org.parallelexport.parquet.s3;

import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;

/**
 * S3Faults: the failure tests' deterministic faults of the object store, one SDK interceptor.
 *
 * <p>The superuser-only setting parallel_export_parquet.fault_injection
 * (extension/src/testhooks/pep_fault.c) names a fault point; the worker it applies to switches the
 * fault on here (S3Export.injectFault), and every client of that worker's session, the exit path's
 * too, sends its requests through this interceptor, so a fault reaches the requests a real failing
 * server would:
 *
 * <ul>
 *   <li>s3_error: every UploadPart is answered 503, which the retry strategy retries to exhaustion.
 *   <li>s3_success_lost: the server stores the _SUCCESS PUT, but its answer is lost (503), and from
 *       then on the endpoint is gone for this worker: every later request fails before it is sent.
 *   <li>s3_success_denied: every request for a _SUCCESS key (read, write, delete) fails before it
 *       is sent, as one a bucket policy denies does: the server's _SUCCESS stays as it is.
 *   <li>s3_conditions_501: a conditional PUT also carries a header the server does not implement,
 *       so a server that refuses such headers (S3Proxy does) answers 501 Not Implemented, as one
 *       without conditional writes does, and writes nothing.
 *   <li>s3_delete_denied: every DeleteObject of a key other than _SUCCESS fails before it is sent,
 *       as one a bucket policy denies does: the object stays.
 * </ul>
 *
 * <p>The names are S3FaultPoints', which C shares.
 */
final class S3Faults implements ExecutionInterceptor {
  /** The header s3_conditions_501 adds: no S3 server implements it. */
  static final String UNIMPLEMENTED_HEADER = "x-amz-pep-injected-fault";

  private volatile String point = "";
  private volatile boolean gone;

  /** Switches on the fault of {@code point}, one of the points in the header. */
  void inject(String point) {
    switch (point) {
      case S3FaultPoints.S3_ERROR:
      case S3FaultPoints.S3_SUCCESS_LOST:
      case S3FaultPoints.S3_SUCCESS_DENIED:
      case S3FaultPoints.S3_CONDITIONS_501:
      case S3FaultPoints.S3_DELETE_DENIED:
        this.point = point;
        break;
      default:
        throw new IllegalArgumentException("no object-store fault \"" + point + "\"");
    }
  }

  @Override
  public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
    if (gone) {
      throw SdkClientException.create("injected fault: the object store is unreachable");
    }
    if (point.equals(S3FaultPoints.S3_SUCCESS_DENIED)
        && context
            .request()
            .getValueForField("Key", String.class)
            .filter(key -> key.endsWith(S3Export.SUCCESS))
            .isPresent()) {
      throw SdkClientException.create("injected fault: access to " + S3Export.SUCCESS + " denied");
    }
    if (point.equals(S3FaultPoints.S3_DELETE_DENIED)
        && context.request() instanceof DeleteObjectRequest
        && !((DeleteObjectRequest) context.request()).key().endsWith(S3Export.SUCCESS)) {
      throw SdkClientException.create("injected fault: delete denied");
    }
  }

  @Override
  public SdkHttpRequest modifyHttpRequest(
      Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
    if (point.equals(S3FaultPoints.S3_CONDITIONS_501)
        && context.request() instanceof PutObjectRequest
        && (((PutObjectRequest) context.request()).ifNoneMatch() != null
            || ((PutObjectRequest) context.request()).ifMatch() != null)) {
      return context.httpRequest().toBuilder().putHeader(UNIMPLEMENTED_HEADER, "1").build();
    }
    return context.httpRequest();
  }

  @Override
  public SdkHttpResponse modifyHttpResponse(
      Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
    boolean lost =
        gone
            || point.equals(S3FaultPoints.S3_SUCCESS_LOST)
                && context.request() instanceof PutObjectRequest
                && ((PutObjectRequest) context.request()).key().endsWith(S3Export.SUCCESS);
    if (lost) {
      gone = true;
    }
    if (lost
        || point.equals(S3FaultPoints.S3_ERROR) && context.request() instanceof UploadPartRequest) {
      return context.httpResponse().toBuilder()
          .statusCode(503)
          .statusText("Service Unavailable (injected fault)")
          .build();
    }
    return context.httpResponse();
  }
}
