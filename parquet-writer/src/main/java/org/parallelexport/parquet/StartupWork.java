/*
 * StartupWork: what a worker's JVM prepares on a second thread while its main thread goes on.
 *
 * A small export spends most of its time once per JVM, loading and initializing classes, and
 * three pieces of that are needed only when the first part is closed: the footer's metadata (its
 * Avro schema comes from Avro's schema code, which starts a Jackson of its own), the native Snappy
 * library, and parquet-java's ParquetMetadata, whose static ObjectMapper starts the shaded Jackson.
 * A sink starts them here on a daemon thread as it is created, so that they run on the core a
 * small export leaves idle while the main thread sets up the writers, scans and writes the first
 * batch; the main thread takes the metadata with metadata(), which waits for it if need be
 * (bench/results/startup.md). The thread never calls into PostgreSQL, and it inherits the
 * main thread's blocked signals (pljava-glue/pep_jvm.c). A failure to compute the metadata is
 * rethrown by metadata(); a warm-up that fails is left for the main thread to meet where it would
 * have met it, when it first uses the class.
 */
package org.parallelexport.parquet;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

final class StartupWork {
  private static final String SNAPPY = "org.xerial.snappy.Snappy";
  private static final String FOOTER = "org.apache.parquet.hadoop.metadata.ParquetMetadata";

  private final FutureTask<Map<String, String>> metadata;

  private StartupWork(List<Column> columns, SinkOptions options) {
    metadata = new FutureTask<>(() -> FileMetadata.of(columns, options));
  }

  /** Starts the work for a sink of these columns and options. */
  static StartupWork start(List<Column> columns, SinkOptions options) {
    StartupWork work = new StartupWork(columns, options);
    // In the order the main thread needs them: a part's pages are compressed before its footer.
    Runnable run =
        () -> {
          if (options.compression == CompressionCodecName.SNAPPY) {
            warm(SNAPPY);
          }
          work.metadata.run();
          warm(FOOTER);
        };
    Thread thread = new Thread(run, "parallel_export_parquet startup");
    thread.setDaemon(true);
    try {
      thread.start();
    } catch (OutOfMemoryError e) {
      // No thread to be had: the main thread does the work itself, as it would without one.
      work.metadata.run();
    }
    return work;
  }

  private static void warm(String className) {
    try {
      Class.forName(className, true, StartupWork.class.getClassLoader());
    } catch (ReflectiveOperationException | LinkageError e) {
      // The main thread meets the same failure when it uses the class, and reports it there.
    }
  }

  /** The key-value metadata of every part's footer; waits for it to be computed. */
  Map<String, String> metadata() {
    try {
      return metadata.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      if (cause instanceof Error) {
        throw (Error) cause;
      }
      throw new IllegalStateException("could not compute the parts' metadata", cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while computing the parts' metadata", e);
    }
  }
}
