package org.parallelexport.parquet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * DiskFullException: a part's write failed because its file system is full.
 *
 * <p>PostgreSQL reports a full disk under its own files as SQLSTATE 53100 (disk_full), which
 * scripts and monitoring tell apart from other I/O errors: free space and retry. The JDK reports
 * ENOSPC as a plain IOException whose only sign is its message, the C library's text in the
 * server's lc_messages language, so neither its class nor its text can be matched. The file system
 * itself can be asked: SyncingOutputFile, when a write, the footer stamp or the sync fails, asks
 * for the space an unprivileged user may still take there (statvfs's f_bavail, which excludes the
 * blocks reserved for root; the server never runs as root), and if that is less than the write
 * needed, at least MARGIN, the failure becomes this exception, with the original as its cause. The
 * C side (pljava-glue, pep_jvm.c) maps this class to 53100 wherever it appears in the cause chain.
 * A disk that had space again by the time it was asked, a quota (EDQUOT, which statvfs does not
 * see) or a failure of the space check itself keeps the original IOException, 58030 (io_error).
 */
final class DiskFullException extends IOException {
  private static final long serialVersionUID = 1L;
  // Less usable space than this after a failed write counts as full whatever the write needed: a
  // file system allocates in blocks and keeps some for its own metadata, so ENOSPC comes before
  // the last byte is taken, and a sync's failure has no byte count at all.
  static final long MARGIN = 1024L * 1024;

  private DiskFullException(String message, IOException cause) {
    super(message, cause);
  }

  /**
   * What to throw for {@code failure}, a failed write of {@code needed} bytes (0 if unknown) to the
   * file {@code path}: a DiskFullException if its file system now has too little usable space,
   * otherwise {@code failure} itself.
   */
  static IOException of(IOException failure, Path path, long needed) {
    long usable;
    try {
      usable = Files.getFileStore(path).getUsableSpace();
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
      return failure;
    }
    return of(failure, usable, needed);
  }

  /** The decision of {@link #of(IOException, Path, long)}, given the usable space it found. */
  static IOException of(IOException failure, long usable, long needed) {
    if (failure instanceof DiskFullException || usable >= Math.max(needed, MARGIN)) {
      return failure;
    }
    return new DiskFullException(
        "the file system is full: "
            + usable
            + " bytes usable"
            + (needed > 0 ? ", a write of " + needed + " bytes failed" : ""),
        failure);
  }
}
