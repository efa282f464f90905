package org.parallelexport.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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

/**
 * RecordPath: writes the same rows through BatchSink and through parquet-java's own record path,
 * and checks that both files hold the same records, row groups and column chunk statistics.
 *
 * <p>The rows go once through BatchSink, from a batch laid out as the C side lays it out (and
 * filled with garbage before each batch, so that a value kept past its batch shows), and once
 * through parquet-java's example Group writer (RecordConsumer and MessageColumnIO, the path
 * BatchSink used before) with the same options. Both files are read back with parquet-java's
 * reader. The tests of the levels (ColumnLevelsTest) and of the text path (ReusedBytesTest) share
 * it.
 */
final class RecordPath {
  private RecordPath() {}

  /** The two files of one comparison. */
  static final class Written {
    final Path columnar;
    final Path reference;

    private Written(Path columnar, Path reference) {
      this.columnar = columnar;
      this.reference = reference;
    }
  }

  /**
   * Writes {@code rows} both ways into {@code dir}, BatchSink in batches of {@code capacity} rows
   * with a var area of {@code varBytes}, and compares the files.
   */
  static Written compare(
      Path dir,
      NestedBatch.Node[] columns,
      List<Object[]> rows,
      int capacity,
      int varBytes,
      String options)
      throws IOException {
    TestBatch batch = new TestBatch(capacity, NestedBatch.kinds(columns), varBytes);
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
    ExampleParquetWriter.Builder builder =
        ExampleParquetWriter.builder(new LocalOutputFile(reference))
            .withConf(new Configuration())
            .withType(schema)
            .withCompressionCodec(CompressionCodecName.UNCOMPRESSED)
            .withRowGroupRowCountLimit(parsed.rowGroupRows)
            .withPageSize(parsed.pageSize)
            .withWriterVersion(parsed.writerVersion)
            .withDictionaryEncoding(parsed.dictionary);
    for (int column : parsed.bloomFilterColumns) {
      builder.withBloomFilterEnabled(columns[column].name, true);
    }
    try (ParquetWriter<Group> writer = builder.build()) {
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
    return new Written(columnar, reference);
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
