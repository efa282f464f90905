package org.parallelexport.matrix;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.parallelexport.readback.TypeCases;

/**
 * partition_by read back through Spark's partition discovery ({@code spark.read.parquet(dir)},
 * types inferred from the folder names), value by value against PostgreSQL: text with escapes and
 * NULLs, dates, integers, timestamps with and without time zone, one to three levels.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PartitionedSparkTest {
  private static final String TABLE = "regress_partitioned_spark";
  private Connection pg;
  private SparkSession spark;

  @BeforeAll
  void setUp() throws SQLException {
    pg = TypeCases.connect();
    try (Statement st = pg.createStatement()) {
      st.execute("CREATE EXTENSION IF NOT EXISTS parallel_export_parquet");
      st.execute("SET TimeZone = 'UTC'");
      st.execute("DROP TABLE IF EXISTS " + TABLE);
      st.execute(
          "CREATE TABLE "
              + TABLE
              + " AS SELECT g AS id,"
              + " CASE WHEN g % 7 = 0 THEN NULL"
              + " ELSE (ARRAY['eu/west', 'a=b', '50%', 'with space', 'zürich'])[g % 5 + 1] END AS region,"
              + " date '2026-11-28' + g % 3 AS d, (g % 4)::integer AS k,"
              + " timestamp '2026-11-30 12:34:56.789' + (g % 2) * interval '1 hour' AS ts,"
              + " timestamptz '2026-11-30 23:30:00+00' + (g % 2) * interval '1 hour' AS tz,"
              + " md5(g::text) AS payload FROM generate_series(1, 5000) AS g");
    }
    spark = SparkReader.localSession();
  }

  @AfterAll
  void tearDown() throws SQLException {
    try (Statement st = pg.createStatement()) {
      st.execute("DROP TABLE IF EXISTS " + TABLE);
    }
    pg.close();
    spark.stop();
  }

  private Path export(String name, String by) throws SQLException {
    Path dir = TypeCases.exportDir("partitioned-spark-" + name);
    try (Statement st = pg.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT parallel_export_parquet('"
                    + TABLE
                    + "', '"
                    + dir
                    + "', 2, partition_by => "
                    + by
                    + ")")) {
      rs.next();
      assertEquals(5000, rs.getLong(1), "rows exported");
    }
    return dir;
  }

  private List<String> postgres(String columns) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement st = pg.createStatement();
        ResultSet rs = st.executeQuery("SELECT " + columns + " FROM " + TABLE + " ORDER BY id")) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder row = new StringBuilder();
        for (int i = 1; i <= n; i++) {
          row.append(i > 1 ? "|" : "").append(rs.getString(i));
        }
        out.add(row.toString());
      }
    }
    return out;
  }

  /** Spark's rows of columns, ordered by id; instants as epoch microseconds. */
  private List<String> spark(Path dir, String... columns) {
    Dataset<Row> df = spark.read().parquet(dir.toString());
    List<String> out = new ArrayList<>();
    for (Row r : df.selectExpr(columns).orderBy("id").collectAsList()) {
      StringBuilder row = new StringBuilder();
      for (int i = 0; i < r.size(); i++) {
        Object v = r.get(i);
        if (v instanceof Instant t) {
          v = t.getEpochSecond() * 1_000_000 + t.getNano() / 1000;
        }
        row.append(i > 0 ? "|" : "").append(v);
      }
      out.add(row.toString());
    }
    return out;
  }

  private String sparkType(Path dir, String column) {
    return spark.read().parquet(dir.toString()).schema().apply(column).dataType().simpleString();
  }

  @Test
  void textAndDatesReadBackWithTheirTypes() throws SQLException {
    Path dir = export("region-d", "ARRAY['region', 'd']");
    assertEquals("string", sparkType(dir, "region"));
    assertEquals("date", sparkType(dir, "d"));
    assertEquals(
        postgres("id, region, to_char(d, 'YYYY-MM-DD'), payload"),
        spark(dir, "id", "region", "d", "payload"));
  }

  @Test
  void integersAndTimestampsReadBack() throws SQLException {
    Path dir = export("k-ts-tz", "ARRAY['k', 'ts', 'tz']");
    assertEquals("int", sparkType(dir, "k"));
    // Spark 4.2 infers neither timestamp form (the escaped ":" are decoded first) and leaves them
    // strings; cast, they are the same values: the instant's form with its "Z" in any session
    // time zone, the one without in the session's (UTC here).
    assertEquals("string", sparkType(dir, "ts"));
    assertEquals("string", sparkType(dir, "tz"));
    assertEquals(
        postgres(
            "id, k, (extract(epoch FROM ts) * 1000000)::bigint,"
                + " (extract(epoch FROM tz) * 1000000)::bigint, payload"),
        spark(dir, "id", "k", "CAST(ts AS TIMESTAMP)", "CAST(tz AS TIMESTAMP)", "payload"));
  }
}
