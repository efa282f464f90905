package org.parallelexport.parquet.s3;

import static java.util.Objects.requireNonNull;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * S3ManifestSeal: the seal of an export's _SUCCESS manifest, an HMAC-SHA256 keyed by a secret the
 * database server keeps, so that an overwrite deletes only parts an export of this server named.
 *
 * <p>DESIGN.md, "Overwrite: whose manifest". Anyone who can write under a prefix can write a
 * _SUCCESS that names any object as a part; an overwrite deletes what the manifest names, with the
 * export's credentials. So worker 0 seals every manifest it writes, and an overwrite acts on a
 * previous manifest only if its seal verifies with this server's key. The key is 32 random bytes in
 * $PGDATA/parallel_export_parquet_manifest.key, which the caller's backend creates (0600) and hands
 * to worker 0 as hex through the export's DSM (extension/src/output/s3/pep_s3seal.c); it is never
 * printed.
 *
 * <p>What is sealed is what an overwrite acts on: the bucket and prefix the manifest is under, its
 * export id and every part name, each length-prefixed so that no two different lists give the same
 * bytes. A manifest copied to another prefix, or with a part added, removed or renamed, does not
 * verify. The other fields (rows, schema, versions) tell a reader about the export and are not
 * sealed: nothing is deleted on their word.
 */
final class S3ManifestSeal {
  /** What a manifest's "seal.algorithm" says. */
  static final String ALGORITHM = "HMAC-SHA256";

  /** The key's length in bytes. */
  static final int KEY_BYTES = 32;

  // Sealed first, so that a MAC of this key over other data of the same shape never verifies.
  private static final byte[] DOMAIN =
      "parallel_export_parquet manifest seal 1".getBytes(StandardCharsets.UTF_8);

  private final SecretKeySpec key;

  private S3ManifestSeal(byte[] key) {
    this.key = new SecretKeySpec(key, "HmacSHA256");
  }

  /** The seal of the key in {@code hex}, 64 hex digits. */
  static S3ManifestSeal ofHex(String hex) {
    requireNonNull(hex, "hex is null");
    byte[] key;
    try {
      key = HexFormat.of().parseHex(hex);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("a manifest key is " + 2 * KEY_BYTES + " hex digits");
    }
    if (key.length != KEY_BYTES) {
      throw new IllegalArgumentException("a manifest key is " + 2 * KEY_BYTES + " hex digits");
    }
    return new S3ManifestSeal(key);
  }

  /** The MAC, as lower-case hex, of the manifest of export {@code exportId} under the prefix. */
  String mac(String bucket, String prefix, String exportId, List<String> partNames) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      return HexFormat.of().formatHex(mac.doFinal(message(bucket, prefix, exportId, partNames)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available", e);
    }
  }

  /** Whether {@code mac} is the MAC of that manifest; compared in constant time. */
  boolean verifies(
      String bucket, String prefix, String exportId, List<String> partNames, String mac) {
    if (mac == null) {
      return false;
    }
    byte[] expected = mac(bucket, prefix, exportId, partNames).getBytes(StandardCharsets.US_ASCII);
    return MessageDigest.isEqual(expected, mac.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] message(
      String bucket, String prefix, String exportId, List<String> partNames) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    field(out, DOMAIN);
    field(out, bucket.getBytes(StandardCharsets.UTF_8));
    field(out, prefix.getBytes(StandardCharsets.UTF_8));
    field(out, exportId.getBytes(StandardCharsets.UTF_8));
    out.writeBytes(ByteBuffer.allocate(4).putInt(partNames.size()).array());
    for (String name : partNames) {
      field(out, name.getBytes(StandardCharsets.UTF_8));
    }
    return out.toByteArray();
  }

  private static void field(ByteArrayOutputStream out, byte[] bytes) {
    out.writeBytes(ByteBuffer.allocate(4).putInt(bytes.length).array());
    out.writeBytes(bytes);
  }
}
