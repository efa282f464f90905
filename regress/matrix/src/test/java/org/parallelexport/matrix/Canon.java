package org.parallelexport.matrix;

import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Blob;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.parallelexport.readback.TypeCases;

/**
 * A reader's value in the canonical text PostgreSQL's side of the read-back test uses (see {@link
 * TypeCases#expected}): an array as a List of element texts (a List of such Lists per further
 * dimension), a date as days since 1970-01-01, a time or timestamp as microseconds, a float as its
 * bits. The conversion is faithful to the Java or JavaScript type the reader chose (a Date holds
 * milliseconds, a Double is binary, an int is signed), so a reader's representation that cannot
 * hold the value shows as a difference.
 */
final class Canon {
  static final String NUL = "~null~";

  private Canon() {}

  /** The canonical cell of col's value v (null for NULL). */
  static Object of(TypeCases.Column col, Object v) throws SQLException {
    if (v == null) {
      return null;
    }
    if (v instanceof Reader.Unavailable u) {
      return u.toString();
    }
    if (!col.array()) {
      return leaf(col, v);
    }
    return elements(col, v);
  }

  /**
   * An array's elements, a List per dimension: a multi-dimensional array's sub-arrays are the lists
   * a reader returns for them.
   */
  private static List<Object> elements(TypeCases.Column col, Object v) throws SQLException {
    List<Object> out = new ArrayList<>();
    for (Object e : list(v)) {
      out.add(e == null ? null : isList(e) ? elements(col, e) : leaf(col, e));
    }
    return out;
  }

  private static boolean isList(Object v) {
    return v instanceof List<?>
        || v instanceof Object[]
        || v instanceof java.sql.Array
        || v instanceof scala.collection.Seq<?>;
  }

  private static String leaf(TypeCases.Column col, Object v) throws SQLException {
    return switch (col.kind()) {
      case "bool" -> v.toString();
      case "int2", "int4", "int8", "oid", "posint" -> integral(v);
      case "float4", "float8" -> TypeCases.normalize(col, floatText(v));
      case "num", "num4", "num18", "num38", "num_negscale", "num_bigscale" ->
          TypeCases.normalize(col, decimalText(v));
      case "bytea" -> v instanceof String s ? s : hex(v);
      case "uuid" -> v instanceof byte[] || v instanceof Blob ? hex(v) : v.toString();
      case "date" -> date(v);
      case "time", "timetz" -> time(v);
      case "ts", "tstz" -> micros(v);
      case "interval" -> interval(v);
      case "comp" -> comp(v);
      default -> text(v);
    };
  }

  private static String text(Object v) throws SQLException {
    return v instanceof byte[] || v instanceof Blob ? "bytes 0x" + hex(v) : v.toString();
  }

  private static String integral(Object v) {
    if (v instanceof Double d) {
      return new BigDecimal(d).stripTrailingZeros().toPlainString();
    }
    if (v instanceof BigDecimal d) {
      return d.toPlainString();
    }
    return new BigInteger(v.toString()).toString();
  }

  private static String floatText(Object v) {
    if (v instanceof Float f) {
      return Float.toString(f);
    }
    if (v instanceof Double d) {
      return Double.toString(d);
    }
    return "not a float: " + v.getClass().getSimpleName() + " " + v;
  }

  private static String decimalText(Object v) {
    if (v instanceof BigDecimal d) {
      return d.toPlainString();
    }
    if (v instanceof Double d && Double.isFinite(d)) {
      // what a binary double holds, not the shortest text that parses back to it
      return new BigDecimal(d).toPlainString();
    }
    return v.toString();
  }

  private static String hex(Object v) throws SQLException {
    byte[] b = v instanceof Blob blob ? blob.getBytes(1, (int) blob.length()) : (byte[]) v;
    return HexFormat.of().formatHex(b);
  }

  private static String date(Object v) {
    if (v instanceof LocalDate d) {
      return Long.toString(d.toEpochDay());
    }
    if (v instanceof java.sql.Date d) {
      return Long.toString(d.toLocalDate().toEpochDay());
    }
    if (v instanceof NodeReaders.JsDate d) {
      return d.millis() == null
          ? "invalid Date"
          : Long.toString(Math.floorDiv(d.millis(), 86400000L));
    }
    if (v instanceof LocalDateTime t) {
      return Long.toString(t.toLocalDate().toEpochDay());
    }
    if (v instanceof String s) {
      // a reader that leaves a date partition's folder value as it found it
      return "text " + s;
    }
    return integral(v);
  }

