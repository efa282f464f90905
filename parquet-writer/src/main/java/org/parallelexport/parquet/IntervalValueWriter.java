package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;

/**
 * IntervalValueWriter: PostgreSQL interval (kind INTERVAL, 16 bytes: int32 months, int32 days,
 * int64 microseconds) as a Parquet group of three required fields, months INT32, days INT32,
 * microseconds INT64.
 *
 * <p>PostgreSQL keeps the three parts apart because a month and a day have no fixed length, so the
 * group keeps them apart too: nothing is normalized and every interval round-trips exactly.
 * Parquet's own INTERVAL (unsigned months, days, milliseconds) would lose signs and microseconds.
 */
final class IntervalValueWriter extends ValueWriter {
  static final String MONTHS = "months";
  static final String DAYS = "days";
  static final String MICROSECONDS = "microseconds";

  private final Levels months;
  private final Levels days;
  private final Levels microseconds;
  private ColumnWriter monthsOut;
  private ColumnWriter daysOut;
  private ColumnWriter microsecondsOut;

  IntervalValueWriter(Column column, GroupType parquetType, Levels levels) {
    super(column, parquetType, levels);
    this.months = levels.requiredField(MONTHS);
    this.days = levels.requiredField(DAYS);
    this.microseconds = levels.requiredField(MICROSECONDS);
  }

  @Override
  int valueWidth() {
    return ColumnKind.INTERVAL_WIDTH;
  }

  @Override
  void bind(ColumnWriteStore store, MessageType schema) {
    monthsOut = bind(store, schema, months);
    daysOut = bind(store, schema, days);
    microsecondsOut = bind(store, schema, microseconds);
  }

  private static ColumnWriter bind(ColumnWriteStore store, MessageType schema, Levels field) {
    return LeafColumns.writer(store, schema, field.path, field.definition, field.repetition);
  }

  @Override
  void write(ByteBuffer buffer, int row, int rep) {
    writeNested(buffer, valueOffset + row * ColumnKind.INTERVAL_WIDTH, rep);
  }

  @Override
  int writeNested(ByteBuffer buffer, int pos, int rep) {
    monthsOut.write(buffer.getInt(pos), rep, definition);
    daysOut.write(buffer.getInt(pos + 4), rep, definition);
    microsecondsOut.write(buffer.getLong(pos + 8), rep, definition);
    return pos + ColumnKind.INTERVAL_WIDTH;
  }

  @Override
  void writeNull(int rep, int def) {
    monthsOut.writeNull(rep, def);
    daysOut.writeNull(rep, def);
    microsecondsOut.writeNull(rep, def);
  }
}
