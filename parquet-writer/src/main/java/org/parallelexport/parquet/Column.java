/*
 * Column: what the C side told BatchSink.create about one result column.
 *
 * Only a carrier from the create() arrays to ValueWriters and FileMetadata; it knows nothing
 * about Parquet.
 */
package org.parallelexport.parquet;

import static java.util.Objects.requireNonNull;

final class Column {
  final int index;
  final String name;
  final int kind;
  final int precision;
  final int scale;
  final String pgType;
  final int nullOffset;
  final int valueOffset;

  Column(
      int index,
      String name,
      int kind,
      int precision,
      int scale,
      String pgType,
      int nullOffset,
      int valueOffset) {
    this.index = index;
    this.name = requireNonNull(name, "name is null");
    this.kind = kind;
    this.precision = precision;
    this.scale = scale;
    this.pgType = requireNonNull(pgType, "pgType is null");
    this.nullOffset = nullOffset;
    this.valueOffset = valueOffset;
  }
}
