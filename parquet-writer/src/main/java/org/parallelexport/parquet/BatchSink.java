package org.parallelexport.parquet;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * BatchSink: the Java entry point the C side of parallel_export_parquet calls through JNI.
 *
 * <p>Each PostgreSQL parallel worker boots one JVM and creates one sink with the export's column
 * specs, the layout of its batch buffer and the export options. The worker then, for each part
 * file: openPart(path); writeBatch(rows) after each time it has filled the buffer; closePart(),
 * which syncs the file and returns its size for the worker's report. On any error the worker raises
 * ERROR and exits; the leader's cleanup deletes the file, which the C side entered in the export's
 * ledger before openPart created it. Java never calls back into C, and each call does one batch's
 * work, so the worker reaches CHECK_FOR_INTERRUPTS often (DESIGN.md, "Failure handling").
 *
 * <p>A partitioned export's worker keeps several parts open, one per partition folder it is
 * writing: selectPart(slot) makes slot the part the other calls act on (slot 0 is the only one
 * otherwise), and after each batch the open parts' buffered row groups are held to a shared budget
 * by writing out the largest early (DESIGN.md, "Bounded memory"). An object store's part also holds
 * its upload's buffers, which count in the budget and only finishing the part frees: partToFinish
 * names such a part, and the C side finishes it. Which part to close when all slots are taken is
 * the C side's choice too.
 *
 * <p>A part is a PartWriter, which writes each batch a column at a time into parquet-java's column
 * writers; the sink keeps what all parts share: the column writers' tree, the schema, the footer's
 * metadata, the encoder settings, whose allocator recycles page buffers across parts, and the
 * compressor, whose page buffers are reused the same way.
 *
 * <p>The buffer is one direct ByteBuffer owned by C, in native byte order. For column c, the
 * capacityRows bytes at nullOffsets[c] hold 1 for NULL and 0 for a value; values start at
 * valueOffsets[c], either capacityRows fixed-width values or capacityRows (int32 offset, int32
 * length) pairs into the buffer's var area. C overwrites the buffer for the next batch, so nothing
 * may keep a view of it past writeBatch (see BinaryValueWriter).
 *
 * <p>Errors are Java exceptions, which the C side turns into ereport(ERROR):
 * IllegalArgumentException for bad specs, options or values, IllegalStateException for calls out of
 * order (and the injected fault), IOException (FileAlreadyExistsException among them) for file
 * errors. After a writeBatch failure the part cannot be closed, only aborted. Not thread-safe: a
 * worker calls it from its main thread only.
 */
public final class BatchSink {
  static final String WRITER_VERSION = "1.0.0";
  static final String MESSAGE_NAME = "schema";

  private final ValueWriter[] writers;
  // The heap copy of each slice's var bytes that the writers read text and bytes from.
  private final VarBytes varBytes;
  private final MessageType schema;
  private final Map<String, String> metadata;
  private final SinkOptions options;
  private final CreatedByStamp stamp;
  private final int capacityRows;
  private final ParquetProperties properties;
  private ByteBuffer buffer;
  private long batches;
  // Set by failNextBatch, the fault injection's java_error (extension/src/testhooks/pep_fault.c).
  private boolean failNextBatch;
  private final DirectBuffers buffers = new DirectBuffers();
  private PartFile.Factory partFiles =
      (path, stamp) -> new SyncingOutputFile(Path.of(path), stamp, buffers);

  // The open part, all null when none is.
  private String partPath;
  private PartFile partFile;
  private PartWriter partWriter;
  // Set when a writeBatch failed: the writer may hold half a row, so no footer may be written.
  private boolean partFailed;

