package org.parallelexport.parquet;

import java.nio.file.Path;

/**
 * ShadedJarSmoke: a main run by ShadedJarIT in a fresh JVM whose class path is only the shaded jar
 * (plus this test code), the way a PostgreSQL worker's JVM sees it.
 *
 * <p>It writes one part per codec through BatchSink, so any Hadoop class that writing needs would
 * fail here with NoClassDefFoundError. It does not read the parts back: parquet-java 1.18.1's
 * reader cannot run without Hadoop. Prints one "{@literal part <path> <size>}" line per part and
 * "smoke ok" at the end; the IT reads the parts with the Hadoop-based reader.
 */
public final class ShadedJarSmoke {
  static final String[] CODECS = {"uncompressed", "snappy", "gzip", "zstd", "lz4_raw", "brotli"};

  private ShadedJarSmoke() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    TestBatch batch = AllKinds.batch();
    for (String codec : CODECS) {
      BatchSink sink = AllKinds.sink(batch, "compression=" + codec);
      Path file = dir.resolve("smoke-" + codec + ".parquet");
      sink.openPart(file.toString());
      sink.writeBatch(3);
      sink.writeBatch(3);
      long size = sink.closePart();
      System.out.println("part " + file + " " + size);
    }
    System.out.println("smoke ok");
  }
}
