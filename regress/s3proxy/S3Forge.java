import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.parallelexport.parquet.s3.S3Ledger;
import org.parallelexport.parquet.s3.S3Session;
import org.parallelexport.parquet.s3.S3Settings;

/**
 * S3Forge: makes what a killed object-store export leaves, for the sweep harness
 * (regress/t_s3_sweep.sh, t_encoding.sh), through the extension's own S3 client against the test
 * server; S3Look shows the result.
 *
 * <pre>
 * java -cp JAR:DIR S3Forge dead BUCKET LEDGER PREFIX   a killed export under PREFIX
 * java -cp JAR:DIR S3Forge upload BUCKET KEY           a pending upload; prints its id
 * </pre>
 *
 * <p>Compiled against the installed jar, whose classes it uses. The server comes from
 * PEP_S3_ENDPOINT, PEP_S3_IDENTITY and PEP_S3_CREDENTIAL (regress/lib/s3proxy.sh's s3proxy.env).
 * "dead" appends to LEDGER (whose first line the harness wrote) the way a killed export's workers
 * would, each line before its step: part 0 completed, part 1 pending with its id recorded, part 2
 * pending with only its key recorded (the crash fell between the request and its line), and
 * _SUCCESS written, a manifest naming the export's id; it prints the keys and ids it made.
 */
public final class S3Forge {
  public static void main(String[] args) throws Exception {
    String bucket = args[1];
    S3Settings settings =
        S3Settings.parse(
            "endpoint="
                + System.getenv("PEP_S3_ENDPOINT")
                + "\naccess_key_id="
                + System.getenv("PEP_S3_IDENTITY")
                + "\nsecret_access_key="
                + System.getenv("PEP_S3_CREDENTIAL")
                + "\n");
    try (S3Session s3 = new S3Session(settings)) {
      switch (args[0]) {
        case "dead":
          dead(s3, bucket, Path.of(args[2]), args[3]);
          break;
        case "upload":
          System.out.println(s3.createUpload(bucket, args[2]));
          break;
        default:
          throw new IllegalArgumentException("unknown command " + args[0]);
      }
    }
  }

  private static void dead(S3Session s3, String bucket, Path ledgerFile, String prefix)
      throws Exception {
    try (S3Ledger ledger = S3Ledger.open(ledgerFile)) {
      String part0 = prefix + "part-00000-0123456789ab.parquet";
      ledger.key(part0);
      String id0 = s3.createUpload(bucket, part0);
      ledger.upload(part0, id0);
      ledger.complete(part0);
      // What CompleteMultipartUpload leaves: the object, and no pending upload of it.
      s3.abort(bucket, part0, id0);
      s3.put(bucket, part0, bytes("part 0"), "application/vnd.apache.parquet");
      System.out.println("completed " + part0);

      String part1 = prefix + "part-00001-0123456789ab.parquet";
      ledger.key(part1);
      String id1 = s3.createUpload(bucket, part1);
      ledger.upload(part1, id1);
      System.out.println("pending " + part1 + " " + id1);

      String part2 = prefix + "part-00002-0123456789ab.parquet";
      ledger.key(part2);
      System.out.println("pending " + part2 + " " + s3.createUpload(bucket, part2));

      ledger.success("0123456789ab");
      s3.put(
          bucket,
          prefix + "_SUCCESS",
          bytes("{\"format\": \"parallel_export_parquet\", \"export_id\": \"0123456789ab\"}"),
          "application/json");
      System.out.println("completed " + prefix + "_SUCCESS");
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
