package org.parallelexport.parquet;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType;

/**
 * DecimalValueWriter: PostgreSQL numeric (kind DECIMAL, the ASCII text numeric_out prints) as
 * Parquet DECIMAL(p, s) on a FIXED_LEN_BYTE_ARRAY of the fewest bytes that hold p digits (19 to
 * 38).
 *
 * <p>The C side sends text only for what does not fit an int64: numeric(p,s) with p &gt; 18, and
 * the {@code unconstrained_numeric => 'decimal(P,S)'} mapping with P &gt; 18 (up to 18 digits it
 * decodes the value itself, kind DECIMAL64, see UnscaledDecimalValueWriter; ValueWriters refuses a
 * narrower DECIMAL). For a numeric(p,s) column numeric_out prints exactly s fraction digits, so the
 * common value of at most 18 digits is parsed straight into a long; anything else (more digits,
 * another scale, NaN, Infinity) goes through BigDecimal, which either converts it exactly or
 * explains why it cannot. Values are never rounded: an export must not change data silently.
 */
final class DecimalValueWriter extends VarWidthValueWriter {
  static final int MAX_PRECISION = 38;
  private static final int MAX_LONG_DIGITS = 18;
  // Long enough for any value of the message, short enough for a log line.
  private static final int MAX_VALUE_IN_MESSAGE = 80;

  private final int precision;
  private final int scale;
  private final BigInteger limit;
  private final byte[] fixed;
  private byte[] text = new byte[64];
  // Set by parseSimple, read right after it.
  private long unscaled;

  DecimalValueWriter(Column column, PrimitiveType parquetType, Levels levels) {
    super(column, parquetType, levels);
    this.precision = column.precision;
    this.scale = column.scale;
    this.limit = BigInteger.TEN.pow(precision);
    this.fixed = new byte[parquetType.getTypeLength()];
  }

  /** Fewest bytes whose two's complement holds every unscaled value of {@code precision} digits. */
  static int fixedLength(int precision) {
    BigInteger limit = BigInteger.TEN.pow(precision);
    int bytes = 1;
    while (BigInteger.ONE.shiftLeft(8 * bytes - 1).compareTo(limit) < 0) {
      bytes++;
    }
    return bytes;
  }

  @Override
  void writeBytes(ByteBuffer buffer, int offset, int length, int rep) {
    if (length > text.length) {
      text = new byte[Math.max(length, text.length * 2)];
    }
    buffer.get(offset, text, 0, length);

    writeFixed(parseSimple(length) ? BigInteger.valueOf(unscaled) : parseExact(length), rep);
  }

  /**
   * Parses numeric_out's usual form, [-]digits[.digits] with exactly {@code scale} fraction digits
   * and at most 18 digits (fewer than the precision, so they fit it), into {@link #unscaled}.
   * Returns false for anything else, leaving the verdict to {@link #parseExact}.
   */
  private boolean parseSimple(int length) {
    int i = 0;
    boolean negative = false;
    if (length > 0 && text[0] == '-') {
      negative = true;
      i = 1;
    }
    long value = 0;
    int digits = 0;
    int fraction = -1;
    for (; i < length; i++) {
      byte c = text[i];
      if (c >= '0' && c <= '9') {
        if (++digits > MAX_LONG_DIGITS) {
          return false;
        }
        value = value * 10 + (c - '0');
        if (fraction >= 0) {
          fraction++;
        }
      } else if (c == '.' && fraction < 0) {
        fraction = 0;
      } else {
        return false;
      }
    }
    if (digits == 0 || Math.max(fraction, 0) != scale) {
      return false;
    }
    unscaled = negative ? -value : value;
    return true;
  }

  private BigInteger parseExact(int length) {
    String value = new String(text, 0, length, StandardCharsets.US_ASCII);
    BigDecimal decimal;
    try {
      decimal = new BigDecimal(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          String.format(
              "column \"%s\": value %s cannot be written as DECIMAL(%d,%d)",
              name, shorten(value), precision, scale),
          e);
    }
    try {
      decimal = decimal.setScale(scale, RoundingMode.UNNECESSARY);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          String.format(
              "column \"%s\": value %s cannot be written as DECIMAL(%d,%d) without rounding",
              name, shorten(value), precision, scale),
          e);
    }
    BigInteger result = decimal.unscaledValue();
    if (result.abs().compareTo(limit) >= 0) {
      throw new IllegalArgumentException(
          String.format(
              "column \"%s\": value %s exceeds the precision of DECIMAL(%d,%d)",
              name, shorten(value), precision, scale));
    }
    return result;
  }

  private void writeFixed(BigInteger value, int rep) {
    // Big-endian two's complement, sign-extended to the column's fixed width.
    byte[] bytes = value.toByteArray();
    int pad = fixed.length - bytes.length;
    byte fill = value.signum() < 0 ? (byte) 0xFF : 0;
    for (int i = 0; i < pad; i++) {
      fixed[i] = fill;
    }
    System.arraycopy(bytes, 0, fixed, pad, bytes.length);
    out.write(Binary.fromReusedByteArray(fixed), rep, definition);
  }

  private static String shorten(String value) {
    return value.length() <= MAX_VALUE_IN_MESSAGE
        ? value
        : value.substring(0, MAX_VALUE_IN_MESSAGE) + "...";
  }
}
