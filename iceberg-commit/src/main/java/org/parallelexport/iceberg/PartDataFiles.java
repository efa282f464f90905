package org.parallelexport.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Table;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.LocalInputFile;

/**
 * PartDataFiles: the Iceberg DataFile entry of one Parquet part a worker wrote.
 *
 * <p>Everything comes from the part's own footer, read once through parquet-java's java.nio
 * LocalInputFile (no Hadoop): the exact row count, the size on disk, the row groups' offsets
 * (readers split on them), and the column metrics engines prune by (value, null and NaN counts,
 * lower and upper bounds), computed by Iceberg's ParquetUtil.footerMetrics under the table's
 * metrics configuration. The table's schema maps names to ids for a part written without field ids;
 * a part with ids is read by them.
 */
public final class PartDataFiles {
  private PartDataFiles() {}

  /**
   * The DataFile of the part at {@code file}, registered under {@code location} (where readers of
   * {@code table} will find it). The table must be unpartitioned (IcebergCommitter checks).
   */
  public static DataFile of(Table table, Path file, String location) {
    ParquetMetadata footer;
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
      footer = reader.getFooter();
    } catch (IOException e) {
      throw new UncheckedIOException("could not read the footer of part " + file, e);
    }
    Metrics metrics =
        ParquetUtil.footerMetrics(
            footer,
            Stream.empty(),
            MetricsConfig.forTable(table),
            MappingUtil.create(table.schema()));
    long size;
    try {
      size = Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException("could not read the size of part " + file, e);
    }
    return DataFiles.builder(table.spec())
        .withPath(location)
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(size)
        .withMetrics(metrics)
        .withSplitOffsets(ParquetUtil.getSplitOffsets(footer))
        .build();
  }
}
