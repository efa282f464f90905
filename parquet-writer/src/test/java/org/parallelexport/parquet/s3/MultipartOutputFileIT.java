package org.parallelexport.parquet.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.parquet.Version;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.SchemaElement;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.parallelexport.parquet.CreatedByStamp;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpResponse;

/**
 * MultipartOutputFileIT: MultipartOutputFile against a real S3 implementation, S3Proxy, started on
 * 127.0.0.1 by regress/lib/s3proxy.sh with authentication on.
 *
 * <p>Parquet files are written by parquet-java's example writer through the OutputFile, so the
 * stream sees parquet-java's real write pattern. What was uploaded is checked where a reader would
 * see it: ListObjectsV2 and ListMultipartUploads through the S3 API, and the object's file in
 * S3Proxy's folder, read by DuckDB. Each case asserts its premise (the upload really had several
 * parts; the upload really was pending before the abort; failures really were injected). Transient
 * failures come from a wrapper around the real transport, persistent ones from the server itself (a
 * missing bucket, a wrong secret).
 */
class MultipartOutputFileIT {
  private static final String BUCKET = "lake";
  private static final MessageType SCHEMA =
      MessageTypeParser.parseMessageType(
          "message m { required int64 id; required binary label (UTF8); }");
  private static final CreatedByStamp STAMP = new CreatedByStamp("parallel_export_parquet 9.9");
  // What STAMP writes into a footer's created_by.
  private static final String CREATED_BY =
      "parallel_export_parquet version 9.9 (build parquet-java " + Version.VERSION_NUMBER + ")";

  private static S3ProxyServer server;
  private static Path data;
  private static S3Session session;

  @BeforeAll
  static void startServer() throws Exception {
    server = new S3ProxyServer(BUCKET);
    data = server.data();
    session = new S3Session(settings(""));
  }

  /** Settings for the test server; {@code extra} lines replace the defaults they name. */
  private static S3Settings settings(String extra) {
    return server.settings(extra);
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (session != null) {
      session.close();
    }
    server.close();
  }

  @Test
  void multiPartFileCompletesAndReadsBack() throws Exception {
    String key = "big/part-0.parquet";
    MultipartOutputFile file = new MultipartOutputFile(session, BUCKET, key, STAMP);
    long rows = 1_500_000;
    write(file, rows);
    PendingUpload pending = file.pending();
    assertTrue(
        pending.partCount() >= 3, "premise: several upload parts, got " + pending.partCount());

    assertEquals(List.of(), session.listKeys(BUCKET, "big/", 10), "pending upload is listed");
    assertEquals(1, session.listUploads(BUCKET, "big/").size());
    assertFalse(Files.exists(data.resolve(BUCKET).resolve(key)));

    pending.complete(session);
    assertEquals(List.of(key), session.listKeys(BUCKET, "big/", 10));
    assertEquals(List.of(), uploadKeys("big/"));
    Path object = data.resolve(BUCKET).resolve(key);
    assertEquals(pending.size(), Files.size(object));
    assertReadsBack(object, rows);
  }

  /**
   * A part the worker ends once it has passed partSizeLimit, as it does after each batch, fits in
   * its upload; the control goes on writing and runs out of upload parts. Three parts of 5 MiB
   * stand for S3's 10,000 of 8 MiB.
   */
  @Test
  void aPartEndedAtItsSizeLimitFitsItsUpload() throws Exception {
    try (S3Session three = new S3Session(settings("max_parts=3\n"))) {
      long limit = three.settings().partSizeLimit();
      long room = 3L * S3Settings.MIN_PART_BYTES;
      assertEquals(room / 10 * 9, limit, "premise: max_parts and part_size were taken");

      MultipartOutputFile ended =
          new MultipartOutputFile(three, BUCKET, "limit/part-0.parquet", STAMP);
      long rows = writeUntil(ended, limit);
      PendingUpload pending = ended.pending();
      assertEquals(3, pending.partCount(), "premise: the part used every upload part");
      assertTrue(pending.size() > limit && pending.size() <= room, "size " + pending.size());
      pending.complete(three);
      assertReadsBack(data.resolve(BUCKET).resolve("limit/part-0.parquet"), rows);

      MultipartOutputFile control =
          new MultipartOutputFile(three, BUCKET, "limit/part-1.parquet", STAMP);
      IOException e = assertThrows(IOException.class, () -> writeUntil(control, room + 1));
      assertTrue(e.getMessage().contains("larger than 3 upload parts"), e.getMessage());
      control.abort();
      assertEquals(List.of(), uploadKeys("limit/"));
    }
  }

