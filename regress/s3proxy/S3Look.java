import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * S3Look: what the object-store harnesses (regress/t_s3_*.sh, t_encoding.sh) see of a bucket,
 * through the S3 API.
 *
 * <p>The harnesses ask the server itself, with the AWS SDK for Java (taken from the extension's
 * jar, which shades it unrelocated), rather than looking at S3Proxy's folder: a pending multipart
 * upload is only visible to ListMultipartUploads, and an object only counts once ListObjectsV2
 * lists it. Endpoint and keys come from PEP_S3_ENDPOINT, PEP_S3_IDENTITY and PEP_S3_CREDENTIAL
 * (regress/lib/s3proxy.sh writes them).
 *
 * <p>One S3Look serves a whole harness run (regress/lib/s3look.sh): a JVM with the SDK takes about
 * a second to start, and a run asks about a hundred questions. "java S3Look PORTFILE" listens on a
 * free loopback port, writes its number to PORTFILE once it accepts, and serves one command per
 * connection until it is killed: a line of fields separated by tabs, answered by the command's
 * lines and then a line holding only ".". A command that fails answers "error MESSAGE" instead.
 *
 * <pre>
 * list BUCKET PREFIX       one line per object ("object KEY SIZE") and per pending upload
 *                          ("upload KEY ID") under PREFIX
 * put BUCKET KEY [TEXT]    writes an object
 * delete BUCKET KEY        deletes an object
 * manifest BUCKET KEY      reads the _SUCCESS manifest at KEY (Jackson, from the same jar):
 *                          "export_id ID", "rows N", then "part NAME ROWS BYTES" per part, after
 *                          it "partition FOLDERS" for a partitioned one
 * </pre>
 */
public final class S3Look {
  public static void main(String[] args) throws IOException {
    try (S3Client s3 =
            S3Client.builder()
                .httpClient(UrlConnectionHttpClient.create())
                .endpointOverride(URI.create(System.getenv("PEP_S3_ENDPOINT")))
                .region(Region.US_EAST_1)
                .forcePathStyle(true)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .credentialsProvider(
                    StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(
                            System.getenv("PEP_S3_IDENTITY"), System.getenv("PEP_S3_CREDENTIAL"))))
                .build();
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      // Written whole, then renamed: the harness waits for the file and never reads half a number.
      Path portFile = Path.of(args[0]);
      Path partial = Path.of(args[0] + ".partial");
      Files.writeString(partial, Integer.toString(server.getLocalPort()));
      Files.move(partial, portFile, StandardCopyOption.ATOMIC_MOVE);
      while (true) {
        try (Socket client = server.accept();
            BufferedReader in =
                new BufferedReader(
                    new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
            PrintStream out = new PrintStream(client.getOutputStream(), false, "UTF-8")) {
          String line = in.readLine();
          if (line == null) {
            continue;
          }
          // Collected first, so a command that fails half-way answers only its error.
          List<String> answer = new ArrayList<>();
          try {
            run(s3, line.split("\t", -1), answer);
          } catch (RuntimeException | IOException e) {
            answer.clear();
            answer.add(("error " + e).replace('\n', ' '));
          }
          answer.forEach(out::println);
          out.println(".");
        }
      }
    }
  }

  private static void run(S3Client s3, String[] args, List<String> answer) throws IOException {
    if (args.length < 3) {
      throw new IllegalArgumentException("usage: list|put|delete|manifest BUCKET KEY [TEXT]");
    }
    String bucket = args[1];
    switch (args[0]) {
      case "list":
        for (S3Object o :
            s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(args[2])).contents()) {
          answer.add("object " + o.key() + " " + o.size());
        }
        for (MultipartUpload u :
            s3.listMultipartUploadsPaginator(b -> b.bucket(bucket).prefix(args[2])).uploads()) {
          answer.add("upload " + u.key() + " " + u.uploadId());
        }
        break;
      case "put":
        s3.putObject(
            b -> b.bucket(bucket).key(args[2]),
            RequestBody.fromString(args.length > 3 ? args[3] : "", StandardCharsets.UTF_8));
        break;
      case "delete":
        s3.deleteObject(b -> b.bucket(bucket).key(args[2]));
        break;
      case "manifest":
        JsonNode m =
            new ObjectMapper()
                .readTree(s3.getObjectAsBytes(b -> b.bucket(bucket).key(args[2])).asByteArray());
        answer.add("export_id " + m.path("export_id").asText());
        answer.add("rows " + m.path("rows").asLong());
        for (JsonNode p : m.path("parts")) {
          answer.add(
              "part "
                  + p.path("name").asText()
                  + " "
                  + p.path("rows").asLong()
                  + " "
                  + p.path("bytes").asLong());
          if (p.has("partition")) {
            answer.add("partition " + p.path("partition").asText());
          }
        }
        break;
      default:
        throw new IllegalArgumentException("unknown command " + args[0]);
    }
  }
}
