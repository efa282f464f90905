package org.parallelexport.parquet;

import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.Type;

/**
 * FieldIds: writes the option field_ids into the Parquet schema (parquet-java's Type.withId).
 *
 * <p>The ids come in the pre-order of the schema's numbered fields: each column, then its nested
 * fields (a STRUCT's fields, an interval group's three fields, a LIST's element). A LIST's repeated
 * middle group ("list") is not numbered, as in DuckDB's and pg_parquet's 'auto' numbering and in
 * Iceberg's schemas, which give ids to the list and its element only. The C side made the same walk
 * over its type trees (pep_writermeta.c); a count that differs is an error, never ids shifted onto
 * the wrong fields.
 */
final class FieldIds {
  private FieldIds() {}

  /** {@code fields} with the ids of {@code ids} (-1: none), or unchanged if {@code ids} is null. */
  static List<Type> apply(List<Type> fields, int[] ids) {
    if (ids == null) {
      return fields;
    }
    int[] next = {0};
    List<Type> result = withIds(fields, ids, next);
    if (next[0] != ids.length) {
      throw new IllegalArgumentException(
          "option field_ids holds "
              + ids.length
              + " ids, the schema numbers "
              + next[0]
              + " fields");
    }
    return result;
  }

  private static List<Type> withIds(List<Type> fields, int[] ids, int[] next) {
    List<Type> result = new ArrayList<>(fields.size());
    for (Type field : fields) {
      result.add(withId(field, ids, next));
    }
    return result;
  }

  private static Type withId(Type field, int[] ids, int[] next) {
    if (next[0] >= ids.length) {
      throw new IllegalArgumentException(
          "option field_ids holds " + ids.length + " ids, the schema numbers more fields");
    }
    int id = ids[next[0]++];
    Type numbered = field;
    if (!field.isPrimitive()) {
      GroupType group = field.asGroupType();
      List<Type> children;
      if (group.getLogicalTypeAnnotation()
          instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation) {
        GroupType repeated = group.getType(0).asGroupType();
        children = List.of(repeated.withNewFields(withIds(repeated.getFields(), ids, next)));
      } else {
        children = withIds(group.getFields(), ids, next);
      }
      numbered = group.withNewFields(children);
    }
    return id < 0 ? numbered : numbered.withId(id);
  }
}
