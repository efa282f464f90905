package org.parallelexport.parquet;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageWriteStore;
import org.apache.parquet.column.page.PageWriter;
import org.apache.parquet.column.statistics.SizeStatistics;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.statistics.geospatial.GeospatialStatistics;

/**
 * FallbackWatch: which columns of a row group gave up their dictionary, seen from the pages they
 * write.
 *
 * <p>parquet-java tries a dictionary for every column it is enabled for and falls back to the plain
 * (v1) or delta (v2) encoding when the dictionary grows too large or does not make the first page
 * smaller. It does so again in every row group: ColumnWriteStore is made anew for each. PartWriter
 * puts this store between the column writers and the row group's ColumnChunkPageWriteStore, and
 * after the row group turns the dictionary off for the columns it names, so a part's later row
 * groups no longer hash values into a dictionary that will be dropped. That matters most for a
 * query source, whose columns the table statistics behind dictionary_off_columns do not cover.
 *
 * <p>A page whose values are all null does not count: parquet-java drops the dictionary of such a
 * first page because it saves nothing, not because of the values (without statistics parquet-java
 * counts no nulls, and such a page counts).
 */
final class FallbackWatch implements PageWriteStore {
  private final PageWriteStore pages;
  private final Map<ColumnDescriptor, Watched> writers = new HashMap<>();

  FallbackWatch(PageWriteStore pages) {
    this.pages = pages;
  }

  @Override
  public PageWriter getPageWriter(ColumnDescriptor column) {
    return writers.computeIfAbsent(column, c -> new Watched(pages.getPageWriter(c)));
  }

  /** The columns that wrote a page holding values without a dictionary. */
  List<ColumnDescriptor> fellBack() {
    List<ColumnDescriptor> columns = new ArrayList<>();
    writers.forEach(
        (column, writer) -> {
          if (writer.plain) {
            columns.add(column);
          }
        });
    return columns;
  }

  /**
   * Passes every call on, noting a data page of values not in a dictionary encoding. The overloads
   * PageWriter implements itself stay its own, as for ColumnChunkPageWriter, which does not
   * override them either.
   */
  private static final class Watched implements PageWriter {
    private final PageWriter page;
    boolean plain;

    Watched(PageWriter page) {
      this.page = page;
    }

    private void note(Encoding values, long valueCount, long nullCount) {
      if (!values.usesDictionary() && valueCount > nullCount) {
        plain = true;
      }
    }

    @Override
    @Deprecated
    public void writePage(
        BytesInput bytes,
        int valueCount,
        Statistics<?> statistics,
        Encoding rlEncoding,
        Encoding dlEncoding,
        Encoding valuesEncoding)
        throws IOException {
      note(valuesEncoding, valueCount, statistics.getNumNulls());
      page.writePage(bytes, valueCount, statistics, rlEncoding, dlEncoding, valuesEncoding);
    }

    @Override
    public void writePage(
        BytesInput bytes,
        int valueCount,
        int rowCount,
        Statistics<?> statistics,
        Encoding rlEncoding,
        Encoding dlEncoding,
        Encoding valuesEncoding)
        throws IOException {
      note(valuesEncoding, valueCount, statistics.getNumNulls());
      page.writePage(
          bytes, valueCount, rowCount, statistics, rlEncoding, dlEncoding, valuesEncoding);
    }

    @Override
    public void writePage(
        BytesInput bytes,
        int valueCount,
        int rowCount,
        Statistics<?> statistics,
        SizeStatistics sizeStatistics,
        GeospatialStatistics geospatialStatistics,
        Encoding rlEncoding,
        Encoding dlEncoding,
        Encoding valuesEncoding)
        throws IOException {
      note(valuesEncoding, valueCount, statistics.getNumNulls());
      page.writePage(
          bytes,
          valueCount,
          rowCount,
          statistics,
          sizeStatistics,
          geospatialStatistics,
          rlEncoding,
          dlEncoding,
          valuesEncoding);
    }

    @Override
    public void writePageV2(
        int rowCount,
        int nullCount,
        int valueCount,
        BytesInput repetitionLevels,
        BytesInput definitionLevels,
        Encoding dataEncoding,
        BytesInput data,
        Statistics<?> statistics)
        throws IOException {
      note(dataEncoding, valueCount, nullCount);
      page.writePageV2(
          rowCount,
          nullCount,
          valueCount,
          repetitionLevels,
          definitionLevels,
          dataEncoding,
          data,
          statistics);
    }

    @Override
    public void writePageV2(
        int rowCount,
        int nullCount,
        int valueCount,
        BytesInput repetitionLevels,
        BytesInput definitionLevels,
        Encoding dataEncoding,
        BytesInput data,
        Statistics<?> statistics,
        SizeStatistics sizeStatistics,
        GeospatialStatistics geospatialStatistics)
        throws IOException {
      note(dataEncoding, valueCount, nullCount);
      page.writePageV2(
          rowCount,
          nullCount,
          valueCount,
          repetitionLevels,
          definitionLevels,
          dataEncoding,
          data,
          statistics,
          sizeStatistics,
          geospatialStatistics);
    }

    @Override
    public long getMemSize() {
      return page.getMemSize();
    }

    @Override
    public long allocatedSize() {
      return page.allocatedSize();
    }

    @Override
    public void writeDictionaryPage(DictionaryPage dictionaryPage) throws IOException {
      page.writeDictionaryPage(dictionaryPage);
    }

    @Override
    public String memUsageString(String prefix) {
      return page.memUsageString(prefix);
    }

    @Override
    public void close() {
      page.close();
    }
  }
}
