package org.parallelexport.parquet.s3;

import java.net.URI;
import java.util.Locale;
import org.parallelexport.parquet.KeyValueLines;

/**
 * S3Settings: how a worker reaches one object store, parsed from the "key=value" lines C sends.
 *
 * <p>Every key is optional. What is not given comes from the AWS SDK's standard chain as the
 * server's OS user sees it: AWS_ENDPOINT_URL, AWS_REGION and the key variables, ~/.aws/config and
 * ~/.aws/credentials (AWS_PROFILE or profile=), web identity, container and instance metadata.
 * Explicit keys (from a foreign server and user mapping inside PostgreSQL) win over the chain. The
 * keys are S3SettingNames'; an unknown key is an error, as in SinkOptions. toString never shows the
 * secret or the session token, so a settings object can appear in any message.
 */
public final class S3Settings {
  /** The smallest part S3 accepts, except for an upload's last. */
  public static final int MIN_PART_BYTES = 5 * 1024 * 1024;

  /** S3 numbers an upload's parts 1 to 10,000. */
  public static final int MAX_UPLOAD_PARTS = 10_000;

  /** Whether to address buckets in the path (http://host/bucket/key); null: decide by endpoint. */
  Boolean pathStyle;

  URI endpoint;
  String region;
  String profile;
  String accessKeyId;
  String secretAccessKey;
  String sessionToken;
  // S3Proxy, and many S3-compatible servers, refuse the SDK's default streaming CRC32 trailer.
  boolean checksumWhenRequired = true;
  int partBytes = 8 * 1024 * 1024;
  int maxParts = MAX_UPLOAD_PARTS;
  int uploadsInFlight = 2;
  int maxAttempts = 6;
  int callTimeoutMillis = 120_000;

  public static S3Settings parse(String text) {
    S3Settings settings = new S3Settings();
    KeyValueLines.parse(text, "s3 setting", false, settings::set);
    if ((settings.accessKeyId == null) != (settings.secretAccessKey == null)) {
      throw new IllegalArgumentException(
          "s3 settings access_key_id and secret_access_key go together");
    }
    return settings;
  }

  private void set(String key, String value) {
    switch (key) {
      case S3SettingNames.ENDPOINT:
        endpoint = endpoint(value);
        break;
      case S3SettingNames.REGION:
        region = value;
        break;
      case S3SettingNames.PROFILE:
        profile = value;
        break;
      case S3SettingNames.ACCESS_KEY_ID:
        accessKeyId = value;
        break;
      case S3SettingNames.SECRET_ACCESS_KEY:
        secretAccessKey = value;
        break;
      case S3SettingNames.SESSION_TOKEN:
        sessionToken = value;
        break;
      case S3SettingNames.PATH_STYLE:
        pathStyle = "auto".equals(value) ? null : bool(key, value);
        break;
      case S3SettingNames.CHECKSUM:
        checksumWhenRequired = checksum(value);
        break;
      case S3SettingNames.PART_SIZE:
        partBytes = bounded(key, value, MIN_PART_BYTES, 512 * 1024 * 1024);
        break;
      case S3SettingNames.MAX_PARTS:
        maxParts = bounded(key, value, 2, MAX_UPLOAD_PARTS);
        break;
      case S3SettingNames.UPLOADS_IN_FLIGHT:
        uploadsInFlight = bounded(key, value, 1, 16);
        break;
      case S3SettingNames.MAX_ATTEMPTS:
        maxAttempts = bounded(key, value, 1, 20);
        break;
      case S3SettingNames.CALL_TIMEOUT_MS:
        callTimeoutMillis = bounded(key, value, 1000, 3_600_000);
        break;
      default:
        throw new IllegalArgumentException("unknown s3 setting: " + key);
    }
  }

  /**
   * Path-style addressing: as set, else for an endpoint that names no DNS bucket host (an IP
   * address or localhost), where virtual-hosted names cannot resolve.
   */
  boolean pathStyleFor(URI effectiveEndpoint) {
    if (pathStyle != null) {
      return pathStyle;
    }
    if (effectiveEndpoint == null || effectiveEndpoint.getHost() == null) {
      return false;
    }
    String host = effectiveEndpoint.getHost();
    return "localhost".equalsIgnoreCase(host)
        || host.startsWith("[")
        || host.matches("\\d{1,3}(\\.\\d{1,3}){3}");
  }

  /**
   * Bytes past which a worker ends its part and starts another, whatever file_size_bytes says: one
   * upload holds at most maxParts parts of partBytes. The worker compares the part's size with this
   * after each batch, so the part still grows by at most a batch and by its page indexes and
   * footer; a tenth of the upload's room is kept for those (7.8 GiB at the defaults, which end a
   * part at 70.3 GiB).
   */
  public long partSizeLimit() {
    return (long) maxParts * partBytes / 10 * 9;
  }

  /** Most bytes of part data a worker holds at once: see MultipartOutputFile. */
  public long maxBufferedBytes() {
    return (long) (uploadsInFlight + 2) * partBytes;
  }

  private static URI endpoint(String value) {
    URI uri;
    try {
      uri = URI.create(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("s3 endpoint is not a URL: " + value, e);
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
      throw new IllegalArgumentException("s3 endpoint must be an http or https URL: " + value);
    }
    if (uri.getUserInfo() != null) {
      throw new IllegalArgumentException("s3 endpoint must not carry credentials");
    }
    return uri;
  }

  private static boolean checksum(String value) {
    switch (value.toLowerCase(Locale.ROOT)) {
      case S3SettingNames.CHECKSUM_WHEN_REQUIRED:
        return true;
      case S3SettingNames.CHECKSUM_WHEN_SUPPORTED:
        return false;
      default:
        throw new IllegalArgumentException(
            "s3 checksum must be when_required or when_supported: " + value);
    }
  }

  private static boolean bool(String key, String value) {
    switch (value.toLowerCase(Locale.ROOT)) {
      case "true":
      case "on":
        return true;
      case "false":
      case "off":
        return false;
      default:
        throw new IllegalArgumentException("s3 setting " + key + " must be true or false");
    }
  }

  private static int bounded(String key, String value, int min, int max) {
    long n;
    try {
      n = Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("s3 setting " + key + " is not an integer: " + value, e);
    }
    if (n < min || n > max) {
      throw new IllegalArgumentException(
          "s3 setting " + key + " must be " + min + " to " + max + ": " + value);
    }
    return (int) n;
  }

  @Override
  public String toString() {
    return "S3Settings[endpoint="
        + (endpoint == null ? "(standard chain)" : endpoint)
        + ", region="
        + (region == null ? "(standard chain)" : region)
        + ", profile="
        + (profile == null ? "(standard chain)" : profile)
        + ", keys="
        + (accessKeyId == null ? "(standard chain)" : "(given)")
        + ", pathStyle="
        + (pathStyle == null ? "auto" : pathStyle)
        + ", partBytes="
        + partBytes
        + ", uploadsInFlight="
        + uploadsInFlight
        + "]";
  }
}
