/*
 * PlainHttpClientTest: the transport S3Session picks for a plain-http endpoint, against an HTTP
 * server on loopback that records what arrives and answers as each test says.
 *
 * What the SDK's UrlConnectionHttpClient did for us must still hold: a body arrives byte for byte,
 * with a Content-Length when the SDK gives one and chunked when it does not; an error's status,
 * headers and body (read from the error stream) reach the SDK; a redirect is handed back, not
 * followed; a silent server ends the call with a timeout; abort() ends a call in flight; a reset
 * connection surfaces as an IOException, which the SDK's retry strategy retries. And what this
 * transport is for: the body is read in chunks of BODY_CHUNK_BYTES (UrlConnectionHttpClient reads
 * 4 KiB at a time).
 */
package org.parallelexport.parquet.s3;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
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
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.services.s3.model.CompletedPart;

class PlainHttpClientTest {
  private static final Duration GUARD = Duration.ofSeconds(30);

  @Test
  void bodyArrivesWholeInLargeReads() throws Exception {
    byte[] data = new byte[3 * PlainHttpClient.BODY_CHUNK_BYTES + 12345];
    new Random(7).nextBytes(data);
    List<Integer> reads = new ArrayList<>();
    try (Server server = new Server()) {
      server.answer(reply("200 OK", "ETag: \"abc\"\r\n", ""));
      HttpExecuteResponse response =
          call(server, put(server, data.length), () -> new CountingStream(data, reads));
      Received got = server.received();

      assertEquals(200, response.httpResponse().statusCode());
      assertEquals("\"abc\"", response.httpResponse().firstMatchingHeader("ETag").orElse(""));
      assertTrue(got.head.startsWith("PUT /lake/key?partNumber=1 HTTP/1.1\r\n"), got.head);
      assertEquals("0123", got.header("x-amz-content-sha256"), got.head);
      assertEquals(Integer.toString(data.length), got.header("content-length"));
      assertEquals("", got.header("transfer-encoding"));
      assertArrayEquals(data, got.body);
    }
    assertFalse(reads.isEmpty(), "premise: the body was read");
    assertEquals(PlainHttpClient.BODY_CHUNK_BYTES, reads.get(0), "first read: " + reads);
    assertTrue(reads.size() <= 5, "reads of the body: " + reads);
  }

  /** A body of unknown length goes chunked. */
  @Test
  void bodyWithoutLengthGoesChunked() throws Exception {
    byte[] data = new byte[PlainHttpClient.BODY_CHUNK_BYTES + 777];
    new Random(8).nextBytes(data);
    try (Server server = new Server()) {
      server.answer(reply("200 OK", "", ""));
      HttpExecuteResponse response =
          call(server, put(server, -1), () -> new ByteArrayInputStream(data));
      Received got = server.received();

      assertEquals(200, response.httpResponse().statusCode());
      assertEquals("chunked", got.header("transfer-encoding"), got.head);
      assertEquals("", got.header("content-length"));
      assertArrayEquals(data, got.body);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"403 Forbidden", "503 Service Unavailable"})
  void errorResponseReachesTheSdk(String status) throws Exception {
    String error = "<Error><Code>Nope</Code></Error>";
    try (Server server = new Server()) {
      server.answer(reply(status, "x-amz-request-id: r1\r\n", error));
      HttpExecuteResponse response = call(server, get(server), null);
      server.received();

      assertEquals(Integer.parseInt(status.substring(0, 3)), response.httpResponse().statusCode());
      assertEquals("r1", response.httpResponse().firstMatchingHeader("x-amz-request-id").get());
      assertTrue(response.responseBody().isPresent(), "an error's body");
      try (InputStream body = response.responseBody().get()) {
        assertEquals(error, new String(body.readAllBytes(), ISO_8859_1));
      }
    }
  }

  @Test
  void redirectIsHandedBackNotFollowed() throws Exception {
    try (Server server = new Server()) {
      String elsewhere = "http://127.0.0.1:" + server.port() + "/other/key";
      server.answer(reply("307 Temporary Redirect", "Location: " + elsewhere + "\r\n", ""));
      HttpExecuteResponse response = call(server, get(server), null);
      server.received();

      assertEquals(307, response.httpResponse().statusCode());
      assertEquals(elsewhere, response.httpResponse().firstMatchingHeader("Location").get());
      assertEquals(1, server.connections(), "no second request");
    }
  }

  /**
   * A server that takes the request and never answers: the read timeout ends the call. (A PUT whose
   * body is streamed, as a part's is: HttpURLConnection never sends one again by itself.)
   */
  @Test
  void silentServerTimesOut() throws Exception {
    try (Server server = new Server()) {
      server.answer(silent());
      SdkHttpClient client = new PlainHttpClient(Duration.ofSeconds(10), Duration.ofSeconds(1));
      ExecutableHttpRequest request = client.prepareRequest(smallPut(server));
      assertTimeoutPreemptively(
          GUARD, () -> assertThrows(SocketTimeoutException.class, request::call));
      assertTrue(server.received().head.startsWith("PUT "), "premise: the request arrived");
      assertEquals(1, server.connections());
    }
  }

  /** abort() from another thread ends a call that waits for a silent server. */
  @Test
  void abortEndsACallInFlight() throws Exception {
    try (Server server = new Server()) {
      server.answer(silent());
      SdkHttpClient client = S3Session.httpClient(server.endpoint());
      ExecutableHttpRequest request = client.prepareRequest(smallPut(server));
      CompletableFuture<HttpExecuteResponse> call =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return request.call();
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
      assertTrue(server.received().head.startsWith("PUT "), "premise: the call is in flight");
      assertFalse(call.isDone(), "premise: no answer yet");
      request.abort();
      assertTimeoutPreemptively(
          GUARD, () -> assertThrows(Exception.class, () -> call.get(), "the aborted call"));
      assertEquals(1, server.connections());
    }
  }