  @Test
  void smallFileIsOnePartUpload() throws Exception {
    String key = "small/part-0.parquet";
    MultipartOutputFile file = new MultipartOutputFile(session, BUCKET, key, STAMP);
    write(file, 3);
    PendingUpload pending = file.pending();
    assertEquals(1, pending.partCount());
    assertTrue(pending.size() < S3Settings.MIN_PART_BYTES);
    pending.complete(session);
    assertReadsBack(data.resolve(BUCKET).resolve(key), 3);
  }

  @Test
  void manifestPutGetAndDelete() throws Exception {
    byte[] manifest = "{\"rows\": 3}".getBytes(StandardCharsets.UTF_8);
    session.put(BUCKET, "manifest/_SUCCESS", manifest, "application/json");
    assertArrayEquals(manifest, session.get(BUCKET, "manifest/_SUCCESS").orElseThrow());
    assertEquals(Optional.empty(), session.get(BUCKET, "manifest/missing"));
    session.delete(BUCKET, List.of("manifest/_SUCCESS", "manifest/missing"));
    assertEquals(List.of(), session.listKeys(BUCKET, "manifest/", 10));
  }

  /**
   * The manifest is written only where it may be (DESIGN.md, "The ledger file"): where nothing is,
   * or over the object of the ETag read before. A refused condition is HTTP 412, named as such, and
   * leaves the object as it was; the controls go through.
   */
  @Test
  void conditionalManifestWritesAreHonoured() throws Exception {
    String key = "conditional/_SUCCESS";
    byte[] first = "{\"rows\": 1}".getBytes(StandardCharsets.UTF_8);
    byte[] second = "{\"rows\": 2}".getBytes(StandardCharsets.UTF_8);
    String tag = session.putConditionally(BUCKET, key, first, "application/json", null);
    assertEquals(tag, session.fetch(BUCKET, key).orElseThrow().eTag());
    for (String ifMatch : Arrays.asList(null, "\"00000000000000000000000000000000\"")) {
      S3Failure refused =
          assertThrows(
              S3Failure.class,
              () -> session.putConditionally(BUCKET, key, second, "application/json", ifMatch));
      assertEquals(412, refused.status(), refused.getMessage());
      assertTrue(
          refused.getMessage().contains("conditional write was refused"), refused.getMessage());
      assertArrayEquals(first, session.get(BUCKET, key).orElseThrow(), "if-match " + ifMatch);
    }
    session.putConditionally(BUCKET, key, second, "application/json", tag);
    assertArrayEquals(second, session.get(BUCKET, key).orElseThrow());
    session.delete(BUCKET, List.of(key));
  }

  @Test
  void abortAfterCloseLeavesNothing() throws Exception {
    MultipartOutputFile file =
        new MultipartOutputFile(session, BUCKET, "aborted/part-0.parquet", STAMP);
    write(file, 700_000);
    assertTrue(file.pending().partCount() >= 2, "premise: parts were uploaded");
    assertEquals(1, uploadKeys("aborted/").size(), "premise: the upload is pending");
    file.abort();
    file.abort();
    assertEquals(List.of(), session.listKeys(BUCKET, "aborted/", 10));
    assertEquals(List.of(), uploadKeys("aborted/"));
  }

