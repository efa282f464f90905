package org.parallelexport.parquet;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.schema.MessageType;

/**
 * LeafColumns: finds the ColumnWriter of one leaf column of a row group's ColumnWriteStore.
 *
 * <p>Every ValueWriter that writes a Parquet column (each leaf kind, and an INTERVAL's three
 * fields) binds through here at the start of each row group. The descriptor's maximum levels must
 * equal the ones ValueWriters computed for the node, so a level bug shows at the first row group
 * instead of as a file that readers misread.
 */
final class LeafColumns {
  private LeafColumns() {}

  static ColumnWriter writer(
      ColumnWriteStore store, MessageType schema, String[] leaf, int definition, int repetition) {
    ColumnDescriptor descriptor = schema.getColumnDescription(leaf);
    if (descriptor.getMaxDefinitionLevel() != definition
        || descriptor.getMaxRepetitionLevel() != repetition) {
      throw new IllegalStateException(
          String.format(
              "column %s has levels (%d, %d), the writer computed (%d, %d)",
              String.join(".", leaf),
              descriptor.getMaxDefinitionLevel(),
              descriptor.getMaxRepetitionLevel(),
              definition,
              repetition));
    }
    return store.getColumnWriter(descriptor);
  }
}
