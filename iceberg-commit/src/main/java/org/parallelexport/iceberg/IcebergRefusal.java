package org.parallelexport.iceberg;

/**
 * IcebergRefusal: an Iceberg export that cannot go on, with the SQLSTATE the C side reports it
 * under.
 *
 * <p>Thrown before any worker starts (a schema that does not fit the table) or at commit (a
 * concurrent commit that invalidates an overwrite). The message follows PostgreSQL's style: lower
 * case, naming the column or table concerned, so the C side can pass it to ereport unchanged.
 */
public final class IcebergRefusal extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** 42703 undefined_column: the export has a column the table lacks. */
  public static final String UNDEFINED_COLUMN = "42703";

  /** 42804 datatype_mismatch: a column's type is neither the table's nor promotable to it. */
  public static final String DATATYPE_MISMATCH = "42804";

  /** 23502 not_null_violation: the table requires a column the export may leave null. */
  public static final String NOT_NULL_VIOLATION = "23502";

  /** 0A000 feature_not_supported: a table this version cannot write (partitioned). */
  public static final String FEATURE_NOT_SUPPORTED = "0A000";

  /** 40001 serialization_failure: a concurrent commit conflicts with this export's. */
  public static final String SERIALIZATION_FAILURE = "40001";

  /** 40003 statement_completion_unknown: the catalog's answer to the commit was lost. */
  public static final String COMPLETION_UNKNOWN = "40003";

  private final String sqlState;

  public IcebergRefusal(String sqlState, String message, Throwable cause) {
    super(message, cause);
    this.sqlState = sqlState;
  }

  public IcebergRefusal(String sqlState, String message) {
    this(sqlState, message, null);
  }

  /** The five-character SQLSTATE, one of the constants above. */
  public String sqlState() {
    return sqlState;
  }
}
