package org.parallelexport.parquet.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * S3ProxyServer: the S3 test server of the object-store ITs, on a free port of 127.0.0.1 with
 * authentication on, started and stopped by regress/lib/s3proxy.sh, and settings that reach it.
 */
// close() waits for S3Proxy's process to end, so it may throw InterruptedException, which javac's
// "try" lint warns of in a resource.
@SuppressWarnings("try")
final class S3ProxyServer implements AutoCloseable {
  private final Path dir;
  private final Map<String, String> env = new HashMap<>();

  /** Starts a server whose buckets are {@code buckets}, each created empty. */
  S3ProxyServer(String... buckets) throws Exception {
    dir = Files.createTempDirectory("pep-s3proxy");
    int port;
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort();
    }
    String[] args = new String[buckets.length + 3];
    args[0] = "start";
    args[1] = dir.toString();
    args[2] = Integer.toString(port);
    System.arraycopy(buckets, 0, args, 3, buckets.length);
    script(args);
    for (String line : Files.readAllLines(dir.resolve("s3proxy.env"))) {
      int eq = line.indexOf('=');
      env.put(line.substring(0, eq), line.substring(eq + 1));
    }
  }

  /** The folder that holds each bucket as a folder and each object as a file. */
  Path data() {
    return Path.of(env.get("PEP_S3_DATA"));
  }

  /** The server's secret, for tests that check it appears nowhere. */
  String credential() {
    return env.get("PEP_S3_CREDENTIAL");
  }

  /** Settings for this server; {@code extra} lines replace the defaults they name. */
  S3Settings settings(String extra) {
    return S3Settings.parse(settingsText(extra));
  }

  /** The same as the "key=value" text C hands to Java. */
  String settingsText(String extra) {
    Map<String, String> lines = new LinkedHashMap<>();
    lines.put("endpoint", env.get("PEP_S3_ENDPOINT"));
    lines.put("access_key_id", env.get("PEP_S3_IDENTITY"));
    lines.put("secret_access_key", env.get("PEP_S3_CREDENTIAL"));
    lines.put("part_size", Integer.toString(S3Settings.MIN_PART_BYTES));
    for (String line : extra.split("\n")) {
      if (!line.isEmpty()) {
        lines.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
      }
    }
    StringBuilder text = new StringBuilder();
    lines.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    return text.toString();
  }

  /** Stops the server, then removes its folder, which this object created. */
  @Override
  public void close() throws Exception {
    script("stop", dir.toString());
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private static void script(String... args) throws Exception {
    String[] command = new String[args.length + 1];
    command[0] = Path.of("..", "regress", "lib", "s3proxy.sh").toString();
    System.arraycopy(args, 0, command, 1, args.length);
    Process p = new ProcessBuilder(command).inheritIO().start();
    assertEquals(0, p.waitFor(), String.join(" ", command));
  }
}
