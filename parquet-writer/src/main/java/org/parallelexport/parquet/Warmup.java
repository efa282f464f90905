/*
 * Warmup: the training run for the AppCDS archive that `make install` builds.
 *
 * A worker's JVM spends most of a small export loading classes: parquet-java, the codecs, and the
 * shaded Jackson that writing a footer pulls in. `make install` runs this class once with
 * -XX:ArchiveClassesAtExit, so the archive holds every class a real part needs: it lays out a
 * batch the way the C side does, with one column of every kind and a NULL in each, and writes,
 * closes and deletes one part per codec through BatchSink, the same path a worker takes. One of
 * the parts is also uploaded through the object-store client to an in-process stand-in for S3
 * (S3Warmup), so an s3:// export starts as fast without any network here.
 */
package org.parallelexport.parquet;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.parallelexport.parquet.s3.S3Warmup;

public final class Warmup {
  private static final int ROWS = 2;
  // Every flat kind, and its bytes per row in the value area.
  private static final int[] KINDS = {
    ColumnKind.BOOL,
    ColumnKind.INT16,
    ColumnKind.INT32,
    ColumnKind.INT64,
    ColumnKind.FLOAT32,
    ColumnKind.FLOAT64,
    ColumnKind.DECIMAL,
    ColumnKind.STRING,
    ColumnKind.JSON,
    ColumnKind.BYTES,
    ColumnKind.DATE,
    ColumnKind.TIME,
    ColumnKind.TIMESTAMP,
    ColumnKind.TIMESTAMPTZ,
    ColumnKind.UUID,
    ColumnKind.DECIMAL64
  };
  private static final int[] WIDTHS = {1, 2, 4, 8, 4, 8, 8, 8, 8, 8, 4, 8, 8, 8, 16, 8};
  private static final String[] CODECS = {"uncompressed", "snappy", "gzip", "zstd", "lz4_raw"};

  private Warmup() {}

  public static void main(String[] args) throws IOException {
    int n = WIDTHS.length;
    String[] names = new String[n];
    String[] types = new String[n];
    int[] kinds = new int[n];
    int[] precisions = new int[n];
    int[] scales = new int[n];
    int[] nulls = new int[n];
    int[] values = new int[n];
    int at = 0;
    for (int c = 0; c < n; c++) {
      names[c] = "c" + c;
      types[c] = "kind " + c;
      kinds[c] = KINDS[c];
      nulls[c] = at;
      at += 8;
      values[c] = at;
      at += ROWS * WIDTHS[c];
    }
    // DECIMAL64(12,2) is the common numeric(p,s); DECIMAL(20,2) the text path to a fixed array.
    for (int c = 0; c < n; c++) {
      if (KINDS[c] == ColumnKind.DECIMAL || KINDS[c] == ColumnKind.DECIMAL64) {
        precisions[c] = KINDS[c] == ColumnKind.DECIMAL ? 20 : 12;
        scales[c] = 2;
      }
    }
    ByteBuffer buffer = ByteBuffer.allocateDirect(at + 64).order(ByteOrder.nativeOrder());
    byte[] text = "12.50".getBytes(StandardCharsets.US_ASCII);
    for (int c = 0; c < n; c++) {
      buffer.put(nulls[c], (byte) 0);
      buffer.put(nulls[c] + 1, (byte) 1);
      if (isVar(KINDS[c])) {
        buffer.putInt(values[c], at);
        buffer.putInt(values[c] + 4, text.length);
      }
    }
    buffer.put(at, text);

    Path dir = Files.createTempDirectory("pep-warmup");
    try {
      for (String codec : CODECS) {
        BatchSink sink =
            BatchSink.create(
                names,
                kinds,
                precisions,
                scales,
                types,
                ROWS,
                nulls,
                values,
                buffer,
                "compression=" + codec + "\n");
        Path part = dir.resolve(codec + ".parquet");
        sink.openPart(part.toString());
        sink.writeBatch(ROWS);
        sink.closePart();
        if (codec.equals("snappy")) {
          S3Warmup.train(
              part, new CreatedByStamp("parallel_export_parquet " + BatchSink.WRITER_VERSION));
        }
        Files.delete(part);
      }
    } finally {
      Files.delete(dir);
    }
  }

  private static boolean isVar(int kind) {
    return kind == ColumnKind.DECIMAL
        || kind == ColumnKind.STRING
        || kind == ColumnKind.JSON
        || kind == ColumnKind.BYTES;
  }
}
