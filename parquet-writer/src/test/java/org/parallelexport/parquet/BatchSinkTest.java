package org.parallelexport.parquet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.parquet.Version;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.format.KeyValue;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.ColumnOrder;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * BatchSinkTest: writes parts through BatchSink's JNI-facing API, exactly as the C side calls it,
 * and reads them back with parquet-java's own reader: values, NULLs, logical types, metadata, every
 * codec, part life cycle, and the errors the C side must be able to report.
 */
class BatchSinkTest {
  private static final String[] NAMES = AllKinds.NAMES;
  private static final UUID UUID_A = AllKinds.UUID_A;

  @TempDir Path dir;

  static BatchSink sink(TestBatch batch, String options) {
    return AllKinds.sink(batch, options);
  }

  @Test
  void roundTripsEveryKind() throws Exception {
    TestBatch batch = AllKinds.batch();
    BatchSink sink = sink(batch, "created_by_extension=parallel_export_parquet 1.0\n");
    Path file = dir.resolve("part-0.parquet");
    sink.openPart(file.toString());
    sink.writeBatch(3);
    long size = sink.closePart();
    assertEquals(Files.size(file), size);
    // The footer names this extension, in the form the Parquet format asks for.
    assertEquals(
        "parallel_export_parquet version 1.0 (build parquet-java " + Version.VERSION_NUMBER + ")",
        ReadBack.footer(file).getFileMetaData().getCreatedBy());
    // Floats keep the type-defined column order: readers that predate IEEE_754_TOTAL_ORDER (Polars
    // 0.25, see regress/matrix) reject a whole file that names it.
    MessageType schema = ReadBack.footer(file).getFileMetaData().getSchema();
    for (String name : List.of("f", "d")) {
      assertEquals(
          ColumnOrder.ColumnOrderName.TYPE_DEFINED_ORDER,
          schema.getType(name).asPrimitiveType().columnOrder().getColumnOrderName(),
          name);
    }

    List<Group> rows = ReadBack.rows(file);
    assertEquals(3, rows.size());
    Group r0 = rows.get(0);
    assertTrue(r0.getBoolean("b", 0));
    assertEquals(-32768, r0.getInteger("s", 0));
    assertEquals(2147483647, r0.getInteger("i", 0));
    assertEquals(Long.MIN_VALUE, r0.getLong("l", 0));
    assertEquals(1.5f, r0.getFloat("f", 0));
    assertEquals(-2.25, r0.getDouble("d", 0));
    assertEquals(-1230, r0.getInteger("n9", 0));
    assertEquals(999999999999999999L, r0.getLong("n18", 0));
    assertEquals(
        new BigInteger("-12345678901234567890123456780123456789"),
        new BigInteger(r0.getBinary("n38", 0).getBytes()));
    assertEquals(16, r0.getBinary("n38", 0).length());
    assertEquals("héllo, wörld", r0.getString("t", 0));
    assertEquals("{\"a\": [1, 2]}", r0.getString("j", 0));
    assertArrayEquals(new byte[] {0, 1, (byte) 0xFF}, r0.getBinary("by", 0).getBytes());
    assertEquals(19_000, r0.getInteger("dt", 0));
    assertEquals(86_399_999_999L, r0.getLong("tm", 0));
    assertEquals(1_700_000_000_123_456L, r0.getLong("ts", 0));
    assertEquals(-1L, r0.getLong("tz", 0));
    ByteBuffer uuid = ByteBuffer.wrap(r0.getBinary("u", 0).getBytes());
    assertEquals(UUID_A, new UUID(uuid.getLong(), uuid.getLong()));

    for (String name : NAMES) {
      assertTrue(ReadBack.isNull(rows.get(1), name), name);
    }

    Group r2 = rows.get(2);
    assertFalse(r2.getBoolean("b", 0));
    assertTrue(Float.isNaN(r2.getFloat("f", 0)));
    assertEquals(Double.NEGATIVE_INFINITY, r2.getDouble("d", 0));
    assertEquals(0, r2.getInteger("n9", 0));
    assertEquals(-50000L, r2.getLong("n18", 0));
    assertEquals(new BigInteger("5000000000"), new BigInteger(r2.getBinary("n38", 0).getBytes()));
    assertEquals("", r2.getString("t", 0));
    assertEquals(0, r2.getBinary("by", 0).length());
    assertEquals(-719_528, r2.getInteger("dt", 0));
    assertEquals(1_000_000L, r2.getLong("tz", 0));
  }

