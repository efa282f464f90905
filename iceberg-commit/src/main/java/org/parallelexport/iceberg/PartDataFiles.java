package org.parallelexport.iceberg;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Table;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * PartDataFiles: the Iceberg DataFile entry of one Parquet part a worker wrote.
 *
 * <p>Everything comes from the part's own footer, read once over java.nio (no Hadoop): the exact
 * row count, the size on disk, the row groups' offsets (readers split on them), and the column
 * metrics engines prune by (value, null and NaN counts, lower and upper bounds), computed by
 * Iceberg's ParquetUtil.footerMetrics under the table's metrics configuration. The table's schema
 * maps names to ids for a part written without field ids; a part with ids is read by them.
 */
public final class PartDataFiles {
  private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);
  private static final int TAIL_BYTES = Integer.BYTES + MAGIC.length;

  private PartDataFiles() {}

  /**
   * The DataFile of the part at {@code file}, registered under {@code location} (where readers of
   * {@code table} will find it). The table must be unpartitioned (IcebergCommitter checks).
   */
  public static DataFile of(Table table, Path file, String location) {
    ParquetMetadata footer = footer(file);
    Metrics metrics =
        ParquetUtil.footerMetrics(
            footer,
            Stream.empty(),
            MetricsConfig.forTable(table),
            MappingUtil.create(table.schema()));
    return DataFiles.builder(table.spec())
        .withPath(location)
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(sizeOf(file))
        .withMetrics(metrics)
        .withSplitOffsets(ParquetUtil.getSplitOffsets(footer))
        .build();
  }

  private static long sizeOf(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException("could not read the size of part " + file, e);
    }
  }

  /**
   * The footer of the Parquet file at {@code file}: its last eight bytes are the footer's length
   * (four bytes, little-endian) and the magic "PAR1", the footer just before them.
   *
   * <p>parquet-java's own readers (ParquetFileReader.open, readFooter) build ParquetReadOptions,
   * whose builder makes Hadoop's codec factory: with no Hadoop at run time they cannot load. The
   * footer's bytes are decoded by parquet-java's own ParquetMetadataConverter.
   */
  static ParquetMetadata footer(Path file) {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = channel.size();
      ByteBuffer tail = ByteBuffer.allocate(TAIL_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      if (size < MAGIC.length + TAIL_BYTES) {
        throw new IOException("too short to be a Parquet file");
      }
      readFully(channel, tail, size - TAIL_BYTES);
      long length = tail.getInt(0) & 0xFFFFFFFFL;
      byte[] magic = new byte[MAGIC.length];
      tail.position(Integer.BYTES).get(magic);
      if (!Arrays.equals(MAGIC, magic) || length > size - MAGIC.length - TAIL_BYTES) {
        throw new IOException("not a Parquet file with a plaintext footer");
      }
      ByteBuffer bytes = ByteBuffer.allocate((int) length);
      readFully(channel, bytes, size - TAIL_BYTES - length);
      return new ParquetMetadataConverter()
          .readParquetMetadata(
              new ByteArrayInputStream(bytes.array()), ParquetMetadataConverter.NO_FILTER);
    } catch (IOException e) {
      throw new UncheckedIOException("could not read the footer of part " + file, e);
    }
  }

  private static void readFully(FileChannel channel, ByteBuffer into, long position)
      throws IOException {
    while (into.hasRemaining()) {
      if (channel.read(into, position + into.position()) < 0) {
        throw new IOException("unexpected end of file");
      }
    }
  }
}
