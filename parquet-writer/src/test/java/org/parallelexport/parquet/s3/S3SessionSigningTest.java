package org.parallelexport.parquet.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;

/**
 * S3SessionSigningTest: how an upload part's body goes on the wire, by endpoint scheme.
 *
 * <p>Over plain http the SDK signs every payload; a part is sent as one body whose SHA-256 is the
 * signed x-amz-content-sha256, with a plain Content-Length, not as aws-chunked (a signature per 128
 * KiB chunk, which S3Proxy decodes a byte at a time). Over https the SDK's own choice stays: with
 * checksum=when_supported that is a streaming checksum trailer. A recording transport stands in for
 * the server, so the test sees exactly the request the SDK would send; MultipartOutputFileIT shows
 * that S3Proxy accepts it.
 */
class S3SessionSigningTest {
  private static final String KEYS =
      "access_key_id=AKIDEXAMPLE\nsecret_access_key=example-secret\n";

  @Test
  void httpPartIsOneSignedBody() throws Exception {
    byte[] data = new byte[S3Settings.MIN_PART_BYTES + 12345];
    new Random(3).nextBytes(data);
    Sent part = uploadOnePart("endpoint=http://127.0.0.1:9\n", data);

    String sha256 = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    assertEquals(sha256, part.header("x-amz-content-sha256"));
    assertEquals(Integer.toString(data.length), part.header("Content-Length"));
    assertFalse(part.header("Content-Encoding").contains("aws-chunked"), part.toString());
    assertEquals("", part.header("x-amz-decoded-content-length"));
    assertArrayEquals(data, part.body);
  }

  /** The control: https keeps the SDK's defaults, here its streaming checksum trailer. */
  @Test
  void httpsPartKeepsTheSdkDefaults() throws Exception {
    byte[] data = new byte[64 * 1024];
    new Random(4).nextBytes(data);
    Sent part = uploadOnePart("endpoint=https://s3.example.test\nchecksum=when_supported\n", data);

    assertEquals("STREAMING-UNSIGNED-PAYLOAD-TRAILER", part.header("x-amz-content-sha256"));
    assertEquals("aws-chunked", part.header("Content-Encoding"));
    assertEquals(Integer.toString(data.length), part.header("x-amz-decoded-content-length"));
  }

  /** Sends {@code data} as part 1 of an upload through a recording transport; what was sent. */
  private static Sent uploadOnePart(String settings, byte[] data) throws IOException {
    Recorder recorder = new Recorder();
    try (S3Session session =
        new S3Session(S3Settings.parse(settings + KEYS + "region=us-east-1\n"), recorder)) {
      S3Session.await(session.uploadPart("lake", "p/part-0.parquet", "up-1", 1, data, data.length));
    }
    assertEquals(1, recorder.sent.size(), "premise: one request, the part: " + recorder.sent);
    Sent part = recorder.sent.get(0);
    assertEquals("1", part.request.firstMatchingRawQueryParameter("partNumber").orElse(""));
    return part;
  }

  private record Sent(SdkHttpRequest request, byte[] body) {
    String header(String name) {
      return request.firstMatchingHeader(name).orElse("");
    }
  }

  /** Keeps each request with the bytes the SDK would send, and answers 200 with an ETag. */
  private static final class Recorder implements SdkHttpClient {
    final List<Sent> sent = new CopyOnWriteArrayList<>();

    @Override
    public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
      return new ExecutableHttpRequest() {
        @Override
        public HttpExecuteResponse call() throws IOException {
          byte[] body = new byte[0];
          if (request.contentStreamProvider().isPresent()) {
            try (InputStream in = request.contentStreamProvider().get().newStream()) {
              body = in.readAllBytes();
            }
          }
          sent.add(new Sent(request.httpRequest(), body));
          return HttpExecuteResponse.builder()
              .response(
                  SdkHttpResponse.builder()
                      .statusCode(200)
                      .putHeader("ETag", "\"0123456789abcdef0123456789abcdef\"")
                      .build())
              .responseBody(AbortableInputStream.create(new ByteArrayInputStream(new byte[0])))
              .build();
        }

        @Override
        public void abort() {}
      };
    }

    @Override
    public void close() {}
  }
}
