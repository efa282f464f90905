package org.parallelexport.parquet;

import static java.util.Objects.requireNonNull;

import com.aayushatharva.brotli4j.Brotli4jLoader;
import com.aayushatharva.brotli4j.encoder.Encoder;
import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import io.airlift.compress.lz4.Lz4Compressor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.EnumMap;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.xerial.snappy.Snappy;

/**
 * LocalCodecFactory: Parquet page compression without Hadoop.
 *
 * <p>parquet-java's own CodecFactory goes through Hadoop's CompressionCodec classes even for
 * UNCOMPRESSED, and the worker JVM has no Hadoop on its class path. This factory compresses with
 * the libraries the shaded jar carries: snappy-java (raw Snappy blocks, as Parquet specifies),
 * zstd-jni (zstd frames), aircompressor (LZ4 raw blocks, Parquet's LZ4_RAW), brotli4j (brotli
 * streams; parquet-java's own brotli codec is a Hadoop one) and java.util.zip (gzip members). One
 * factory serves all of a BatchSink's parts, so that each compressor's page-sized buffers are
 * allocated once per worker rather than once per part.
 */
final class LocalCodecFactory implements CompressionCodecFactory {
  // Parquet's default zstd level (parquet.compression.codec.zstd.level).
  private static final int ZSTD_LEVEL = 3;
  // Brotli's quality when none is given: 1, as parquet-java's Hadoop codec and arrow-rs (so
  // pg_parquet) default to, rather than the library's own default, 11, its slowest.
  static final int BROTLI_LEVEL = 1;

  private final Map<CompressionCodecName, BytesInputCompressor> compressors =
      new EnumMap<>(CompressionCodecName.class);
  // -1 for each codec's default.
  private final int level;

  LocalCodecFactory(int level) {
    this.level = level;
  }

  static boolean supports(CompressionCodecName codec) {
    switch (codec) {
      case UNCOMPRESSED:
      case SNAPPY:
      case GZIP:
      case ZSTD:
      case LZ4_RAW:
      case BROTLI:
        return true;
      default:
        return false;
    }
  }

  @Override
  public BytesInputCompressor getCompressor(CompressionCodecName codec) {
    requireNonNull(codec, "codec is null");
    return compressors.computeIfAbsent(codec, c -> new Compressor(c, level));
  }

  @Override
  public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
    // Reading is not this jar's job, and parquet-java's reader cannot run without Hadoop anyway
    // (ParquetReadOptions' builder always creates a Hadoop codec factory).
    throw new UnsupportedOperationException("this codec factory only compresses");
  }

  @Override
  public void release() {
    compressors.values().forEach(BytesInputCompressor::release);
    compressors.clear();
  }

  private static final class Compressor implements BytesInputCompressor {
    private final CompressionCodecName codec;
    private final int level;
    // Both reused between pages: the page writer copies the result before asking for the next
    // page, and the page's parts are gathered into one array only because the codecs want one.
    private final PageBytes input = new PageBytes();
    private byte[] output = new byte[0];
    private final ByteArrayOutputStream gzipOutput = new ByteArrayOutputStream();
    private ZstdCompressCtx zstd;
    private Lz4Compressor lz4;
    private Encoder.Parameters brotli;

    Compressor(CompressionCodecName codec, int level) {
      if (!supports(codec)) {
        throw new IllegalArgumentException("unsupported compression: " + codec);
      }
      this.codec = codec;
      this.level = level;
    }

    @Override
    public BytesInput compress(BytesInput bytes) throws IOException {
      if (codec == CompressionCodecName.UNCOMPRESSED) {
        return bytes;
      }
      input.reset();
      bytes.writeAllTo(input);
      byte[] in = input.array();
      int length = input.size();
      int n;
      switch (codec) {
        case SNAPPY:
          n = Snappy.rawCompress(in, 0, length, output(Snappy.maxCompressedLength(length)), 0);
          break;
        case ZSTD:
          if (zstd == null) {
            zstd = new ZstdCompressCtx().setLevel(level > 0 ? level : ZSTD_LEVEL);
          }
          n =
              zstd.compressByteArray(
                  output((int) Zstd.compressBound(length)), 0, output.length, in, 0, length);
          break;
        case LZ4_RAW:
          if (lz4 == null) {
            lz4 = new Lz4Compressor();
          }
          n =
              lz4.compress(
                  in, 0, length, output(lz4.maxCompressedLength(length)), 0, output.length);
          break;
        case BROTLI:
          if (brotli == null) {
            // Loads the native library once per JVM: from brotli4j.library.path, which the C side
            // sets to the copy make install unpacked, so that nothing is extracted into /tmp.
            Brotli4jLoader.ensureAvailability();
            brotli = new Encoder.Parameters().setQuality(level >= 0 ? level : BROTLI_LEVEL);
          }
          return BytesInput.from(Encoder.compress(in, 0, length, brotli));
        case GZIP:
          gzipOutput.reset();
          try (LeveledGzip gzip = new LeveledGzip(gzipOutput, level)) {
            gzip.write(in, 0, length);
          }
          return BytesInput.from(gzipOutput);
        default:
          throw new IllegalStateException("unsupported compression: " + codec);
      }
      return BytesInput.from(output, 0, n);
    }

    private byte[] output(int size) {
      if (output.length < size) {
        output = new byte[size];
      }
      return output;
    }

    @Override
    public CompressionCodecName getCodecName() {
      return codec;
    }

    @Override
    public void release() {
      if (zstd != null) {
        zstd.close();
        zstd = null;
      }
      output = new byte[0];
    }
  }

  // A ByteArrayOutputStream whose array the codecs read in place; reset() keeps the array.
  private static final class PageBytes extends ByteArrayOutputStream {
    byte[] array() {
      return buf;
    }
  }

  // GZIPOutputStream takes no level; its deflater does.
  private static final class LeveledGzip extends GZIPOutputStream {
    LeveledGzip(ByteArrayOutputStream out, int level) throws IOException {
      super(out, 64 * 1024);
      if (level > 0) {
        def.setLevel(level);
      }
    }
  }
}
