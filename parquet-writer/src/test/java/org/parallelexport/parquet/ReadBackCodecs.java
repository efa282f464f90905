package org.parallelexport.parquet;

import com.aayushatharva.brotli4j.Brotli4jLoader;
import com.aayushatharva.brotli4j.decoder.Decoder;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * ReadBackCodecs: the decompressors ReadBack reads parts with: parquet-java's Hadoop ones, and
 * brotli4j's decoder for BROTLI, for which parquet-java names a Hadoop codec class that neither
 * Hadoop nor parquet-java ships.
 */
final class ReadBackCodecs implements CompressionCodecFactory {
  private final CodecFactory hadoop = new CodecFactory(new Configuration(), 0);

  @Override
  public BytesInputCompressor getCompressor(CompressionCodecName codec) {
    throw new UnsupportedOperationException("ReadBackCodecs only decompresses");
  }

  @Override
  public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
    return codec == CompressionCodecName.BROTLI ? new Brotli() : hadoop.getDecompressor(codec);
  }

  @Override
  public void release() {
    hadoop.release();
  }

  private static final class Brotli implements BytesInputDecompressor {
    Brotli() {
      Brotli4jLoader.ensureAvailability();
    }

    @Override
    public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
      byte[] in = bytes.toInputStream().readAllBytes();
      return BytesInput.from(checked(Decoder.decompress(in, 0, in.length), uncompressedSize));
    }

    @Override
    public void decompress(
        ByteBuffer input, int compressedSize, ByteBuffer output, int decompressedSize)
        throws IOException {
      byte[] in = new byte[compressedSize];
      input.get(in);
      output.put(checked(Decoder.decompress(in, 0, compressedSize), decompressedSize));
    }

    private static byte[] checked(byte[] out, int expected) throws IOException {
      if (out.length != expected) {
        throw new IOException(
            "brotli page decompressed to " + out.length + " bytes, the header says " + expected);
      }
      return out;
    }

    @Override
    public void release() {}
  }
}