  // The open parts by slot, the current one included; the current slot.
  private final Part[] parts;
  private int slot;
  // With several slots: each slot's buffered row group bytes and the bytes its file holds (an
  // upload's buffers) after its last write, and the sum of both.
  private final long[] buffered;
  private final long[] held;
  private long bufferedTotal;
  // One codec factory for every part, open at once or one after another, as one file's columns
  // share one: a compressor is used only while a page is written, and the page writer copies its
  // output. A factory per part made each part allocate its compressor's page-sized buffers anew,
  // which outlived young collections and filled the old generation with a dead pair per part.
  private final LocalCodecFactory codecs;

  /** An open part while another slot is current. */
  private static final class Part {
    String path;
    PartFile file;
    PartWriter writer;
    boolean failed;
  }

  private BatchSink(
      ValueWriter[] writers,
      VarBytes varBytes,
      MessageType schema,
      Map<String, String> metadata,
      SinkOptions options,
      int capacityRows) {
    this.writers = writers;
    this.varBytes = varBytes;
    this.schema = schema;
    this.metadata = metadata;
    this.options = options;
    this.stamp = new CreatedByStamp(options.createdByExtension);
    this.capacityRows = capacityRows;
    this.properties = properties(options, writers);
    this.parts = new Part[options.partWriters];
    this.buffered = new long[options.partWriters];
    this.held = new long[options.partWriters];
    this.codecs = new LocalCodecFactory(options.compressionLevel);
  }

  /** The encoder settings every part gets: the options, on parquet-java's defaults. */
  private static ParquetProperties properties(SinkOptions options, ValueWriter[] writers) {
    ParquetProperties.Builder builder =
        ParquetProperties.builder()
            .withAllocator(RecyclingAllocator.forRowGroups(options.rowGroupBytes))
            .withRowGroupRowCountLimit(options.rowGroupRows)
            .withPageSize(options.pageSize)
            .withDictionaryEncoding(options.dictionary)
            .withWriterVersion(options.writerVersion)
            .withStatisticsEnabled(options.statistics);
    for (int column : options.bloomFilterColumns) {
      builder.withBloomFilterEnabled(columnName(writers, column), true);
    }
    for (int column : options.dictionaryOffColumns) {
      builder.withDictionaryEncoding(columnName(writers, column), false);
    }
    return builder.build();
  }

  /** A sink whose columns are all flat (no LIST or STRUCT), one node each; for tests. */
  public static BatchSink create(
      String[] names,
      int[] kinds,
      int[] precisions,
      int[] scales,
      String[] pgTypes,
      int capacityRows,
      int[] nullOffsets,
      int[] valueOffsets,
      ByteBuffer buffer,
      String options) {
    requireNonNull(names, "names is null");
    requireNonNull(kinds, "kinds is null");
    return create(
        names,
        kinds,
        precisions,
        scales,
        pgTypes,
        capacityRows,
        nullOffsets,
        valueOffsets,
        buffer,
        options,
        names.clone(),
        kinds.clone(),
        precisions == null ? null : precisions.clone(),
        scales == null ? null : scales.clone(),
        new int[kinds.length]);
  }

