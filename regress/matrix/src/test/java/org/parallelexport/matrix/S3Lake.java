package org.parallelexport.matrix;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * The object store of the matrix: S3Proxy, started once per run by regress/lib/s3proxy.sh on a free
 * loopback port with authentication on and one bucket, and stopped (its folder removed) at the end;
 * the foreign server and user mapping an export names with s3_server; and the S3 API (the AWS SDK)
 * through which the matrix lists a prefix as a lake reader does, reads its _SUCCESS manifest, and
 * presigns the GET URLs hyparquet fetches. The filesystem backend keeps an object as a plain file
 * in the bucket's folder, which the readers that cannot reach S3 here read instead.
 */
// close() waits for S3Proxy's process to end, so it may throw InterruptedException, which javac's
// "try" lint warns of in a resource.
@SuppressWarnings("try")
final class S3Lake implements AutoCloseable {
  static final String BUCKET = "matrix";
  static final String SERVER = "pep_matrix_s3";
  static final String REGION = "us-east-1";

  /** An export's prefix in the bucket (ending in /). */
  record Prefix(S3Lake lake, String key) {
    String url() {
      return "s3://" + BUCKET + "/" + key;
    }

    Path folder() {
      return lake.data.resolve(BUCKET).resolve(key);
    }
  }

  /** An object as ListObjectsV2 lists it: its name under the prefix and its size. */
  record Listed(String name, long bytes) {}

  /** What _SUCCESS says: the export's rows, and per part name its rows and bytes. */
  record Manifest(long rows, Map<String, long[]> parts) {}

  private final Path script;
  private final Path dir;
  private final Map<String, String> env = new LinkedHashMap<>();
  private final Path data;
  private final S3Client s3;
  private final S3Presigner presigner;

  S3Lake(Path script) throws IOException, InterruptedException {
    this.script = script;
    dir = Files.createTempDirectory("pep-matrix-s3proxy");
    try {
      int port;
      try (ServerSocket probe = new ServerSocket(0)) {
        port = probe.getLocalPort();
      }
      run("start", dir.toString(), Integer.toString(port), BUCKET);
      for (String line : Files.readAllLines(dir.resolve("s3proxy.env"))) {
        int eq = line.indexOf('=');
        env.put(line.substring(0, eq), line.substring(eq + 1));
      }
    } catch (IOException | InterruptedException | RuntimeException e) {
      remove();
      throw e;
    }
    data = Path.of(env.get("PEP_S3_DATA"));
    StaticCredentialsProvider keys =
        StaticCredentialsProvider.create(AwsBasicCredentials.create(identity(), credential()));
    s3 =
        S3Client.builder()
            .httpClient(UrlConnectionHttpClient.create())
            .endpointOverride(URI.create(endpoint()))
            .region(Region.of(REGION))
            .forcePathStyle(true)
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .credentialsProvider(keys)
            .build();
    presigner =
        S3Presigner.builder()
            .endpointOverride(URI.create(endpoint()))
            .region(Region.of(REGION))
            .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build())
            .credentialsProvider(keys)
            .build();
  }

  String endpoint() {
    return env.get("PEP_S3_ENDPOINT");
  }

  String identity() {
    return env.get("PEP_S3_IDENTITY");
  }

  String credential() {
    return env.get("PEP_S3_CREDENTIAL");
  }

  /** Creates the foreign server and the session user's mapping an export names with s3_server. */
  void register(Connection pg) throws SQLException {
    try (Statement st = pg.createStatement()) {
      // the mapping's statement holds the key: keep it out of the server log
      st.execute("SET log_statement = 'none'");
      st.execute("DROP SERVER IF EXISTS " + SERVER + " CASCADE");
      st.execute(
          "CREATE SERVER "
              + SERVER
              + " FOREIGN DATA WRAPPER parallel_export_parquet_s3 OPTIONS (endpoint '"
              + endpoint()
              + "', region '"
              + REGION
              + "', path_style 'true', buckets '"
              + BUCKET
              + "')");
      st.execute(
          "CREATE USER MAPPING FOR CURRENT_USER SERVER "
              + SERVER
              + " OPTIONS (access_key_id '"
              + identity()
              + "', secret_access_key '"
              + credential()
              + "')");
      st.execute("RESET log_statement");
    }
  }

  void unregister(Connection pg) throws SQLException {
    try (Statement st = pg.createStatement()) {
      st.execute("DROP SERVER IF EXISTS " + SERVER + " CASCADE");
    }
  }

  Prefix prefix(String key) {
    return new Prefix(this, key.endsWith("/") ? key : key + "/");
  }

  /** The objects under p, in key order, as ListObjectsV2 lists them (folders left out). */
  List<Listed> list(Prefix p) {
    List<Listed> out = new ArrayList<>();
    for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket(BUCKET).prefix(p.key())).contents()) {
      // S3Proxy's filesystem backend lists the folders it made for a key's "/" as keys
      if (!o.key().endsWith("/")) {
        out.add(new Listed(o.key().substring(p.key().length()), o.size()));
      }
    }
    return out;
  }

  Manifest manifest(Prefix p) throws IOException {
    JsonNode m =
        new ObjectMapper()
            .readTree(
                s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(p.key() + "_SUCCESS")).asByteArray());
    Map<String, long[]> parts = new TreeMap<>();
    for (JsonNode part : m.path("parts")) {
      parts.put(
          part.path("name").asText(),
          new long[] {part.path("rows").asLong(), part.path("bytes").asLong()});
    }
    return new Manifest(m.path("rows").asLong(), parts);
  }

  /** A GET URL of an object that needs no keys for half an hour (what hyparquet fetches). */
  String presign(Prefix p, String name) {
    return presigner
        .presignGetObject(
            r ->
                r.signatureDuration(Duration.ofMinutes(30))
                    .getObjectRequest(b -> b.bucket(BUCKET).key(p.key() + name)))
        .url()
        .toString();
  }

  /** Arrow C++'s URI of p: the keys as user info, the endpoint and region as query. */
  String arrowUri(Prefix p) {
    URI e = URI.create(endpoint());
    return "s3://"
        + identity()
        + ":"
        + credential()
        + "@"
        + BUCKET
        + "/"
        + p.key().substring(0, p.key().length() - 1)
        + "?scheme="
        + e.getScheme()
        + "&endpoint_override="
        + e.getAuthority()
        + "&region="
        + REGION;
  }

  /** Polars' cloudOptions for this server (object_store's AmazonS3ConfigKey names). */
  Map<String, String> polarsOptions() {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("aws_endpoint_url", endpoint());
    o.put("aws_region", REGION);
    o.put("aws_access_key_id", identity());
    o.put("aws_secret_access_key", credential());
    o.put("aws_allow_http", "true");
    o.put("aws_virtual_hosted_style_request", "false");
    return o;
  }

  @Override
  public void close() throws IOException, InterruptedException {
    presigner.close();
    s3.close();
    remove();
  }

  /** Stops the server, then removes its folder, which this object created. */
  private void remove() throws IOException, InterruptedException {
    run("stop", dir.toString());
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private void run(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(script.toString());
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).inheritIO().start();
    if (p.waitFor() != 0) {
      throw new IOException(String.join(" ", command) + " exited with " + p.exitValue());
    }
  }
}
