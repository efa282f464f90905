package org.parallelexport.parquet.s3;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.parallelexport.parquet.BatchSink;

/**
 * S3Warmup: the object-store half of the AppCDS training run (Warmup), on loopback only.
 *
 * <p>A worker exporting to s3:// loads the SDK's client, its request marshallers and response
 * parsers, signing, retries, the credential and region chains, the JDK's HTTP transport and this
 * package; without the archive that costs a small export most of a second. The training must run
 * where {@code make install} runs, which may have no network and certainly no object store, so it
 * answers S3's requests itself: Loopback, a minimal HTTP/1.1 server on 127.0.0.1 that answers each
 * the way S3 does (XML bodies, ETag headers, 100 Continue). Through the real transport, the
 * training goes the way a worker goes, twice: with the endpoint, region and keys given (a foreign
 * server's settings) and with the SDK's standard chain finding them (system properties and a
 * credentials file here, the environment in a worker; either way the chain's first provider fails
 * first). Each time an S3Export checks the target, writes a part of the training's sink into an
 * upload, publishes it with its manifest, reads the manifest back as an overwrite does, and undoes
 * everything through its exit path.
 */
public final class S3Warmup {
  private static final String BUCKET = "warmup";
  private static final String PREFIX = "p/";
  private static final String EXPORT_ID = "000000000000";
  private static final String PART = "part-00000-" + EXPORT_ID + ".parquet";
  private static final String[] CHAIN_PROPERTIES = {
    "aws.endpointUrl", "aws.region", "aws.configFile", "aws.sharedCredentialsFile"
  };

  private S3Warmup() {}

  /**
   * Exports {@code rows} rows of {@code sink}'s buffer into a stand-in for S3 on loopback, once
   * with given settings and once through the standard chain; the sink writes into uploads after.
   * Without a loopback interface it trains nothing and says so.
   */
  // The loopback server is a resource only for its lifetime: it answers while the exports run.
  @SuppressWarnings("try")
  public static void train(BatchSink sink, int rows) throws IOException {
    ServerSocket socket;
    try {
      socket = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      System.err.println(
          "S3Warmup: no loopback interface (" + e + "); the archive leaves out the S3 client");
      return;
    }
    // An https endpoint's transport sets up TLS as it is built.
    S3Session.httpClient().close();
    String endpoint = "http://127.0.0.1:" + socket.getLocalPort();
    Path ledger = Files.createTempFile("pep-warmup", ".ledger");
    Path config = Files.createTempFile("pep-warmup", ".config");
    Path credentials = Files.createTempFile("pep-warmup", ".credentials");
    try (Loopback server = new Loopback(socket)) {
      export(
          sink,
          rows,
          ledger,
          "endpoint="
              + endpoint
              + "\nregion=us-east-1\naccess_key_id=warmup\nsecret_access_key=warmup\n"
              + "max_attempts=1\n");
      Files.writeString(
          credentials, "[default]\naws_access_key_id = warmup\naws_secret_access_key = warmup\n");
      String[] values = {endpoint, "us-east-1", config.toString(), credentials.toString()};
      for (int i = 0; i < CHAIN_PROPERTIES.length; i++) {
        System.setProperty(CHAIN_PROPERTIES[i], values[i]);
      }
      export(sink, rows, ledger, "path_style=true\nmax_attempts=1\n");
    } finally {
      for (String property : CHAIN_PROPERTIES) {
        System.clearProperty(property);
      }
      Files.delete(ledger);
      Files.delete(config);
      Files.delete(credentials);
    }
  }

  /** One worker's way through an export with these settings, ending in its exit path. */
  private static void export(BatchSink sink, int rows, Path ledger, String settings)
      throws IOException {
    S3Export export =
        S3Export.open(settings, BUCKET, PREFIX, EXPORT_ID, ledger.toString(), "UTF-8");
    // A fixed key: only the seal's classes are trained, no manifest outlives the warm-up.
    export.sealWith("00".repeat(S3ManifestSeal.KEY_BYTES));
    export.startChecks();
    export.probe();
    export.firstKey();
    export.attach(sink);
    sink.openPart(PART);
    sink.writeBatch(rows);
    long bytes = sink.closePart();
    export.partClosed();
    export.completeAll();
    export.writeSuccess(
        sink, new String[] {PART}, new long[] {rows}, new long[] {bytes}, "warmup", "warmup");
    export.previousExportProblem();
    String left = export.undo(false);
    if (left != null) {
      throw new IOException("S3Warmup: the exit path left something: " + left);
    }
  }

