package org.parallelexport.parquet;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.io.api.Binary;

/**
 * NestedBatch: columns of any type tree for the level tests, filled from plain Java values both
 * into a batch (nested payloads laid out as extension/src/encode/pep_nested.c writes them) and into
 * parquet-java's example Groups, the input of its own record path.
 *
 * <p>A value is null, an Integer (INT32), a Long (INT64), a String (STRING), a long[] {months,
 * days, microseconds} (INTERVAL), a List (LIST) or an Object[] (STRUCT, one entry per field);
 * top-level columns may also be a Boolean (BOOL), a Short (INT16), a Float (FLOAT32), a Double
 * (FLOAT64), a UUID (UUID) or a BigDecimal of the node's scale (DECIMAL64).
 */
final class NestedBatch {
  /** One node of a column's type tree. */
  static final class Node {
    final String name;
    final int kind;
    final Node[] children;
    // DECIMAL64's; 0 for every other kind.
    final int precision;
    final int scale;

    Node(String name, int kind, Node... children) {
      this(name, kind, 0, 0, children);
    }

    private Node(String name, int kind, int precision, int scale, Node... children) {
      this.name = name;
      this.kind = kind;
      this.children = children;
      this.precision = precision;
      this.scale = scale;
    }

    static Node decimal(String name, int precision, int scale) {
      return new Node(name, ColumnKind.DECIMAL64, precision, scale);
    }

    static Node list(String name, Node element) {
      return new Node(name, ColumnKind.LIST, element);
    }

    static Node element(int kind, Node... children) {
      return new Node(ListValueWriter.ELEMENT, kind, children);
    }
  }

  private NestedBatch() {}

  /** A sink over {@code batch} for these columns, every node in the order C sends them. */
  static BatchSink sink(Node[] columns, TestBatch batch, String options) {
    int n = columns.length;
    String[] names = new String[n];
    int[] kinds = new int[n];
    int[] precisions = new int[n];
    int[] scales = new int[n];
    String[] pgTypes = new String[n];
    List<Node> nodes = new ArrayList<>();
    for (int c = 0; c < n; c++) {
      names[c] = columns[c].name;
      kinds[c] = columns[c].kind;
      precisions[c] = columns[c].precision;
      scales[c] = columns[c].scale;
      pgTypes[c] = "kind " + kinds[c];
      preorder(columns[c], nodes);
    }
    String[] nodeNames = new String[nodes.size()];
    int[] nodeKinds = new int[nodes.size()];
    int[] nodePrecisions = new int[nodes.size()];
    int[] nodeScales = new int[nodes.size()];
    int[] nodeChildren = new int[nodes.size()];
    for (int i = 0; i < nodes.size(); i++) {
      nodeNames[i] = nodes.get(i).name;
      nodeKinds[i] = nodes.get(i).kind;
      nodePrecisions[i] = nodes.get(i).precision;
      nodeScales[i] = nodes.get(i).scale;
      nodeChildren[i] = nodes.get(i).children.length;
    }
    return BatchSink.create(
        names,
        kinds,
        precisions,
        scales,
        pgTypes,
        batch.capacity,
        batch.nullOffsets,
        batch.valueOffsets,
        batch.buffer,
        options,
        nodeNames,
        nodeKinds,
        nodePrecisions,
        nodeScales,
        nodeChildren);
  }

  private static void preorder(Node node, List<Node> out) {
    out.add(node);
    for (Node child : node.children) {
      preorder(child, out);
    }
  }

  static int[] kinds(Node[] columns) {
    int[] kinds = new int[columns.length];
    for (int c = 0; c < columns.length; c++) {
      kinds[c] = columns[c].kind;
    }
    return kinds;
  }

  /** Stores {@code value} as row {@code r} of column {@code c}. */
  static void set(TestBatch batch, int c, int r, Node node, Object value) {
    if (value == null) {
      batch.setNull(c, r);
      return;
    }
    switch (node.kind) {
      case ColumnKind.BOOL:
        batch.setBool(c, r, (Boolean) value);
        return;
      case ColumnKind.INT16:
        batch.setShort(c, r, (Short) value);
        return;
      case ColumnKind.FLOAT32:
        batch.setFloat(c, r, (Float) value);
        return;
      case ColumnKind.FLOAT64:
        batch.setDouble(c, r, (Double) value);
        return;
      case ColumnKind.UUID:
        batch.setUuid(c, r, (UUID) value);
        return;
      case ColumnKind.INT32:
        batch.setInt(c, r, (Integer) value);
        return;
      case ColumnKind.INT64:
        batch.setLong(c, r, (Long) value);
        return;
      case ColumnKind.DECIMAL64:
        batch.setLong(c, r, unscaled(node, value));
        return;
      case ColumnKind.STRING:
        batch.setString(c, r, (String) value);
        return;
      case ColumnKind.INTERVAL:
        long[] iv = (long[]) value;
        batch.setInterval(c, r, (int) iv[0], (int) iv[1], iv[2]);
        return;
      default:
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        payload(out, node, value);
        batch.setBytes(c, r, out.toByteArray());
    }
  }

