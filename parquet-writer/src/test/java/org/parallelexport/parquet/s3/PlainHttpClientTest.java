/*
 * PlainHttpClientTest: the transport S3Session picks for a plain-http endpoint, against a one-shot
 * HTTP server on loopback that records what arrives.
 *
 * A request body must arrive byte for byte with its length and the SDK's headers, and be read in
 * chunks of BODY_CHUNK_BYTES (the SDK's UrlConnectionHttpClient reads 4 KiB at a time); a
 * response's status, headers and body, an error's included, must reach the SDK.
 */
package org.parallelexport.parquet.s3;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;

class PlainHttpClientTest {
  @Test
  void bodyArrivesWholeInLargeReads() throws Exception {
    byte[] data = new byte[3 * PlainHttpClient.BODY_CHUNK_BYTES + 12345];
    new Random(7).nextBytes(data);
    List<Integer> reads = new ArrayList<>();
    try (OneShotServer server = new OneShotServer("200 OK", "ETag: \"abc\"\r\n", "")) {
      HttpExecuteResponse response =
          send(server, SdkHttpMethod.PUT, data, () -> new CountingStream(data, reads));
      Received got = server.received();

      assertEquals(200, response.httpResponse().statusCode());
      assertEquals("\"abc\"", response.httpResponse().firstMatchingHeader("ETag").orElse(""));
      assertTrue(got.head.startsWith("PUT /lake/key?partNumber=1 HTTP/1.1\r\n"), got.head);
      assertEquals("0123", got.header("x-amz-content-sha256"), got.head);
      assertEquals(Integer.toString(data.length), got.header("content-length"));
      assertArrayEquals(data, got.body);
    }
    assertFalse(reads.isEmpty(), "premise: the body was read");
    assertEquals(PlainHttpClient.BODY_CHUNK_BYTES, reads.get(0), "first read: " + reads);
    assertTrue(reads.size() <= 5, "reads of the body: " + reads);
  }

  @Test
  void errorResponseBodyReachesTheSdk() throws Exception {
    String error = "<Error><Code>AccessDenied</Code></Error>";
    try (OneShotServer server = new OneShotServer("403 Forbidden", "", error)) {
      HttpExecuteResponse response = send(server, SdkHttpMethod.GET, null, null);
      server.received();

      assertEquals(403, response.httpResponse().statusCode());
      assertTrue(response.responseBody().isPresent(), "an error's body");
      try (InputStream body = response.responseBody().get()) {
        assertEquals(error, new String(body.readAllBytes(), ISO_8859_1));
      }
    }
  }

  private static HttpExecuteResponse send(
      OneShotServer server, SdkHttpMethod method, byte[] data, ContentStreamProvider body)
      throws IOException {
    SdkHttpRequest.Builder request =
        SdkHttpRequest.builder()
            .uri(URI.create("http://127.0.0.1:" + server.port() + "/lake/key"))
            .method(method)
            .putRawQueryParameter("partNumber", "1")
            .putHeader("x-amz-content-sha256", "0123");
    HttpExecuteRequest.Builder execute = HttpExecuteRequest.builder();
    if (data != null) {
      request.putHeader("Content-Length", Integer.toString(data.length));
      execute.contentStreamProvider(body);
    }
    SdkHttpClient client = S3Session.httpClient(URI.create("http://127.0.0.1:" + server.port()));
    try (client) {
      return client.prepareRequest(execute.request(request.build()).build()).call();
    }
  }

  /** The body, counting the length of each read the transport asks for. */
  private static final class CountingStream extends ByteArrayInputStream {
    private final List<Integer> reads;

    CountingStream(byte[] data, List<Integer> reads) {
      super(data);
      this.reads = reads;
    }

    @Override
    public synchronized int read(byte[] b, int off, int len) {
      reads.add(len);
      return super.read(b, off, len);
    }
  }

  private record Received(String head, byte[] body) {
    String header(String name) {
      for (String line : head.split("\r\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).toLowerCase(Locale.ROOT).equals(name)) {
          return line.substring(colon + 1).trim();
        }
      }
      return "";
    }
  }

  /** Accepts one connection, reads one request and answers it with the given status and body. */
  private static final class OneShotServer implements AutoCloseable {
    private final ServerSocket socket;
    private final CompletableFuture<Received> received;

    OneShotServer(String status, String headers, String body) throws IOException {
      socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
      received = CompletableFuture.supplyAsync(() -> serve(status, headers, body));
    }

    int port() {
      return socket.getLocalPort();
    }

    Received received() throws Exception {
      return received.get(30, TimeUnit.SECONDS);
    }

    private Received serve(String status, String headers, String body) {
      try (Socket s = socket.accept()) {
        InputStream in = s.getInputStream();
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(ISO_8859_1).endsWith("\r\n\r\n")) {
          int b = in.read();
          if (b < 0) {
            throw new IOException("connection closed in the request head");
          }
          head.write(b);
        }
        Received got = new Received(head.toString(ISO_8859_1), new byte[0]);
        String length = got.header("content-length");
        if (!length.isEmpty()) {
          got = new Received(got.head, in.readNBytes(Integer.parseInt(length)));
        }
        byte[] content = body.getBytes(ISO_8859_1);
        OutputStream out = s.getOutputStream();
        out.write(
            ("HTTP/1.1 "
                    + status
                    + "\r\n"
                    + headers
                    + "Content-Length: "
                    + content.length
                    + "\r\nConnection: close\r\n\r\n")
                .getBytes(ISO_8859_1));
        out.write(content);
        out.flush();
        return got;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
