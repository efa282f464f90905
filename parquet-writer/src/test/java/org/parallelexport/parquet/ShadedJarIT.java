package org.parallelexport.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ShadedJarIT: proves that target/parallel_export_parquet.jar is all a worker's JVM needs.
 *
 * <p>Runs after the package phase (failsafe): checks that the jar holds no Hadoop class and one
 * HTTP transport for S3 (the JDK's, not Netty's or Apache's), starts ShadedJarSmoke in a new JVM
 * with only the jar and the test classes on its class path and -verbose:class, checks that no
 * org.apache.hadoop class was even attempted, and reads every part the smoke wrote with
 * parquet-java's own Hadoop-based reader.
 */
class ShadedJarIT {
  private static final Path JAR = Path.of("target", "parallel_export_parquet.jar");
  private static final Path TEST_CLASSES = Path.of("target", "test-classes");

  @TempDir Path dir;

  @Test
  void jarHasNoHadoop() throws Exception {
    assertTrue(Files.isRegularFile(JAR), JAR + " missing");
    try (JarFile jar = new JarFile(JAR.toFile())) {
      assertFalse(
          jar.stream().anyMatch(e -> e.getName().startsWith("org/apache/hadoop/")),
          "Hadoop classes in " + JAR);
      assertTrue(jar.getEntry("org/parallelexport/parquet/BatchSink.class") != null);
    }
  }

  @Test
  void jarHasOneHttpTransport() throws Exception {
    try (JarFile jar = new JarFile(JAR.toFile())) {
      assertTrue(
          jar.getEntry("software/amazon/awssdk/http/urlconnection/UrlConnectionHttpClient.class")
              != null);
      for (String heavy :
          new String[] {
            "io/netty/", "org/apache/http/", "org/apache/hc/", "software/amazon/awssdk/crt/"
          }) {
        assertFalse(
            jar.stream().anyMatch(e -> e.getName().startsWith(heavy)), heavy + " in " + JAR);
      }
    }
  }

  @Test
  void writesAndReadsWithOnlyTheShadedJar() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Path out = dir.resolve("smoke.out");
    Process process =
        new ProcessBuilder(
                java,
                "-Xrs",
                "-verbose:class",
                "-cp",
                JAR + File.pathSeparator + TEST_CLASSES,
                ShadedJarSmoke.class.getName(),
                dir.toString())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    assertTrue(process.waitFor(120, TimeUnit.SECONDS), "smoke run timed out");
    List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
    String output = String.join("\n", lines);
    assertEquals(0, process.exitValue(), output);
    assertTrue(lines.contains("smoke ok"), output);
    assertFalse(output.contains("org.apache.hadoop"), "a Hadoop class was loaded or looked up");
    assertFalse(output.contains("SLF4J"), "slf4j complained on stderr");

    int parts = 0;
    for (String line : lines) {
      if (line.startsWith("part ")) {
        String[] f = line.split(" ");
        Path file = Path.of(f[1]);
        assertEquals(Files.size(file), Long.parseLong(f[2]));
        assertEquals(6, ReadBack.rows(file).size());
        parts++;
      }
    }
    assertEquals(ShadedJarSmoke.CODECS.length, parts);
  }
}
