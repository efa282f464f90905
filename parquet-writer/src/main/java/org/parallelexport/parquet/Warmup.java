package org.parallelexport.parquet;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.parallelexport.parquet.s3.S3Warmup;

/**
 * Warmup: the training run for the class cache that {@code make install} builds
 * (tools/train-cache.sh).
 *
 * <p>A worker's JVM spends most of a small export loading classes: parquet-java, the codecs, and
 * the shaded Jackson that writing a footer pulls in. {@code make install} runs this class once with
 * -XX:AOTCacheOutput (JDK 25 and later) or -XX:ArchiveClassesAtExit, so the AOT cache or AppCDS
 * archive holds every class a real part needs: it lays out a batch the way the C side does, with
 * one column of every kind (a list of integers and a struct of one integer among them, as nested
 * payloads) and a NULL in each, and writes, closes and deletes one part per codec through BatchSink
 * and builds its _SUCCESS manifest, the same path a worker takes. The snappy sink also exports into
 * a stand-in for S3 on loopback (S3Warmup), so an s3:// export starts as fast without any network
 * here.
 */
public final class Warmup {
  private static final int ROWS = 2;
  // Every kind.
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
    ColumnKind.DECIMAL64,
    ColumnKind.INTERVAL,
    ColumnKind.ENUM,
    ColumnKind.TIMETZ,
    ColumnKind.UINT32,
    ColumnKind.LIST,
    ColumnKind.STRUCT
  };
  // The LIST's and the STRUCT's payloads: one element 7; one field 7 (native-endian int32s).
  private static final int LIST_PAYLOAD = 9;
  private static final int STRUCT_PAYLOAD = 5;
  private static final String[] CODECS = {
    "uncompressed", "snappy", "gzip", "zstd", "lz4_raw", "brotli"
  };

  private Warmup() {}

  public static void main(String[] args) throws IOException {
    int n = KINDS.length;
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
      at += ROWS * ColumnKind.width(KINDS[c]);
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
    int list = at + text.length;
    int struct = list + LIST_PAYLOAD;
    for (int c = 0; c < n; c++) {
      buffer.put(nulls[c], (byte) 0);
      buffer.put(nulls[c] + 1, (byte) 1);
      if (KINDS[c] == ColumnKind.LIST) {
        buffer.putInt(values[c], list).putInt(values[c] + 4, LIST_PAYLOAD);
      } else if (KINDS[c] == ColumnKind.STRUCT) {
        buffer.putInt(values[c], struct).putInt(values[c] + 4, STRUCT_PAYLOAD);
      } else if (ColumnKind.isVar(KINDS[c])) {
        buffer.putInt(values[c], at);
        buffer.putInt(values[c] + 4, text.length);
      }
    }
    buffer.put(at, text);
    buffer.putInt(list, 1).put(list + 4, (byte) 0).putInt(list + 5, 7);
    buffer.put(struct, (byte) 0).putInt(struct + 1, 7);
    // Each column is a root node; the LIST and the STRUCT have one INT32 child each.
    String[] nodeNames = new String[n + 2];
    int[] nodeKinds = new int[n + 2];
    int[] nodeChildren = new int[n + 2];
    int node = 0;
    for (int c = 0; c < n; c++) {
      nodeNames[node] = names[c];
      nodeKinds[node++] = KINDS[c];
      if (KINDS[c] == ColumnKind.LIST || KINDS[c] == ColumnKind.STRUCT) {
        nodeChildren[node - 1] = 1;
        nodeNames[node] = KINDS[c] == ColumnKind.LIST ? ListValueWriter.ELEMENT : "f";
        nodeKinds[node++] = ColumnKind.INT32;
      }
    }

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
                "compression=" + codec + "\n",
                nodeNames,
                nodeKinds,
                new int[n + 2],
                new int[n + 2],
                nodeChildren);
        Path part = dir.resolve(codec + ".parquet");
        sink.openPart(part.toString());
        sink.writeBatch(ROWS);
        // A worker asks for the part's size after every batch (ParquetFileWriter.getPos).
        sink.partSize();
        long bytes = sink.closePart();
        // A local export's last worker then builds its _SUCCESS manifest (Jackson's databind).
        Manifest.local(
            sink,
            new String[] {part.getFileName().toString()},
            new long[] {ROWS},
            new long[] {bytes},
            "",
            "");
        Files.delete(part);
        if (codec.equals("snappy")) {
          S3Warmup.train(sink, ROWS);
        }
      }
    } finally {
      Files.delete(dir);
    }
  }
}
