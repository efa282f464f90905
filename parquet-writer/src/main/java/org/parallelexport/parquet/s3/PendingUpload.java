package org.parallelexport.parquet.s3;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.util.List;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * PendingUpload: a finished part whose multipart upload is still pending, waiting for publication.
 *
 * <p>MultipartOutputFile never completes its upload: closing the Parquet file leaves every byte
 * uploaded but nothing visible under the key. Publication is a separate, explicit step taken only
 * once the whole export is written (complete), and a failed export aborts instead (abort); both are
 * safe to repeat, so a cleanup that runs after a partial publication can finish the job.
 */
public final class PendingUpload {
  private final String bucket;
  private final String key;
  private final String uploadId;
  private final List<CompletedPart> parts;
  private final long size;

  PendingUpload(String bucket, String key, String uploadId, List<CompletedPart> parts, long size) {
    this.bucket = requireNonNull(bucket, "bucket is null");
    this.key = requireNonNull(key, "key is null");
    this.uploadId = requireNonNull(uploadId, "uploadId is null");
    this.parts = List.copyOf(parts);
    this.size = size;
  }

  public String key() {
    return key;
  }

  public String uploadId() {
    return uploadId;
  }

  /** The object's size in bytes once completed. */
  public long size() {
    return size;
  }

  /** Upload parts (S3's, not Parquet's) the object is made of. */
  public int partCount() {
    return parts.size();
  }

  /** Makes the object visible under its key. */
  public void complete(S3Session session) throws IOException {
    session.complete(bucket, key, uploadId, parts);
  }

  /** Throws the uploaded bytes away; nothing becomes visible. */
  public void abort(S3Session session) throws IOException {
    session.abort(bucket, key, uploadId);
  }
}
