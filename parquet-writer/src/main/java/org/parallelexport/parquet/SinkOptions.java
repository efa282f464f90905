package org.parallelexport.parquet;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * SinkOptions: the options string BatchSink.create receives, parsed once per worker.
 *
 * <p>The C side builds it from the SQL call's settings as "key=value" lines, with OptionNames'
 * keys. An unknown key is an error rather than ignored, so that a misspelt or newer setting fails
 * the export instead of being silently dropped. The defaults of the options the SQL function
 * exposes are OptionDefaults'; they differ from parquet-java's in compression (snappy, not none),
 * row_group_rows (122880, not unlimited) and row_group_bytes (64 MiB, not 128 MiB).
 */
final class SinkOptions {
  CompressionCodecName compression = compression(OptionDefaults.COMPRESSION);
  int rowGroupRows = OptionDefaults.ROW_GROUP_ROWS;
  long rowGroupBytes = OptionDefaults.ROW_GROUP_BYTES;
  int pageSize = OptionDefaults.PAGE_SIZE;
  boolean dictionary = true;
  WriterVersion writerVersion = writerVersion(OptionDefaults.WRITER_VERSION);
  String createdByExtension = "parallel_export_parquet " + BatchSink.WRITER_VERSION;
  // -1: the codec's default level.
  int compressionLevel = OptionDefaults.COMPRESSION_LEVEL;
  boolean statistics = OptionDefaults.STATISTICS;
  // Positions of the columns that get a bloom filter.
  int[] bloomFilterColumns = new int[0];
  // Positions of the columns written without a dictionary though dictionary is true.
  int[] dictionaryOffColumns = new int[0];
  // The reader profile the C side resolved the columns for (the SQL option compatibility); the
  // footer records it, as FileMetadata says.
  String compatibility = compatibility(OptionDefaults.COMPATIBILITY);

  // Parts a partitioned export's worker keeps open at once, and the bytes their buffered row
  // groups may take together (DESIGN.md, "Bounded memory").
  int partWriters = 1;
  long partMemoryBytes = Long.MAX_VALUE;

  // The field id of each numbered schema field in pre-order, -1 for none; null: no field ids
  // (FieldIds). The C side checked them against the columns (pep_writermeta.c).
  int[] fieldIds;
  // The user's footer key-value pairs, in the order the C side sent them (FileMetadata).
  Map<String, String> kvMetadata = Map.of();

  static SinkOptions parse(String text) {
    SinkOptions options = new SinkOptions();
    KeyValueLines.parse(text, "option", true, options::set);
    return options;
  }

  private void set(String key, String value) {
    switch (key) {
      case OptionNames.COMPRESSION:
        compression = compression(value);
        break;
      case OptionNames.ROW_GROUP_ROWS:
        rowGroupRows = positiveInt(key, value);
        break;
      case OptionNames.ROW_GROUP_BYTES:
        rowGroupBytes = positiveLong(key, value);
        break;
      case OptionNames.PAGE_SIZE:
        pageSize = positiveInt(key, value);
        break;
      case OptionNames.DICTIONARY:
        dictionary = bool(key, value);
        break;
      case OptionNames.WRITER_VERSION:
        writerVersion = writerVersion(value);
        break;
      case OptionNames.CREATED_BY_EXTENSION:
        if (value.isEmpty()) {
          throw new IllegalArgumentException("option created_by_extension is empty");
        }
        createdByExtension = value;
        break;
      case OptionNames.COMPRESSION_LEVEL:
        // 0 is brotli's fastest quality; the C side checked the range of each codec.
        compressionLevel = asInt(key, value, nonNegativeLong(key, value));
        break;
      case OptionNames.STATISTICS:
        statistics = bool(key, value);
        break;
      case OptionNames.BLOOM_FILTER_COLUMNS:
        bloomFilterColumns = columnList(key, value);
        break;
      case OptionNames.DICTIONARY_OFF_COLUMNS:
        dictionaryOffColumns = columnList(key, value);
        break;
      case OptionNames.COMPATIBILITY:
        compatibility = compatibility(value);
        break;
      case OptionNames.PART_WRITERS:
        partWriters = (int) Math.min(Integer.MAX_VALUE, positiveLong(key, value));
        break;
      case OptionNames.PART_MEMORY_BYTES:
        partMemoryBytes = positiveLong(key, value);
        break;
      case OptionNames.FIELD_IDS:
        fieldIds = fieldIds(key, value);
        break;
      case OptionNames.KV_METADATA:
        kvMetadata = hexPairs(key, value);
        break;
      default:
        throw new IllegalArgumentException("unknown option: " + key);
    }
  }

