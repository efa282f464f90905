package org.parallelexport.parquet;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import org.apache.parquet.Version;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.Util;

/**
 * CreatedByStamp: names this extension in a finished part's footer field created_by.
 *
 * <p>parquet-java writes its own constant ("parquet-mr version ...") into every footer and offers
 * no setting for it, but created_by is how readers tell which application wrote a file (and whose
 * quirks to work around). So once parquet-java has written the footer, and before the file is
 * synced, the footer is read back with parquet-format's own Thrift codec, given a created_by in the
 * format's "{@literal <application> version <version> (build <build>)}" form, and written again in
 * place of the old one. Only the footer moves: every offset in it points before it, so the column
 * chunks, indexes and bloom filters stay where they are.
 */
public final class CreatedByStamp {
  private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);
  // Footer length (4 bytes, little-endian) and the magic end every Parquet file.
  public static final int TAIL_BYTES = 8;

  private final String createdBy;

  /**
   * A stamp naming the writer {@code extension}, "application version" as the C side sends it
   * (option created_by_extension), with parquet-java as its build.
   */
  public CreatedByStamp(String extension) {
    int space = extension.lastIndexOf(' ');
    if (space <= 0 || space == extension.length() - 1) {
      throw new IllegalArgumentException(
          "created_by_extension must be \"application version\": " + extension);
    }
    this.createdBy =
        extension.substring(0, space)
            + " version "
            + extension.substring(space + 1)
            + " (build parquet-java "
            + Version.VERSION_NUMBER
            + ")";
  }

  /**
   * Whether the file of {@code size} bytes open in {@code channel} ends with Parquet's magic, as a
   * file whose footer was written does. Never throws: it is asked on failure paths, where an
   * exception would hide the failure; a file it cannot read counts as having none.
   */
  static boolean hasFooter(FileChannel channel, long size) {
    if (size < MAGIC.length + TAIL_BYTES) {
      return false;
    }
    ByteBuffer magic = ByteBuffer.allocate(MAGIC.length);
    try {
      readFully(channel, magic, size - MAGIC.length);
    } catch (IOException | RuntimeException e) {
      return false;
    }
    return magic.equals(ByteBuffer.wrap(MAGIC));
  }

  /**
   * Rewrites the footer of the complete Parquet file of {@code size} bytes open in {@code channel}
   * (readable and writable) with this created_by; returns the file's new size.
   */
  long apply(FileChannel channel, long size) throws IOException {
    ByteBuffer tail = ByteBuffer.allocate(TAIL_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    readFully(channel, tail, size - TAIL_BYTES);
    long footerStart = footerStart(tail.array(), size);
    ByteBuffer footer = ByteBuffer.allocate((int) (size - TAIL_BYTES - footerStart));
    readFully(channel, footer, footerStart);

    ByteBuffer replacement = ByteBuffer.wrap(restampedTail(footer.array()));
    long at = footerStart;
    while (replacement.hasRemaining()) {
      at += channel.write(replacement, at);
    }
    channel.truncate(at);
    return at;
  }

  /**
   * The bytes that replace a finished file's tail from the start of its footer: {@code footer} (the
   * Thrift FileMetaData, without length and magic) with this created_by, its length and the magic.
   */
  public byte[] restampedTail(byte[] footer) throws IOException {
    FileMetaData metadata = Util.readFileMetaData(new ByteArrayInputStream(footer));
    metadata.setCreated_by(createdBy);
    ByteArrayOutputStream out = new ByteArrayOutputStream(footer.length + 64);
    Util.writeFileMetaData(metadata, out);
    byte[] rewritten = out.toByteArray();
    return ByteBuffer.allocate(rewritten.length + TAIL_BYTES)
        .order(ByteOrder.LITTLE_ENDIAN)
        .put(rewritten)
        .putInt(rewritten.length)
        .put(MAGIC)
        .array();
  }

  /**
   * Where the footer starts in a finished file of {@code size} bytes whose last 8 bytes are {@code
   * tail}; throws if the tail is not a Parquet file's.
   */
  public static long footerStart(byte[] tail, long size) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(tail).order(ByteOrder.LITTLE_ENDIAN);
    int footerLength = b.getInt(0);
    if (!b.slice(4, 4).equals(ByteBuffer.wrap(MAGIC))
        || footerLength <= 0
        || footerLength > size - TAIL_BYTES - MAGIC.length) {
      throw new IOException("not a complete Parquet file: bad footer length or magic");
    }
    return size - TAIL_BYTES - footerLength;
  }

  private static void readFully(FileChannel channel, ByteBuffer buffer, long position)
      throws IOException {
    long at = position;
    while (buffer.hasRemaining()) {
      int n = channel.read(buffer, at);
      if (n < 0) {
        throw new IOException("unexpected end of file at byte " + at);
      }
      at += n;
    }
    buffer.flip();
  }
}
