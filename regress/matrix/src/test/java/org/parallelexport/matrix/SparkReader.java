package org.parallelexport.matrix;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.datasources.parquet.ParquetToSparkSchemaConverter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Apache Spark (parquet-java's reader under Spark's own conversion) in local mode on loopback, with
 * java.time values and UTC as the session time zone.
 *
 * <p>spark.read.parquet infers one schema for the whole file and fails for every column when it
 * cannot convert one of them, so each column is read with its own schema, converted by Spark's
 * converter from the file's schema of just that column: a column Spark cannot convert fails alone,
 * with Spark's own error. {@link #wholeFile} records what inference does.
 */
final class SparkReader implements Reader {
  private final SparkSession spark;
  private final Map<Path, String> wholeFile = new HashMap<>();

  SparkReader() {
    spark = localSession();
  }

  /** The local, loopback, UTC Spark session every Spark test here reads with. */
  static SparkSession localSession() {
    SparkSession session =
        SparkSession.builder()
            .master("local[1]")
            .appName("pep-reader-matrix")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.datetime.java8API.enabled", "true")
            .config("spark.sql.shuffle.partitions", "1")
            .getOrCreate();
    session.sparkContext().setLogLevel("ERROR");
    return session;
  }

  @Override
  public String name() {
    return "Spark " + spark.version();
  }

  /** What spark.read.parquet(file) without a schema did: null if it read the file. */
  String wholeFile(Path file) {
    return wholeFile.get(file);
  }

  @Override
  public Map<String, Read> read(Path file, List<String> columns) throws Exception {
    try {
      spark.read().parquet(file.toString()).collectAsList();
      wholeFile.put(file, null);
    } catch (Exception e) {
      wholeFile.put(file, Read.failed(e).error());
    }
    Configuration conf = spark.sessionState().newHadoopConf();
    MessageType schema;
    try (ParquetFileReader footer =
        ParquetFileReader.open(
            HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(file.toUri()), conf))) {
      schema = footer.getFileMetaData().getSchema();
    }
    ParquetToSparkSchemaConverter converter =
        new ParquetToSparkSchemaConverter(spark.sessionState().conf());
    Map<String, Read> out = new LinkedHashMap<>();
    List<StructField> readable = new ArrayList<>();
    for (String c : columns) {
      try {
        StructType st =
            converter.convert(
                new MessageType("spark_schema", schema.getType("id"), schema.getType(c)));
        readable.add(st.fields()[1]);
      } catch (Exception e) {
        out.put(c, Read.failed(e));
      }
    }
    // One job for every column Spark can convert; a group that fails is split in halves, so a
    // few columns that convert but cannot be read cost a few jobs, not one per column.
    readGroup(file, readable, out);
    Map<String, Read> ordered = new LinkedHashMap<>();
    columns.forEach(c -> ordered.put(c, out.get(c)));
    return ordered;
  }

  private void readGroup(Path file, List<StructField> fields, Map<String, Read> out) {
    List<StructField> all = new ArrayList<>();
    all.add(DataTypes.createStructField("id", DataTypes.IntegerType, true));
    all.addAll(fields);
    List<Row> rows;
    try {
      rows =
          spark
              .read()
              .schema(DataTypes.createStructType(all))
              .parquet(file.toString())
              .collectAsList();
    } catch (Exception e) {
      if (fields.size() == 1) {
        out.put(fields.get(0).name(), Read.failed(e));
      } else {
        int half = fields.size() / 2;
        readGroup(file, fields.subList(0, half), out);
        readGroup(file, fields.subList(half, fields.size()), out);
      }
      return;
    }
    for (int i = 0; i < fields.size(); i++) {
      Map<Integer, Object> values = new TreeMap<>();
      int col = i + 1;
      for (Row r : rows) {
        values.put(r.getInt(0), Reader.guarded(() -> r.get(col)));
      }
      out.put(fields.get(i).name(), new Read(values, null));
    }
  }

  @Override
  public void close() {
    spark.stop();
  }
}
