package org.parallelexport.parquet;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * Column: what the C side told BatchSink.create about one result column.
 *
 * <p>Only a carrier from the create() arrays to ValueWriters and FileMetadata; it knows nothing
 * about Parquet. A column's type is a tree: a LIST column has one child (its element, named
 * "element"), a STRUCT column one child per field. Children are nodes, not batch columns: their
 * index is their position in the parent group, their offsets -1 and their pgType empty. A node's
 * label is what errors call it: its column's name, then the fields down to it ("c.v"); a list
 * element goes by its list's label, since "element" would tell a user nothing.
 */
final class Column {
  final int index;
  final String name;
  final String label;
  final int kind;
  final int precision;
  final int scale;
  final String pgType;
  final int nullOffset;
  final int valueOffset;
  final List<Column> children;

  Column(
      int index,
      String name,
      int kind,
      int precision,
      int scale,
      String pgType,
      int nullOffset,
      int valueOffset,
      List<Column> children) {
    this(index, name, name, kind, precision, scale, pgType, nullOffset, valueOffset, children);
  }

  private Column(
      int index,
      String name,
      String label,
      int kind,
      int precision,
      int scale,
      String pgType,
      int nullOffset,
      int valueOffset,
      List<Column> children) {
    this.index = index;
    this.name = requireNonNull(name, "name is null");
    this.label = requireNonNull(label, "label is null");
    this.kind = kind;
    this.precision = precision;
    this.scale = scale;
    this.pgType = requireNonNull(pgType, "pgType is null");
    this.nullOffset = nullOffset;
    this.valueOffset = valueOffset;
    this.children = List.copyOf(requireNonNull(children, "children is null"));
  }

  /** This node with another label. */
  Column labeled(String newLabel) {
    return new Column(
        index, name, newLabel, kind, precision, scale, pgType, nullOffset, valueOffset, children);
  }
}
