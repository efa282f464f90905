package org.parallelexport.parquet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.values.bloomfilter.BloomFilter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ReusedBytesTest: text values reach parquet-java as "reused" Binary values over arrays that the
 * next slice or batch overwrites (VarBytes, BinaryValueWriter's scratch array); nothing
 * parquet-java keeps may still point into them.
 *
 * <p>The rows are written through BatchSink and through parquet-java's own record path
 * (RecordPath), whose files must hold the same values and chunk statistics, and the batch buffer is
 * filled with garbage before each batch. The columns exercise every consumer that could keep a
 * value: a dictionary kept for the whole row group, one dropped at its first page, one dropped
 * mid-group after pages were written with it, DELTA_BYTE_ARRAY (writer v2) after a drop, page
 * statistics and the column index (checked page by page against the rows), a bloom filter (compared
 * with the record path's), values in a list (nested payloads), slices too wide for VarBytes and
 * values too large for the scratch array.
 */
class ReusedBytesTest {
  private static final NestedBatch.Node[] COLUMNS = {
    new NestedBatch.Node("low", ColumnKind.STRING),
    new NestedBatch.Node("high", ColumnKind.STRING),
    new NestedBatch.Node("grow", ColumnKind.STRING),
    new NestedBatch.Node("big", ColumnKind.STRING),
    NestedBatch.Node.list("tags", NestedBatch.Node.element(ColumnKind.STRING)),
  };
  private static final int ROWS = 6000;
  private static final int GROUP_ROWS = 2000;
  // Rows whose "big" values are 9 to 12 kB: a slice of them spans more than VarBytes copies.
  private static final int WIDE_FROM = 3000;
  private static final int WIDE_TO = 3300;
  private static final int WIDE_LENGTH = 9000;
  private static final String OPTIONS =
      "row_group_rows=" + GROUP_ROWS + "\npage_size=4096\nbloom_filter_columns=1\n";
  // parquet-java's default column_index_truncate_length: longer min and max values are cut.
  private static final int TRUNCATE = 64;

  @TempDir Path dir;

  @Test
  void overwrittenValuesMatchTheRecordPathInDictionariesStatisticsAndBloomFilters()
      throws Exception {
    List<Object[]> rows = rows(new Random(20261203));
    RecordPath.Written v1 = RecordPath.compare(dir, COLUMNS, rows, 512, 8 << 20, OPTIONS);
    checkPremises(v1.columnar);
    checkColumnIndexes(v1.columnar, rows);
    checkBloomFilters(v1);
    RecordPath.Written v2 =
        RecordPath.compare(dir, COLUMNS, rows, 512, 8 << 20, OPTIONS + "writer_version=v2\n");
    checkColumnIndexes(v2.columnar, rows);
    checkBloomFilters(v2);
  }

  private static List<Object[]> rows(Random random) {
    List<Object[]> rows = new ArrayList<>();
    for (int r = 0; r < ROWS; r++) {
      boolean late = r % GROUP_ROWS >= GROUP_ROWS / 2;
      Object big = null;
      if (r >= WIDE_FROM && r < WIDE_TO) {
        big = letters(random, WIDE_LENGTH + random.nextInt(3000));
      } else if (r % 500 == 7) {
        big = letters(random, 70_000 + random.nextInt(30_000));
      }
      List<Object> tags = new ArrayList<>();
      for (int i = random.nextInt(4); i > 0; i--) {
        tags.add(random.nextInt(9) == 0 ? null : "t" + letters(random, random.nextInt(20)));
      }
      rows.add(
          new Object[] {
            random.nextInt(9) == 0 ? null : "v" + random.nextInt(50),
            random.nextInt(9) == 0 ? null : letters(random, random.nextInt(300)),
            late ? letters(random, 1000 + random.nextInt(1000)) : "g" + random.nextInt(30),
            big,
            random.nextInt(9) == 0 ? null : tags
          });
    }
    return rows;
  }

  private static String letters(Random random, int length) {
    char[] chars = new char[length];
    for (int i = 0; i < length; i++) {
      chars[i] = (char) ('a' + random.nextInt(26));
    }
    return new String(chars);
  }

  /** The file really has what the test claims to exercise. */
  // Format v1 data pages name their dictionary encoding PLAIN_DICTIONARY, deprecated only as a
  // choice for new writers, so the writer's files carry it and the test must name it.
  @SuppressWarnings("deprecation")
  private static void checkPremises(Path file) throws IOException {
    List<BlockMetaData> blocks = ReadBack.footer(file).getBlocks();
    assertEquals(ROWS / GROUP_ROWS, blocks.size(), "row groups");
    ColumnChunkMetaData low = blocks.get(0).getColumns().get(0);
    ColumnChunkMetaData high = blocks.get(0).getColumns().get(1);
    ColumnChunkMetaData grow = blocks.get(0).getColumns().get(2);
    assertTrue(low.hasDictionaryPage(), "low keeps its dictionary");
    assertTrue(
        low.getEncodings().contains(Encoding.PLAIN_DICTIONARY), low.getEncodings().toString());
    assertTrue(!high.getEncodings().contains(Encoding.PLAIN_DICTIONARY), "high drops it at once");
    assertTrue(
        grow.hasDictionaryPage()
            && grow.getEncodings().contains(Encoding.PLAIN_DICTIONARY)
            && grow.getEncodings().contains(Encoding.PLAIN),
        "grow drops its dictionary after pages written with it: " + grow.getEncodings());
    assertTrue(
        (long) WIDE_LENGTH * PartWriter.SLICE_ROWS > VarBytes.MAX_SPAN
            && WIDE_TO - WIDE_FROM >= 2 * PartWriter.SLICE_ROWS,
        "a whole slice of wide rows, too wide for VarBytes, lies among them");
  }

  /** Every page's min and max in the column index are those of the page's rows. */
  private static void checkColumnIndexes(Path file, List<Object[]> rows) throws IOException {
    int pages = 0;
    try (ParquetFileReader reader = open(file)) {
      long first = 0;
      for (BlockMetaData block : reader.getFooter().getBlocks()) {
        for (int c = 0; c < 4; c++) {
          ColumnChunkMetaData chunk = block.getColumns().get(c);
          ColumnIndex index = reader.readColumnIndex(chunk);
          OffsetIndex offsets = reader.readOffsetIndex(chunk);
          assertNotNull(index, chunk.getPath() + " has a column index");
          for (int p = 0; p < offsets.getPageCount(); p++) {
            long from = first + offsets.getFirstRowIndex(p);
            long to =
                first
                    + (p + 1 < offsets.getPageCount()
                        ? offsets.getFirstRowIndex(p + 1)
                        : block.getRowCount());
            checkPage(index, p, rows, c, from, to, chunk.getPath() + " page " + p);
            pages++;
          }
        }
        first += block.getRowCount();
      }
    }
    assertTrue(pages > 50, "many pages: " + pages);
  }

  private static void checkPage(
      ColumnIndex index, int p, List<Object[]> rows, int c, long from, long to, String what) {
    byte[] min = null;
    byte[] max = null;
    for (long r = from; r < to; r++) {
      Object value = rows.get((int) r)[c];
      if (value != null) {
        byte[] bytes = ((String) value).getBytes(StandardCharsets.UTF_8);
        min = min == null || Arrays.compareUnsigned(bytes, min) < 0 ? bytes : min;
        max = max == null || Arrays.compareUnsigned(bytes, max) > 0 ? bytes : max;
      }
    }
    if (min == null) {
      assertTrue(index.getNullPages().get(p), what + " is all NULL");
      return;
    }
    byte[] indexMin = bytes(index.getMinValues().get(p));
    byte[] indexMax = bytes(index.getMaxValues().get(p));
    if (min.length <= TRUNCATE) {
      assertArrayEquals(min, indexMin, what + " min");
    } else {
      assertArrayEquals(Arrays.copyOf(min, indexMin.length), indexMin, what + " min prefix");
    }
    if (max.length <= TRUNCATE) {
      assertArrayEquals(max, indexMax, what + " max");
    } else {
      assertTrue(Arrays.compareUnsigned(indexMax, max) >= 0, what + " max bound");
    }
  }

  /** The bloom filter of "high" in each row group is the record path's, bit for bit. */
  private static void checkBloomFilters(RecordPath.Written written) throws IOException {
    try (ParquetFileReader columnar = open(written.columnar);
        ParquetFileReader reference = open(written.reference)) {
      List<BlockMetaData> ours = columnar.getFooter().getBlocks();
      List<BlockMetaData> theirs = reference.getFooter().getBlocks();
      assertEquals(theirs.size(), ours.size());
      for (int b = 0; b < ours.size(); b++) {
        BloomFilter expected = reference.readBloomFilter(theirs.get(b).getColumns().get(1));
        BloomFilter actual = columnar.readBloomFilter(ours.get(b).getColumns().get(1));
        assertNotNull(expected, "the record path wrote a bloom filter");
        assertNotNull(actual, "BatchSink wrote a bloom filter");
        assertArrayEquals(bits(expected), bits(actual), "bloom filter of row group " + b);
      }
    }
  }

  private static byte[] bits(BloomFilter filter) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    filter.writeTo(out);
    return out.toByteArray();
  }

  private static byte[] bytes(ByteBuffer buffer) {
    byte[] bytes = new byte[buffer.remaining()];
    buffer.duplicate().get(bytes);
    return bytes;
  }

  private static ParquetFileReader open(Path file) throws IOException {
    return ParquetFileReader.open(
        HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(file.toUri()), new Configuration()));
  }
}
