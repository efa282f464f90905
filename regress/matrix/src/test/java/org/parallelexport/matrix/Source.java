package org.parallelexport.matrix;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a reader of the matrix reads for one export: its single part file, a Hive-partitioned tree
 * (partition_by) as a dataset, or its objects under an s3:// prefix (partitioned or not). local is
 * the file, the tree's root, or for s3 the S3 server's folder of the prefix (where each object is a
 * plain file), which a reader that cannot reach the server here reads instead; partitions are the
 * folder columns of a partitioned export, empty for others.
 */
record Source(Kind kind, Path local, List<String> partitions, S3Lake.Prefix s3) {
  enum Kind {
    FILE,
    TREE,
    S3
  }

  static Source file(Path file) {
    return new Source(Kind.FILE, file, List.of(), null);
  }

  static Source hive(Path root, List<String> partitions) {
    return new Source(Kind.TREE, root, List.copyOf(partitions), null);
  }

  static Source s3(S3Lake.Prefix prefix, List<String> partitions) {
    return new Source(Kind.S3, prefix.folder(), List.copyOf(partitions), prefix);
  }

  boolean partitioned() {
    return !partitions.isEmpty();
  }

  /** The part files a reader that reads files one by one is handed: every *.parquet under local. */
  List<Path> files() throws IOException {
    if (kind == Kind.FILE) {
      return List.of(local);
    }
    try (Stream<Path> s = Files.walk(local)) {
      return s.filter(p -> p.getFileName().toString().endsWith(".parquet")).sorted().toList();
    }
  }

  /** The glob of every part under local, as DuckDB and Polars take it. */
  String glob() {
    return kind == Kind.FILE ? local.toString() : local + "/" + partGlob();
  }

  /** The glob of every part below a folder or prefix. */
  String partGlob() {
    return (partitioned() ? "**/" : "") + "*.parquet";
  }
}
