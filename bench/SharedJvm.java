import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.parallelexport.parquet.BatchSink;

/**
 * SharedJvm: what a worker's writer costs when JVMs are shared, without PostgreSQL (issue 13).
 *
 * <p>bench/shared-jvm.sh runs it. It lays out batches of the benchmark table t's ten columns the
 * way the C side does (bench/sql/create_table.sql's kinds and NULL rate, values from a fixed hash),
 * then THREADS threads of one JVM each write ROWS rows of them into their own part through the
 * extension's BatchSink, as a worker does. Run once with 2 threads and twice side by side with 1,
 * it tells what a second worker's JVM costs against a second thread in the same JVM: the question
 * of 1 -&gt; 2 workers (bench/results/scaling.md). Only the writing is measured: the batches are
 * made before it, and every JVM waits at a file barrier until all are ready.
 *
 * <p>The kind codes and widths are the C/Java contract's (ColumnKind, package-private there): INT64
 * 3, INT32 2, FLOAT64 5, DECIMAL64 21, STRING 7, TIMESTAMPTZ 13, DATE 10, BOOL 0, UUID 14, JSON 8;
 * a var kind's value is an (offset, length) pair of int32s into the var area.
 *
 * <pre>
 * Usage: java -cp parallel_export_parquet.jar bench/SharedJvm.java THREADS ROWS OUTDIR NAME JVMS
 *   [OPTIONS]  (the sink's options as the C side passes them: "compression=zstd\n")
 * </pre>
 *
 * <p>Prints one line: NAME, threads, rows written, wall seconds, the process's CPU seconds while
 * writing, and the writing threads' CPU seconds (the rest is the JIT, the collector, the VM).
 */
public final class SharedJvm {
  private static final int BATCH_ROWS = 4096;
  // Distinct batches per thread: 262,144 rows, more than two row groups of 122,880.
  private static final int POOL = 64;
  private static final String[] NAMES = {
    "id", "i", "d", "amount", "txt", "ts", "dt", "flag", "u", "j"
  };
  private static final int[] KINDS = {3, 2, 5, 21, 7, 13, 10, 0, 14, 8};
  private static final int[] WIDTHS = {8, 4, 8, 8, 8, 8, 4, 1, 16, 8};
  private static final String[] TYPES = {
    "bigint",
    "integer",
    "double precision",
    "numeric(12,2)",
    "text",
    "timestamp with time zone",
    "date",
    "boolean",
    "uuid",
    "jsonb"
  };
  private static final String[] WORDS = {
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"
  };
  private static final int VAR_BYTES = BATCH_ROWS * 160;
  private static final long EPOCH_2020_MICROS = 631_152_000L * 1_000_000L;

  private final int[] nulls = new int[NAMES.length];
  private final int[] values = new int[NAMES.length];
  private final int varStart;

  private SharedJvm() {
    int at = 0;
    for (int c = 0; c < NAMES.length; c++) {
      nulls[c] = at;
      at += BATCH_ROWS;
    }
    for (int c = 0; c < NAMES.length; c++) {
      values[c] = at;
      at += BATCH_ROWS * WIDTHS[c];
    }
    varStart = at;
  }

  private static long hash(long g, int seed) {
    long x = g * 0x9E3779B97F4A7C15L + seed * 0xC2B2AE3D27D4EB4FL;
    x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
    x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
    return (x ^ (x >>> 31)) & Long.MAX_VALUE;
  }

  private ByteBuffer batch(long first) {
    ByteBuffer b = ByteBuffer.allocateDirect(varStart + VAR_BYTES).order(ByteOrder.nativeOrder());
    int var = varStart;
    for (int r = 0; r < BATCH_ROWS; r++) {
      long g = first + r;
      long h1 = hash(g, 1);
      for (int c = 0; c < NAMES.length; c++) {
        b.put(nulls[c] + r, (byte) (c > 0 && h1 % 20 == c - 1 ? 1 : 0));
      }
      b.putLong(values[0] + r * 8, g);
      b.putInt(values[1] + r * 4, (int) (hash(g, 2) % 2_000_000_000));
      b.putDouble(values[2] + r * 8, (hash(g, 3) % 100_000_000) / 1024.0);
      b.putLong(values[3] + r * 8, hash(g, 4) % 2_000_000_000);
      long h5 = hash(g, 5);
      String hex = Long.toHexString(hash(g, 9)) + Long.toHexString(hash(g, 10));
      String txt = hex.substring(0, Math.min(hex.length(), 8 + (int) (h5 / 8 % 25)));
      var = putVar(b, values[4] + r * 8, var, WORDS[(int) (h5 % 8)] + " " + txt);
      b.putLong(
          values[5] + r * 8,
          EPOCH_2020_MICROS + hash(g, 6) % 157_680_000L * 1_000_000L + hash(g, 7) % 1_000_000);
      b.putInt(values[6] + r * 4, (int) (hash(g, 7) % 10_000));
      long h8 = hash(g, 8);
      b.put(values[7] + r, (byte) (h8 % 3 == 0 ? 1 : 0));
      b.putLong(values[8] + r * 16, hash(g, 11));
      b.putLong(values[8] + r * 16 + 8, hash(g, 12));
      String json =
          String.format(
              Locale.ROOT,
              "{\"k\": %d, \"v\": %d.%02d, \"ok\": %b, \"tag\": \"tag%d\"}",
              h8 % 1000,
              hash(g, 2) % 1000,
              hash(g, 2) % 100,
              h8 % 2 == 0,
              h8 % 50);
      var = putVar(b, values[9] + r * 8, var, json);
    }
    return b;
  }

