package org.parallelexport.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * NoticeIT: the NOTICE file at the top of the tree names every third-party artifact the shaded jar
 * holds.
 *
 * <p>The jar redistributes its dependencies' classes, and their licenses (Apache 2.0 above all) ask
 * that a redistribution says so. A dependency added or pulled in by an upgrade would otherwise ship
 * unlisted. Runs after the package phase (failsafe) and takes what the jar holds from two places:
 * the META-INF/maven/.../pom.properties the shaded jars carry (kept by the shade filter for this),
 * and target/shaded-artifacts.txt, the dependency plugin's list of what the shade plugin includes,
 * for the jars that carry no such entry.
 */
class NoticeIT {
  private static final Path JAR = Path.of("target", "parallel_export_parquet.jar");
  private static final Path LIST = Path.of("target", "shaded-artifacts.txt");
  private static final Path NOTICE = Path.of("..", "NOTICE");
  private static final String OWN_GROUP = "org.parallelexport";

  /** groupId:artifactId of every pom.properties in the jar but the writer's own. */
  private static Set<String> fromJar() throws IOException {
    Set<String> out = new TreeSet<>();
    try (JarFile jar = new JarFile(JAR.toFile())) {
      for (JarEntry e : jar.stream().toList()) {
        if (e.getName().startsWith("META-INF/maven/") && e.getName().endsWith("/pom.properties")) {
          Properties p = new Properties();
          try (InputStream in = jar.getInputStream(e)) {
            p.load(in);
          }
          if (!OWN_GROUP.equals(p.getProperty("groupId"))) {
            out.add(p.getProperty("groupId") + ":" + p.getProperty("artifactId"));
          }
        }
      }
    }
    return out;
  }

  /** groupId:artifactId of every line " group:artifact:jar[:classifier]:version:scope". */
  private static Set<String> fromList() throws IOException {
    Set<String> out = new TreeSet<>();
    Pattern line = Pattern.compile("^\\s+([\\w.-]+):([\\w.-]+):jar:.*:(compile|runtime)\\b.*$");
    for (String l : Files.readAllLines(LIST)) {
      Matcher m = line.matcher(l);
      if (m.matches()) {
        out.add(m.group(1) + ":" + m.group(2));
      }
    }
    return out;
  }

  private static Set<String> listedInNotice() throws IOException {
    Set<String> out = new TreeSet<>();
    Matcher m =
        Pattern.compile("(?m)^\\s+([\\w.-]+:[\\w.-]+)\\s*$").matcher(Files.readString(NOTICE));
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  @Test
  void noticeListsEveryShadedArtifact() throws IOException {
    assertTrue(Files.isRegularFile(JAR), JAR + " missing");
    assertTrue(Files.isRegularFile(LIST), LIST + " missing");
    Set<String> shaded = fromJar();
    Set<String> listed = fromList();
    // Premise: both sources name what they should, or an empty set would pass.
    assertTrue(shaded.contains("org.apache.parquet:parquet-column"), "jar metadata: " + shaded);
    assertTrue(listed.contains("org.xerial.snappy:snappy-java"), "dependency list: " + listed);
    shaded.addAll(listed);
    Set<String> missing = new TreeSet<>(shaded);
    missing.removeAll(listedInNotice());
    assertEquals(Set.of(), missing, "shaded into " + JAR + " but not listed in NOTICE");
  }
}
