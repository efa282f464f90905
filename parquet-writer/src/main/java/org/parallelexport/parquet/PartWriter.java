package org.parallelexport.parquet;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.schema.MessageType;

/**
 * PartWriter: one part file, written a column at a time through parquet-java's column writer API.
 *
 * <p>This is what parquet-java's InternalParquetRecordWriter does for ParquetWriter, minus the
 * record path: a ParquetFileWriter over the part's OutputFile (any OutputFile: a local file or an
 * object-store upload), and per row group a ColumnChunkPageWriteStore (compressed pages, bloom
 * filters) under a ColumnWriteStore (encoders, dictionaries and their fallback, statistics, page
 * cuts), both from the sink's ParquetProperties. write() hands each column's ValueWriter a slice of
 * the batch's rows, then ends the slice's records in the store, which cuts pages on its own.
 *
 * <p>Row groups end as ParquetWriter ends them, checked more often: at row_group_rows rows exactly
 * (a slice never crosses that count), or when the buffered row group is within two average rows of
 * row_group_bytes, which is checked after every slice instead of every 100 to 10000 rows. A slice
 * is also cut short so that the batch bytes of its rows (fixed widths plus var lengths) fit what is
 * left of row_group_bytes, so one batch of wide rows (megabytes each) is split across row groups
 * rather than buffered whole: a row group holds at most row_group_bytes plus one row, whatever the
 * rows' width.
 *
 * <p>A column whose dictionary parquet-java dropped in a row group is written without one in the
 * part's later row groups (FallbackWatch), as if dictionary_off_columns had named it.
 */
final class PartWriter {
  // Becomes the file's "writer.model.name" key, as ParquetWriter names its WriteSupport's model.
  static final String MODEL_NAME = "parallel_export_parquet";
  // Rows per slice: the store cuts pages between slices, so this is how far past the point where
  // ParquetWriter would have cut a page this writer may cut it.
  static final int SLICE_ROWS = 128;

  private final ValueWriter[] writers;
  // Where the writers read the current slice's text and bytes (see VarBytes).
  private final VarBytes varBytes;
  private final MessageType schema;
  private final Map<String, String> metadata;
  // The sink's settings, plus the dictionary turned off for the columns that dropped theirs.
  private ParquetProperties properties;
  private final BytesInputCompressor compressor;
  private final long rowGroupBytes;
  private final int rowGroupRows;
  private final ParquetFileWriter file;
  // Batch bytes per row of the fixed-width columns, and where the var-width columns' slots are.
  private final long fixedRowBytes;
  private final int[] varNulls;
  private final int[] varSlots;
  // The buffer positions [varFrom, varTo) that the values of the slice sliceEnd cut lie within.
  private int varFrom;
  private int varTo;

  private ColumnChunkPageWriteStore pages;
  private FallbackWatch fallbacks;
  private ColumnWriteStore columns;
  private int groupRows;
  // The store's buffered bytes after the last slice.
  private long buffered;
  private int rowGroupOrdinal;

  PartWriter(
      OutputFile out,
      ValueWriter[] writers,
      VarBytes varBytes,
      MessageType schema,
      Map<String, String> metadata,
      ParquetProperties properties,
      BytesInputCompressor compressor,
      SinkOptions options)
      throws IOException {
    this.writers = requireNonNull(writers, "writers is null");
    this.varBytes = requireNonNull(varBytes, "varBytes is null");
    this.schema = requireNonNull(schema, "schema is null");
    this.metadata = requireNonNull(metadata, "metadata is null");
    this.properties = requireNonNull(properties, "properties is null");
    this.compressor = requireNonNull(compressor, "compressor is null");
    this.rowGroupBytes = options.rowGroupBytes;
    this.rowGroupRows = options.rowGroupRows;
    long fixed = 0;
    int vars = 0;
    for (ValueWriter writer : writers) {
      if (writer instanceof VarWidthValueWriter) {
        vars++;
      } else {
        fixed += writer.valueWidth();
      }
    }
    this.fixedRowBytes = fixed;
    this.varNulls = new int[vars];
    this.varSlots = new int[vars];
    vars = 0;
    for (ValueWriter writer : writers) {
      if (writer instanceof VarWidthValueWriter) {
        varNulls[vars] = writer.nullOffset;
        varSlots[vars++] = writer.valueOffset;
      }
    }
    this.file =
        new ParquetFileWriter(
            out,
            schema,
            ParquetFileWriter.Mode.CREATE,
            rowGroupBytes,
            ParquetWriter.MAX_PADDING_SIZE_DEFAULT,
            null,
            properties);
    file.start();
    startRowGroup();
  }

