package org.parallelexport.parquet;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;

/**
 * ReadBack: reads a part with parquet-java's own Hadoop-based reader, independently of this
 * module's codec factory (ReadBackCodecs), for the unit tests.
 */
final class ReadBack {
  private ReadBack() {}

  static List<Group> rows(Path file) throws IOException {
    List<Group> rows = new ArrayList<>();
    try (ParquetReader<Group> reader =
        ParquetReader.builder(new GroupReadSupport(), new org.apache.hadoop.fs.Path(file.toUri()))
            .withConf(new Configuration())
            .withCodecFactory(new ReadBackCodecs())
            .build()) {
      for (Group g = reader.read(); g != null; g = reader.read()) {
        rows.add(g);
      }
    }
    return rows;
  }

  static ParquetMetadata footer(Path file) throws IOException {
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(file.toUri()), new Configuration()))) {
      return reader.getFooter();
    }
  }

  static boolean isNull(Group row, String field) {
    return row.getFieldRepetitionCount(field) == 0;
  }
}