  @Test
  void abortMidWriteLeavesNothing() throws Exception {
    MultipartOutputFile file =
        new MultipartOutputFile(session, BUCKET, "midway/part-0.parquet", STAMP);
    PositionOutputStream out = file.create(0);
    byte[] chunk = new byte[1 << 20];
    new Random(1).nextBytes(chunk);
    for (int i = 0; i < 12; i++) {
      out.write(chunk);
    }
    assertEquals(1, uploadKeys("midway/").size(), "premise: the upload is pending");
    file.abort();
    assertEquals(List.of(), session.listKeys(BUCKET, "midway/", 10));
    assertEquals(List.of(), uploadKeys("midway/"));
    assertThrows(IOException.class, () -> out.write(1));
  }

  /**
   * The footer begins a few bytes before a part boundary, so it starts in a part already sent: that
   * part is sent again with the new footer and becomes the last one.
   */
  @Test
  void footerStartingInSentPartIsRewritten() throws Exception {
    String key = "straddle/part-0.parquet";
    FileMetaData metadata = new FileMetaData(1, List.of(new SchemaElement("m")), 0, List.of());
    metadata.setCreated_by("parquet-mr version 0 (build x)");
    ByteArrayOutputStream footer = new ByteArrayOutputStream();
    Util.writeFileMetaData(metadata, footer);
    byte[] body = new byte[S3Settings.MIN_PART_BYTES - 5];
    new Random(2).nextBytes(body);
    System.arraycopy("PAR1".getBytes(), 0, body, 0, 4);

    MultipartOutputFile file = new MultipartOutputFile(session, BUCKET, key, STAMP);
    try (PositionOutputStream out = file.create(0)) {
      out.write(body);
      out.write(footer.toByteArray());
      out.write(
          ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(footer.size()).array());
      out.write("PAR1".getBytes());
      assertTrue(out.getPos() > S3Settings.MIN_PART_BYTES, "premise: a part boundary was crossed");
    }
    PendingUpload pending = file.pending();
    assertEquals(1, pending.partCount(), "the footer's part became the last");
    pending.complete(session);

    byte[] object = Files.readAllBytes(data.resolve(BUCKET).resolve(key));
    assertEquals(pending.size(), object.length);
    assertArrayEquals(body, Arrays.copyOf(object, body.length));
    FileMetaData written =
        Util.readFileMetaData(
            new ByteArrayInputStream(object, body.length, object.length - body.length - 8));
    assertEquals(CREATED_BY, written.getCreated_by());
  }

  /**
   * Every other request fails as a reset connection would and every third part upload gets a 503:
   * the standard retry strategy absorbs both, and the file still completes and reads back.
   */
  @Test
  void transientFailuresAreRetried() throws Exception {
    Flaky flaky = new Flaky(S3Session.httpClient());
    String key = "flaky/part-0.parquet";
    try (S3Session retrying = new S3Session(settings(""), flaky)) {
      MultipartOutputFile file = new MultipartOutputFile(retrying, BUCKET, key, STAMP);
      write(file, 700_000);
      file.pending().complete(retrying);
    }
    assertTrue(flaky.failed.get() >= 3, "premise: failures were injected: " + flaky.failed);
    assertReadsBack(data.resolve(BUCKET).resolve(key), 700_000);
  }

  @Test
  void persistentFailuresNameBucketAndCause() throws Exception {
    S3Failure missing = assertThrows(S3Failure.class, () -> session.probe("no-such-bucket"));
    assertTrue(missing.getMessage().contains("bucket \"no-such-bucket\""), missing.getMessage());
    assertTrue(missing.getMessage().contains("does not exist"), missing.getMessage());

    try (S3Session wrong = new S3Session(settings("secret_access_key=wrong-secret\n"))) {
      S3Failure denied =
          assertThrows(S3Failure.class, () -> wrong.createUpload(BUCKET, "denied/part-0.parquet"));
      assertEquals(403, denied.status());
      assertTrue(denied.getMessage().contains("access denied"), denied.getMessage());
      assertFalse(denied.getMessage().contains("wrong-secret"), denied.getMessage());
      assertFalse(denied.getMessage().contains(server.credential()), denied.getMessage());
    }
  }

