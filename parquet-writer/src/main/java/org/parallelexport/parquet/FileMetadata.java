package org.parallelexport.parquet;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * FileMetadata: the key-value metadata written into every part's footer.
 *
 * <p>Parquet's logical types cannot say "this was numeric(12,2)" or "this was jsonb", so each part
 * records the PostgreSQL type of every column (parallel_export_parquet.pg_types, a JSON object
 * column name -&gt; type), the extension that wrote it (parallel_export_parquet.version) and the
 * reader profile its columns were encoded for (parallel_export_parquet.compatibility: "none" for
 * the faithful encodings, "spark" when uuid, time and timetz are their text), and carries the Avro
 * schema for Avro-based readers (see AvroSchemas). The pairs of the option kv_metadata follow; the
 * C side refused the keys written here and the ones readers interpret (pep_writermeta.c), and a
 * user's key equal to one written here is an error rather than an overwrite. The same map goes into
 * every part of a worker, its keys in this order: Map.copyOf's order changes from one JVM to the
 * next, and with it the bytes of two exports of the same rows.
 */
final class FileMetadata {
  static final String VERSION_KEY = "parallel_export_parquet.version";
  static final String PG_TYPES_KEY = "parallel_export_parquet.pg_types";
  static final String COMPATIBILITY_KEY = "parallel_export_parquet.compatibility";
  static final String AVRO_SCHEMA_KEY = "parquet.avro.schema";

  private FileMetadata() {}

  static Map<String, String> of(List<Column> columns, SinkOptions options) {
    Map<String, String> metadata = new LinkedHashMap<>();
    metadata.put(VERSION_KEY, options.createdByExtension);
    metadata.put(PG_TYPES_KEY, pgTypes(columns));
    metadata.put(COMPATIBILITY_KEY, options.compatibility);
    AvroSchemas.forColumns(columns).ifPresent(schema -> metadata.put(AVRO_SCHEMA_KEY, schema));
    options.kvMetadata.forEach(
        (key, value) -> {
          if (metadata.putIfAbsent(key, value) != null) {
            throw new IllegalArgumentException("option kv_metadata sets the reserved key " + key);
          }
        });
    return Collections.unmodifiableMap(metadata);
  }

  private static String pgTypes(List<Column> columns) {
    StringBuilder json = new StringBuilder("{");
    for (Column column : columns) {
      if (json.length() > 1) {
        json.append(',');
      }
      quote(json, column.name).append(':');
      quote(json, column.pgType);
    }
    return json.append('}').toString();
  }

  private static StringBuilder quote(StringBuilder json, String text) {
    json.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"':
          json.append("\\\"");
          break;
        case '\\':
          json.append("\\\\");
          break;
        case '\n':
          json.append("\\n");
          break;
        case '\r':
          json.append("\\r");
          break;
        case '\t':
          json.append("\\t");
          break;
        default:
          if (c < 0x20) {
            json.append(String.format("\\u%04x", (int) c));
          } else {
            json.append(c);
          }
      }
    }
    return json.append('"');
  }
}
