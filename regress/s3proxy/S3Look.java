/*
 * S3Look: what the object-store harness (regress/t_s3.sh) sees of a bucket, through the S3 API.
 *
 * The harness asks the server itself, with the AWS SDK for Java (taken from the extension's jar,
 * which shades it unrelocated), rather than looking at S3Proxy's folder: a pending multipart
 * upload is only visible to ListMultipartUploads, and an object only counts once ListObjectsV2
 * lists it. Endpoint and keys come from PEP_S3_ENDPOINT, PEP_S3_IDENTITY and PEP_S3_CREDENTIAL
 * (regress/lib/s3proxy.sh writes them).
 *
 *   java -cp JAR:DIR S3Look list BUCKET PREFIX   one line per object ("object KEY SIZE") and per
 *                                                pending upload ("upload KEY ID") under PREFIX
 *   java -cp JAR:DIR S3Look put BUCKET KEY TEXT  writes an object
 *   java -cp JAR:DIR S3Look delete BUCKET KEY    deletes an object
 *   java -cp JAR:DIR S3Look manifest BUCKET KEY  reads the _SUCCESS manifest at KEY (Jackson, from
 *                                                the same jar): "export_id ID", "rows N", then
 *                                                "part NAME ROWS BYTES" per part, after it
 *                                                "partition FOLDERS" for a partitioned one
 */
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.nio.charset.StandardCharsets;
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

public final class S3Look {
  public static void main(String[] args) throws java.io.IOException {
    if (args.length < 3) {
      System.err.println("usage: S3Look list|put|manifest BUCKET ...");
      System.exit(2);
    }
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
            .build()) {
      String bucket = args[1];
      switch (args[0]) {
        case "list":
          for (S3Object o :
              s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(args[2])).contents()) {
            System.out.println("object " + o.key() + " " + o.size());
          }
          for (MultipartUpload u :
              s3.listMultipartUploadsPaginator(b -> b.bucket(bucket).prefix(args[2])).uploads()) {
            System.out.println("upload " + u.key() + " " + u.uploadId());
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
          System.out.println("export_id " + m.path("export_id").asText());
          System.out.println("rows " + m.path("rows").asLong());
          for (JsonNode p : m.path("parts")) {
            System.out.println(
                "part "
                    + p.path("name").asText()
                    + " "
                    + p.path("rows").asLong()
                    + " "
                    + p.path("bytes").asLong());
            if (p.has("partition")) {
              System.out.println("partition " + p.path("partition").asText());
            }
          }
          break;
        default:
          System.err.println("S3Look: unknown command " + args[0]);
          System.exit(2);
      }
    }
  }
}