  @Test
  void writesTheDesignedSchemaAndMetadata() throws Exception {
    TestBatch batch = AllKinds.batch();
    BatchSink sink = sink(batch, "created_by_extension=parallel_export_parquet 1.0");
    Path file = dir.resolve("part.parquet");
    sink.openPart(file.toString());
    sink.writeBatch(3);
    sink.closePart();

    ParquetMetadata footer = ReadBack.footer(file);
    MessageType schema = footer.getFileMetaData().getSchema();
    assertEquals("schema", schema.getName());
    assertEquals(NAMES.length, schema.getFieldCount());
    for (Type field : schema.getFields()) {
      assertEquals(Type.Repetition.OPTIONAL, field.getRepetition(), field.getName());
    }
    assertType(schema, "b", PrimitiveTypeName.BOOLEAN, null);
    assertType(schema, "s", PrimitiveTypeName.INT32, LogicalTypeAnnotation.intType(16, true));
    assertType(schema, "i", PrimitiveTypeName.INT32, null);
    assertType(schema, "l", PrimitiveTypeName.INT64, null);
    assertType(schema, "f", PrimitiveTypeName.FLOAT, null);
    assertType(schema, "d", PrimitiveTypeName.DOUBLE, null);
    assertType(schema, "n9", PrimitiveTypeName.INT32, LogicalTypeAnnotation.decimalType(2, 9));
    assertType(schema, "n18", PrimitiveTypeName.INT64, LogicalTypeAnnotation.decimalType(4, 18));
    assertType(
        schema,
        "n38",
        PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY,
        LogicalTypeAnnotation.decimalType(10, 38));
    assertEquals(16, schema.getType("n38").asPrimitiveType().getTypeLength());
    assertType(schema, "t", PrimitiveTypeName.BINARY, LogicalTypeAnnotation.stringType());
    assertType(schema, "j", PrimitiveTypeName.BINARY, LogicalTypeAnnotation.jsonType());
    assertType(schema, "by", PrimitiveTypeName.BINARY, null);
    assertType(schema, "dt", PrimitiveTypeName.INT32, LogicalTypeAnnotation.dateType());
    assertType(
        schema,
        "tm",
        PrimitiveTypeName.INT64,
        LogicalTypeAnnotation.timeType(false, TimeUnit.MICROS));
    assertType(
        schema,
        "ts",
        PrimitiveTypeName.INT64,
        LogicalTypeAnnotation.timestampType(false, TimeUnit.MICROS));
    assertType(
        schema,
        "tz",
        PrimitiveTypeName.INT64,
        LogicalTypeAnnotation.timestampType(true, TimeUnit.MICROS));
    assertType(
        schema, "u", PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, LogicalTypeAnnotation.uuidType());

    Map<String, String> kv = footer.getFileMetaData().getKeyValueMetaData();
    assertEquals("parallel_export_parquet 1.0", kv.get("parallel_export_parquet.version"));
    assertTrue(
        kv.get("parallel_export_parquet.pg_types")
            .startsWith("{\"b\":\"boolean\",\"s\":\"smallint\","),
        kv.get("parallel_export_parquet.pg_types"));
    assertTrue(kv.get("parallel_export_parquet.pg_types").contains("\"n9\":\"numeric(9,2)\""));

    Schema avro = new Schema.Parser().parse(kv.get("parquet.avro.schema"));
    assertEquals("row", avro.getName());
    assertEquals(NAMES.length, avro.getFields().size());
    Schema n9 = nonNull(avro, "n9");
    assertEquals(Schema.Type.BYTES, n9.getType());
    assertEquals(LogicalTypes.decimal(9, 2), n9.getLogicalType());
    Schema n38 = nonNull(avro, "n38");
    assertEquals(Schema.Type.FIXED, n38.getType());
    assertEquals(16, n38.getFixedSize());
    assertEquals(LogicalTypes.decimal(38, 10), n38.getLogicalType());
    assertEquals("date", nonNull(avro, "dt").getLogicalType().getName());
    assertEquals("time-micros", nonNull(avro, "tm").getLogicalType().getName());
    assertEquals("local-timestamp-micros", nonNull(avro, "ts").getLogicalType().getName());
    assertEquals("timestamp-micros", nonNull(avro, "tz").getLogicalType().getName());
    assertEquals("uuid", nonNull(avro, "u").getLogicalType().getName());
    assertEquals(Schema.Type.FIXED, nonNull(avro, "u").getType());
    assertTrue(avro.getField("t").hasDefaultValue());
  }

