package org.parallelexport.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.parquet.Version;
import org.junit.jupiter.api.Test;

/**
 * ManifestTest: a local export's _SUCCESS manifest (DESIGN.md, "The _SUCCESS manifest") has the
 * fields of an object store's, without the export id and the seal that only its overwrite acts on.
 */
class ManifestTest {
  private static BatchSink sink(String column) throws Exception {
    TestBatch batch = new TestBatch(2, new int[] {ColumnKind.INT64}, 0);
    return BatchSink.create(
        new String[] {column},
        new int[] {ColumnKind.INT64},
        new int[1],
        new int[1],
        new String[] {"bigint"},
        2,
        batch.nullOffsets,
        batch.valueOffsets,
        batch.buffer,
        "");
  }

  @Test
  void localManifestListsEveryPartWithItsFoldersRowsAndBytes() throws Exception {
    JsonNode m =
        Manifest.mapper()
            .readTree(
                Manifest.local(
                    sink("id"),
                    new String[] {"part-00000.parquet", "k=1/d=x%3Ay/part-00001.parquet"},
                    new long[] {3, 4},
                    new long[] {100, 200},
                    "1.1",
                    "15.0"));
    assertEquals(Manifest.FORMAT, m.path("format").asText());
    assertEquals(Manifest.VERSION, m.path("manifest_version").asInt());
    assertEquals(7, m.path("rows").asLong());
    JsonNode parts = m.path("parts");
    assertEquals(2, parts.size());
    assertEquals("part-00000.parquet", parts.get(0).path("name").asText());
    assertFalse(parts.get(0).has("partition"), "an unpartitioned part has no folders");
    assertEquals(3, parts.get(0).path("rows").asLong());
    assertEquals(100, parts.get(0).path("bytes").asLong());
    assertEquals("k=1/d=x%3Ay", parts.get(1).path("partition").asText());
    assertEquals(4, parts.get(1).path("rows").asLong());
    assertEquals(200, parts.get(1).path("bytes").asLong());
    assertTrue(m.path("schema").path("parquet").asText().contains("int64 id"));
    assertEquals("record", m.path("schema").path("avro").path("type").asText());
    assertEquals("1.1", m.path("versions").path("parallel_export_parquet").asText());
    assertEquals(Version.VERSION_NUMBER, m.path("versions").path("parquet_java").asText());
    assertEquals("15.0", m.path("versions").path("postgresql").asText());
    assertFalse(m.has("export_id"), "no export id: a local part name carries none");
    assertFalse(m.has("seal"), "no seal: a local overwrite never reads the manifest");
  }

  @Test
  void aColumnAvroCannotNameLeavesTheAvroSchemaOut() throws Exception {
    JsonNode m =
        Manifest.mapper()
            .readTree(
                Manifest.local(
                    sink("my col"), new String[0], new long[0], new long[0], "1.1", "15.0"));
    assertEquals(0, m.path("parts").size());
    assertEquals(0, m.path("rows").asLong());
    assertFalse(m.path("schema").has("avro"));
    assertTrue(m.path("schema").path("parquet").asText().contains("my col"));
  }
}
