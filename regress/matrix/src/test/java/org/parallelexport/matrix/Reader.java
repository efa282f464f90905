package org.parallelexport.matrix;

import java.util.List;
import java.util.Map;

/**
 * A Parquet reader of the matrix, started once for the whole run: reads each named column of one
 * export (a file, a Hive-partitioned tree, an s3:// prefix: see {@link Source}) on its own, with
 * the id column, so one column it cannot read does not hide the others.
 */
// A reader's close may wait for a process (javac's "try" lint would have close() never throw
// InterruptedException, which that wait must be able to).
@SuppressWarnings("try")
interface Reader extends AutoCloseable {
  /** The name the matrix shows, with the version under test. */
  String name();

  /** Column name to what this reader made of it. */
  Map<String, Read> read(Source source, List<String> columns) throws Exception;

  /**
   * One column as read: the reader's own values by id (null for NULL), or why it could not read the
   * column; type is the reader's name for the column's type, where its API tells it.
   */
  record Read(Map<Integer, Object> values, String error, String type) {
    Read(Map<Integer, Object> values, String error) {
      this(values, error, null);
    }

    static Read failed(Throwable t) {
      return new Read(null, message(t));
    }
  }

  /** A value the reader's API failed to hand back, kept as what went wrong. */
  record Unavailable(String message) {
    @Override
    public String toString() {
      return "error: " + message;
    }
  }

  /** value's result, or what went wrong when the reader's API throws for this one value. */
  static Object guarded(java.util.concurrent.Callable<Object> value) {
    try {
      return value.call();
    } catch (Exception e) {
      return new Unavailable(message(e));
    }
  }

  private static String message(Throwable t) {
    return t.getMessage() == null ? t.getClass().getName() : t.getMessage();
  }
}
