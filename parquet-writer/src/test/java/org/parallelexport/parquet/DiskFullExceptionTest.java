package org.parallelexport.parquet;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DiskFullExceptionTest: when a failed write counts as a full disk, and that the original failure
 * stays reachable either way.
 *
 * <p>A real full file system is regress/t_disk_full.sh's: it needs a mount, which a unit test
 * cannot make. Here the decision is given the usable space directly, and the path form is given a
 * file whose file system has room, the control that a healthy disk never turns an error into 53100.
 */
class DiskFullExceptionTest {
  private static final long MB = 1024L * 1024;

  @Test
  void lessUsableThanTheWriteNeededIsFull() {
    IOException failure = new IOException("No space left on device");
    IOException result = DiskFullException.of(failure, 3 * MB, 8 * MB);
    assertInstanceOf(DiskFullException.class, result);
    assertSame(failure, result.getCause());
    assertTrue(result.getMessage().contains("3145728 bytes usable"), result.getMessage());
    assertTrue(
        result.getMessage().contains("a write of 8388608 bytes failed"), result.getMessage());
  }

  @Test
  void lessThanTheMarginIsFullWhateverTheWrite() {
    IOException failure = new IOException("sync failed");
    assertInstanceOf(
        DiskFullException.class, DiskFullException.of(failure, DiskFullException.MARGIN - 1, 0));
    assertInstanceOf(
        DiskFullException.class, DiskFullException.of(failure, DiskFullException.MARGIN - 1, 10));
  }

  @Test
  void roomForTheWriteIsAnotherFailure() {
    IOException failure = new IOException("Input/output error");
    assertSame(failure, DiskFullException.of(failure, 9 * MB, 8 * MB));
    assertSame(failure, DiskFullException.of(failure, DiskFullException.MARGIN, 0));
  }

  @Test
  void aDiskFullExceptionIsNotWrappedAgain() {
    IOException first = DiskFullException.of(new IOException("full"), 0, 1);
    assertSame(first, DiskFullException.of(first, 0, 1));
  }

  @Test
  void aFileSystemWithRoomKeepsTheFailure(@TempDir Path dir) throws IOException {
    Path file = Files.createFile(dir.resolve("part-0.parquet"));
    long usable = Files.getFileStore(file).getUsableSpace();
    assertTrue(usable >= DiskFullException.MARGIN + 4096, "premise: room on the test's disk");
    IOException failure = new IOException("Input/output error");
    assertSame(failure, DiskFullException.of(failure, file, 4096));
  }

  @Test
  void aFileSystemThatCannotBeAskedKeepsTheFailure(@TempDir Path dir) {
    IOException failure = new IOException("Input/output error");
    assertSame(failure, DiskFullException.of(failure, dir.resolve("gone/part-0.parquet"), 4096));
    assertInstanceOf(IOException.class, failure.getSuppressed()[0]);
  }
}
