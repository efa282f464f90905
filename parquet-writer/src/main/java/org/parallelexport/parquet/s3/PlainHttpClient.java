/*
 * PlainHttpClient: the SDK's transport for a plain-http endpoint reached without a proxy (S3Session
 * picks it), the JDK's HttpURLConnection as the SDK's UrlConnectionHttpClient uses it, except for
 * how a request body reaches the socket.
 *
 * UrlConnectionHttpClient copies a body 4 KiB at a time into HttpURLConnection's 8 KiB buffer, so
 * an 8 MiB upload part leaves in about a thousand socket writes, each through several stream
 * layers, which a few dozen parts per export never get compiled. Here a body goes in reads and
 * writes of BODY_CHUNK_BYTES, which pass the connection's buffer and reach the socket whole (the
 * JDK then writes at most 128 KiB per system call): the same bytes, the same headers, a
 * thirtieth of the calls.
 *
 * Requests carry no "Expect: 100-continue" (S3Session turns it off for this transport): without it
 * an early refusal by the server arrives as the response after the body, as for any other request.
 */
package org.parallelexport.parquet.s3;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;

final class PlainHttpClient implements SdkHttpClient {
  // Bytes of a request body read and written at once.
  static final int BODY_CHUNK_BYTES = 256 * 1024;

  private final Duration connectTimeout;
  private final Duration socketTimeout;

  PlainHttpClient(Duration connectTimeout, Duration socketTimeout) {
    this.connectTimeout = connectTimeout;
    this.socketTimeout = socketTimeout;
  }

  @Override
  public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
    HttpURLConnection connection = open(request.httpRequest());
    Optional<ContentStreamProvider> body = request.contentStreamProvider();
    body.ifPresent(b -> sizeBody(connection, request.httpRequest()));
    return new ExecutableHttpRequest() {
      @Override
      public HttpExecuteResponse call() throws IOException {
        connection.connect();
        if (body.isPresent()) {
          send(body.get(), connection);
        }
        return response(connection);
      }

      @Override
      public void abort() {
        connection.disconnect();
      }
    };
  }

  @Override
  public String clientName() {
    return "PlainHttp";
  }

  @Override
  public void close() {
    // Connections belong to the JDK's keep-alive cache, which closes idle ones itself.
  }

  private HttpURLConnection open(SdkHttpRequest request) {
    try {
      URI uri = request.getUri();
      HttpURLConnection connection = (HttpURLConnection) uri.toURL().openConnection();
      connection.setConnectTimeout((int) connectTimeout.toMillis());
      connection.setReadTimeout((int) socketTimeout.toMillis());
      connection.setRequestMethod(request.method().name());
      connection.setInstanceFollowRedirects(false);
      request.forEachHeader(
          (name, values) -> values.forEach(v -> connection.addRequestProperty(name, v)));
      // Otherwise HttpURLConnection sends an Accept of its own, meant for browsers.
      if (request.firstMatchingHeader("Accept").isEmpty()) {
        connection.setRequestProperty("Accept", "*/*");
      }
      return connection;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Content-Length is the JDK's to send: fixed-length streaming when known, else chunked. */
  private static void sizeBody(HttpURLConnection connection, SdkHttpRequest request) {
    connection.setDoOutput(true);
    Optional<String> length = request.firstMatchingHeader("Content-Length");
    if (length.isPresent()) {
      connection.setFixedLengthStreamingMode(Long.parseLong(length.get()));
    } else {
      connection.setChunkedStreamingMode(0);
    }
  }

  private static void send(ContentStreamProvider body, HttpURLConnection connection)
      throws IOException {
    byte[] chunk = new byte[BODY_CHUNK_BYTES];
    try (InputStream in = body.newStream();
        OutputStream out = connection.getOutputStream()) {
      int n;
      while ((n = in.readNBytes(chunk, 0, chunk.length)) > 0) {
        out.write(chunk, 0, n);
      }
    }
  }

  private static HttpExecuteResponse response(HttpURLConnection connection) throws IOException {
    int status = connection.getResponseCode();
    InputStream content = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
    Map<String, List<String>> headers = new LinkedHashMap<>();
    connection
        .getHeaderFields()
        .forEach(
            (name, values) -> {
              // The status line comes as the value of a null name.
              if (name != null) {
                headers.put(name, values);
              }
            });
    HttpExecuteResponse.Builder response =
        HttpExecuteResponse.builder()
            .response(
                SdkHttpResponse.builder()
                    .statusCode(status)
                    .statusText(connection.getResponseMessage())
                    .headers(headers)
                    .build());
    if (content != null) {
      response.responseBody(AbortableInputStream.create(content));
    }
    return response.build();
  }
}
