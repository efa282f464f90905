package org.parallelexport.matrix;

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
 * C++ Parquet reader decodes into Arrow arrays, read here through Arrow Java's vectors. A folder or
 * prefix is a dataset of the files found under it (those named _* skipped); an s3:// export is read
 * through Arrow's own S3 filesystem. The Java binding discovers no partitioning (its factory takes
 * no partitioning option), so a partition column of a Hive tree is not found.
 */
final class ArrowReader implements Reader {
  private final BufferAllocator allocator = new RootAllocator();

  @Override
  public String name() {
    return "Arrow C++ " + Dataset.class.getPackage().getImplementationVersion();
  }

  /** Discovers the dataset once, then scans it once per column. */
  // Arrow's Dataset and Scanner declare close() throws Exception, which javac's "try" lint warns
  // of in a resource; they are closed here as Arrow's own examples close them.
  @SuppressWarnings("try")
  @Override
  public Map<String, Read> read(Source source, List<String> columns) {
    String uri =
        source.kind() == Source.Kind.S3
            ? source.s3().lake().arrowUri(source.s3())
            : source.local().toUri().toString();
    Map<String, Read> out = new LinkedHashMap<>();
    try (FileSystemDatasetFactory factory =
            new FileSystemDatasetFactory(
                allocator, NativeMemoryPool.getDefault(), FileFormat.PARQUET, uri);
        Dataset dataset = factory.finish()) {
      for (String c : columns) {
        try {
          out.put(c, column(dataset, c));
        } catch (Exception e) {
          out.put(c, Read.failed(e));
        }
      }
    } catch (Exception e) {
      // the AWS SDK's error name for one missing key varies from run to run
      String error = Read.failed(e).error().replaceAll("AWS Error [A-Z_]+", "AWS Error");
      columns.forEach(c -> out.put(c, new Read(null, error)));
    }
    return out;
  }

  /** Column c of dataset by id, with the Arrow type it was read as. */
  @SuppressWarnings("try") // Scanner, as in read
  private static Read column(Dataset dataset, String c) throws Exception {
    Map<Integer, Object> values = new TreeMap<>();
    String type = null;
    ScanOptions options = new ScanOptions(4096, Optional.of(new String[] {"id", c}));
    try (Scanner scanner = dataset.newScan(options);
        org.apache.arrow.vector.ipc.ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        FieldVector ids = root.getVector("id");
        FieldVector v = root.getVector(c);
        type = v.getField().getType().toString();
        for (int i = 0; i < root.getRowCount(); i++) {
          int row = i;
          values.put((Integer) ids.getObject(i), Reader.guarded(() -> value(v, row)));
        }
      }
    }
    return new Read(values, null, type);
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