  private static String time(Object v) {
    if (v instanceof LocalTime t) {
      return Long.toString(t.toNanoOfDay() / 1000);
    }
    if (v instanceof OffsetTime t) {
      return Long.toString(
          t.withOffsetSameInstant(ZoneOffset.UTC).toLocalTime().toNanoOfDay() / 1000);
    }
    if (v instanceof LocalDateTime t) {
      return Long.toString(t.toLocalTime().toNanoOfDay() / 1000);
    }
    if (v instanceof String s) {
      // nodejs-polars hands a time to JavaScript as its ISO text
      try {
        return Long.toString(LocalTime.parse(s).toNanoOfDay() / 1000);
      } catch (java.time.format.DateTimeParseException e) {
        return "time text " + s;
      }
    }
    if (v instanceof java.time.Duration d) {
      return Long.toString(d.toNanos() / 1000);
    }
    if (v instanceof NodeReaders.JsDate d) {
      return d.millis() == null ? "invalid Date" : Long.toString(d.millis() * 1000);
    }
    return integral(v);
  }

  private static String micros(Object v) {
    Instant i;
    if (v instanceof Instant x) {
      i = x;
    } else if (v instanceof LocalDateTime t) {
      i = t.toInstant(ZoneOffset.UTC);
    } else if (v instanceof OffsetDateTime t) {
      i = t.toInstant();
    } else if (v instanceof java.sql.Timestamp t) {
      i = t.toInstant();
    } else if (v instanceof NodeReaders.JsDate d) {
      return d.millis() == null ? "invalid Date" : Long.toString(d.millis() * 1000);
    } else {
      return integral(v);
    }
    return BigInteger.valueOf(i.getEpochSecond())
        .multiply(BigInteger.valueOf(1_000_000))
        .add(BigInteger.valueOf(i.getNano() / 1000))
        .toString();
  }

  private static String interval(Object v) throws SQLException {
    Map<String, Object> f = fields(v);
    return integral(f.get("months"))
        + ","
        + integral(f.get("days"))
        + ","
        + integral(f.get("microseconds"));
  }

  /** The read-back test's rendering of regress_types.comp (a, b, c[], d.x, d.y[]), '|'-joined. */
  private static String comp(Object v) throws SQLException {
    Map<String, Object> f = fields(v);
    Map<String, Object> d = f.get("d") == null ? null : fields(f.get("d"));
    List<String> parts = new ArrayList<>();
    parts.add(f.get("a") == null ? NUL : integral(f.get("a")));
    parts.add(f.get("b") == null ? NUL : text(f.get("b")));
    parts.add(joined(f.get("c"), true));
    parts.add(d == null || d.get("x") == null ? NUL : integral(d.get("x")));
    parts.add(d == null ? NUL : joined(d.get("y"), false));
    return String.join("|", parts);
  }

  private static String joined(Object list, boolean decimals) throws SQLException {
    if (list == null) {
      return NUL;
    }
    List<String> out = new ArrayList<>();
    for (Object e : list(list)) {
      out.add(e == null ? NUL : decimals ? decimalText(e) : text(e));
    }
    return String.join(",", out);
  }

  /** The elements of a list as any reader returns one. */
  static List<?> list(Object v) throws SQLException {
    if (v instanceof List<?> l) {
      return l;
    }
    if (v instanceof Object[] a) {
      return Arrays.asList(a);
    }
    if (v instanceof java.sql.Array a) {
      return Arrays.asList((Object[]) a.getArray());
    }
    if (v instanceof scala.collection.Seq<?> s) {
      return scala.jdk.javaapi.CollectionConverters.asJava(s);
    }
    throw new IllegalArgumentException("not a list: " + v.getClass().getName());
  }

  /** The fields of a struct as any reader returns one, by name. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> fields(Object v) throws SQLException {
    if (v instanceof Map<?, ?> m) {
      return (Map<String, Object>) m;
    }
    if (v instanceof Row r) {
      Map<String, Object> m = new LinkedHashMap<>();
      String[] names = r.schema().fieldNames();
      for (int i = 0; i < names.length; i++) {
        m.put(names[i], r.get(i));
      }
      return m;
    }
    try {
      // DuckDB's java.sql.Struct keeps its field names behind getMap()
      Method getMap = v.getClass().getMethod("getMap");
      return (Map<String, Object>) getMap.invoke(v);
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException("not a struct: " + v.getClass().getName(), e);
    }
  }

  /** The Java class a reader chose for a column's first non-null value (for the notes). */
  static String typeOf(Object v) {
    return v == null ? "null" : v.getClass().getSimpleName();
  }
}