  /** Writes rows 0..rows-1 of the batch, ending row groups where they are full. */
  void write(ByteBuffer buffer, int rows) throws IOException {
    int from = 0;
    while (from < rows) {
      int to = sliceEnd(buffer, from, rows);
      varBytes.load(buffer, varFrom, varTo);
      for (ValueWriter writer : writers) {
        writer.writeRows(buffer, from, to);
      }
      ColumnWriteStore store = columns;
      for (int row = from; row < to; row++) {
        store.endRecord();
      }
      groupRows += to - from;
      from = to;
      buffered = store.getBufferedSize();
      if (groupRows >= rowGroupRows || groupFull()) {
        flushRowGroup();
        startRowGroup();
      }
    }
  }

  /** Bytes the part will take: the row groups written so far plus the buffered one. */
  long dataSize() throws IOException {
    return file.getPos() + columns.getBufferedSize();
  }

  /**
   * Binds the sink's value writers, which all parts share, to this part's row group again: another
   * part that started a row group since took them over.
   */
  void rebind() {
    for (ValueWriter writer : writers) {
      writer.bind(columns, schema);
    }
  }

  /** Bytes of the row group being buffered. */
  long bufferedSize() {
    return columns.getBufferedSize();
  }

  /** Writes the buffered rows out as a row group now, to give its memory back. */
  void endRowGroup() throws IOException {
    if (groupRows > 0) {
      flushRowGroup();
      startRowGroup();
    }
  }

  /** Writes the last row group and the footer, and closes the OutputFile's stream. */
  void close() throws IOException {
    flushRowGroup();
    Map<String, String> footer = new LinkedHashMap<>(metadata);
    footer.put(ParquetWriter.OBJECT_MODEL_NAME_PROP, MODEL_NAME);
    file.end(footer);
  }

  private void startRowGroup() {
    pages =
        ColumnChunkPageWriteStore.builder()
            .withCompressorProvider(column -> compressor)
            .withSchema(schema)
            .withAllocator(properties.getAllocator())
            .withColumnIndexTruncateLength(properties.getColumnIndexTruncateLength())
            .withPageWriteChecksumEnabled(properties.getPageWriteChecksumEnabled())
            .withRowGroupOrdinal(rowGroupOrdinal)
            .build();
    fallbacks = new FallbackWatch(pages);
    columns = properties.newColumnWriteStore(schema, fallbacks, pages);
    for (ValueWriter writer : writers) {
      writer.bind(columns, schema);
    }
    groupRows = 0;
    buffered = 0;
    HeapBound.betweenRowGroups();
  }

  private void flushRowGroup() throws IOException {
    try {
      if (groupRows > 0) {
        rowGroupOrdinal++;
        file.startBlock(groupRows);
        columns.flush();
        pages.flushToFileWriter(file);
        file.endBlock();
        dictionariesOff(fallbacks.fellBack());
      }
    } finally {
      // Gives the encoders' and the pages' buffers back to the allocator.
      columns.close();
      pages.close();
    }
  }

  /**
   * Turns the dictionary off for these columns in the part's later row groups. parquet-java names a
   * column by its dotted path, so one whose path has a name with a dot in it keeps trying.
   */
  private void dictionariesOff(List<ColumnDescriptor> fellBack) {
    ParquetProperties.Builder builder = null;
    for (ColumnDescriptor column : fellBack) {
      String[] path = column.getPath();
      if (properties.isDictionaryEnabled(column)
          && Arrays.stream(path).noneMatch(name -> name.contains("."))) {
        if (builder == null) {
          builder = ParquetProperties.copy(properties);
        }
        builder.withDictionaryEncoding(String.join(".", path), false);
      }
    }
    if (builder != null) {
      properties = builder.build();
    }
  }

  /** ParquetWriter's test: the row group is within about two rows of row_group_bytes. */
  private boolean groupFull() {
    return buffered > rowGroupBytes - 2 * (buffered / groupRows);
  }

  /**
   * The end of the next slice from {@code from}: at most SLICE_ROWS rows, no further than the row
   * group's row limit, and no more rows than the row group's remaining bytes hold (always one at
   * least). Sets varFrom and varTo around the var values of the slice's rows (of one more row when
   * the bytes cut it short).
   */
  private int sliceEnd(ByteBuffer buffer, int from, int rows) {
    int end = Math.min(rows, from + Math.min(SLICE_ROWS, rowGroupRows - groupRows));
    long room = rowGroupBytes - buffered;
    long bytes = 0;
    int low = Integer.MAX_VALUE;
    int high = 0;
    for (int row = from; row < end; row++) {
      bytes += fixedRowBytes;
      for (int v = 0; v < varSlots.length; v++) {
        if (buffer.get(varNulls[v] + row) == 0) {
          int slot = varSlots[v] + row * ColumnKind.VAR_SLOT_WIDTH;
          int offset = buffer.getInt(slot);
          int length = buffer.getInt(slot + 4);
          bytes += length;
          low = Math.min(low, offset);
          high = Math.max(high, offset + length);
        }
      }
      if (bytes > room && row > from) {
        end = row;
        break;
      }
    }
    varFrom = low;
    varTo = high;
    return end;
  }
}
