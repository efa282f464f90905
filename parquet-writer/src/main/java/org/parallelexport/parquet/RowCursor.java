/*
 * RowCursor: the "record" BatchSink hands to ParquetWriter.write, one object for the sink's life.
 *
 * A row lives in the batch buffer, not in an object, so the cursor only says where: the buffer of
 * the current batch and the row number. Reusing it keeps the per-row path free of allocation.
 */
package org.parallelexport.parquet;

import java.nio.ByteBuffer;

final class RowCursor {
  ByteBuffer buffer;
  int row;
}