  /**
   * One per worker process. The first arrays have one entry per column. The node arrays describe
   * every column's type tree in pre-order, column after column, each column's root included (its
   * name and kind equal the column's): name, kind, DECIMAL precision and scale, and the number of
   * children, which follow the node (a LIST's element, a STRUCT's fields).
   */
  public static BatchSink create(
      String[] names,
      int[] kinds,
      int[] precisions,
      int[] scales,
      String[] pgTypes,
      int capacityRows,
      int[] nullOffsets,
      int[] valueOffsets,
      ByteBuffer buffer,
      String options,
      String[] nodeNames,
      int[] nodeKinds,
      int[] nodePrecisions,
      int[] nodeScales,
      int[] nodeChildren) {
    requireNonNull(names, "names is null");
    requireNonNull(kinds, "kinds is null");
    requireNonNull(precisions, "precisions is null");
    requireNonNull(scales, "scales is null");
    requireNonNull(pgTypes, "pgTypes is null");
    requireNonNull(nullOffsets, "nullOffsets is null");
    requireNonNull(valueOffsets, "valueOffsets is null");
    requireNonNull(buffer, "buffer is null");
    requireNonNull(options, "options is null");
    requireNonNull(nodeNames, "nodeNames is null");
    requireNonNull(nodeKinds, "nodeKinds is null");
    requireNonNull(nodePrecisions, "nodePrecisions is null");
    requireNonNull(nodeScales, "nodeScales is null");
    requireNonNull(nodeChildren, "nodeChildren is null");
    int n = names.length;
    if (n == 0) {
      throw new IllegalArgumentException("at least one column is required");
    }
    if (kinds.length != n
        || precisions.length != n
        || scales.length != n
        || pgTypes.length != n
        || nullOffsets.length != n
        || valueOffsets.length != n) {
      throw new IllegalArgumentException("column arrays differ in length");
    }
    if (capacityRows <= 0) {
      throw new IllegalArgumentException("capacityRows must be positive: " + capacityRows);
    }
    SinkOptions parsed = SinkOptions.parse(options);

    List<Column> columns = new ArrayList<>(n);
    ValueWriter[] writers = new ValueWriter[n];
    VarBytes varBytes = new VarBytes();
    List<Type> fields = new ArrayList<>(n);
    Set<String> seen = new HashSet<>();
    int nodes = nodeNames.length;
    if (nodeKinds.length != nodes
        || nodePrecisions.length != nodes
        || nodeScales.length != nodes
        || nodeChildren.length != nodes) {
      throw new IllegalArgumentException("node arrays differ in length");
    }
    int[] next = {0};
    for (int c = 0; c < n; c++) {
      if (next[0] >= nodes
          || !names[c].equals(nodeNames[next[0]])
          || kinds[c] != nodeKinds[next[0]]) {
        throw new IllegalArgumentException("column " + c + " does not match its root node");
      }
      int root = next[0]++;
      List<Column> children =
          nodeColumns(
              nodeNames,
              nodeKinds,
              nodePrecisions,
              nodeScales,
              nodeChildren,
              nodeChildren[root],
              next);
      Column column =
          new Column(
              c,
              requireNonNull(names[c], "names[" + c + "] is null"),
              kinds[c],
              precisions[c],
              scales[c],
              requireNonNull(pgTypes[c], "pgTypes[" + c + "] is null"),
              nullOffsets[c],
              valueOffsets[c],
              children);
      // Parquet looks fields up by name; a query may well return two columns of one name.
      if (!seen.add(column.name)) {
        throw new IllegalArgumentException("column name \"" + column.name + "\" is used twice");
      }
      columns.add(column);
      writers[c] = ValueWriters.create(column, varBytes);
      fields.add(writers[c].parquetType);
    }
    if (next[0] != nodes) {
      throw new IllegalArgumentException(
          "node arrays hold " + nodes + " nodes, the columns' trees " + next[0]);
    }
    BatchSink sink =
        new BatchSink(
            writers,
            varBytes,
            new MessageType(MESSAGE_NAME, FieldIds.apply(fields, parsed.fieldIds)),
            FileMetadata.of(columns, parsed),
            parsed,
            capacityRows);
    sink.setBuffer(buffer);
    return sink;
  }