  private static HttpExecuteRequest smallPut(Server server) {
    byte[] data = "ten bytes!".getBytes(ISO_8859_1);
    return HttpExecuteRequest.builder()
        .request(put(server, data.length))
        .contentStreamProvider(() -> new ByteArrayInputStream(data))
        .build();
  }

  /** A connection reset mid-request fails the attempt; the SDK's retry sends the part again. */
  @Test
  void resetConnectionIsRetried() throws Exception {
    byte[] data = new byte[S3Settings.MIN_PART_BYTES];
    new Random(9).nextBytes(data);
    try (Server server = new Server()) {
      server.answer(reset());
      server.answer(reply("200 OK", "ETag: \"e2\"\r\n", ""));
      String settings =
          "endpoint="
              + server.endpoint()
              + "\nregion=us-east-1\naccess_key_id=AKIDEXAMPLE\nsecret_access_key=s\n"
              + "max_attempts=3\n";
      CompletedPart part;
      try (S3Session session = new S3Session(S3Settings.parse(settings))) {
        part = S3Session.await(session.uploadPart("lake", "k", "up-1", 1, data, data.length));
      }
      server.received();
      Received second = server.received();

      assertEquals(2, server.connections(), "premise: the first connection was reset");
      assertEquals("\"e2\"", part.eTag());
      assertArrayEquals(data, second.body);
    }
  }

  private static HttpExecuteResponse call(
      Server server, SdkHttpRequest request, ContentStreamProvider body) throws IOException {
    HttpExecuteRequest.Builder execute = HttpExecuteRequest.builder().request(request);
    if (body != null) {
      execute.contentStreamProvider(body);
    }
    SdkHttpClient client = S3Session.httpClient(server.endpoint());
    assertEquals("PlainHttp", client.clientName(), "premise: the plain-http transport");
    try (client) {
      return client.prepareRequest(execute.build()).call();
    }
  }

  /** A PUT of an upload part; a Content-Length header unless {@code length} is negative. */
  private static SdkHttpRequest put(Server server, int length) {
    SdkHttpRequest.Builder request =
        SdkHttpRequest.builder()
            .uri(server.endpoint().resolve("/lake/key"))
            .method(SdkHttpMethod.PUT)
            .putRawQueryParameter("partNumber", "1")
            .putHeader("x-amz-content-sha256", "0123");
    if (length >= 0) {
      request.putHeader("Content-Length", Integer.toString(length));
    }
    return request.build();
  }

  private static SdkHttpRequest get(Server server) {
    return SdkHttpRequest.builder()
        .uri(server.endpoint().resolve("/lake/key"))
        .method(SdkHttpMethod.GET)
        .build();
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

  /** What the server does with a connection once it has read its first request. */
  private interface Answer {
    void on(Socket socket) throws IOException;
  }

  private static Answer reply(String status, String headers, String body) {
    return s -> {
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
    };
  }

  /** Holds the connection open without a word until the test ends. */
  private static Answer silent() {
    return s -> {
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    };
  }

  /** Closes the connection with a TCP reset. */
  private static Answer reset() {
    return s -> s.setSoLinger(true, 0);
  }

  /** Answers connections one after another, each with the next Answer, on its own thread. */
  private static final class Server implements AutoCloseable {
    private final ServerSocket socket;
    private final BlockingQueue<Answer> answers = new LinkedBlockingQueue<>();
    private final BlockingQueue<Received> received = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile int connections;

    Server() throws IOException {
      socket = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
      thread = new Thread(this::serve, "test-http-server");
      thread.setDaemon(true);
      thread.start();
    }

    void answer(Answer answer) {
      answers.add(answer);
    }

    URI endpoint() {
      return URI.create("http://127.0.0.1:" + socket.getLocalPort());
    }

    int port() {
      return socket.getLocalPort();
    }

    int connections() {
      return connections;
    }

    /** The next request that arrived, waiting for it. */
    Received received() throws InterruptedException {
      Received got = received.poll(GUARD.toSeconds(), TimeUnit.SECONDS);
      if (got == null) {
        throw new AssertionError("no request arrived");
      }
      return got;
    }

    private void serve() {
      while (!socket.isClosed()) {
        try (Socket s = socket.accept()) {
          connections++;
          Received got = read(s.getInputStream());
          received.add(got);
          answers.take().on(s);
        } catch (IOException e) {
          // Closed by the test, or a client that went away: nothing to answer.
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    private static Received read(InputStream in) throws IOException {
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
        return new Received(got.head, in.readNBytes(Integer.parseInt(length)));
      }
      if (got.header("transfer-encoding").equals("chunked")) {
        return new Received(got.head, dechunk(in));
      }
      return got;
    }

    private static byte[] dechunk(InputStream in) throws IOException {
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      while (true) {
        int size = Integer.parseInt(line(in).split(";")[0].trim(), 16);
        if (size == 0) {
          line(in);
          return body.toByteArray();
        }
        body.write(in.readNBytes(size));
        line(in);
      }
    }

    private static String line(InputStream in) throws IOException {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      int b;
      while ((b = in.read()) >= 0 && b != '\n') {
        if (b != '\r') {
          line.write(b);
        }
      }
      return line.toString(ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
      socket.close();
      thread.interrupt();
    }
  }
}
