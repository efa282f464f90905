package org.parallelexport.parquet;

import static java.util.Objects.requireNonNull;

import java.util.HashSet;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * KeyValueLines: the "key=value" lines in which the C side passes settings to Java.
 *
 * <p>SinkOptions (the Parquet writer's options) and S3Settings (how to reach an object store) share
 * the format and its rules: blank lines are skipped, keys and values are trimmed, and a line
 * without a key or a key given twice is an error. A line's text appears in an error only when the
 * caller says so, because S3 settings carry a secret.
 */
public final class KeyValueLines {
  private KeyValueLines() {}

  /**
   * Calls {@code set} with each key and value of {@code text}; {@code what} names a setting in
   * errors ("option", "s3 setting"), which show a malformed line only if {@code showLines}.
   */
  public static void parse(
      String text, String what, boolean showLines, BiConsumer<String, String> set) {
    requireNonNull(text, what + "s are null");
    Set<String> seen = new HashSet<>();
    for (String line : text.split("\n", -1)) {
      if (line.isBlank()) {
        continue;
      }
      int eq = line.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException(
            what + " is not key=value" + (showLines ? ": " + line : ""));
      }
      String key = line.substring(0, eq).trim();
      if (!seen.add(key)) {
        throw new IllegalArgumentException(what + " given twice: " + key);
      }
      set.accept(key, line.substring(eq + 1).trim());
    }
  }
}
