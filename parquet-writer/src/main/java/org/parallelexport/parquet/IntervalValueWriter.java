/*
 * IntervalValueWriter: PostgreSQL interval (kind INTERVAL, 16 bytes: int32 months, int32 days,
 * int64 microseconds) as a Parquet group of three required fields, months INT32, days INT32,
 * microseconds INT64.
 *
 * PostgreSQL keeps the three parts apart because a month and a day have no fixed length, so the
 * group keeps them apart too: nothing is normalized and every interval round-trips exactly.
 * Parquet's own INTERVAL (unsigned months, days, milliseconds) would lose signs and microseconds.
 */
package org.parallelexport.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.GroupType;

final class IntervalValueWriter extends ValueWriter {
  static final String MONTHS = "months";
  static final String DAYS = "days";
  static final String MICROSECONDS = "microseconds";

  IntervalValueWriter(Column column, GroupType parquetType) {
    super(column, parquetType);
  }

  @Override
  int valueWidth() {
    return 16;
  }

  @Override
  void write(RecordConsumer consumer, ByteBuffer buffer, int row) {
    writeNested(consumer, buffer, valueOffset + row * 16);
  }

  @Override
  int writeNested(RecordConsumer consumer, ByteBuffer buffer, int pos) {
    consumer.startGroup();
    consumer.startField(MONTHS, 0);
    consumer.addInteger(buffer.getInt(pos));
    consumer.endField(MONTHS, 0);
    consumer.startField(DAYS, 1);
    consumer.addInteger(buffer.getInt(pos + 4));
    consumer.endField(DAYS, 1);
    consumer.startField(MICROSECONDS, 2);
    consumer.addLong(buffer.getLong(pos + 8));
    consumer.endField(MICROSECONDS, 2);
    consumer.endGroup();
    return pos + 16;
  }
}
