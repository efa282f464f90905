package org.parallelexport.bench;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopOutputFile;

/**
 * JdbcExporter: the baseline of bench/run.sh, a PostgreSQL-to-Parquet exporter written as a user
 * would write it without parallel_export_parquet.
 *
 * <p>pgjdbc streams rows (autocommit off, a fetch size) and parquet-avro's AvroParquetWriter writes
 * them as GenericRecords with snappy, through Hadoop's LocalFileSystem. With N threads the id range
 * [min(id), max(id)] is cut into N disjoint slices; each thread has its own connection and writes
 * its own file, DIR/part-0000i.parquet. The Avro schema is derived from the result set's metadata
 * (bigint, int, double, numeric(p,s), text, timestamptz, date, boolean, uuid, json/jsonb) and every
 * column is nullable. Prints the number of rows written.
 *
 * <p>Usage: JdbcExporter JDBC_URL TABLE DIR THREADS [FETCH_SIZE]
 */
public final class JdbcExporter {
  private static final Conversions.DecimalConversion DECIMAL = new Conversions.DecimalConversion();

  private JdbcExporter() {}

  /** How one result-set column becomes one Avro field. */
  private enum Kind {
    LONG,
    INT,
    DOUBLE,
    DECIMAL,
    STRING,
    TIMESTAMP,
    DATE,
    BOOLEAN,
    UUID
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 4 || args.length > 5) {
      System.err.println("usage: JdbcExporter JDBC_URL TABLE DIR THREADS [FETCH_SIZE]");
      System.exit(2);
    }
    String url = args[0];
    String table = args[1];
    java.nio.file.Path dir = Paths.get(args[2]);
    int threads = Integer.parseInt(args[3]);
    int fetchSize = args.length == 5 ? Integer.parseInt(args[4]) : 10_000;
    Files.createDirectories(dir);

    long min;
    long max;
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT min(id), max(id) FROM " + table)) {
      rs.next();
      min = rs.getLong(1);
      max = rs.getLong(2);
    }
    long span = max - min + 1;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<Long>> parts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      long lo = min + span * t / threads;
      long hi = min + span * (t + 1) / threads;
      String file = dir.resolve(String.format("part-%05d.parquet", t)).toString();
      parts.add(pool.submit(() -> exportSlice(url, table, lo, hi, file, fetchSize)));
    }
    long rows = 0;
    for (Future<Long> part : parts) {
      rows += part.get();
    }
    pool.shutdown();
    System.out.println(rows);
  }

  /** Writes the rows with lo <= id < hi into one Parquet file; returns how many. */
  private static long exportSlice(
      String url, String table, long lo, long hi, String file, int fetchSize)
      throws SQLException, IOException {
    try (Connection c = DriverManager.getConnection(url)) {
      c.setAutoCommit(false);
      try (PreparedStatement ps =
          c.prepareStatement("SELECT * FROM " + table + " WHERE id >= ? AND id < ?")) {
        ps.setFetchSize(fetchSize);
        ps.setLong(1, lo);
        ps.setLong(2, hi);
        try (ResultSet rs = ps.executeQuery()) {
          ResultSetMetaData md = rs.getMetaData();
          int n = md.getColumnCount();
          Kind[] kinds = new Kind[n];
          int[] scales = new int[n];
          Schema schema = schemaOf(md, kinds, scales);
          Schema[] decimalSchemas = new Schema[n];
          for (int i = 0; i < n; i++) {
            decimalSchemas[i] = schema.getFields().get(i).schema().getTypes().get(1);
          }
          long rows = 0;
          try (ParquetWriter<GenericRecord> writer =
              AvroParquetWriter.<GenericRecord>builder(
                      HadoopOutputFile.fromPath(new Path(file), new Configuration()))
                  .withSchema(schema)
                  .withCompressionCodec(CompressionCodecName.SNAPPY)
                  .build()) {
            while (rs.next()) {
              GenericRecord r = new GenericData.Record(schema);
              for (int i = 0; i < n; i++) {
                r.put(i, value(rs, i + 1, kinds[i], scales[i], decimalSchemas[i]));
              }
              writer.write(r);
              rows++;
            }
          }
          c.commit();
          return rows;
        }
      }
    }
  }

  private static Object value(ResultSet rs, int col, Kind kind, int scale, Schema schema)
      throws SQLException {
    Object v;
    switch (kind) {
      case LONG:
        v = rs.getLong(col);
        break;
      case INT:
        v = rs.getInt(col);
        break;
      case DOUBLE:
        v = rs.getDouble(col);
        break;
      case BOOLEAN:
        v = rs.getBoolean(col);
        break;
      case DECIMAL:
        BigDecimal d = rs.getBigDecimal(col);
        return d == null
            ? null
            : DECIMAL.toBytes(
                d.setScale(scale, RoundingMode.UNNECESSARY), schema, schema.getLogicalType());
      case TIMESTAMP:
        OffsetDateTime ts = rs.getObject(col, OffsetDateTime.class);
        return ts == null ? null : ts.toEpochSecond() * 1_000_000L + ts.getNano() / 1_000;
      case DATE:
        LocalDate date = rs.getObject(col, LocalDate.class);
        return date == null ? null : (int) date.toEpochDay();
      case UUID:
      case STRING:
        return rs.getString(col);
      default:
        throw new IllegalStateException("kind " + kind);
    }
    return rs.wasNull() ? null : v;
  }

  private static Schema schemaOf(ResultSetMetaData md, Kind[] kinds, int[] scales)
      throws SQLException {
    SchemaBuilder.FieldAssembler<Schema> fields = SchemaBuilder.record("row").fields();
    for (int i = 1; i <= md.getColumnCount(); i++) {
      String type = md.getColumnTypeName(i);
      Schema s;
      Kind k;
      switch (type) {
        case "int8":
          s = Schema.create(Schema.Type.LONG);
          k = Kind.LONG;
          break;
        case "int4":
        case "int2":
          s = Schema.create(Schema.Type.INT);
          k = Kind.INT;
          break;
        case "float8":
          s = Schema.create(Schema.Type.DOUBLE);
          k = Kind.DOUBLE;
          break;
        case "numeric":
          s =
              LogicalTypes.decimal(md.getPrecision(i), md.getScale(i))
                  .addToSchema(Schema.create(Schema.Type.BYTES));
          scales[i - 1] = md.getScale(i);
          k = Kind.DECIMAL;
          break;
        case "timestamptz":
          s = LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
          k = Kind.TIMESTAMP;
          break;
        case "date":
          s = LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT));
          k = Kind.DATE;
          break;
        case "bool":
          s = Schema.create(Schema.Type.BOOLEAN);
          k = Kind.BOOLEAN;
          break;
        case "uuid":
          s = LogicalTypes.uuid().addToSchema(Schema.create(Schema.Type.STRING));
          k = Kind.UUID;
          break;
        case "text":
        case "varchar":
        case "json":
        case "jsonb":
          s = Schema.create(Schema.Type.STRING);
          k = Kind.STRING;
          break;
        default:
          throw new IllegalArgumentException(
              "column " + md.getColumnName(i) + ": type " + type + " not handled");
      }
      kinds[i - 1] = k;
      fields =
          fields
              .name(md.getColumnName(i))
              .type()
              .unionOf()
              .nullType()
              .and()
              .type(s)
              .endUnion()
              .nullDefault();
    }
    return fields.endRecord();
  }
}