  /** Reads {@code count} sibling nodes from {@code next[0]} on, each with its subtree. */
  private static List<Column> nodeColumns(
      String[] names,
      int[] kinds,
      int[] precisions,
      int[] scales,
      int[] children,
      int count,
      int[] next) {
    if (count < 0) {
      throw new IllegalArgumentException("a node has " + count + " children");
    }
    List<Column> result = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int at = next[0]++;
      if (at >= names.length) {
        throw new IllegalArgumentException("node arrays end inside a column's tree");
      }
      List<Column> sub =
          nodeColumns(names, kinds, precisions, scales, children, children[at], next);
      result.add(
          new Column(
              i,
              requireNonNull(names[at], "nodeNames[" + at + "] is null"),
              kinds[at],
              precisions[at],
              scales[at],
              "",
              -1,
              -1,
              sub));
    }
    return result;
  }

  /** C replaced the buffer (grew its var area); the layout offsets are unchanged. */
  public void setBuffer(ByteBuffer buffer) {
    requireNonNull(buffer, "buffer is null");
    // Absolute gets check against the limit, so that is the size that counts.
    long size = buffer.limit();
    for (ValueWriter writer : writers) {
      long nulls = writer.nullOffset;
      long values = writer.valueOffset;
      if (nulls < 0
          || nulls + capacityRows > size
          || values < 0
          || values + (long) capacityRows * writer.valueWidth() > size) {
        throw new IllegalArgumentException(
            String.format(
                "column \"%s\": null area at %d or value area at %d does not fit a %d-byte buffer"
                    + " of %d rows",
                writer.name, nulls, values, size, capacityRows));
      }
    }
    buffer.order(ByteOrder.nativeOrder());
    this.buffer = buffer;
    for (ValueWriter writer : writers) {
      writer.useBuffer(buffer);
    }
  }

  /**
   * Where parts go from now on: {@code factory} makes each part's PartFile from the path openPart
   * is given (an object-store export makes uploads, s3.S3Export). Local files by default.
   */
  public void usePartFiles(PartFile.Factory factory) {
    partFiles = requireNonNull(factory, "factory is null");
  }

  /** Makes slot the part the other calls act on; the current part stays open in its slot. */
  public void selectPart(int slot) {
    if (slot < 0 || slot >= parts.length) {
      throw new IllegalArgumentException("slot must be 0 to " + (parts.length - 1) + ": " + slot);
    }
    Part park = new Part();
    park.path = partPath;
    park.file = partFile;
    park.writer = partWriter;
    park.failed = partFailed;
    parts[this.slot] = park;
    Part next = parts[slot];
    parts[slot] = null;
    this.slot = slot;
    partPath = next == null ? null : next.path;
    partFile = next == null ? null : next.file;
    partWriter = next == null ? null : next.writer;
    partFailed = next != null && next.failed;
    if (partWriter != null) {
      partWriter.rebind();
    }
  }

  /**
   * While the open parts hold more than part_memory_bytes together, the one that holds the most
   * writes its row group out early (its part stays open), unless its file holds more than its row
   * group: that part is one for partToFinish.
   */
  private void holdMemoryBudget() throws IOException {
    if (parts.length == 1) {
      return;
    }
    account(slot, partWriter.bufferedSize(), partFile.heldBytes());
    while (bufferedTotal > options.partMemoryBytes) {
      int largest = largestSlot();
      if (buffered[largest] == 0 || held[largest] > buffered[largest]) {
        return;
      }
      Part other = largest == slot ? null : parts[largest];
      (other == null ? partWriter : other.writer).endRowGroup();
      account(largest, 0, (other == null ? partFile : other.file).heldBytes());
      partWriter.rebind();
    }
  }

  /**
   * The slot of the part to finish now, or -1: while the open parts hold more than
   * part_memory_bytes, the one that holds the most, if most of that is its file's (an upload's
   * buffers, which writing a row group out cannot free). Finishing it is the C side's, which knows
   * its folder; closePart then accounts it as freed.
   */
  public int partToFinish() {
    if (parts.length == 1 || bufferedTotal <= options.partMemoryBytes) {
      return -1;
    }
    int largest = largestSlot();
    return held[largest] > buffered[largest] ? largest : -1;
  }

  private int largestSlot() {
    int largest = slot;
    for (int s = 0; s < buffered.length; s++) {
      if (buffered[s] + held[s] > buffered[largest] + held[largest]) {
        largest = s;
      }
    }
    return largest;
  }

  /** Records that slot now buffers bytes in its row group and its file holds fileBytes. */
  private void account(int slot, long bytes, long fileBytes) {
    bufferedTotal += bytes - buffered[slot] + fileBytes - held[slot];
    buffered[slot] = bytes;
    held[slot] = fileBytes;
  }

  /** Creates the part, which must not exist, and starts writing it. */
  public void openPart(String path) throws IOException {
    requireNonNull(path, "path is null");
    if (partWriter != null) {
      throw new IllegalStateException("part " + partPath + " is still open");
    }
    PartFile file = partFiles.create(path, stamp);
    try {
      partWriter =
          new PartWriter(
              file,
              writers,
              varBytes,
              schema,
              metadata,
              properties,
              codecs.getCompressor(options.compression),
              options);
    } catch (IOException | RuntimeException | Error e) {
      file.abandon();
      throw e;
    }
    partPath = path;
    partFile = file;
    partFailed = false;
  }

  /** Writes rows 0..rows-1 of the current buffer to the open part. */
  public void writeBatch(int rows) throws IOException {
    requireOpenPart("write to");
    if (partFailed) {
      throw new IllegalStateException(
          "cannot write to part " + partPath + " after an earlier error; abort it");
    }
    if (rows < 0 || rows > capacityRows) {
      throw new IllegalArgumentException("rows must be 0 to " + capacityRows + ": " + rows);
    }
    if (failNextBatch) {
      partFailed = true;
      throw new IllegalStateException("injected fault after " + batches + " batches");
    }
    batches++;
    try {
      partWriter.write(buffer, rows);
      holdMemoryBudget();
    } catch (IOException | RuntimeException | Error e) {
      partFailed = true;
      throw e;
    }
  }

  /**
   * Makes the next writeBatch throw, as a failure inside the writer would: the fault injection's
   * java_error, which the C side decides to strike (extension/src/testhooks/pep_fault.c) so that it
   * can pick whichever worker reaches the batch first.
   */
  public void failNextBatch() {
    failNextBatch = true;
  }

  /** Bytes the open part will take: written so far plus the buffered row group. */
  public long partSize() throws IOException {
    requireOpenPart("measure");
    return partWriter.dataSize();
  }

  /**
   * Bytes past which the C side ends a part whatever file_size_bytes says: what one upload holds
   * for an object store (S3Settings.partSizeLimit), no limit for local files.
   */
  public long partSizeLimit() {
    return partFiles.partSizeLimit();
  }

  /** Finishes the footer and closes the part (a file is synced); returns its size in bytes. */
  public long closePart() throws IOException {
    requireOpenPart("close");
    if (partFailed) {
      String path = partPath;
      abortPart();
      throw new IllegalStateException(
          "cannot close part " + path + " after an earlier error; it was aborted");
    }
    try {
      partWriter.close();
    } catch (IOException | RuntimeException | Error e) {
      abortPart();
      throw e;
    }
    if (partFile.footerMissing()) {
      String path = partPath;
      abortPart();
      throw new IOException("parquet part " + path + " was closed without its footer");
    }
    long size = partFile.position();
    clearPart();
    return size;
  }

  /**
   * Gives up the open part without writing a footer; the caller deletes the file (an upload is
   * aborted by its owner). Never throws; does nothing when no part is open.
   */
  public void abortPart() {
    if (partFile == null) {
      return;
    }
    partFile.abandon();
    clearPart();
  }

  private void clearPart() {
    if (parts.length > 1) {
      account(slot, 0, 0);
    }
    partPath = null;
    partFile = null;
    partWriter = null;
    partFailed = false;
  }

  private static String columnName(ValueWriter[] writers, int column) {
    if (column < 0 || column >= writers.length) {
      throw new IllegalArgumentException("column position out of range: " + column);
    }
    return writers[column].name;
  }

  private void requireOpenPart(String action) {
    if (partWriter == null) {
      throw new IllegalStateException("cannot " + action + " a part: none is open");
    }
  }

  /** The Parquet schema every part gets. */
  public MessageType schema() {
    return schema;
  }

  /** The key-value metadata every part's footer gets (the Avro schema among it). */
  public Map<String, String> metadata() {
    return metadata;
  }
}