  private static CompressionCodecName compression(String value) {
    switch (value.toLowerCase(Locale.ROOT)) {
      case "uncompressed":
        return CompressionCodecName.UNCOMPRESSED;
      case "snappy":
        return CompressionCodecName.SNAPPY;
      case "gzip":
        return CompressionCodecName.GZIP;
      case "zstd":
        return CompressionCodecName.ZSTD;
      case "lz4_raw":
        return CompressionCodecName.LZ4_RAW;
      case "brotli":
        return CompressionCodecName.BROTLI;
      default:
        throw new IllegalArgumentException(
            "invalid value for option compression: \""
                + value
                + "\" (expected uncompressed, snappy, gzip, zstd, lz4_raw or brotli)");
    }
  }

  private static String compatibility(String value) {
    switch (value) {
      case "none":
      case "spark":
        return value;
      default:
        throw new IllegalArgumentException(
            "invalid value for option compatibility: \"" + value + "\" (expected none or spark)");
    }
  }

  private static WriterVersion writerVersion(String value) {
    switch (value.toLowerCase(Locale.ROOT)) {
      case "v1":
        return WriterVersion.PARQUET_1_0;
      case "v2":
        return WriterVersion.PARQUET_2_0;
      default:
        throw new IllegalArgumentException(
            "invalid value for option writer_version: \"" + value + "\" (expected v1 or v2)");
    }
  }

  private static int[] columnList(String key, String value) {
    if (value.isEmpty()) {
      return new int[0];
    }
    String[] items = value.split(",", -1);
    int[] columns = new int[items.length];
    for (int i = 0; i < items.length; i++) {
      columns[i] = (int) nonNegativeLong(key, items[i]);
    }
    return columns;
  }

  private static int[] fieldIds(String key, String value) {
    if (value.isEmpty()) {
      return new int[0];
    }
    String[] items = value.split(",", -1);
    int[] ids = new int[items.length];
    for (int i = 0; i < items.length; i++) {
      long id;
      try {
        id = Long.parseLong(items[i]);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "invalid value for option " + key + ": \"" + items[i] + "\" (expected an integer)", e);
      }
      if (id < -1 || id > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "invalid value for option "
                + key
                + ": "
                + id
                + " (expected -1 to "
                + Integer.MAX_VALUE
                + ")");
      }
      ids[i] = (int) id;
    }
    return ids;
  }

  private static Map<String, String> hexPairs(String key, String value) {
    Map<String, String> pairs = new LinkedHashMap<>();
    if (value.isEmpty()) {
      return Collections.unmodifiableMap(pairs);
    }
    for (String item : value.split(",", -1)) {
      int colon = item.indexOf(':');
      if (colon < 0
          || pairs.put(
                  utf8Hex(key, item.substring(0, colon)), utf8Hex(key, item.substring(colon + 1)))
              != null) {
        throw new IllegalArgumentException(
            "invalid value for option "
                + key
                + ": \""
                + item
                + "\" (expected distinct hexkey:hexvalue pairs)");
      }
    }
    return Collections.unmodifiableMap(pairs);
  }

  private static String utf8Hex(String key, String hex) {
    try {
      return new String(HexFormat.of().parseHex(hex), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "invalid value for option " + key + ": \"" + hex + "\" (expected hexadecimal)", e);
    }
  }

  private static boolean bool(String key, String value) {
    switch (value.toLowerCase(Locale.ROOT)) {
      case "true":
        return true;
      case "false":
        return false;
      default:
        throw new IllegalArgumentException(
            "invalid value for option " + key + ": \"" + value + "\" (expected true or false)");
    }
  }

  private static int positiveInt(String key, String value) {
    return asInt(key, value, positiveLong(key, value));
  }

  private static int asInt(String key, String value, long n) {
    if (n > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "invalid value for option "
              + key
              + ": "
              + value
              + " (at most "
              + Integer.MAX_VALUE
              + ")");
    }
    return (int) n;
  }

  private static long positiveLong(String key, String value) {
    long n = nonNegativeLong(key, value);
    if (n == 0) {
      throw new IllegalArgumentException(
          "invalid value for option " + key + ": 0 (must be positive)");
    }
    return n;
  }

  private static long nonNegativeLong(String key, String value) {
    long n;
    try {
      n = Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "invalid value for option " + key + ": \"" + value + "\" (expected an integer)", e);
    }
    if (n < 0) {
      throw new IllegalArgumentException(
          "invalid value for option " + key + ": " + value + " (must not be negative)");
    }
    return n;
  }
}
