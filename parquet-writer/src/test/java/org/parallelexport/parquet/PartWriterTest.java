/*
 * PartWriterTest: where row groups end, and the recycled page buffers.
 *
 * Row groups end at row_group_rows exactly, whatever the batch size, and by row_group_bytes for
 * any row width: a batch of rows of tens of kilobytes is split across row groups so that none
 * holds much more than row_group_bytes (ParquetWriter, checking every 100 rows or more, buffered
 * 100 such rows before its first look).
 */
package org.parallelexport.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

  @Test
  void releasedBuffersAreHandedOutAgain() {
    RecyclingAllocator allocator = new RecyclingAllocator();
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
  void sizeClassesAreAtMostAnEighthLarger() {
    for (int size = 1; size < 1 << 22; size = size * 3 / 2 + 1) {
      int capacity = RecyclingAllocator.sizeClass(size);
      assertTrue(capacity >= size && capacity <= Math.max(64, size + size / 8 + 1), "" + size);
      assertEquals(capacity, RecyclingAllocator.sizeClass(capacity));
    }
  }
}
