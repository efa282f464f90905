package org.parallelexport.matrix;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.arrow.dataset.file.FileFormat;
import org.apache.arrow.dataset.file.FileSystemDatasetFactory;
import org.apache.arrow.dataset.jni.NativeMemoryPool;
import org.apache.arrow.dataset.scanner.ScanOptions;
import org.apache.arrow.dataset.scanner.Scanner;
import org.apache.arrow.dataset.source.Dataset;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;

/**
 * Apache Arrow C++ (the reader under pyarrow and pandas) through arrow-dataset's JNI binding: the
 * C++ Parquet reader decodes into Arrow arrays, read here through Arrow Java's vectors.
 */
final class ArrowReader implements Reader {
  private final BufferAllocator allocator = new RootAllocator();

  @Override
  public String name() {
    return "Arrow C++ " + Dataset.class.getPackage().getImplementationVersion();
  }

  @Override
  public Map<String, Read> read(Path file, List<String> columns) {
    Map<String, Read> out = new LinkedHashMap<>();
    for (String c : columns) {
      try {
        out.put(c, new Read(column(file, c), null));
      } catch (Exception e) {
        out.put(c, Read.failed(e));
      }
    }
    return out;
  }

  private Map<Integer, Object> column(Path file, String c) throws Exception {
    Map<Integer, Object> values = new TreeMap<>();
    ScanOptions options = new ScanOptions(4096, Optional.of(new String[] {"id", c}));
    try (FileSystemDatasetFactory factory =
            new FileSystemDatasetFactory(
                allocator,
                NativeMemoryPool.getDefault(),
                FileFormat.PARQUET,
                file.toUri().toString());
        Dataset dataset = factory.finish();
        Scanner scanner = dataset.newScan(options);
        org.apache.arrow.vector.ipc.ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        FieldVector ids = root.getVector("id");
        FieldVector v = root.getVector(c);
        for (int i = 0; i < root.getRowCount(); i++) {
          int row = i;
          values.put((Integer) ids.getObject(i), Reader.guarded(() -> value(v, row)));
        }
      }
    }
    return values;
  }

  /**
   * Unsigned vectors' getObject wraps to a signed Java type while the C++ array holds the value, so
   * they are read unwrapped, in lists too.
   */
  private static Object value(FieldVector v, int i) {
    if (v instanceof ListVector l) {
      if (l.isNull(i)) {
        return null;
      }
      List<Object> list = new ArrayList<>();
      for (int j = l.getElementStartIndex(i); j < l.getElementEndIndex(i); j++) {
        list.add(value(l.getDataVector(), j));
      }
      return list;
    }
    if (v instanceof UInt4Vector u) {
      return u.isNull(i) ? null : u.getObjectNoOverflow(i);
    }
    if (v instanceof UInt8Vector u) {
      return u.isNull(i) ? null : u.getObjectNoOverflow(i);
    }
    return v.getObject(i);
  }

  @Override
  public void close() {
    allocator.close();
  }
}
