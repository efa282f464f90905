package org.parallelexport.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PartWriterTest: where row groups end, and the recycled page buffers.
 *
 * <p>Row groups end at row_group_rows exactly, whatever the batch size, and by row_group_bytes for
 * any row width: a batch of rows of tens of kilobytes is split across row groups so that none holds
 * much more than row_group_bytes (ParquetWriter, checking every 100 rows or more, buffered 100 such
 * rows before its first look).
 *
 * <p>A column that dropped its dictionary in a row group writes the part's later row groups without
 * one; a column that kept it, or whose row group held nothing but nulls, keeps trying.
 */
class PartWriterTest {
  private static final int ROW_BYTES = 20_000;
  private static final long GROUP_BYTES = 100_000;

  @TempDir Path dir;

  private List<Long> rowGroupRows(Path file) throws Exception {
    List<Long> rows = new ArrayList<>();
    for (BlockMetaData block : ReadBack.footer(file).getBlocks()) {
      rows.add(block.getRowCount());
    }
    return rows;
  }

  /** Writes {@code batches} batches of {@code rows} rows of (bigint, text of textBytes bytes). */
  private Path write(String name, int batches, int rows, int textBytes, String options)
      throws Exception {
    TestBatch batch = new TestBatch(rows, new int[] {ColumnKind.INT64, ColumnKind.STRING}, 0);
    batch.grown(rows * textBytes);
    BatchSink sink =
        batch.sink(
            new String[] {"id", "w"},
            new String[] {"bigint", "text"},
            "compression=uncompressed\ndictionary=false\n" + options);
    Path file = dir.resolve(name);
    Random random = new Random(7);
    byte[] text = new byte[textBytes];
    sink.openPart(file.toString());
    long id = 0;
    for (int b = 0; b < batches; b++) {
      batch.garbage();
      for (int r = 0; r < rows; r++) {
        batch.setLong(0, r, id++);
        for (int i = 0; i < textBytes; i++) {
          text[i] = (byte) ('a' + random.nextInt(26));
        }
        batch.setBytes(1, r, text);
      }
      sink.writeBatch(rows);
    }
    sink.closePart();
    assertEquals((long) batches * rows, ReadBack.rows(file).size());
    return file;
  }

  @Test
  void rowGroupsEndAtTheRowLimitAcrossBatches() throws Exception {
    Path file = write("rows.parquet", 5, 300, 8, "row_group_rows=700\n");
    assertEquals(List.of(700L, 700L, 100L), rowGroupRows(file));
  }

  @Test
  void wideRowsSplitABatchAcrossRowGroupsBoundedByBytes() throws Exception {
    Path file = write("wide.parquet", 3, 50, ROW_BYTES, "row_group_bytes=" + GROUP_BYTES + "\n");
    List<BlockMetaData> blocks = ReadBack.footer(file).getBlocks();
    assertTrue(blocks.size() >= 150 * ROW_BYTES / GROUP_BYTES, "groups: " + blocks.size());
    for (BlockMetaData block : blocks) {
      assertTrue(
          block.getTotalByteSize() <= GROUP_BYTES + ROW_BYTES,
          "a row group of "
              + block.getRowCount()
              + " rows, "
              + block.getTotalByteSize()
              + " bytes");
    }
    // Control: the same rows, narrow, fit one row group.
    Path narrow = write("narrow.parquet", 3, 50, 8, "row_group_bytes=" + GROUP_BYTES + "\n");
    assertEquals(List.of(150L), rowGroupRows(narrow));
  }

