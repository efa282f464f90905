/*
 * ColumnLevelsTest: the definition and repetition levels the column-at-a-time writer computes,
 * checked against parquet-java's own record path on the same values.
 *
 * The same rows (NULLs, empty arrays, NULL elements, lists of lists, structs holding lists, lists
 * of structs, intervals; and flat columns of every kind whose writer loops over its rows itself)
 * go once through BatchSink, from a batch laid out as the C side lays it
 * out, and once through parquet-java's example Group writer (RecordConsumer and MessageColumnIO,
 * the path BatchSink used before). Both files are read back with parquet-java's reader and must
 * hold the same records, row groups of the same sizes, and column chunks with the same value
 * counts, NULL counts and statistics.
 */
package org.parallelexport.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroup;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ColumnLevelsTest {
  private static final NestedBatch.Node[] COLUMNS = {
    // integer[]
    NestedBatch.Node.list("a", NestedBatch.Node.element(ColumnKind.INT32)),
    // text[][]
    NestedBatch.Node.list(
        "m",
        NestedBatch.Node.element(ColumnKind.LIST, NestedBatch.Node.element(ColumnKind.STRING))),
    // (k bigint, v integer[], iv interval)
    new NestedBatch.Node(
        "s",
        ColumnKind.STRUCT,
        new NestedBatch.Node("k", ColumnKind.INT64),
        NestedBatch.Node.list("v", NestedBatch.Node.element(ColumnKind.INT32)),
        new NestedBatch.Node("iv", ColumnKind.INTERVAL)),
    // (k integer, t text)[]
    NestedBatch.Node.list(
        "ls",
        NestedBatch.Node.element(
            ColumnKind.STRUCT,
            new NestedBatch.Node("k", ColumnKind.INT32),
            new NestedBatch.Node("t", ColumnKind.STRING))),
    new NestedBatch.Node("i", ColumnKind.INT32),
    new NestedBatch.Node("t", ColumnKind.STRING),
    new NestedBatch.Node("iv", ColumnKind.INTERVAL),
  };
  // Top-level columns of the kinds whose writers loop over their rows themselves (writeRows).
  private static final NestedBatch.Node[] FLAT = {
    new NestedBatch.Node("b", ColumnKind.BOOL),
    new NestedBatch.Node("s", ColumnKind.INT16),
    new NestedBatch.Node("i", ColumnKind.INT32),
    new NestedBatch.Node("l", ColumnKind.INT64),
    new NestedBatch.Node("f", ColumnKind.FLOAT32),
    new NestedBatch.Node("d", ColumnKind.FLOAT64),
    new NestedBatch.Node("u", ColumnKind.UUID),
    new NestedBatch.Node("t", ColumnKind.STRING),
  };

  @TempDir Path dir;

  @Test
  void handWrittenEdgesMatchTheRecordPath() throws Exception {
    List<Object[]> rows = new ArrayList<>();
    // every column NULL
    rows.add(new Object[COLUMNS.length]);
    // every list empty, the struct with every field NULL
    rows.add(
        new Object[] {List.of(), List.of(), new Object[3], List.of(), 0, "", new long[] {0, 0, 0}});
    // NULL elements; an empty and a NULL inner list; a struct whose list is empty
    rows.add(
        new Object[] {
          Arrays.asList(null, 1, null),
          Arrays.asList(List.of(), null, Arrays.asList("x", null)),
          new Object[] {7L, List.of(), null},
          Arrays.asList(null, new Object[] {null, null}, new Object[] {3, "y"}),
          null,
          null,
          null
        });
    // one of everything, twice, so that repetition continues past the first entry
    rows.add(
        new Object[] {
          List.of(1, 2),
          List.of(List.of("a", "b"), List.of("c")),
          new Object[] {-1L, Arrays.asList(5, null, 6), new long[] {-14, 3, -86_400_000_000L}},
          List.of(new Object[] {1, "p"}, new Object[] {2, "q"}),
          -5,
          "ü",
          new long[] {1, -2, 3}
        });
    String options = "row_group_rows=3\n";
    compare(COLUMNS, rows, 4, options);
  }

  @Test
  void randomRowsAcrossBatchesSlicesAndRowGroupsMatchTheRecordPath() throws Exception {
    Random random = new Random(20261201);
    List<Object[]> rows = new ArrayList<>();
    for (int r = 0; r < 2500; r++) {
      Object[] row = new Object[COLUMNS.length];
      for (int c = 0; c < COLUMNS.length; c++) {
        row[c] = value(random, COLUMNS[c], 0);
      }
      rows.add(row);
    }
    // 512-row batches, 128-row slices, 700-row groups: the boundaries never line up.
    compare(COLUMNS, rows, 512, "row_group_rows=700\n");
    compare(COLUMNS, rows, 512, "row_group_rows=700\nwriter_version=v2\ndictionary=false\n");
  }

  @Test
  void flatKindsAcrossBatchesSlicesAndRowGroupsMatchTheRecordPath() throws Exception {
    Random random = new Random(20261202);
    List<Object[]> rows = new ArrayList<>();
    for (int r = 0; r < 2500; r++) {
      Object[] row = new Object[FLAT.length];
      for (int c = 0; c < FLAT.length; c++) {
        row[c] = value(random, FLAT[c], 0);
      }
      rows.add(row);
    }
    compare(FLAT, rows, 512, "row_group_rows=700\n");
    compare(FLAT, rows, 512, "row_group_rows=700\nwriter_version=v2\ndictionary=false\n");
  }

  private static Object value(Random random, NestedBatch.Node node, int depth) {
    if (random.nextInt(7) == 0) {
      return null;
    }
    switch (node.kind) {
      case ColumnKind.BOOL:
        return random.nextBoolean();
      case ColumnKind.INT16:
        return (short) random.nextInt();
      case ColumnKind.FLOAT32:
        return random.nextFloat() * 100 - 50;
      case ColumnKind.FLOAT64:
        return random.nextGaussian();
      case ColumnKind.UUID:
        return new UUID(random.nextLong(), random.nextLong());
      case ColumnKind.INT32:
        return random.nextInt(50) - 25;
      case ColumnKind.INT64:
        return random.nextLong();
      case ColumnKind.STRING:
        return "s" + random.nextInt(40);
      case ColumnKind.INTERVAL:
        return new long[] {random.nextInt(), random.nextInt(), random.nextLong()};
      case ColumnKind.LIST:
        {
          List<Object> list = new ArrayList<>();
          int n = random.nextInt(depth == 0 ? 5 : 3);
          for (int i = 0; i < n; i++) {
            list.add(value(random, node.children[0], depth + 1));
          }
          return list;
        }
      default:
        {
          Object[] fields = new Object[node.children.length];
          for (int i = 0; i < fields.length; i++) {
            fields[i] = value(random, node.children[i], depth + 1);
          }
          return fields;
        }
    }
  }

  /** Writes {@code rows} both ways in batches of {@code capacity} rows and compares the files. */
  private void compare(
      NestedBatch.Node[] columns, List<Object[]> rows, int capacity, String options)
      throws IOException {
    TestBatch batch = new TestBatch(capacity, NestedBatch.kinds(columns), 1 << 20);
    BatchSink sink = NestedBatch.sink(columns, batch, "compression=uncompressed\n" + options);
    Path columnar = dir.resolve("columnar-" + options.hashCode() + ".parquet");
    sink.openPart(columnar.toString());
    for (int from = 0; from < rows.size(); from += capacity) {
      batch.garbage();
      int n = Math.min(capacity, rows.size() - from);
      for (int r = 0; r < n; r++) {
        for (int c = 0; c < columns.length; c++) {
          NestedBatch.set(batch, c, r, columns[c], rows.get(from + r)[c]);
        }
      }
      sink.writeBatch(n);
    }
    sink.closePart();

    MessageType schema = ReadBack.footer(columnar).getFileMetaData().getSchema();
    Path reference = dir.resolve("reference-" + options.hashCode() + ".parquet");
    SinkOptions parsed = SinkOptions.parse(options);
    try (ParquetWriter<Group> writer =
        ExampleParquetWriter.builder(new LocalOutputFile(reference))
            .withConf(new Configuration())
            .withType(schema)
            .withCompressionCodec(CompressionCodecName.UNCOMPRESSED)
            .withRowGroupRowCountLimit(parsed.rowGroupRows)
            .withWriterVersion(parsed.writerVersion)
            .withDictionaryEncoding(parsed.dictionary)
            .build()) {
      for (Object[] row : rows) {
        Group group = new SimpleGroup(schema);
        for (int c = 0; c < columns.length; c++) {
          if (row[c] != null) {
            NestedBatch.add(group, columns[c], row[c]);
          }
        }
        writer.write(group);
      }
    }

    List<Group> expected = ReadBack.rows(reference);
    List<Group> actual = ReadBack.rows(columnar);
    assertEquals(rows.size(), expected.size(), "the reference holds every row");
    assertEquals(expected.size(), actual.size());
    for (int r = 0; r < expected.size(); r++) {
      assertEquals(dump(expected.get(r)), dump(actual.get(r)), "row " + r);
    }
    assertEquals(chunks(ReadBack.footer(reference)), chunks(ReadBack.footer(columnar)));
  }

  /** Every field of a record, with how often it repeats, so that NULL and empty differ. */
  private static String dump(Group group) {
    StringBuilder out = new StringBuilder();
    dump(group, out);
    return out.toString();
  }

  private static void dump(Group group, StringBuilder out) {
    GroupType type = group.getType();
    out.append('{');
    for (int f = 0; f < type.getFieldCount(); f++) {
      Type field = type.getType(f);
      int n = group.getFieldRepetitionCount(f);
      out.append(field.getName()).append('#').append(n).append(':');
      for (int i = 0; i < n; i++) {
        if (field.isPrimitive()) {
          out.append(group.getValueToString(f, i));
        } else {
          dump(group.getGroup(f, i), out);
        }
        out.append(',');
      }
    }
    out.append('}');
  }

  /** Per row group its row count, per column chunk its path, counts and statistics. */
  private static List<String> chunks(ParquetMetadata footer) {
    List<String> result = new ArrayList<>();
    for (BlockMetaData block : footer.getBlocks()) {
      result.add("rows " + block.getRowCount());
      for (ColumnChunkMetaData chunk : block.getColumns()) {
        result.add(
            chunk.getPath()
                + " values "
                + chunk.getValueCount()
                + " nulls "
                + chunk.getStatistics().getNumNulls()
                + " "
                + chunk.getStatistics());
      }
    }
    assertTrue(result.size() > 1, "the file has row groups");
    return result;
  }
}
