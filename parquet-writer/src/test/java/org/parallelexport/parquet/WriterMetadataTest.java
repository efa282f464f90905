package org.parallelexport.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The options field_ids and kv_metadata in the writer: the ids land on the schema fields the C
 * side's pre-order names (a LIST's repeated group skipped), a count that does not match the schema
 * is refused, and the pairs reach a written part's footer beside the writer's own keys.
 */
class WriterMetadataTest {
  // id bigint, s (k bigint, v integer[], iv interval), ls (k integer)[]
  private static final NestedBatch.Node[] COLUMNS = {
    new NestedBatch.Node("id", ColumnKind.INT64),
    new NestedBatch.Node(
        "s",
        ColumnKind.STRUCT,
        new NestedBatch.Node("k", ColumnKind.INT64),
        NestedBatch.Node.list("v", NestedBatch.Node.element(ColumnKind.INT32)),
        new NestedBatch.Node("iv", ColumnKind.INTERVAL)),
    NestedBatch.Node.list(
        "ls",
        NestedBatch.Node.element(ColumnKind.STRUCT, new NestedBatch.Node("k", ColumnKind.INT32))),
  };

  @TempDir Path dir;

  private static BatchSink sink(String options) {
    int[] kinds = new int[COLUMNS.length];
    for (int c = 0; c < COLUMNS.length; c++) {
      kinds[c] = COLUMNS[c].kind;
    }
    return NestedBatch.sink(COLUMNS, new TestBatch(2, kinds, 256), options);
  }

  /** Every field of the schema as "path:id" in pre-order ("-" for none). */
  private static List<String> ids(MessageType schema) {
    List<String> out = new ArrayList<>();
    walk(schema.getFields(), "", out);
    return out;
  }

  private static void walk(List<Type> fields, String prefix, List<String> out) {
    for (Type field : fields) {
      String path = prefix + field.getName();
      out.add(path + ":" + (field.getId() == null ? "-" : field.getId().intValue()));
      if (!field.isPrimitive()) {
        walk(field.asGroupType().getFields(), path + ".", out);
      }
    }
  }

  @Test
  void idsFollowThePreOrderAndSkipTheRepeatedListGroup() {
    BatchSink sink = sink("field_ids=0,1,2,3,4,5,6,7,8,9,10,11\n");
    assertEquals(
        List.of(
            "id:0",
            "s:1",
            "s.k:2",
            "s.v:3",
            "s.v.list:-",
            "s.v.list.element:4",
            "s.iv:5",
            "s.iv.months:6",
            "s.iv.days:7",
            "s.iv.microseconds:8",
            "ls:9",
            "ls.list:-",
            "ls.list.element:10",
            "ls.list.element.k:11"),
        ids(sink.schema()));
  }

  @Test
  void minusOneLeavesAFieldWithoutAnId() {
    BatchSink sink = sink("field_ids=-1,-1,-1,-1,40,-1,-1,-1,-1,-1,-1,7\n");
    List<String> ids = ids(sink.schema());
    assertEquals("s.v.list.element:40", ids.get(5));
    assertEquals("ls.list.element.k:7", ids.get(13));
    assertEquals(2, ids.stream().filter(s -> !s.endsWith(":-")).count(), ids.toString());
  }

  @Test
  void withoutTheOptionNoFieldHasAnId() {
    List<String> ids = ids(sink("").schema());
    assertEquals(14, ids.size(), "premise: the whole schema " + ids);
    assertTrue(ids.stream().allMatch(s -> s.endsWith(":-")), ids.toString());
  }

  @Test
  void aCountOtherThanTheSchemasIsRefused() {
    IllegalArgumentException fewer =
        assertThrows(IllegalArgumentException.class, () -> sink("field_ids=0,1,2\n"));
    assertTrue(fewer.getMessage().contains("field_ids holds 3 ids"), fewer.getMessage());
    IllegalArgumentException more =
        assertThrows(
            IllegalArgumentException.class, () -> sink("field_ids=0,1,2,3,4,5,6,7,8,9,10,11,12\n"));
    assertTrue(
        more.getMessage().contains("holds 13 ids, the schema numbers 12"), more.getMessage());
  }

  @Test
  void idsBelowMinusOneAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> SinkOptions.parse("field_ids=0,-2\n"));
    assertThrows(IllegalArgumentException.class, () -> SinkOptions.parse("field_ids=2147483648\n"));
  }

  private static String hex(String s) {
    return HexFormat.of().formatHex(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void kvPairsReachTheFooterBesideTheWritersKeys() throws IOException {
    String tricky = "ünï, with: commas\nand a newline";
    BatchSink sink =
        sink(
            "field_ids=0,1,2,3,4,5,6,7,8,9,10,11\nkv_metadata="
                + hex("source")
                + ":"
                + hex("crm")
                + ","
                + hex("tricky")
                + ":"
                + hex(tricky)
                + "\n");
    Path file = dir.resolve("part-00000.parquet");
    sink.openPart(file.toString());
    sink.closePart();
    Map<String, String> footer = ReadBack.footer(file).getFileMetaData().getKeyValueMetaData();
    assertEquals("crm", footer.get("source"));
    assertEquals(tricky, footer.get("tricky"));
    assertTrue(footer.containsKey(FileMetadata.PG_TYPES_KEY), footer.toString());
    assertEquals(
        ids(sink.schema()),
        ids(ReadBack.footer(file).getFileMetaData().getSchema()),
        "ids read back");
  }

  @Test
  void aKvKeyTheWriterWritesIsRefused() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> sink("kv_metadata=" + hex(FileMetadata.VERSION_KEY) + ":" + hex("0") + "\n"));
    assertTrue(e.getMessage().contains("reserved key"), e.getMessage());
    assertNull(SinkOptions.parse("").fieldIds, "no option: no field ids");
    assertEquals(Map.of(), SinkOptions.parse("kv_metadata=\n").kvMetadata);
  }
}
