/*
 * regress/lib/S3Forge.java: makes and inspects object-store state for the shell harnesses, through
 * the extension's own S3 client against the test server.
 *
 *   java -cp JAR regress/lib/S3Forge.java dead LEDGER PREFIX   a killed export under PREFIX
 *   java -cp JAR regress/lib/S3Forge.java put KEY              an object (someone else's)
 *   java -cp JAR regress/lib/S3Forge.java upload KEY           a pending upload; prints its id
 *   java -cp JAR regress/lib/S3Forge.java keys PREFIX          objects under PREFIX, one a line
 *   java -cp JAR regress/lib/S3Forge.java uploads PREFIX       pending uploads: "KEY ID" lines
 *
 * Run by java's source launcher with the installed jar on the class path. The server comes from
 * PEP_S3_ENDPOINT, PEP_S3_IDENTITY and PEP_S3_CREDENTIAL (regress/lib/s3proxy.sh's s3proxy.env);
 * the bucket is PEP_S3_BUCKET. "dead" appends to LEDGER (whose first line the harness wrote) the
 * way a killed export's workers would, each line before its step: part 0 completed, part 1 pending
 * with its id recorded, part 2 pending with only its key recorded (the crash fell between the
 * request and its line), and _SUCCESS written; it prints the keys and ids it made.
 */

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.parallelexport.parquet.s3.S3Ledger;
import org.parallelexport.parquet.s3.S3Session;
import org.parallelexport.parquet.s3.S3Settings;

public class S3Forge {
  public static void main(String[] args) throws Exception {
    String bucket = System.getenv("PEP_S3_BUCKET");
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
          dead(s3, bucket, Path.of(args[1]), args[2]);
          break;
        case "put":
          s3.put(bucket, args[1], bytes("someone else's"), "application/octet-stream");
          break;
        case "upload":
          System.out.println(s3.createUpload(bucket, args[1]));
          break;
        case "keys":
          s3.listKeys(bucket, args[1], 10_000).forEach(System.out::println);
          break;
        case "uploads":
          for (String[] u : s3.listUploads(bucket, args[1])) {
            System.out.println(u[0] + " " + u[1]);
          }
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

      ledger.success();
      s3.put(bucket, prefix + "_SUCCESS", bytes("{}"), "application/json");
      System.out.println("completed " + prefix + "_SUCCESS");
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
