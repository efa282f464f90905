package org.parallelexport.parquet.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * S3ManifestSealTest: the seal an overwrite trusts. It verifies for exactly the manifest it was
 * made for (bucket, prefix, export id, part names in order) with exactly the key that made it, and
 * for nothing else: another key, another prefix or bucket, a part added, dropped, renamed or moved,
 * a boundary between fields shifted, an upper-case or truncated MAC, or none. Keys that are not 64
 * hex digits are refused.
 */
class S3ManifestSealTest {
  private static final String KEY = "0f".repeat(32);
  private static final String OTHER_KEY = "f0".repeat(32);
  private static final List<String> PARTS =
      List.of("part-00000-0123456789ab.parquet", "region=eu/part-00001-0123456789ab.parquet");

  private final S3ManifestSeal seal = S3ManifestSeal.ofHex(KEY);
  private final String mac = seal.mac("lake", "raw/q/", "0123456789ab", PARTS);

  @Test
  void verifiesTheManifestItSealed() {
    assertEquals(64, mac.length());
    assertTrue(mac.matches("[0-9a-f]{64}"));
    assertTrue(seal.verifies("lake", "raw/q/", "0123456789ab", PARTS, mac));
    assertTrue(
        S3ManifestSeal.ofHex(KEY).verifies("lake", "raw/q/", "0123456789ab", PARTS, mac),
        "the same key read again verifies it");
  }

  @Test
  void anotherKeyDoesNotVerify() {
    S3ManifestSeal other = S3ManifestSeal.ofHex(OTHER_KEY);
    assertFalse(other.verifies("lake", "raw/q/", "0123456789ab", PARTS, mac));
    assertNotEquals(mac, other.mac("lake", "raw/q/", "0123456789ab", PARTS));
  }

  @Test
  void anyChangeOfWhatIsSealedDoesNotVerify() {
    assertFalse(seal.verifies("lake2", "raw/q/", "0123456789ab", PARTS, mac), "bucket");
    assertFalse(seal.verifies("lake", "raw/", "0123456789ab", PARTS, mac), "prefix");
    assertFalse(seal.verifies("lake", "raw/q/", "aaaaaaaaaaaa", PARTS, mac), "export id");
    assertFalse(
        seal.verifies(
            "lake",
            "raw/q/",
            "0123456789ab",
            List.of(PARTS.get(0), PARTS.get(1), "part-00000-aaaaaaaaaaaa.parquet"),
            mac),
        "a part added");
    assertFalse(
        seal.verifies("lake", "raw/q/", "0123456789ab", List.of(PARTS.get(0)), mac),
        "a part dropped");
    assertFalse(
        seal.verifies(
            "lake",
            "raw/q/",
            "0123456789ab",
            List.of(PARTS.get(0), "part-00001-0123456789ab.parquet"),
            mac),
        "a part renamed");
    assertFalse(
        seal.verifies("lake", "raw/q/", "0123456789ab", List.of(PARTS.get(1), PARTS.get(0)), mac),
        "parts reordered");
    assertFalse(
        seal.verifies("lake", "raw/q", "/0123456789ab", PARTS, mac),
        "the boundary between two fields moved");
  }

  @Test
  void malformedMacsDoNotVerify() {
    assertFalse(seal.verifies("lake", "raw/q/", "0123456789ab", PARTS, null));
    assertFalse(seal.verifies("lake", "raw/q/", "0123456789ab", PARTS, ""));
    assertFalse(seal.verifies("lake", "raw/q/", "0123456789ab", PARTS, mac.substring(1)));
    assertFalse(seal.verifies("lake", "raw/q/", "0123456789ab", PARTS, mac.toUpperCase()));
  }

  @Test
  void keysMustBe64HexDigits() {
    assertThrows(IllegalArgumentException.class, () -> S3ManifestSeal.ofHex("0f".repeat(31)));
    assertThrows(IllegalArgumentException.class, () -> S3ManifestSeal.ofHex("0f".repeat(33)));
    assertThrows(IllegalArgumentException.class, () -> S3ManifestSeal.ofHex("zz".repeat(32)));
    assertThrows(NullPointerException.class, () -> S3ManifestSeal.ofHex(null));
  }
}
