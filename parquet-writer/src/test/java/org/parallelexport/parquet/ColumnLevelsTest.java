package org.parallelexport.parquet;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ColumnLevelsTest: the definition and repetition levels the column-at-a-time writer computes,
 * checked against parquet-java's own record path on the same values (RecordPath).
 *
 * <p>The rows: NULLs, empty arrays, NULL elements, lists of lists, structs holding lists, lists of
 * structs, intervals; and flat columns of every kind whose writer loops over its rows itself. Both
 * files must hold the same records, row groups of the same sizes, and column chunks with the same
 * value counts, NULL counts and statistics.
 */
class ColumnLevelsTest {
  private static final NestedBatch.Node[] COLUMNS = {
    // integer[]
    NestedBatch.Node.list("a", NestedBatch.Node.element(ColumnKind.INT32)),
    // text[][]
    NestedBatch.Node.list(
        "m",
        NestedBatch.Node.element(ColumnKind.LIST, NestedBatch.Node.element(ColumnKind.STRING))),
    // (k bigint, v integer[], iv interval)
    new NestedBatch.Node(
        "s",
        ColumnKind.STRUCT,
        new NestedBatch.Node("k", ColumnKind.INT64),
        NestedBatch.Node.list("v", NestedBatch.Node.element(ColumnKind.INT32)),
        new NestedBatch.Node("iv", ColumnKind.INTERVAL)),
    // (k integer, t text)[]
    NestedBatch.Node.list(
        "ls",
        NestedBatch.Node.element(
            ColumnKind.STRUCT,
            new NestedBatch.Node("k", ColumnKind.INT32),
            new NestedBatch.Node("t", ColumnKind.STRING))),
    new NestedBatch.Node("i", ColumnKind.INT32),
    new NestedBatch.Node("t", ColumnKind.STRING),
    new NestedBatch.Node("iv", ColumnKind.INTERVAL),
  };
  // Top-level columns of the kinds whose writers loop over their rows themselves (writeRows).
  private static final NestedBatch.Node[] FLAT = {
    new NestedBatch.Node("b", ColumnKind.BOOL),
    new NestedBatch.Node("s", ColumnKind.INT16),
    new NestedBatch.Node("i", ColumnKind.INT32),
    new NestedBatch.Node("l", ColumnKind.INT64),
    new NestedBatch.Node("f", ColumnKind.FLOAT32),
    new NestedBatch.Node("d", ColumnKind.FLOAT64),
    new NestedBatch.Node("u", ColumnKind.UUID),
    new NestedBatch.Node("t", ColumnKind.STRING),
    // numeric(9,2) and numeric(18,3): unscaled, as INT32 and INT64
    NestedBatch.Node.decimal("n", 9, 2),
    NestedBatch.Node.decimal("w", 18, 3),
  };

  @TempDir Path dir;

  @Test
  void handWrittenEdgesMatchTheRecordPath() throws Exception {
    List<Object[]> rows = new ArrayList<>();
    // every column NULL
    rows.add(new Object[COLUMNS.length]);
    // every list empty, the struct with every field NULL
    rows.add(
        new Object[] {List.of(), List.of(), new Object[3], List.of(), 0, "", new long[] {0, 0, 0}});
    // NULL elements; an empty and a NULL inner list; a struct whose list is empty
    rows.add(
        new Object[] {
          Arrays.asList(null, 1, null),
          Arrays.asList(List.of(), null, Arrays.asList("x", null)),
          new Object[] {7L, List.of(), null},
          Arrays.asList(null, new Object[] {null, null}, new Object[] {3, "y"}),
          null,
          null,
          null
        });
    // one of everything, twice, so that repetition continues past the first entry
    rows.add(
        new Object[] {
          List.of(1, 2),
          List.of(List.of("a", "b"), List.of("c")),
          new Object[] {-1L, Arrays.asList(5, null, 6), new long[] {-14, 3, -86_400_000_000L}},
          List.of(new Object[] {1, "p"}, new Object[] {2, "q"}),
          -5,
          "ü",
          new long[] {1, -2, 3}
        });
    String options = "row_group_rows=3\n";
    RecordPath.compare(dir, COLUMNS, rows, 4, 1 << 20, options);
  }

  @Test
  void randomRowsAcrossBatchesSlicesAndRowGroupsMatchTheRecordPath() throws Exception {
    Random random = new Random(20261201);
    List<Object[]> rows = new ArrayList<>();
    for (int r = 0; r < 2500; r++) {
      Object[] row = new Object[COLUMNS.length];
      for (int c = 0; c < COLUMNS.length; c++) {
        row[c] = value(random, COLUMNS[c], 0);
      }
      rows.add(row);
    }
    // 512-row batches, 128-row slices, 700-row groups: the boundaries never line up.
    RecordPath.compare(dir, COLUMNS, rows, 512, 1 << 20, "row_group_rows=700\n");
    RecordPath.compare(
        dir,
        COLUMNS,
        rows,
        512,
        1 << 20,
        "row_group_rows=700\nwriter_version=v2\ndictionary=false\n");
  }

  @Test
  void flatKindsAcrossBatchesSlicesAndRowGroupsMatchTheRecordPath() throws Exception {
    Random random = new Random(20261202);
    List<Object[]> rows = new ArrayList<>();
    for (int r = 0; r < 2500; r++) {
      Object[] row = new Object[FLAT.length];
      for (int c = 0; c < FLAT.length; c++) {
        row[c] = value(random, FLAT[c], 0);
      }
      rows.add(row);
    }
    RecordPath.compare(dir, FLAT, rows, 512, 1 << 20, "row_group_rows=700\n");
    RecordPath.compare(
        dir, FLAT, rows, 512, 1 << 20, "row_group_rows=700\nwriter_version=v2\ndictionary=false\n");
  }

  private static Object value(Random random, NestedBatch.Node node, int depth) {
    if (random.nextInt(7) == 0) {
      return null;
    }
    switch (node.kind) {
      case ColumnKind.BOOL:
        return random.nextBoolean();
      case ColumnKind.INT16:
        return (short) random.nextInt();
      case ColumnKind.FLOAT32:
        return random.nextFloat() * 100 - 50;
      case ColumnKind.FLOAT64:
        return random.nextGaussian();
      case ColumnKind.UUID:
        return new UUID(random.nextLong(), random.nextLong());
      case ColumnKind.INT32:
        return random.nextInt(50) - 25;
      case ColumnKind.INT64:
        return random.nextLong();
      case ColumnKind.STRING:
        return "s" + random.nextInt(40);
      case ColumnKind.DECIMAL64:
        return BigDecimal.valueOf(
            random.nextLong() % (node.precision <= 9 ? 1_000_000_000L : 1_000_000_000_000_000_000L),
            node.scale);
      case ColumnKind.INTERVAL:
        return new long[] {random.nextInt(), random.nextInt(), random.nextLong()};
      case ColumnKind.LIST:
        {
          List<Object> list = new ArrayList<>();
          int n = random.nextInt(depth == 0 ? 5 : 3);
          for (int i = 0; i < n; i++) {
            list.add(value(random, node.children[0], depth + 1));
          }
          return list;
        }
      default:
        {
          Object[] fields = new Object[node.children.length];
          for (int i = 0; i < fields.length; i++) {
            fields[i] = value(random, node.children[i], depth + 1);
          }
          return fields;
        }
    }
  }
}
