/*
 * S3SettingsTest: the settings string's rules, path-style addressing by endpoint, and that no
 * secret ever reaches a message or toString.
 */
package org.parallelexport.parquet.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import org.junit.jupiter.api.Test;

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
  void memoryBoundFollowsPartSizeAndUploadsInFlight() {
    S3Settings settings = S3Settings.parse("part_size=8388608\nuploads_in_flight=3\n");
    assertEquals(5L * 8388608, settings.maxBufferedBytes());
  }
}