  /**
   * Three row groups of 200000 rows, each the same pattern: "late" holds 10 values for a page
   * (20000 rows, parquet-java's page row limit), which keeps its dictionary, then distinct values,
   * whose dictionary outgrows parquet-java's 1 MB and is dropped mid-row-group, after the first
   * page was written with it; "low" holds 3 values; "sparse" is null in the first row group and
   * holds 5 values in the others.
   */
  @Test
  void aDroppedDictionaryIsNotTriedAgainInThePart() throws Exception {
    int groupRows = 200_000;
    int batchRows = 10_000;
    TestBatch batch =
        new TestBatch(
            batchRows, new int[] {ColumnKind.INT64, ColumnKind.INT64, ColumnKind.INT64}, 0);
    BatchSink sink =
        batch.sink(
            new String[] {"late", "low", "sparse"},
            new String[] {"bigint", "bigint", "bigint"},
            "compression=uncompressed\ndictionary=true\nrow_group_rows=" + groupRows + "\n");
    Path file = dir.resolve("fallback.parquet");
    sink.openPart(file.toString());
    long row = 0;
    for (int b = 0; b < 3 * groupRows / batchRows; b++) {
      for (int r = 0; r < batchRows; r++, row++) {
        batch.setLong(0, r, late(row, groupRows));
        batch.setLong(1, r, row % 3);
        if (row < groupRows) {
          batch.setNull(2, r);
        } else {
          batch.setLong(2, r, row % 5);
        }
      }
      sink.writeBatch(batchRows);
    }
    sink.closePart();

    List<BlockMetaData> blocks = ReadBack.footer(file).getBlocks();
    assertEquals(3, blocks.size());
    // Premise: the first row group tried the dictionary and dropped it: a dictionary page and
    // plain pages.
    assertTrue(blocks.get(0).getColumns().get(0).hasDictionaryPage());
    assertTrue(blocks.get(0).getColumns().get(0).getEncodings().contains(Encoding.PLAIN));
    for (int g = 1; g < 3; g++) {
      List<ColumnChunkMetaData> chunks = blocks.get(g).getColumns();
      assertFalse(chunks.get(0).hasDictionaryPage(), "late, row group " + g);
      assertTrue(chunks.get(1).hasDictionaryPage(), "low, row group " + g);
      assertTrue(chunks.get(2).hasDictionaryPage(), "sparse, row group " + g);
    }
    assertTrue(blocks.get(0).getColumns().get(1).hasDictionaryPage());

    List<Group> rows = ReadBack.rows(file);
    assertEquals(3 * groupRows, rows.size());
    for (int r = 0; r < rows.size(); r++) {
      Group read = rows.get(r);
      assertEquals(late(r, groupRows), read.getLong("late", 0), "row " + r);
      assertEquals(r % 3, read.getLong("low", 0), "row " + r);
      if (r < groupRows) {
        assertTrue(ReadBack.isNull(read, "sparse"), "row " + r);
      } else {
        assertEquals(r % 5, read.getLong("sparse", 0), "row " + r);
      }
    }
  }

  private static long late(long row, int groupRows) {
    return row % groupRows < 20_000 ? row % 10 : row;
  }

  @Test
  void releasedBuffersAreHandedOutAgain() {
    RecyclingAllocator allocator = RecyclingAllocator.forRowGroups(OptionDefaults.ROW_GROUP_BYTES);
    ByteBuffer first = allocator.allocate(1000);
    assertEquals(1000, first.limit());
    assertEquals(RecyclingAllocator.sizeClass(1000), first.capacity());
    first.put(0, (byte) 9).position(17);
    allocator.release(first);
    assertEquals(first.capacity(), allocator.retained());
    ByteBuffer again = allocator.allocate(990);
    assertSame(first, again);
    assertEquals(0, again.position());
    assertEquals(990, again.limit());
    assertEquals(0, allocator.retained());
    // Another class, and a buffer above the pooled size, are new.
    assertNotSame(first, allocator.allocate(5000));
    ByteBuffer big = allocator.allocate(RecyclingAllocator.MAX_POOLED + 1);
    allocator.release(big);
    assertEquals(0, allocator.retained());
  }

  @Test
  void thePoolKeepsWhatOneRowGroupBuffers() {
    // At the default row_group_bytes, a row group's worth: 16 of the largest pooled buffers.
    assertEquals(16, buffersKept(RecyclingAllocator.forRowGroups(OptionDefaults.ROW_GROUP_BYTES)));
    assertEquals(
        24, buffersKept(RecyclingAllocator.forRowGroups(24L * RecyclingAllocator.MAX_POOLED)));
    // Smaller row groups keep the floor, 8 of them.
    assertEquals(8, buffersKept(RecyclingAllocator.forRowGroups(1024 * 1024)));
  }

  // How many buffers of MAX_POOLED bytes the pool keeps of 30 released together; the kept ones
  // are handed out again, the others are new.
  private static int buffersKept(RecyclingAllocator allocator) {
    ByteBuffer[] released = new ByteBuffer[30];
    for (int i = 0; i < released.length; i++) {
      released[i] = allocator.allocate(RecyclingAllocator.MAX_POOLED);
    }
    for (ByteBuffer buffer : released) {
      allocator.release(buffer);
    }
    int kept = (int) (allocator.retained() / RecyclingAllocator.MAX_POOLED);
    for (int i = 0; i < released.length; i++) {
      ByteBuffer again = allocator.allocate(RecyclingAllocator.MAX_POOLED);
      boolean reused = false;
      for (ByteBuffer buffer : released) {
        reused |= buffer == again;
      }
      assertEquals(i < kept, reused, "buffer " + i);
    }
    return kept;
  }

  @Test
  void sizeClassesAreAtMostAnEighthLarger() {
    for (int size = 1; size < 1 << 22; size = size * 3 / 2 + 1) {
      int capacity = RecyclingAllocator.sizeClass(size);
      assertTrue(capacity >= size && capacity <= Math.max(64, size + size / 8 + 1), "" + size);
      assertEquals(capacity, RecyclingAllocator.sizeClass(capacity));
    }
  }
}