  /** Answers S3 requests on loopback, as S3 would for a bucket that accepts everything. */
  private static final class Loopback implements Closeable {
    private final ServerSocket socket;

    Loopback(ServerSocket socket) {
      this.socket = socket;
      Thread accept = new Thread(this::accept, "pep-s3-warmup");
      accept.setDaemon(true);
      accept.start();
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }

    private void accept() {
      try {
        while (true) {
          Socket connection = socket.accept();
          Thread serve = new Thread(() -> serve(connection), "pep-s3-warmup-connection");
          serve.setDaemon(true);
          serve.start();
        }
      } catch (IOException e) {
        // Closed: the training is over.
      }
    }

    /** Serves one kept-alive connection until the client closes it. */
    private static void serve(Socket connection) {
      try (connection;
          InputStream in = new BufferedInputStream(connection.getInputStream());
          OutputStream out = connection.getOutputStream()) {
        String requestLine;
        while ((requestLine = line(in)) != null && !requestLine.isEmpty()) {
          long length = 0;
          boolean expectContinue = false;
          String header;
          while ((header = line(in)) != null && !header.isEmpty()) {
            String lower = header.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
              length = Long.parseLong(lower.substring("content-length:".length()).trim());
            } else if (lower.startsWith("expect:") && lower.contains("100-continue")) {
              expectContinue = true;
            }
          }
          if (expectContinue) {
            out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
          }
          in.skipNBytes(length);
          answer(requestLine, out);
        }
      } catch (IOException e) {
        // The client went away; the training notices through its own request.
      }
    }

    /** One line without its CRLF; null at the end of the stream. */
    private static String line(InputStream in) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      int b;
      while ((b = in.read()) != '\n') {
        if (b < 0) {
          return bytes.size() == 0 ? null : bytes.toString(StandardCharsets.US_ASCII);
        }
        if (b != '\r') {
          bytes.write(b);
        }
      }
      return bytes.toString(StandardCharsets.US_ASCII);
    }

    private static void answer(String requestLine, OutputStream out) throws IOException {
      String[] words = requestLine.split(" ");
      String method = words[0];
      String target = words.length > 1 ? words[1] : "/";
      int question = target.indexOf('?');
      String query = question < 0 ? "" : "&" + target.substring(question + 1);
      String body = "";
      int status = 200;
      if (method.equals("POST") && query.contains("&uploads")) {
        body =
            "<InitiateMultipartUploadResult><Bucket>warmup</Bucket><Key>k</Key>"
                + "<UploadId>u</UploadId></InitiateMultipartUploadResult>";
      } else if (method.equals("POST") && query.contains("&uploadId=")) {
        body =
            "<CompleteMultipartUploadResult><Bucket>warmup</Bucket><Key>k</Key>"
                + "<ETag>\"e\"</ETag></CompleteMultipartUploadResult>";
      } else if (method.equals("GET") && query.contains("&list-type=")) {
        body =
            "<ListBucketResult><Name>warmup</Name><KeyCount>0</KeyCount><MaxKeys>1</MaxKeys>"
                + "<IsTruncated>false</IsTruncated></ListBucketResult>";
      } else if (method.equals("GET") && query.contains("&uploads")) {
        body =
            "<ListMultipartUploadsResult><Bucket>warmup</Bucket><IsTruncated>false</IsTruncated>"
                + "</ListMultipartUploadsResult>";
      } else if (method.equals("DELETE")) {
        status = 204;
      } else if (method.equals("GET")) {
        body = "{}";
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      String head =
          "HTTP/1.1 "
              + (status == 204 ? "204 No Content" : "200 OK")
              + "\r\nETag: \"e\"\r\nContent-Type: application/xml\r\nContent-Length: "
              + bytes.length
              + "\r\n\r\n";
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      if (!method.equals("HEAD")) {
        out.write(bytes);
      }
      out.flush();
    }
  }
}