  private static long unscaled(Node node, Object value) {
    return ((BigDecimal) value).setScale(node.scale).unscaledValue().longValueExact();
  }

  private static void payload(ByteArrayOutputStream out, Node node, Object value) {
    if (node.kind == ColumnKind.LIST) {
      List<?> list = (List<?>) value;
      write(out, ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(list.size()));
      for (Object element : list) {
        out.write(element == null ? 1 : 0);
      }
      for (Object element : list) {
        if (element != null) {
          nested(out, node.children[0], element);
        }
      }
    } else {
      Object[] fields = (Object[]) value;
      for (int i = 0; i < fields.length; i++) {
        out.write(fields[i] == null ? 1 : 0);
        if (fields[i] != null) {
          nested(out, node.children[i], fields[i]);
        }
      }
    }
  }

  private static void nested(ByteArrayOutputStream out, Node node, Object value) {
    ByteBuffer fixed = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder());
    switch (node.kind) {
      case ColumnKind.INT32:
        write(out, fixed.putInt((Integer) value));
        return;
      case ColumnKind.INT64:
        write(out, fixed.putLong((Long) value));
        return;
      case ColumnKind.INTERVAL:
        long[] iv = (long[]) value;
        write(out, fixed.putInt((int) iv[0]).putInt((int) iv[1]).putLong(iv[2]));
        return;
      case ColumnKind.STRING:
        withLength(out, ((String) value).getBytes(StandardCharsets.UTF_8));
        return;
      default:
        ByteArrayOutputStream inner = new ByteArrayOutputStream();
        payload(inner, node, value);
        withLength(out, inner.toByteArray());
    }
  }

  private static void withLength(ByteArrayOutputStream out, byte[] bytes) {
    write(out, ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(bytes.length));
    out.write(bytes, 0, bytes.length);
  }

  private static void write(ByteArrayOutputStream out, ByteBuffer bytes) {
    out.write(bytes.array(), 0, bytes.position());
  }

  /** Adds {@code value} (not null) as field {@code node.name} of {@code parent}. */
  static void add(Group parent, Node node, Object value) {
    switch (node.kind) {
      case ColumnKind.BOOL:
        parent.add(node.name, (Boolean) value);
        return;
      case ColumnKind.INT16:
        parent.add(node.name, (int) (Short) value);
        return;
      case ColumnKind.FLOAT32:
        parent.add(node.name, (Float) value);
        return;
      case ColumnKind.FLOAT64:
        parent.add(node.name, (Double) value);
        return;
      case ColumnKind.UUID:
        {
          UUID uuid = (UUID) value;
          parent.add(
              node.name,
              Binary.fromConstantByteArray(
                  ByteBuffer.allocate(16)
                      .putLong(uuid.getMostSignificantBits())
                      .putLong(uuid.getLeastSignificantBits())
                      .array()));
          return;
        }
      case ColumnKind.INT32:
        parent.add(node.name, (Integer) value);
        return;
      case ColumnKind.INT64:
        parent.add(node.name, (Long) value);
        return;
      case ColumnKind.DECIMAL64:
        // DECIMAL(p <= 9) is an INT32 column, as ValueWriters makes it
        if (node.precision <= 9) {
          parent.add(node.name, (int) unscaled(node, value));
        } else {
          parent.add(node.name, unscaled(node, value));
        }
        return;
      case ColumnKind.STRING:
        parent.add(node.name, (String) value);
        return;
      case ColumnKind.INTERVAL:
        {
          long[] iv = (long[]) value;
          Group group = parent.addGroup(node.name);
          group.add(IntervalValueWriter.MONTHS, (int) iv[0]);
          group.add(IntervalValueWriter.DAYS, (int) iv[1]);
          group.add(IntervalValueWriter.MICROSECONDS, iv[2]);
          return;
        }
      case ColumnKind.LIST:
        {
          Group group = parent.addGroup(node.name);
          for (Object element : (List<?>) value) {
            Group entry = group.addGroup(ListValueWriter.LIST);
            if (element != null) {
              add(entry, node.children[0], element);
            }
          }
          return;
        }
      default:
        {
          Group group = parent.addGroup(node.name);
          Object[] fields = (Object[]) value;
          for (int i = 0; i < fields.length; i++) {
            if (fields[i] != null) {
              add(group, node.children[i], fields[i]);
            }
          }
        }
    }
  }
}
