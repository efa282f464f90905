/**
 * tools/order_guard/Cases.java: what tools/order_guard.sh must report in SQL held by Java strings,
 * joined with + or not (each line marked ORDER_GUARD_FINDS), and must not (every other line). Never
 * compiled.
 */
class Cases {
  // The caller's rows: an apostrophe in a comment.
  String a = "SELECT array_agg(x ORDER BY 1) FROM t"; // ORDER_GUARD_FINDS
  String b =
      "SELECT string_agg(t, ',' "
          + "ORDER BY 1) FROM " // ORDER_GUARD_FINDS
          + table;
  String c = "SELECT array_agg(x" + " ORDER BY " + "1) FROM " + Env.glob(dir); // ORDER_GUARD_FINDS
  String d = "SELECT \"Odd (\", json_agg(x ORDER BY 1) FROM t"; // ORDER_GUARD_FINDS
  char q = '"';
  char r = '\'';
  String e = "SELECT array_agg(x ORDER BY 1) FROM t" + q; // ORDER_GUARD_FINDS

  // Fine: a query's own ORDER BY, joined or not.
  String f = "SELECT region, count(*) FROM " + TABLE + " GROUP BY 1 ORDER BY 1 NULLS FIRST";
  String g = "SELECT ARRAY(" + "SELECT f FROM t ORDER BY 1)";
  String h = "it's the reader's file (" + n + ")";
  String i = "SELECT a FROM t ORDER BY 1";
}
