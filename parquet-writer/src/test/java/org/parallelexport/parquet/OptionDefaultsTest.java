package org.parallelexport.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * OptionDefaultsTest: the SQL function's DEFAULT clauses and the option table of docs/usage.md say
 * what OptionDefaults says.
 *
 * <p>The writer options' defaults are defined once, in OptionDefaults; the C side includes them
 * through javac -h. SQL and Markdown cannot include a Java constant, so this test reads the newest
 * extension script that declares each option (the one whose definition an installed or updated
 * extension has) and docs/usage.md, and fails when a default is changed on one side only. It also
 * checks that SinkOptions parses every key OptionNames defines, which C writes through the same
 * generated header.
 */
class OptionDefaultsTest {
  private static final Path ROOT =
      Path.of(System.getProperty("basedir", ".")).resolve("..").toAbsolutePath().normalize();
  // "    row_group_bytes bigint DEFAULT 67108864," or "... pg_catalog.int8 DEFAULT ..." in a CREATE
  // FUNCTION's argument list
  private static final Pattern SQL_DEFAULT =
      Pattern.compile("(?m)^\\s*(\\w+)\\s+[\\w.\\[\\]]+\\s+DEFAULT\\s+([^,)\\n]+)");
  // "| `row_group_bytes` | 67108864 | ..." in docs/usage.md's option table
  private static final Pattern OPTION_ROW = Pattern.compile("(?m)^\\| `(\\w+)` \\| ([^|]+) \\|");

  /** Each option's default as SQL spells it. */
  private static Map<String, String> sqlDefaults() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("compression", "'" + OptionDefaults.COMPRESSION + "'");
    m.put(
        "compression_level",
        OptionDefaults.COMPRESSION_LEVEL == -1
            ? "NULL"
            : Integer.toString(OptionDefaults.COMPRESSION_LEVEL));
    m.put("row_group_rows", Integer.toString(OptionDefaults.ROW_GROUP_ROWS));
    m.put("row_group_bytes", Long.toString(OptionDefaults.ROW_GROUP_BYTES));
    m.put("file_size_bytes", Long.toString(OptionDefaults.FILE_SIZE_BYTES));
    m.put("page_size", Integer.toString(OptionDefaults.PAGE_SIZE));
    m.put("statistics", Boolean.toString(OptionDefaults.STATISTICS));
    m.put("parquet_version", "'" + OptionDefaults.WRITER_VERSION + "'");
    m.put("compatibility", "'" + OptionDefaults.COMPATIBILITY + "'");
    return m;
  }

  /** Each option's default as the option table of docs/usage.md spells it. */
  private static Map<String, String> usagePageDefaults() {
    Map<String, String> m = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : sqlDefaults().entrySet()) {
      String v = e.getValue();
      m.put(e.getKey(), v.matches("-?\\d+") ? v : "`" + v + "`");
    }
    if (OptionDefaults.COMPRESSION_LEVEL == -1) {
      m.put("compression_level", "codec default");
    }
    return m;
  }

  /** The version a script leads to: the last "--"-separated part of its name. */
  private static int[] target(Path script) {
    String name = script.getFileName().toString();
    String[] parts = name.substring(0, name.length() - ".sql".length()).split("--");
    return Stream.of(parts[parts.length - 1].split("\\.")).mapToInt(Integer::parseInt).toArray();
  }

  /** Extension scripts, newest first. */
  private static List<Path> scriptsNewestFirst() throws IOException {
    List<Path> scripts = new ArrayList<>();
    try (Stream<Path> files = Files.list(ROOT.resolve("sql"))) {
      files
          .filter(p -> p.getFileName().toString().matches("parallel_export_parquet--.*\\.sql"))
          .forEach(scripts::add);
    }
    scripts.sort(Comparator.comparing(OptionDefaultsTest::target, Arrays::compare));
    Collections.reverse(scripts);
    assertFalse(scripts.isEmpty(), "no extension scripts under " + ROOT.resolve("sql"));
    return scripts;
  }

  @Test
  void sqlDefaultsAreOptionDefaults() throws IOException {
    List<Path> scripts = scriptsNewestFirst();
    for (Map.Entry<String, String> option : sqlDefaults().entrySet()) {
      List<String> found = new ArrayList<>();
      Path where = null;
      for (Path script : scripts) {
        Matcher m = SQL_DEFAULT.matcher(Files.readString(script));
        while (m.find()) {
          if (m.group(1).equals(option.getKey())) {
            found.add(m.group(2).trim());
          }
        }
        if (!found.isEmpty()) {
          where = script;
          break;
        }
      }
      assertNotNull(where, "no script declares a default for " + option.getKey());
      for (String value : found) {
        assertEquals(
            option.getValue(),
            value,
            "DEFAULT of " + option.getKey() + " in " + where.getFileName() + " vs OptionDefaults");
      }
    }
  }

  /**
   * Every key OptionNames defines, which the C side writes, is one SinkOptions parses: a key added
   * on one side only fails here instead of failing every export with "unknown option".
   */
  @Test
  void everyOptionNameIsParsed() throws IllegalAccessException {
    int keys = 0;
    for (Field f : OptionNames.class.getDeclaredFields()) {
      if (!Modifier.isStatic(f.getModifiers()) || f.getType() != String.class) {
        continue;
      }
      String key = (String) f.get(null);
      keys++;
      try {
        SinkOptions.parse(key + "=1\n");
      } catch (IllegalArgumentException e) {
        assertFalse(
            e.getMessage().startsWith("unknown option"),
            "OptionNames." + f.getName() + " is not parsed by SinkOptions: " + e.getMessage());
      }
    }
    assertTrue(keys >= 14, "premise: OptionNames' keys were found, saw " + keys);
  }

  @Test
  void usagePageDefaultsAreOptionDefaults() throws IOException {
    Map<String, String> table = new LinkedHashMap<>();
    Matcher m = OPTION_ROW.matcher(Files.readString(ROOT.resolve("docs/usage.md")));
    while (m.find()) {
      table.putIfAbsent(m.group(1), m.group(2).trim());
    }
    for (Map.Entry<String, String> option : usagePageDefaults().entrySet()) {
      assertEquals(
          option.getValue(),
          table.get(option.getKey()),
          "docs/usage.md's default of " + option.getKey() + " vs OptionDefaults");
    }
  }
}