  private static int putVar(ByteBuffer b, int slot, int var, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    b.put(var, bytes);
    b.putInt(slot, var);
    b.putInt(slot + 4, bytes.length);
    return var + bytes.length;
  }

  private BatchSink sink(ByteBuffer first, String options) {
    return BatchSink.create(
        NAMES,
        KINDS,
        new int[] {0, 0, 0, 12, 0, 0, 0, 0, 0, 0},
        new int[] {0, 0, 0, 2, 0, 0, 0, 0, 0, 0},
        TYPES,
        BATCH_ROWS,
        nulls,
        values,
        first,
        options);
  }

  private static long ready(Path out) throws java.io.IOException {
    try (var files = Files.list(out)) {
      return files.filter(p -> p.toString().endsWith(".ready")).count();
    }
  }

  public static void main(String[] args) throws Exception {
    int threads = Integer.parseInt(args[0]);
    long rows = Long.parseLong(args[1]);
    Path out = Path.of(args[2]);
    String name = args[3];
    int jvms = Integer.parseInt(args[4]);
    String options = args.length > 5 ? args[5] : "";
    SharedJvm layout = new SharedJvm();
    long batches = rows / BATCH_ROWS;
    List<ByteBuffer[]> pools = new ArrayList<>();
    List<BatchSink> sinks = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      ByteBuffer[] pool = new ByteBuffer[POOL];
      for (int p = 0; p < POOL; p++) {
        pool[p] = layout.batch((long) (t * POOL + p) * BATCH_ROWS + name.hashCode());
      }
      pools.add(pool);
      sinks.add(layout.sink(pool[0], options));
    }
    // Every JVM of the run is ready before any writes.
    Files.createFile(out.resolve(name + ".ready"));
    while (ready(out) < jvms) {
      Thread.sleep(1);
    }
    ThreadMXBean threadBean = ManagementFactory.getThreadMXBean();
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long[] threadCpu = new long[threads];
    // A writer that fails makes this JVM fail, so the script does not take a median of it.
    Exception[] failures = new Exception[threads];
    Thread[] workers = new Thread[threads];
    long wall0 = System.nanoTime();
    long cpu0 = os.getProcessCpuTime();
    for (int t = 0; t < threads; t++) {
      int me = t;
      workers[t] =
          new Thread(
              () -> {
                try {
                  BatchSink sink = sinks.get(me);
                  ByteBuffer[] pool = pools.get(me);
                  sink.openPart(out.resolve(name + "-" + me + ".parquet").toString());
                  for (long n = 0; n < batches; n++) {
                    ByteBuffer b = pool[(int) (n % POOL)];
                    // Unique ids, as the table's primary key.
                    for (int r = 0; r < BATCH_ROWS; r++) {
                      b.putLong(
                          layout.values[0] + r * 8, ((long) me * batches + n) * BATCH_ROWS + r);
                    }
                    sink.setBuffer(b);
                    sink.writeBatch(BATCH_ROWS);
                  }
                  sink.closePart();
                  threadCpu[me] = threadBean.getCurrentThreadCpuTime();
                } catch (Exception e) {
                  failures[me] = e;
                }
              });
      workers[t].start();
    }
    for (Thread w : workers) {
      w.join();
    }
    for (Exception failure : failures) {
      if (failure != null) {
        throw failure;
      }
    }
    long wall = System.nanoTime() - wall0;
    long cpu = os.getProcessCpuTime() - cpu0;
    long writers = 0;
    for (long c : threadCpu) {
      writers += c;
    }
    System.out.printf(
        Locale.ROOT,
        "%s\t%d\t%d\t%.3f\t%.3f\t%.3f%n",
        name,
        threads,
        batches * BATCH_ROWS * threads,
        wall / 1e9,
        cpu / 1e9,
        writers / 1e9);
  }
}