  @Test
  void footerKeysComeInOneOrder() throws Exception {
    // Read from the file's own Thrift footer: parquet-java's reader hands the keys back in a
    // HashMap, which would hide the order two exports of the same rows must share.
    BatchSink sink = sink(AllKinds.batch(), "created_by_extension=parallel_export_parquet 1.0");
    Path file = dir.resolve("part.parquet");
    sink.openPart(file.toString());
    sink.writeBatch(3);
    sink.closePart();

    byte[] bytes = Files.readAllBytes(file);
    ByteBuffer tail = ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN);
    int length = tail.getInt();
    org.apache.parquet.format.FileMetaData footer =
        Util.readFileMetaData(new ByteArrayInputStream(bytes, bytes.length - 8 - length, length));
    List<String> keys = footer.getKey_value_metadata().stream().map(KeyValue::getKey).toList();
    assertEquals(
        List.of(
            "parallel_export_parquet.version",
            "parallel_export_parquet.pg_types",
            "parallel_export_parquet.compatibility",
            "parquet.avro.schema",
            "writer.model.name"),
        keys);
  }

  private static UUID uuid(Group row) {
    ByteBuffer bytes = ByteBuffer.wrap(row.getBinary("u", 0).getBytes());
    return new UUID(bytes.getLong(), bytes.getLong());
  }

  private static Schema nonNull(Schema record, String field) {
    Schema union = record.getField(field).schema();
    assertEquals(Schema.Type.UNION, union.getType());
    assertEquals(Schema.Type.NULL, union.getTypes().get(0).getType());
    return union.getTypes().get(1);
  }

  private static void assertType(
      MessageType schema, String name, PrimitiveTypeName physical, LogicalTypeAnnotation logical) {
    PrimitiveType type = schema.getType(name).asPrimitiveType();
    assertEquals(physical, type.getPrimitiveTypeName(), name);
    assertEquals(logical, type.getLogicalTypeAnnotation(), name);
  }

  @Test
  void avroSchemaIsLeftOutWhenAvroCannotNameAColumn() throws Exception {
    TestBatch batch = new TestBatch(2, new int[] {3}, 0);
    batch.setLong(0, 0, 1);
    BatchSink sink =
        BatchSink.create(
            new String[] {"my col"},
            new int[] {3},
            new int[1],
            new int[1],
            new String[] {"bigint"},
            2,
            batch.nullOffsets,
            batch.valueOffsets,
            batch.buffer,
            "");
    Path file = dir.resolve("p.parquet");
    sink.openPart(file.toString());
    sink.writeBatch(1);
    sink.closePart();
    Map<String, String> kv = ReadBack.footer(file).getFileMetaData().getKeyValueMetaData();
    assertNull(kv.get("parquet.avro.schema"));
    assertEquals("{\"my col\":\"bigint\"}", kv.get("parallel_export_parquet.pg_types"));
    assertEquals(1L, ReadBack.rows(file).get(0).getLong("my col", 0));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "compatibility=none", "compatibility=spark"})
  void footerNamesTheReaderProfile(String options) throws Exception {
    TestBatch batch = new TestBatch(2, new int[] {3}, 0);
    batch.setLong(0, 0, 1);
    BatchSink sink = create(batch, 3, 0, 0, options);
    Path file = dir.resolve("p.parquet");
    sink.openPart(file.toString());
    sink.writeBatch(1);
    sink.closePart();
    Map<String, String> kv = ReadBack.footer(file).getFileMetaData().getKeyValueMetaData();
    assertEquals(
        options.isEmpty() ? "none" : options.substring("compatibility=".length()),
        kv.get("parallel_export_parquet.compatibility"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "compression=uncompressed",
        "compression=snappy",
        "compression=gzip",
        "compression=zstd",
        "compression=lz4_raw",
        "compression=brotli",
        "compression=brotli\ncompression_level=0",
        "compression=brotli\ncompression_level=11\nwriter_version=v2",
        "compression=zstd\nwriter_version=v2",
        "compression=snappy\ndictionary=false",
        "compression=lz4_raw\nwriter_version=v2\ndictionary=false\npage_size=1024"
      })
  void everyCodecAndFormatReadsBack(String options) throws Exception {
    int[] kinds = {3, 7};
    int rows = 5000;
    TestBatch batch = new TestBatch(rows, kinds, rows * 16);
    for (int r = 0; r < rows; r++) {
      batch.setLong(0, r, r * 31L);
      if (r % 7 == 0) {
        batch.setNull(1, r);
      } else {
        batch.setString(1, r, "v" + (r % 100));
      }
    }
    BatchSink sink =
        BatchSink.create(
            new String[] {"id", "name"},
            kinds,
            new int[2],
            new int[2],
            new String[] {"bigint", "text"},
            rows,
            batch.nullOffsets,
            batch.valueOffsets,
            batch.buffer,
            options + "\nrow_group_rows=3000");
    Path file = dir.resolve("codec.parquet");
    sink.openPart(file.toString());
    sink.writeBatch(rows);
    sink.writeBatch(rows);
    long size = sink.closePart();
    assertEquals(Files.size(file), size);

    ParquetMetadata footer = ReadBack.footer(file);
    CompressionCodecName expected =
        CompressionCodecName.valueOf(
            options.split("\n")[0].substring("compression=".length()).toUpperCase(Locale.ROOT));
    long total = 0;
    for (BlockMetaData block : footer.getBlocks()) {
      total += block.getRowCount();
      assertTrue(block.getRowCount() <= 3000);
      for (ColumnChunkMetaData chunk : block.getColumns()) {
        assertEquals(expected, chunk.getCodec());
      }
    }
    assertEquals(2L * rows, total);
    List<Group> read = ReadBack.rows(file);
    assertEquals(2 * rows, read.size());
    for (int i = 0; i < read.size(); i++) {
      int r = i % rows;
      assertEquals(r * 31L, read.get(i).getLong("id", 0));
      if (r % 7 == 0) {
        assertTrue(ReadBack.isNull(read.get(i), "name"));
      } else {
        assertEquals("v" + (r % 100), read.get(i).getString("name", 0));
      }
    }
  }

  @Test
  void valuesSurviveTheBufferBeingOverwrittenAndReplaced() throws Exception {
    // Dictionary pages and statistics are built from values of earlier batches; if anything
    // kept a view of the buffer, the next batch would change them.
    int[] kinds = {7, 14, 6};
    TestBatch batch = new TestBatch(2, kinds, 64);
    BatchSink sink =
        BatchSink.create(
            new String[] {"t", "u", "n"},
            kinds,
            new int[] {0, 0, 20},
            new int[] {0, 0, 1},
            new String[] {"text", "uuid", "numeric(20,1)"},
            2,
            batch.nullOffsets,
            batch.valueOffsets,
            batch.buffer,
            "");
    Path file = dir.resolve("reuse.parquet");
    sink.openPart(file.toString());
    batch.setString(0, 0, "aaa");
    batch.setString(0, 1, "zzz");
    batch.setUuid(1, 0, new UUID(1, 1));
    batch.setUuid(1, 1, new UUID(-1, -1));
    batch.setString(2, 0, "-9.5");
    batch.setString(2, 1, "9.5");
    sink.writeBatch(2);
    batch.garbage();
    batch.setString(0, 0, "mmm");
    batch.setString(0, 1, "aaa");
    batch.setUuid(1, 0, new UUID(1, 1));
    batch.setNull(1, 1);
    batch.setString(2, 0, "1.0");
    batch.setNull(2, 1);
    sink.setBuffer(batch.grown(1 << 16));
    batch.setString(0, 1, "bbb");
    sink.writeBatch(2);
    sink.closePart();

    List<Group> rows = ReadBack.rows(file);
    assertEquals(
        List.of("aaa", "zzz", "mmm", "bbb"), rows.stream().map(g -> g.getString("t", 0)).toList());
    assertEquals(BigInteger.valueOf(-95), new BigInteger(rows.get(0).getBinary("n", 0).getBytes()));
    assertEquals(BigInteger.valueOf(10), new BigInteger(rows.get(2).getBinary("n", 0).getBytes()));
    assertEquals(new UUID(-1, -1), uuid(rows.get(1)));
    assertEquals(new UUID(1, 1), uuid(rows.get(2)));
    assertTrue(ReadBack.isNull(rows.get(3), "u"));
    ColumnChunkMetaData t = ReadBack.footer(file).getBlocks().get(0).getColumns().get(0);
    Statistics<?> stats = t.getStatistics();
    assertEquals(Binary.fromString("aaa"), stats.genericGetMin());
    assertEquals(Binary.fromString("zzz"), stats.genericGetMax());
  }

  @Test
  void onePartAfterAnotherAndAbort() throws Exception {
    TestBatch batch = AllKinds.batch();
    BatchSink sink = sink(batch, "compression=zstd");
    for (int p = 0; p < 3; p++) {
      Path file = dir.resolve("part-" + p + ".parquet");
      sink.openPart(file.toString());
      sink.writeBatch(3);
      long size = sink.closePart();
      assertEquals(Files.size(file), size);
      assertEquals(3, ReadBack.rows(file).size());
    }
    Path aborted = dir.resolve("aborted.parquet");
    sink.openPart(aborted.toString());
    sink.writeBatch(3);
    sink.abortPart();
    sink.abortPart();
    assertTrue(Files.exists(aborted), "abort leaves the file for the caller to delete");
    sink.openPart(dir.resolve("after-abort.parquet").toString());
    sink.writeBatch(0);
    sink.closePart();
    assertEquals(0, ReadBack.rows(dir.resolve("after-abort.parquet")).size());
  }

  @Test
  void lifeCycleErrors() throws Exception {
    TestBatch batch = AllKinds.batch();
    BatchSink sink = sink(batch, "");
    sink.abortPart();
    assertThrows(IllegalStateException.class, () -> sink.writeBatch(1));
    assertThrows(IllegalStateException.class, sink::closePart);

    Path existing = Files.createFile(dir.resolve("existing.parquet"));
    assertThrows(FileAlreadyExistsException.class, () -> sink.openPart(existing.toString()));
    assertEquals(0, Files.size(existing), "an existing file is never touched");

    Path file = dir.resolve("ok.parquet");
    sink.openPart(file.toString());
    assertThrows(IllegalStateException.class, () -> sink.openPart(dir.resolve("x").toString()));
    assertThrows(IllegalArgumentException.class, () -> sink.writeBatch(5));
    assertThrows(IllegalArgumentException.class, () -> sink.writeBatch(-1));
    sink.writeBatch(3);
    sink.closePart();
    assertEquals(3, ReadBack.rows(file).size());
  }

  @Test
  void injectedFault() throws Exception {
    TestBatch batch = AllKinds.batch();
    BatchSink sink = sink(batch, "");
    sink.openPart(dir.resolve("a.parquet").toString());
    sink.writeBatch(3);
    sink.writeBatch(3);
    sink.closePart();
    sink.openPart(dir.resolve("b.parquet").toString());
    sink.writeBatch(3);
    sink.failNextBatch();
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> sink.writeBatch(3));
    assertEquals("injected fault after 3 batches", e.getMessage());
    assertThrows(IllegalStateException.class, sink::closePart);
    sink.abortPart();
  }

  @Test
  void decimalValuesThatDoNotFitAreErrors() throws Exception {
    int[] kinds = {6, 6};
    String[] names = {"price", "big"};
    String[][] bad = {
      {"12.345", "0", "without rounding"},
      {"1000000000000000000.00", "0", "exceeds the precision"},
      {"NaN", "0", "cannot be written as DECIMAL(20,2)"},
      {"-Infinity", "0", "cannot be written"},
      {"1.00", "1e40", "exceeds the precision"},
      {"1.00", "0.00000000001", "without rounding"},
    };
    for (String[] c : bad) {
      TestBatch batch = new TestBatch(1, kinds, 128);
      batch.setString(0, 0, c[0]);
      batch.setString(1, 0, c[1]);
      BatchSink sink =
          BatchSink.create(
              names,
              kinds,
              new int[] {20, 30},
              new int[] {2, 10},
              new String[] {"numeric(20,2)", "numeric(30,10)"},
              1,
              batch.nullOffsets,
              batch.valueOffsets,
              batch.buffer,
              "");
      sink.openPart(dir.resolve("d" + System.nanoTime() + ".parquet").toString());
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> sink.writeBatch(1), c[0]);
      assertTrue(e.getMessage().contains(c[2]), e.getMessage());
      assertTrue(e.getMessage().startsWith("column \""), e.getMessage());
      assertThrows(IllegalStateException.class, sink::closePart);
    }
  }

  @Test
  void decimalTextForms() throws Exception {
    int[] kinds = {6, 6, 6};
    String[] values = {"5", "-0.1", "+3.50", "0012.5", "1E+2", "99999.99"};
    TestBatch batch = new TestBatch(values.length, kinds, 512);
    for (int r = 0; r < values.length; r++) {
      for (int c = 0; c < 3; c++) {
        batch.setString(c, r, values[r]);
      }
    }
    BatchSink sink =
        BatchSink.create(
            new String[] {"a", "b", "c"},
            kinds,
            new int[] {19, 20, 38},
            new int[] {2, 2, 2},
            new String[] {"numeric", "numeric", "numeric"},
            values.length,
            batch.nullOffsets,
            batch.valueOffsets,
            batch.buffer,
            "");
    Path file = dir.resolve("dec.parquet");
    sink.openPart(file.toString());
    sink.writeBatch(values.length);
    sink.closePart();
    long[] expected = {500, -10, 350, 1250, 10000, 9999999};
    List<Group> rows = ReadBack.rows(file);
    String[] columns = {"a", "b", "c"};
    int[] lengths = {9, 9, 16};
    for (int r = 0; r < values.length; r++) {
      for (int c = 0; c < columns.length; c++) {
        byte[] bytes = rows.get(r).getBinary(columns[c], 0).getBytes();
        assertEquals(BigInteger.valueOf(expected[r]), new BigInteger(bytes), values[r]);
        assertEquals(lengths[c], bytes.length, columns[c]);
      }
    }
  }

  @Test
  void createRejectsBadSpecs() {
    TestBatch batch = new TestBatch(4, new int[] {3}, 0);
    assertEquals(
        "unsupported kind: 99",
        assertThrows(IllegalArgumentException.class, () -> create(batch, 99, 0, 0, ""))
            .getMessage());
    assertEquals(
        "unknown option: colour",
        assertThrows(IllegalArgumentException.class, () -> create(batch, 3, 0, 0, "colour=red"))
            .getMessage());
    assertThrows(IllegalArgumentException.class, () -> create(batch, 3, 0, 0, "compression=lzo"));
    assertThrows(IllegalArgumentException.class, () -> create(batch, 3, 0, 0, "row_group_rows=0"));
    assertThrows(IllegalArgumentException.class, () -> create(batch, 3, 0, 0, "dictionary=yes"));
    assertThrows(IllegalArgumentException.class, () -> create(batch, 3, 0, 0, "writer_version=3"));
    assertEquals(
        "invalid value for option compatibility: \"Spark\" (expected none or spark)",
        assertThrows(
                IllegalArgumentException.class, () -> create(batch, 3, 0, 0, "compatibility=Spark"))
            .getMessage());
    assertThrows(IllegalArgumentException.class, () -> create(batch, 3, 0, 0, "page_size"));
    assertThrows(IllegalArgumentException.class, () -> create(batch, 6, 39, 0, ""));
    assertThrows(IllegalArgumentException.class, () -> create(batch, 6, 20, 21, ""));
    assertThrows(IllegalArgumentException.class, () -> create(batch, 6, 20, -1, ""));
    // up to 18 digits a decimal crosses as its unscaled int64, never as text
    assertEquals(
        "column \"a\": DECIMAL(18,2) fits an unscaled int64 and must come as DECIMAL64",
        assertThrows(IllegalArgumentException.class, () -> create(batch, 6, 18, 2, ""))
            .getMessage());
    // a 16-byte value per row does not fit where 8-byte values were laid out
    assertThrows(IllegalArgumentException.class, () -> create(batch, 14, 0, 0, ""));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            BatchSink.create(
                new String[] {"a", "a"},
                new int[] {3, 3},
                new int[2],
                new int[2],
                new String[] {"bigint", "bigint"},
                4,
                new int[] {0, 0},
                new int[] {8, 8},
                batch.buffer,
                ""));
    assertThrows(
        NullPointerException.class,
        () ->
            BatchSink.create(
                new String[] {"a"},
                new int[] {3},
                new int[1],
                new int[1],
                new String[] {"bigint"},
                4,
                batch.nullOffsets,
                batch.valueOffsets,
                null,
                ""));
    // every documented key at once
    create(
        batch,
        3,
        0,
        0,
        "compression=gzip\nrow_group_rows=10\nrow_group_bytes=1000000\npage_size=4096\n"
            + "dictionary=false\nwriter_version=v2\ncreated_by_extension=x 1\n");
  }

  private static BatchSink create(
      TestBatch batch, int kind, int precision, int scale, String options) {
    return BatchSink.create(
        new String[] {"a"},
        new int[] {kind},
        new int[] {precision},
        new int[] {scale},
        new String[] {"x"},
        batch.capacity,
        batch.nullOffsets,
        batch.valueOffsets,
        batch.buffer,
        options);
  }

  @Test
  void wideRowsStayWithinRowGroupBytes() throws Exception {
    // parquet-java measured the buffered row group first after 100 rows: these 40 rows of 256 kB
    // made one row group of 10 MB against row_group_bytes of 1 MB.
    int rows = 8;
    int width = 256 * 1024;
    long rowGroupBytes = 1 << 20;
    int[] kinds = {ColumnKind.BYTES};
    TestBatch batch = new TestBatch(rows, kinds, rows * width);
    BatchSink sink =
        BatchSink.create(
            new String[] {"b"},
            kinds,
            new int[] {0},
            new int[] {0},
            new String[] {"bytea"},
            rows,
            batch.nullOffsets,
            batch.valueOffsets,
            batch.buffer,
            "compression=uncompressed\nrow_group_bytes=" + rowGroupBytes);
    Path file = dir.resolve("wide.parquet");
    sink.openPart(file.toString());
    Random random = new Random(1);
    byte[] value = new byte[width];
    for (int b = 0; b < 5; b++) {
      batch.garbage();
      for (int r = 0; r < rows; r++) {
        random.nextBytes(value);
        batch.setBytes(0, r, value);
      }
      sink.writeBatch(rows);
    }
    sink.closePart();

    List<BlockMetaData> groups = ReadBack.footer(file).getBlocks();
    assertTrue(groups.size() >= 10, "row groups: " + groups.size());
    // The writer's bound is row_group_bytes plus one row (the row that crosses it, with its
    // length prefix and page header), whatever the width.
    for (BlockMetaData group : groups) {
      assertTrue(
          group.getTotalByteSize() <= rowGroupBytes + width,
          "a row group of " + group.getTotalByteSize() + " bytes");
    }
    assertEquals(40, ReadBack.rows(file).size());
  }

  /** A local part that says it holds {@code held} bytes, as an upload's buffers would. */
  private static final class HoldingFile implements PartFile {
    private final SyncingOutputFile file;
    private final long held;

    HoldingFile(Path path, CreatedByStamp stamp, long held) {
      this.file = new SyncingOutputFile(path, stamp);
      this.held = held;
    }

    @Override
    public PositionOutputStream create(long blockSizeHint) throws java.io.IOException {
      return file.create(blockSizeHint);
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) throws java.io.IOException {
      return file.createOrOverwrite(blockSizeHint);
    }

    @Override
    public boolean supportsBlockSize() {
      return file.supportsBlockSize();
    }

    @Override
    public long defaultBlockSize() {
      return file.defaultBlockSize();
    }

    @Override
    public String getPath() {
      return file.getPath();
    }

    @Override
    public long position() {
      return file.position();
    }

    @Override
    public boolean footerMissing() {
      return file.footerMissing();
    }

    @Override
    public void abandon() {
      file.abandon();
    }

    @Override
    public long heldBytes() {
      return held;
    }
  }

  @Test
  void partsWhoseFilesHoldTheMostAreNamedToFinish() throws Exception {
    TestBatch batch = new TestBatch(4, new int[] {ColumnKind.INT64}, 0);
    for (int r = 0; r < 4; r++) {
      batch.setLong(0, r, r);
    }
    BatchSink sink =
        create(batch, ColumnKind.INT64, 0, 0, "part_writers=3\npart_memory_bytes=1000000");
    // Part a's file holds 600 kB, part b's 800 kB: each within the budget, together past it.
    sink.usePartFiles(
        (path, stamp) ->
            new HoldingFile(Path.of(path), stamp, path.endsWith("a.parquet") ? 600_000 : 800_000));
    sink.selectPart(0);
    sink.openPart(dir.resolve("a.parquet").toString());
    sink.writeBatch(4);
    assertEquals(-1, sink.partToFinish(), "one part is within the budget");
    sink.selectPart(1);
    sink.openPart(dir.resolve("b.parquet").toString());
    sink.writeBatch(4);
    assertEquals(1, sink.partToFinish(), "past the budget, the part whose file holds the most");
    sink.closePart();
    assertEquals(-1, sink.partToFinish(), "finishing it brought the open parts back within");
    sink.selectPart(0);
    sink.closePart();
    assertEquals(4, ReadBack.rows(dir.resolve("b.parquet")).size());

    // Control: local files hold nothing, so a budget they are past only ends row groups early.
    BatchSink local = create(batch, ColumnKind.INT64, 0, 0, "part_writers=3\npart_memory_bytes=1");
    for (String name : new String[] {"c.parquet", "d.parquet"}) {
      local.selectPart(name.startsWith("c") ? 0 : 1);
      local.openPart(dir.resolve(name).toString());
      local.writeBatch(4);
      assertEquals(-1, local.partToFinish(), name + ": no part is named to finish");
      local.closePart();
    }
  }

  @Test
  void aClosedOrAbandonedPartHandsItsBufferToTheNext() throws Exception {
    DirectBuffers buffers = new DirectBuffers();
    CreatedByStamp stamp = new CreatedByStamp("test 1.0");
    for (String name : new String[] {"e.parquet", "f.parquet"}) {
      PositionOutputStream stream =
          new SyncingOutputFile(dir.resolve(name), stamp, buffers).create(0);
      assertEquals(0, buffers.free(), name + ": the open part holds the buffer");
      stream.write(new byte[10]);
      stream.close();
      assertEquals(1, buffers.free(), name + ": closed, its buffer is back for the next part");
    }
    SyncingOutputFile abandoned = new SyncingOutputFile(dir.resolve("g.parquet"), stamp, buffers);
    abandoned.create(0);
    abandoned.abandon();
    abandoned.abandon();
    assertEquals(1, buffers.free(), "an abandoned part gives its buffer back once");
  }

  @Test
  void aFileClosedWithoutItsFooterIsOnlyClosed() throws Exception {
    // parquet-java closes the file from a finally block after a failure; an exception from that
    // close would replace the failure (an OutOfMemoryError became "Unable to close resource").
    Path file = dir.resolve("no-footer.parquet");
    SyncingOutputFile output = new SyncingOutputFile(file, new CreatedByStamp("test 1.0"));
    PositionOutputStream stream = output.create(0);
    stream.write("PAR1".getBytes(StandardCharsets.US_ASCII));
    stream.write(new byte[100]);
    stream.close();
    assertTrue(output.footerMissing());
  }
}
