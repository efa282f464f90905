package org.parallelexport.matrix;

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
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.datasources.parquet.ParquetToSparkSchemaConverter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Apache Spark (parquet-java's reader under Spark's own conversion) in local mode on loopback, with
 * java.time values and UTC as the session time zone. A partitioned tree is read as Spark reads a
 * table's folder, its partition columns discovered and typed by Spark; an s3:// export from the S3
 * server's folder, as Spark's s3a filesystem (hadoop-aws) needs the AWS SDK bundle, 641 MB to
 * download on every fresh CI machine.
 *
 * <p>spark.read.parquet infers one schema for the whole file and fails for every column when it
 * cannot convert one of them, so each column is read with its own schema, converted by Spark's
 * converter from the file's schema of just that column: a column Spark cannot convert fails alone,
 * with Spark's own error. {@link #wholeFile} records what inference does.
 */
final class SparkReader implements Reader {
  private static final StructField ID =
      DataTypes.createStructField("id", DataTypes.IntegerType, true);
  private final SparkSession spark;
  private final Map<Source, String> wholeFile = new HashMap<>();

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

  /** What spark.read.parquet of the source without a schema did: null if it read it all. */
  String wholeFile(Source source) {
    return wholeFile.get(source);
  }

  @Override
  public Map<String, Read> read(Source source, List<String> columns) throws Exception {
    String path = source.local().toString();
    try {
      spark.read().parquet(path).collectAsList();
      wholeFile.put(source, null);
    } catch (Exception e) {
      wholeFile.put(source, Read.failed(e).error());
    }
    Configuration conf = spark.sessionState().newHadoopConf();
    MessageType schema;
    try (ParquetFileReader footer =
        ParquetFileReader.open(
            HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(source.files().get(0).toUri()), conf))) {
      schema = footer.getFileMetaData().getSchema();
    }
    ParquetToSparkSchemaConverter converter =
        new ParquetToSparkSchemaConverter(spark.sessionState().conf());
    Map<String, Read> out = new LinkedHashMap<>();
    List<StructField> readable = new ArrayList<>();
    List<String> folders = new ArrayList<>();
    for (String c : columns) {
      if (!schema.containsField(c) && source.partitions().contains(c)) {
        folders.add(c);
        continue;
      }
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
    readGroup(path, readable, out);
    if (!folders.isEmpty()) {
      readFolders(path, folders, out);
    }
    Map<String, Read> ordered = new LinkedHashMap<>();
    columns.forEach(c -> ordered.put(c, out.get(c)));
    return ordered;
  }

  private void readGroup(String path, List<StructField> fields, Map<String, Read> out) {
    List<StructField> all = new ArrayList<>();
    all.add(ID);
    all.addAll(fields);
    try {
      collect(
          path,
          DataTypes.createStructType(all),
          fields.stream().map(StructField::name).toList(),
          out);
    } catch (Exception e) {
      if (fields.size() == 1) {
        out.put(fields.get(0).name(), Read.failed(e));
      } else {
        int half = fields.size() / 2;
        readGroup(path, fields.subList(0, half), out);
        readGroup(path, fields.subList(half, fields.size()), out);
      }
    }
  }

  /**
   * Partition columns only in the folder names: a schema of the id alone, to which Spark appends
   * every partition column it discovers, with the type it infers.
   */
  private void readFolders(String path, List<String> names, Map<String, Read> out) {
    try {
      collect(path, DataTypes.createStructType(List.of(ID)), names, out);
    } catch (Exception e) {
      names.forEach(n -> out.put(n, Read.failed(e)));
    }
  }

  /** Reads path with schema, and puts each named column of the result into out. */
  private void collect(String path, StructType schema, List<String> names, Map<String, Read> out) {
    Dataset<Row> df = spark.read().schema(schema).parquet(path);
    List<Row> rows = df.collectAsList();
    for (String name : names) {
      int col = df.schema().fieldIndex(name);
      Map<Integer, Object> values = new TreeMap<>();
      for (Row r : rows) {
        values.put(r.getInt(0), Reader.guarded(() -> r.get(col)));
      }
      out.put(name, new Read(values, null, df.schema().apply(col).dataType().simpleString()));
    }
  }

  @Override
  public void close() {
    spark.stop();
  }
}