  private static void write(MultipartOutputFile file, long rows) throws IOException {
    SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
    Random random = new Random(rows);
    try (ParquetWriter<org.apache.parquet.example.data.Group> writer =
        ExampleParquetWriter.builder(file)
            .withType(SCHEMA)
            .withCompressionCodec(CompressionCodecName.UNCOMPRESSED)
            .withDictionaryEncoding(false)
            .build()) {
      for (long i = 0; i < rows; i++) {
        writer.write(groups.newGroup().append("id", i).append("label", "r" + random.nextInt()));
      }
    }
  }

  /**
   * Writes rows in row groups of 256 KiB, checking the file's position after each thousand as a
   * worker checks its part after each batch, and closes the file once it has reached {@code
   * stopAt}; returns the rows written.
   */
  private static long writeUntil(MultipartOutputFile file, long stopAt) throws IOException {
    SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
    Random random = new Random(stopAt);
    long rows = 0;
    try (ParquetWriter<org.apache.parquet.example.data.Group> writer =
        ExampleParquetWriter.builder(file)
            .withType(SCHEMA)
            .withCompressionCodec(CompressionCodecName.UNCOMPRESSED)
            .withDictionaryEncoding(false)
            .withRowGroupSize(256L * 1024)
            .build()) {
      while (file.position() < stopAt) {
        for (int i = 0; i < 1000; i++, rows++) {
          writer.write(
              groups.newGroup().append("id", rows).append("label", "r" + random.nextInt()));
        }
      }
    }
    return rows;
  }

  private static List<String> uploadKeys(String prefix) throws IOException {
    return session.listUploads(BUCKET, prefix).stream().map(u -> u[0]).toList();
  }

  private static void assertReadsBack(Path object, long rows) throws Exception {
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:");
        Statement st = db.createStatement()) {
      String path = object.toString().replace("'", "''");
      try (ResultSet rs =
          st.executeQuery(
              "SELECT count(*), sum(id), count(DISTINCT id) FROM read_parquet('" + path + "')")) {
        assertTrue(rs.next());
        assertEquals(rows, rs.getLong(1));
        assertEquals(rows * (rows - 1) / 2, rs.getLong(2));
        assertEquals(rows, rs.getLong(3));
      }
      try (ResultSet rs =
          st.executeQuery("SELECT created_by FROM parquet_file_metadata('" + path + "')")) {
        assertTrue(rs.next());
        assertEquals(CREATED_BY, rs.getString(1));
      }
    }
  }

  /** Wraps the real transport: every other request fails, alternately reset and 503. */
  private static final class Flaky implements SdkHttpClient {
    private final SdkHttpClient real;
    private final AtomicInteger requests = new AtomicInteger();
    final AtomicInteger failed = new AtomicInteger();

    Flaky(SdkHttpClient real) {
      this.real = real;
    }

    @Override
    public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
      int n = requests.incrementAndGet();
      if (n % 2 == 1) {
        return real.prepareRequest(request);
      }
      failed.incrementAndGet();
      return new ExecutableHttpRequest() {
        @Override
        public HttpExecuteResponse call() throws IOException {
          if (n % 4 == 0) {
            throw new SocketException("Connection reset");
          }
          return HttpExecuteResponse.builder()
              .response(SdkHttpResponse.builder().statusCode(503).build())
              .responseBody(
                  AbortableInputStream.create(
                      new ByteArrayInputStream(
                          "<Error><Code>SlowDown</Code><Message>busy</Message></Error>"
                              .getBytes())))
              .build();
        }

        @Override
        public void abort() {}
      };
    }

    @Override
    public void close() {
      real.close();
    }
  }
}
