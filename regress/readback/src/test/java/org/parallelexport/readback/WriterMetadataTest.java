package org.parallelexport.readback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The options field_ids and kv_metadata as DuckDB reads them: parquet_schema's field_id of every
 * schema element of every part, in schema order, and parquet_kv_metadata's pairs of every part,
 * value by value; the values exported are compared to PostgreSQL's each time.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WriterMetadataTest {
  private static final String TABLE = "regress_writer_metadata_t";
  private static final long ROWS = 30_000;
  private Connection pg;
  private Connection duck;

  @BeforeAll
  void setUp() throws SQLException {
    pg = Env.postgres();
    duck = Env.duckdb();
    Env.ensureExtension(pg);
    try (Statement st = pg.createStatement()) {
      st.execute("DROP TABLE IF EXISTS " + TABLE);
      st.execute("DROP TYPE IF EXISTS regress_wm_dog");
      st.execute("CREATE TYPE regress_wm_dog AS (name text, age integer)");
      st.execute(
          "CREATE TABLE "
              + TABLE
              + " AS SELECT g::bigint AS id, (g % 3)::integer AS k,"
              + " ROW('dog ' || g, g % 20)::regress_wm_dog AS pet,"
              + " ARRAY[g, g + 1]::integer[] AS tags,"
              + " make_interval(months => g % 13, days => g % 31, secs => g) AS iv,"
              + " ARRAY[ROW('a' || g, 1)::regress_wm_dog] AS dogs"
              + " FROM generate_series(1, "
              + ROWS
              + ") AS g");
    }
  }

  @AfterAll
  void tearDown() throws SQLException {
    try (Statement st = pg.createStatement()) {
      st.execute("DROP TABLE IF EXISTS " + TABLE);
      st.execute("DROP TYPE IF EXISTS regress_wm_dog");
    }
    pg.close();
    duck.close();
  }

  /** Exports with 2 workers and small parts, so that every check covers several parts. */
  private Path export(String name, String options) throws SQLException {
    Path dir = Env.exportDir("writer-metadata-" + name);
    assertEquals(
        ROWS,
        Env.export(pg, TABLE, dir, 2, "file_size_bytes => 200000, " + options),
        name + ": rows returned");
    assertEquals(
        fingerprint(pg, "(pet).age", "(dogs[1]).name", TABLE),
        fingerprint(duck, "pet.age", "dogs[1].name", "read_parquet(" + Env.glob(dir) + ")"),
        name + ": exported values differ from PostgreSQL's");
    return dir;
  }

  /** Aggregates over every column; the reader's spelling of a field of a composite is given. */
  private static String fingerprint(Connection c, String petAge, String dogName, String from)
      throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT count(*), sum(id), sum("
                    + petAge
                    + "), sum(tags[2]) + sum(k), min("
                    + dogName
                    + ") FROM "
                    + from)) {
      rs.next();
      StringBuilder b = new StringBuilder();
      for (int i = 1; i <= 5; i++) {
        b.append(rs.getString(i)).append(' ');
      }
      return b.toString();
    }
  }

  /** Each part's schema elements as "name:field_id" in schema order, the part's file name first. */
  private Map<String, List<String>> fieldIds(Path dir) throws SQLException {
    Map<String, List<String>> parts = new TreeMap<>();
    try (Statement st = duck.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT file_name, name, field_id FROM parquet_schema(" + Env.glob(dir) + ")")) {
      while (rs.next()) {
        parts
            .computeIfAbsent(rs.getString(1), f -> new ArrayList<>())
            .add(rs.getString(2) + ":" + rs.getString(3));
      }
    }
    assertTrue(parts.size() >= 2, "premise: several parts, saw " + parts.keySet());
    return parts;
  }

  private void assertEveryPart(Path dir, List<String> expected) throws SQLException {
    for (Map.Entry<String, List<String>> part : fieldIds(dir).entrySet()) {
      assertEquals(expected, part.getValue(), "field ids of " + part.getKey());
    }
  }

  @Test
  void autoNumbersEveryFieldInSchemaOrder() throws SQLException {
    Path dir = export("auto", "field_ids => 'auto'");
    // DuckDB's and pg_parquet's 'auto': pre-order from 0, a LIST's repeated group unnumbered.
    assertEveryPart(
        dir,
        List.of(
            "schema:null",
            "id:0",
            "k:1",
            "pet:2",
            "name:3",
            "age:4",
            "tags:5",
            "list:null",
            "element:6",
            "iv:7",
            "months:8",
            "days:9",
            "microseconds:10",
            "dogs:11",
            "list:null",
            "element:12",
            "name:13",
            "age:14"));
    Env.discard(dir);
  }

  @Test
  void explicitIdsGoWhereTheirPathsSay() throws SQLException {
    Path dir =
        export(
            "explicit",
            "field_ids => '{\"id\": 100, \"pet.age\": 7, \"tags.element\": 42,"
                + " \"dogs\": 2147483647, \"dogs.element.name\": 0, \"iv.days\": 5}'");
    assertEveryPart(
        dir,
        List.of(
            "schema:null",
            "id:100",
            "k:null",
            "pet:null",
            "name:null",
            "age:7",
            "tags:null",
            "list:null",
            "element:42",
            "iv:null",
            "months:null",
            "days:5",
            "microseconds:null",
            "dogs:2147483647",
            "list:null",
            "element:null",
            "name:0",
            "age:null"));
    Env.discard(dir);
  }

  @Test
  void noOptionNoFieldIds() throws SQLException {
    Path dir = export("none", "field_ids => NULL");
    for (List<String> part : fieldIds(dir).values()) {
      assertTrue(part.size() == 18, "premise: the whole schema, saw " + part);
      assertTrue(part.stream().allMatch(e -> e.endsWith(":null")), "no field id: " + part);
    }
    Env.discard(dir);
  }

  @Test
  void partitionedAutoNumbersTheColumnsTheFilesHold() throws SQLException {
    Path dir = Env.exportDir("writer-metadata-partitioned");
    assertEquals(
        ROWS,
        Env.export(
            pg,
            "SELECT id, k, tags FROM " + TABLE,
            dir,
            2,
            "partition_by => ARRAY['k'], field_ids => '{\"id\": 1, \"tags.element\": 3}',"
                + " kv_metadata => '{\"run\": \"p\"}'"),
        "rows");
    List<String> ids = new ArrayList<>();
    List<String> runs = new ArrayList<>();
    try (Statement st = duck.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT name, field_id FROM parquet_schema("
                    + Env.sqlString(dir + "/k=*/*.parquet")
                    + ") WHERE file_name LIKE '%k=0/%'")) {
      while (rs.next()) {
        ids.add(rs.getString(1) + ":" + rs.getString(2));
      }
    }
    try (Statement st = duck.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT decode(value) FROM parquet_kv_metadata("
                    + Env.sqlString(dir + "/k=*/*.parquet")
                    + ") WHERE decode(key) = 'run'")) {
      while (rs.next()) {
        runs.add(rs.getString(1));
      }
    }
    assertFalse(ids.isEmpty(), "premise: the folder k=0 has parts");
    assertEquals(
        List.of("schema:null", "id:1", "tags:null", "list:null", "element:3"),
        ids.subList(0, 5),
        "the partition column is not in the files, so not numbered");
    assertTrue(runs.size() >= 3 && runs.stream().allMatch("p"::equals), "every part: " + runs);
    Env.discard(dir);
  }

  /** Each part's footer pairs, key to value, as DuckDB decodes them. */
  private Map<String, Map<String, String>> kvMetadata(Path dir) throws SQLException {
    Map<String, Map<String, String>> parts = new TreeMap<>();
    try (Statement st = duck.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT file_name, decode(key), decode(value) FROM parquet_kv_metadata("
                    + Env.glob(dir)
                    + ")")) {
      while (rs.next()) {
        String previous =
            parts
                .computeIfAbsent(rs.getString(1), f -> new LinkedHashMap<>())
                .put(rs.getString(2), rs.getString(3));
        assertEquals(null, previous, "key given twice in " + rs.getString(1));
      }
    }
    assertTrue(parts.size() >= 2, "premise: several parts, saw " + parts.keySet());
    return parts;
  }

  @Test
  void kvMetadataIsInEveryFooterBesidesTheWritersOwn() throws SQLException {
    Path plain = export("kv-plain", "kv_metadata => NULL");
    Map<String, String> own = kvMetadata(plain).values().iterator().next();
    assertTrue(
        own.containsKey("parallel_export_parquet.pg_types"), "premise: the writer's keys " + own);

    String tricky = "ünïcode, with: commas \"quotes\"\nand a newline";
    Path dir =
        export(
            "kv",
            "kv_metadata => "
                + Env.sqlString(
                    "{\"source\": \"crm\", \"tricky\": "
                        + "\"ünïcode, with: commas \\\"quotes\\\"\\nand a newline\", \"\": \"\"}")
                + "::jsonb");
    for (Map.Entry<String, Map<String, String>> part : kvMetadata(dir).entrySet()) {
      Map<String, String> expected = new LinkedHashMap<>(own);
      expected.put("source", "crm");
      expected.put("tricky", tricky);
      expected.put("", "");
      assertEquals(new TreeMap<>(expected), new TreeMap<>(part.getValue()), part.getKey());
    }
    Env.discard(plain);
    Env.discard(dir);
  }
}
