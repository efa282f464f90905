package org.parallelexport.iceberg;

import static java.util.Objects.requireNonNull;

/**
 * ExportInfo: what an export's snapshot says about it in its summary.
 *
 * <p>{@code exportId} is the export's ledger id: unique per export, it is how {@link
 * IcebergCommitter#settle} recognises the export's snapshot after a crash.
 */
public record ExportInfo(
    String exportId, String source, String extensionVersion, String postgresVersion) {
  public ExportInfo {
    requireNonNull(exportId, "exportId is null");
    requireNonNull(source, "source is null");
    requireNonNull(extensionVersion, "extensionVersion is null");
    requireNonNull(postgresVersion, "postgresVersion is null");
  }
}
