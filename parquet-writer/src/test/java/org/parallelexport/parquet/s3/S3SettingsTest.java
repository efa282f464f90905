package org.parallelexport.parquet.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URI;
import org.junit.jupiter.api.Test;

/**
 * S3SettingsTest: the settings string's rules, path-style addressing by endpoint, that no secret
 * ever reaches a message or toString, and that every key of S3SettingNames (which C writes) is one
 * S3Settings knows.
 */
class S3SettingsTest {
  private static final String SECRET = "s3cr3t-value-0123456789";

  @Test
  void secretsStayOutOfToStringAndErrors() {
    S3Settings settings =
        S3Settings.parse(
            "access_key_id=AKIDEXAMPLE\nsecret_access_key="
                + SECRET
                + "\nsession_token="
                + SECRET
                + "-token\n");
    assertFalse(settings.toString().contains(SECRET), settings.toString());
    assertFalse(settings.toString().contains("AKIDEXAMPLE"), settings.toString());

    IllegalArgumentException malformed =
        assertThrows(IllegalArgumentException.class, () -> S3Settings.parse(SECRET + "\n"));
    assertFalse(malformed.getMessage().contains(SECRET), malformed.getMessage());
  }

  @Test
  void keysGoTogether() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> S3Settings.parse("access_key_id=AKIDEXAMPLE\n"));
    assertTrue(e.getMessage().contains("go together"), e.getMessage());
  }

  @Test
  void badValuesAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> S3Settings.parse("colour=blue\n"));
    assertThrows(IllegalArgumentException.class, () -> S3Settings.parse("part_size=1048576\n"));
    assertThrows(IllegalArgumentException.class, () -> S3Settings.parse("endpoint=ftp://h/\n"));
    assertThrows(
        IllegalArgumentException.class, () -> S3Settings.parse("endpoint=http://u:p@h/\n"));
    assertThrows(IllegalArgumentException.class, () -> S3Settings.parse("checksum=always\n"));
    assertThrows(IllegalArgumentException.class, () -> S3Settings.parse("region=a\nregion=b\n"));
  }

  @Test
  void pathStyleFollowsTheEndpointUnlessSet() {
    S3Settings auto = S3Settings.parse("");
    assertTrue(auto.pathStyleFor(URI.create("http://127.0.0.1:9000")));
    assertTrue(auto.pathStyleFor(URI.create("http://[::1]:9000")));
    assertTrue(auto.pathStyleFor(URI.create("http://localhost:9000")));
    assertFalse(auto.pathStyleFor(URI.create("https://s3.eu-west-1.amazonaws.com")));
    assertFalse(auto.pathStyleFor(null));
    assertFalse(S3Settings.parse("path_style=false\n").pathStyleFor(URI.create("http://10.0.0.1")));
    assertTrue(
        S3Settings.parse("path_style=true\n").pathStyleFor(URI.create("https://r2.example")));
  }

  @Test
  void aPartEndsAtNineTenthsOfWhatOneUploadHolds() {
    assertEquals(10_000L * 8 * 1024 * 1024 / 10 * 9, S3Settings.parse("").partSizeLimit());
    assertEquals(
        3L * S3Settings.MIN_PART_BYTES / 10 * 9,
        S3Settings.parse("max_parts=3\npart_size=5242880\n").partSizeLimit());
    assertThrows(IllegalArgumentException.class, () -> S3Settings.parse("max_parts=1\n"));
    assertThrows(IllegalArgumentException.class, () -> S3Settings.parse("max_parts=10001\n"));
  }

  @Test
  void memoryBoundFollowsPartSizeAndUploadsInFlight() {
    S3Settings settings = S3Settings.parse("part_size=8388608\nuploads_in_flight=3\n");
    assertEquals(5L * 8388608, settings.maxBufferedBytes());
  }

  @Test
  void everySettingNameIsParsed() throws IllegalAccessException {
    int keys = 0;
    for (Field f : S3SettingNames.class.getDeclaredFields()) {
      if (!Modifier.isStatic(f.getModifiers())
          || f.getType() != String.class
          || f.getName().startsWith("CHECKSUM_")) {
        continue;
      }
      String key = (String) f.get(null);
      keys++;
      try {
        S3Settings.parse(key + "=1\n");
      } catch (IllegalArgumentException e) {
        assertFalse(
            e.getMessage().startsWith("unknown s3 setting"),
            "S3SettingNames." + f.getName() + " is not parsed by S3Settings: " + e.getMessage());
      }
    }
    assertTrue(keys >= 12, "premise: S3SettingNames' keys were found, saw " + keys);
  }

  @Test
  void checksumValuesAreS3SettingNames() {
    S3Settings.parse(S3SettingNames.CHECKSUM + "=" + S3SettingNames.CHECKSUM_WHEN_REQUIRED + "\n");
    S3Settings.parse(S3SettingNames.CHECKSUM + "=" + S3SettingNames.CHECKSUM_WHEN_SUPPORTED + "\n");
  }
}
