package org.parallelexport.iceberg;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.GroupWriter;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * TestParts: real Parquet parts for the tests, written by parquet-java's file writer in the shapes
 * our writer produces (every node optional, lists in the three-level form, uuid as
 * FIXED_LEN_BYTE_ARRAY(16)).
 *
 * <p>The writer's own PartWriter is package-private to parquet-writer and fed from C memory, so the
 * tests write the same schema shapes here, with parquet-java's ParquetFileWriter and example Group
 * writer as PartWriter drives it (ParquetWriter's builders need Hadoop, which these tests run
 * without to show that the module needs none). Each part is written with the field ids that {@link
 * IcebergSchemas#withFieldIds} stamps, as the writer's {@code field_ids} option will.
 */
final class TestParts {
  private TestParts() {}

  /** One row of the {@link #schema} table. */
  record Row(long id, String name, int score, UUID uuid, List<String> tags, double x) {}

  /** id int64, name string, score int32, uuid, tags list of string, pt struct of x double. */
  static MessageType schema(PrimitiveTypeName scoreType) {
    return Types.buildMessage()
        .optional(PrimitiveTypeName.INT64)
        .named("id")
        .optional(PrimitiveTypeName.BINARY)
        .as(LogicalTypeAnnotation.stringType())
        .named("name")
        .optional(scoreType)
        .named("score")
        .optional(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY)
        .length(16)
        .as(LogicalTypeAnnotation.uuidType())
        .named("uuid")
        .optionalGroup()
        .as(LogicalTypeAnnotation.listType())
        .repeatedGroup()
        .optional(PrimitiveTypeName.BINARY)
        .as(LogicalTypeAnnotation.stringType())
        .named("element")
        .named("list")
        .named("tags")
        .optionalGroup()
        .optional(PrimitiveTypeName.DOUBLE)
        .named("x")
        .named("pt")
        .named("row");
  }

  static MessageType schema() {
    return schema(PrimitiveTypeName.INT32);
  }

  // Pages are written as they are: the codec is not what these tests look at.
  private static final BytesInputCompressor UNCOMPRESSED =
      new BytesInputCompressor() {
        @Override
        public BytesInput compress(BytesInput bytes) {
          return bytes;
        }

        @Override
        public CompressionCodecName getCodecName() {
          return CompressionCodecName.UNCOMPRESSED;
        }

        @Override
        public void release() {}
      };

  /**
   * Writes {@code rows} to {@code file} with the (id-stamped) {@code type}; null names stay null.
   */
  static void write(Path path, MessageType type, List<Row> rows) throws IOException {
    ParquetProperties properties = ParquetProperties.builder().build();
    ParquetFileWriter file =
        new ParquetFileWriter(
            new LocalOutputFile(path),
            type,
            ParquetFileWriter.Mode.CREATE,
            ParquetWriter.DEFAULT_BLOCK_SIZE,
            0,
            null,
            properties);
    file.start();
    ColumnChunkPageWriteStore pages =
        ColumnChunkPageWriteStore.builder()
            .withCompressorProvider(column -> UNCOMPRESSED)
            .withSchema(type)
            .withAllocator(properties.getAllocator())
            .withColumnIndexTruncateLength(properties.getColumnIndexTruncateLength())
            .withPageWriteChecksumEnabled(properties.getPageWriteChecksumEnabled())
            .withRowGroupOrdinal(0)
            .build();
    ColumnWriteStore columns = properties.newColumnWriteStore(type, pages);
    GroupWriter writer =
        new GroupWriter(new ColumnIOFactory().getColumnIO(type).getRecordWriter(columns), type);
    SimpleGroupFactory groups = new SimpleGroupFactory(type);
    for (Row row : rows) {
      writer.write(group(groups, type, row));
    }
    file.startBlock(rows.size());
    columns.flush();
    pages.flushToFileWriter(file);
    file.endBlock();
    file.end(Map.of());
  }

  private static Group group(SimpleGroupFactory groups, MessageType type, Row row) {
    Group group = groups.newGroup().append("id", row.id());
    if (row.name() != null) {
      group.append("name", row.name());
    }
    if (type.getType("score").asPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.INT64) {
      group.append("score", (long) row.score());
    } else {
      group.append("score", row.score());
    }
    ByteBuffer uuid = ByteBuffer.allocate(16);
    uuid.putLong(row.uuid().getMostSignificantBits()).putLong(row.uuid().getLeastSignificantBits());
    group.append("uuid", Binary.fromConstantByteArray(uuid.array()));
    Group list = group.addGroup("tags");
    for (String tag : row.tags()) {
      list.addGroup("list").append("element", tag);
    }
    group.addGroup("pt").append("x", row.x());
    return group;
  }
}
