package org.parallelexport.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Map;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * LocalFileIO: Iceberg's FileIO for a {@code file:} warehouse over java.nio, without Hadoop.
 *
 * <p>Iceberg's default for {@code file:} locations is HadoopFileIO, which would put Hadoop on the
 * class path of every Iceberg export (and writes a {@code .crc} beside every file). Metadata and
 * manifests written here are forced to disk before close returns, parent directory included: a
 * catalog pointer swapped after a commit must never name a file a power cut can lose.
 *
 * <p>Catalogs instantiate it by class name ({@code io-impl}), hence the public no-argument
 * constructor.
 */
public final class LocalFileIO implements FileIO {
  private static final long serialVersionUID = 1L;

  public LocalFileIO() {}

  @Override
  public void initialize(Map<String, String> properties) {}

  /** The local path of a location: a {@code file:} URI or an absolute path. */
  static Path path(String location) {
    return location.startsWith("file:") ? Paths.get(URI.create(location)) : Paths.get(location);
  }

  @Override
  public InputFile newInputFile(String location) {
    return new NamedInputFile(location);
  }

  @Override
  public OutputFile newOutputFile(String location) {
    return new SyncedOutputFile(location);
  }

  @Override
  public void deleteFile(String location) {
    try {
      Files.deleteIfExists(path(location));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Iceberg's local InputFile under the location it was asked for: Iceberg records a metadata
   * file's location as its InputFile names it, and a JDBC catalog's commit compares that with the
   * location it stored, so a {@code file:} URI must not come back as a bare path.
   */
  private static final class NamedInputFile implements InputFile {
    private final String location;
    private final InputFile file;

    NamedInputFile(String location) {
      this.location = location;
      this.file = org.apache.iceberg.Files.localInput(path(location).toFile());
    }

    @Override
    public long getLength() {
      return file.getLength();
    }

    @Override
    public SeekableInputStream newStream() {
      return file.newStream();
    }

    @Override
    public String location() {
      return location;
    }

    @Override
    public boolean exists() {
      return file.exists();
    }
  }

  private static final class SyncedOutputFile implements OutputFile {
    private final String location;

    SyncedOutputFile(String location) {
      this.location = location;
    }

    @Override
    public PositionOutputStream create() {
      return open(StandardOpenOption.CREATE_NEW);
    }

    @Override
    public PositionOutputStream createOrOverwrite() {
      return open(StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
    }

    private PositionOutputStream open(StandardOpenOption... how) {
      Path file = path(location);
      try {
        Files.createDirectories(file.getParent());
        FileChannel channel = FileChannel.open(file, with(how, StandardOpenOption.WRITE));
        return new SyncedStream(channel, file.getParent());
      } catch (FileAlreadyExistsException e) {
        throw new AlreadyExistsException(e, "file already exists: %s", location);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private static StandardOpenOption[] with(StandardOpenOption[] how, StandardOpenOption more) {
      StandardOpenOption[] all = Arrays.copyOf(how, how.length + 1);
      all[how.length] = more;
      return all;
    }

    @Override
    public String location() {
      return location;
    }

    @Override
    public InputFile toInputFile() {
      return new NamedInputFile(location);
    }
  }

  private static final class SyncedStream extends PositionOutputStream {
    private final FileChannel channel;
    private final Path directory;
    private boolean closed;
    // Iceberg asks a closed stream for its length (the manifest's size), so it outlives close.
    private long closedPosition;

    SyncedStream(FileChannel channel, Path directory) {
      this.channel = channel;
      this.directory = directory;
    }

    @Override
    public long getPos() throws IOException {
      return closed ? closedPosition : channel.position();
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      ByteBuffer buffer = ByteBuffer.wrap(b, off, len);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closedPosition = channel.position();
      closed = true;
      try (FileChannel file = channel) {
        file.force(true);
      }
      // The new name lives in the directory: force it too, or a power cut can lose the file.
      try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
        dir.force(true);
      }
    }
  }
}
