package org.parallelexport.parquet;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.parquet.Version;

/**
 * Manifest: the one builder of an export's _SUCCESS manifest, for every target.
 *
 * <p>DESIGN.md, "The _SUCCESS manifest". A local export's _SUCCESS and an object store's are the
 * same JSON: "format", "manifest_version", the "parts" (each "name" relative to the export's root,
 * its folders as "partition" when partitioned, "rows" and "bytes"), the total "rows", the "schema"
 * (Parquet and Avro) and the "versions". An object store's adds what its protocol acts on: the
 * "export_id" in its part names and the "seal" (s3.S3Export), which a local export has no use for.
 * Jackson writes it (on the classpath through Avro).
 */
public final class Manifest {
  /** What "format" says, so that a reader and an overwrite recognise an export of ours. */
  public static final String FORMAT = "parallel_export_parquet";

  /**
   * The manifest's layout: 2 since the parts carry rows and bytes and object-store manifests are
   * sealed (version 1, written by 1.1 into object stores only, was not).
   */
  public static final int VERSION = 2;

  /**
   * Jackson's mapper, made when a manifest is first read or written: a worker that writes no
   * manifest never waits for Jackson's set-up.
   */
  private static final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper();
  }

  private Manifest() {}

  /** The mapper manifests are read and written with. */
  public static ObjectMapper mapper() {
    return Json.MAPPER;
  }

  /**
   * The manifest of the parts {@code names} (relative to the export's root, in part order) with
   * their {@code rows} and {@code bytes}, written through {@code sink}; {@code exportId} is the
   * object store's export id, or null for a target that has none.
   */
  public static ObjectNode of(
      BatchSink sink,
      String exportId,
      String[] names,
      long[] rows,
      long[] bytes,
      String extensionVersion,
      String postgresVersion)
      throws JsonProcessingException {
    ObjectNode root = Json.MAPPER.createObjectNode();
    root.put("format", FORMAT);
    root.put("manifest_version", VERSION);
    if (exportId != null) {
      root.put("export_id", exportId);
    }
    long total = 0;
    ArrayNode parts = root.putArray("parts");
    for (int i = 0; i < names.length; i++) {
      ObjectNode part = parts.addObject().put("name", names[i]);
      int folders = names[i].lastIndexOf('/');
      if (folders > 0) {
        part.put("partition", names[i].substring(0, folders));
      }
      part.put("rows", rows[i]).put("bytes", bytes[i]);
      total += rows[i];
    }
    root.put("rows", total);
    ObjectNode schema = root.putObject("schema");
    schema.put("parquet", sink.schema().toString());
    String avro = sink.metadata().get("parquet.avro.schema");
    if (avro != null) {
      schema.set("avro", Json.MAPPER.readTree(avro));
    }
    ObjectNode versions = root.putObject("versions");
    versions.put("parallel_export_parquet", extensionVersion);
    versions.put("parquet_java", Version.VERSION_NUMBER);
    versions.put("postgresql", postgresVersion);
    return root;
  }

  /** The bytes of a manifest, as _SUCCESS holds them. */
  public static byte[] bytes(ObjectNode manifest) throws JsonProcessingException {
    return Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(manifest);
  }

  /**
   * The bytes of a local export's _SUCCESS (no export id, no seal: DESIGN.md, "The _SUCCESS
   * manifest"), which the C side writes into the staging directory and fsyncs.
   */
  public static byte[] local(
      BatchSink sink,
      String[] names,
      long[] rows,
      long[] bytes,
      String extensionVersion,
      String postgresVersion)
      throws JsonProcessingException {
    return bytes(of(sink, null, names, rows, bytes, extensionVersion, postgresVersion));
  }
}
