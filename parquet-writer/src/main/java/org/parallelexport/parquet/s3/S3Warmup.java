/*
 * S3Warmup: the object-store half of the AppCDS training run (Warmup), with no network at all.
 *
 * A worker exporting to s3:// loads the SDK's client, its request marshallers and response
 * parsers, signing, retries and the HTTP transport; without the archive that costs a small export
 * most of a second. The training must run where `make install` runs, which may have no network
 * and certainly no object store, so the session here talks to Canned, an in-process HTTP client
 * that answers each request the way S3 does (XML bodies, ETag headers, one 404 error), and goes
 * through every call a worker makes: a part streamed through MultipartOutputFile, completed and
 * aborted, listings, a delete, the manifest's put and get. The real transport is built and a
 * request prepared on it, never sent, so its classes are archived too.
 */
package org.parallelexport.parquet.s3;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.parquet.io.PositionOutputStream;
import org.parallelexport.parquet.CreatedByStamp;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;

public final class S3Warmup {
  private static final String BUCKET = "warmup";

  private S3Warmup() {}

  /** Runs every object-store call a worker makes once, uploading the Parquet file {@code part}. */
  public static void train(Path part, CreatedByStamp stamp) throws IOException {
    DefaultCredentialsProvider.builder().build().close();
    prepareOnly();
    S3Settings settings =
        S3Settings.parse(
            "endpoint=http://127.0.0.1:9\nregion=us-east-1\naccess_key_id=warmup\n"
                + "secret_access_key=warmup\nmax_attempts=1\n");
    try (S3Session session = new S3Session(settings, new Canned())) {
      session.probe(BUCKET);
      MultipartOutputFile file =
          new MultipartOutputFile(session, BUCKET, "p/part-0.parquet", stamp);
      try (PositionOutputStream out = file.create(0)) {
        out.write(Files.readAllBytes(part));
      }
      file.pending().complete(session);
      file.abort();
      session.listKeys(BUCKET, "p/", 10);
      session.listUploads(BUCKET, "p/");
      session.delete(BUCKET, List.of("p/part-0.parquet"));
      session.put(BUCKET, "p/_SUCCESS", "{}".getBytes(StandardCharsets.UTF_8), "application/json");
      session.get(BUCKET, "p/_SUCCESS");
      session.get(BUCKET, "missing");
    }
  }

  /** Builds the real transport and prepares a request on it without connecting. */
  private static void prepareOnly() {
    try (SdkHttpClient http = S3Session.httpClient()) {
      SdkHttpFullRequest request =
          SdkHttpFullRequest.builder()
              .method(SdkHttpMethod.GET)
              .uri(URI.create("http://127.0.0.1:9/" + BUCKET))
              .build();
      http.prepareRequest(HttpExecuteRequest.builder().request(request).build()).abort();
    }
  }

  /** Answers S3 requests in memory, as S3 would for a bucket that accepts everything. */
  private static final class Canned implements SdkHttpClient {
    @Override
    public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
      return new ExecutableHttpRequest() {
        @Override
        public HttpExecuteResponse call() throws IOException {
          return answer(request);
        }

        @Override
        public void abort() {}
      };
    }

    @Override
    public void close() {}

    private static HttpExecuteResponse answer(HttpExecuteRequest request) throws IOException {
      if (request.contentStreamProvider().isPresent()) {
        try (InputStream in = request.contentStreamProvider().get().newStream()) {
          in.transferTo(OutputStream.nullOutputStream());
        }
      }
      SdkHttpRequest http = request.httpRequest();
      var query = http.rawQueryParameters();
      String method = http.method().name();
      String body = "";
      int status = 200;
      if (query.containsKey("uploads") && method.equals("POST")) {
        body =
            "<InitiateMultipartUploadResult><Bucket>warmup</Bucket><Key>k</Key>"
                + "<UploadId>u</UploadId></InitiateMultipartUploadResult>";
      } else if (query.containsKey("uploadId") && method.equals("POST")) {
        body =
            "<CompleteMultipartUploadResult><Bucket>warmup</Bucket><Key>k</Key>"
                + "<ETag>\"e\"</ETag></CompleteMultipartUploadResult>";
      } else if (query.containsKey("list-type")) {
        body =
            "<ListBucketResult><Name>warmup</Name><KeyCount>0</KeyCount><MaxKeys>10</MaxKeys>"
                + "<IsTruncated>false</IsTruncated></ListBucketResult>";
      } else if (query.containsKey("uploads")) {
        body =
            "<ListMultipartUploadsResult><Bucket>warmup</Bucket><IsTruncated>false</IsTruncated>"
                + "</ListMultipartUploadsResult>";
      } else if (method.equals("DELETE")) {
        status = 204;
      } else if (method.equals("GET") && http.encodedPath().endsWith("/missing")) {
        status = 404;
        body = "<Error><Code>NoSuchKey</Code><Message>none</Message></Error>";
      } else if (method.equals("GET")) {
        body = "{}";
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      return HttpExecuteResponse.builder()
          .response(
              SdkHttpResponse.builder()
                  .statusCode(status)
                  .putHeader("ETag", "\"e\"")
                  .putHeader("Content-Length", Integer.toString(bytes.length))
                  .build())
          .responseBody(AbortableInputStream.create(new ByteArrayInputStream(bytes)))
          .build();
    }
  }
}
