package org.parallelexport.parquet;

import java.io.IOException;
import org.apache.parquet.io.OutputFile;

/**
 * PartFile: where BatchSink writes one part, a local file or an object-store upload.
 *
 * <p>BatchSink and PartWriter only need an OutputFile to write through, plus the three things a
 * part reports when it ends: its size, whether its stream was closed without a footer (such a part
 * must never be published), and a way to give it up that never throws; and, while it is open, the
 * heap it holds. SyncingOutputFile is the local kind; s3.MultipartOutputFile the object-store kind,
 * whose upload stays pending after close (DESIGN.md, "Object storage: never a partial export").
 */
public interface PartFile extends OutputFile {
  /** Bytes written so far; after close, the part's size. */
  long position();

  /** Whether the stream was closed on a part that has no footer: it must not be published. */
  boolean footerMissing();

  /** Gives the part up without a footer. Never throws; safe to repeat. */
  void abandon();

  /**
   * Bytes of heap the part holds outside its writer's row group: an upload's buffers, which count
   * in a partitioned export's memory budget; a local file's fixed buffer is not counted.
   */
  default long heldBytes() {
    return 0;
  }

  /** Makes the PartFile for one part; BatchSink's default writes local files. */
  interface Factory {
    PartFile create(String path, CreatedByStamp stamp) throws IOException;

    /** Bytes past which a part must end for its kind of file to hold it; a local file has none. */
    default long partSizeLimit() {
      return Long.MAX_VALUE;
    }
  }
}
