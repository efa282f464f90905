/*
 * BatchWriteSupport: parquet-java's WriteSupport for rows that live in the batch buffer.
 *
 * ParquetWriter calls write(cursor) once per row; this walks the columns, skips NULLs (the
 * column's null byte is 1) and lets each column's ValueWriter add the value to the
 * RecordConsumer. Schema and key-value metadata are fixed when the sink is created; both init
 * overloads return them, so the Hadoop one is never the one parquet-java calls here (the
 * ParquetConfiguration path is taken because BatchSink passes a PlainParquetConfiguration), and
 * the Builder overrides the ParquetConfiguration overload of getWriteSupport for the same reason.
 */
package org.parallelexport.parquet;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;

final class BatchWriteSupport extends WriteSupport<RowCursor> {
  // Becomes the file's "writer.model.name" key.
  private static final String MODEL_NAME = "parallel_export_parquet";

  private final MessageType schema;
  private final Map<String, String> metadata;
  private final ValueWriter[] writers;
  private RecordConsumer consumer;

  BatchWriteSupport(MessageType schema, Map<String, String> metadata, ValueWriter[] writers) {
    this.schema = requireNonNull(schema, "schema is null");
    this.metadata = requireNonNull(metadata, "metadata is null");
    this.writers = requireNonNull(writers, "writers is null");
  }

  @Override
  public WriteContext init(ParquetConfiguration configuration) {
    return new WriteContext(schema, metadata);
  }

  @Override
  public WriteContext init(Configuration configuration) {
    return new WriteContext(schema, metadata);
  }

  @Override
  public String getName() {
    return MODEL_NAME;
  }

  @Override
  public void prepareForWrite(RecordConsumer recordConsumer) {
    this.consumer = recordConsumer;
  }

  @Override
  public void write(RowCursor cursor) {
    RecordConsumer out = consumer;
    ByteBuffer buffer = cursor.buffer;
    int row = cursor.row;
    out.startMessage();
    for (ValueWriter writer : writers) {
      if (buffer.get(writer.nullOffset + row) == 0) {
        out.startField(writer.name, writer.index);
        writer.write(out, buffer, row);
        out.endField(writer.name, writer.index);
      }
    }
    out.endMessage();
  }

  static final class Builder extends ParquetWriter.Builder<RowCursor, Builder> {
    private final BatchWriteSupport writeSupport;

    Builder(OutputFile file, BatchWriteSupport writeSupport) {
      super(file);
      this.writeSupport = requireNonNull(writeSupport, "writeSupport is null");
    }

    @Override
    protected Builder self() {
      return this;
    }

    @Override
    protected WriteSupport<RowCursor> getWriteSupport(ParquetConfiguration configuration) {
      return writeSupport;
    }

    @Override
    protected WriteSupport<RowCursor> getWriteSupport(Configuration configuration) {
      return writeSupport;
    }
  }
}
