/*-------------------------------------------------------------------------
 *
 * pep_numeric.c
 *	  Decode a numeric into the unscaled int64 of a Parquet DECIMAL.
 *
 * A DECIMAL(p,s) with p <= 18 is written as the integer value * 10^s.
 * Printing every numeric with numeric_out and parsing the text again in
 * Java cost about a third of such a column's time, so the value is decoded
 * here from numeric's storage format (pep_numeric.h).
 *
 * A value that would need rounding, more than p digits, or is NaN or
 * infinite is an error naming the column and the value: a numeric(p,s)
 * column never holds one, but unconstrained_numeric => 'decimal(P,S)'
 * applies a DECIMAL to values that were never checked against it.
 *
 * IDENTIFICATION
 *	  extension/src/encode/pep_numeric.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/int.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

#include "pep_numeric.h"

static const int64 pep_pow10[] = {
	INT64CONST(1), INT64CONST(10), INT64CONST(100), INT64CONST(1000),
	INT64CONST(10000), INT64CONST(100000), INT64CONST(1000000),
	INT64CONST(10000000), INT64CONST(100000000), INT64CONST(1000000000),
	INT64CONST(10000000000), INT64CONST(100000000000),
	INT64CONST(1000000000000), INT64CONST(10000000000000),
	INT64CONST(100000000000000), INT64CONST(1000000000000000),
	INT64CONST(10000000000000000), INT64CONST(100000000000000000),
	INT64CONST(1000000000000000000)
};

static void
pep_numeric_refuse(Datum value, int precision, int scale, const char *column, const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("cannot export value %s in column \"%s\" as DECIMAL(%d,%d)",
					DatumGetCString(DirectFunctionCall1(numeric_out, value)),
					column, precision, scale),
			 errdetail("%s", why),
			 errhint("Filter or convert the value in a query source, or export the column as text.")));
}

/*
 * The common case in one pass: at most four base-10000 digits (under 10^16,
 * so the digits combine without overflow) that make a valid DECIMAL(p,s).
 * The value is then the digits read as one integer times 10 to the power of
 * the last digit's place, which must be a whole number below 10^p.  False
 * for anything else, which pep_numeric_unscaled's digit loop takes, refusing
 * what it must with its own error.
 */
static inline bool
pep_numeric_unscaled_short(const uint16 *digits, int ndigits, int weight, int precision,
						   int scale, int64 *unscaled)
{
	int64 whole = 0;
	int exponent;

	if (ndigits > 4)
		return false;
	if (ndigits == 0)
	{
		*unscaled = 0;
		return true;
	}
	for (int i = 0; i < ndigits; i++)
		whole = whole * PEP_NBASE + digits[i];
	exponent = PEP_DEC_DIGITS * (weight - ndigits + 1) + scale;
	if (exponent < 0)
	{
		uint64 quotient;

		/*
		 * A value with no more fraction digits than the scale drops 1 to 3
		 * zeros here.  Constant divisors compile to a multiplication; the
		 * division by a table entry was most of this function's time.
		 */
		switch (exponent)
		{
			case -1:
				quotient = (uint64) whole / 10;
				break;
			case -2:
				quotient = (uint64) whole / 100;
				break;
			case -3:
				quotient = (uint64) whole / 1000;
				break;
			default:
				if (exponent < -18)
					return false;
				quotient = (uint64) whole / pep_pow10[-exponent];
				break;
		}
		if ((int64) quotient * pep_pow10[-exponent] != whole)
			return false;
		whole = (int64) quotient;
	}
	else if (exponent > precision || pg_mul_s64_overflow(whole, pep_pow10[exponent], &whole))
		return false;
	if (whole >= pep_pow10[precision])
		return false;
	*unscaled = whole;
	return true;
}

int64
pep_numeric_unscaled(Datum value, int precision, int scale, const char *column)
{
	PEPNumericParts parts;
	int64 unscaled = 0;

	Assert(precision >= 1 && precision <= 18 && scale >= 0 && scale <= precision);
	if (!pep_numeric_parts(value, &parts))
		elog(ERROR, "numeric value of column \"%s\" has a truncated header", column);
	if (parts.special)
		pep_numeric_refuse(value, precision, scale, column,
						   "Parquet DECIMAL has no NaN or infinite values.");
	if (pep_numeric_unscaled_short(parts.digits, parts.ndigits, parts.weight, precision, scale,
								   &unscaled))
		return parts.negative ? -unscaled : unscaled;
	unscaled = 0;

	/* digit i is worth 10000^(weight - i), so 10^(4 * (weight - i) + scale) unscaled */
	for (int i = 0; i < parts.ndigits; i++)
	{
		int exponent = PEP_DEC_DIGITS * (parts.weight - i) + scale;
		int64 d = parts.digits[i];

		if (d == 0)
			continue;
		if (exponent < 0)
		{
			if (exponent < -PEP_DEC_DIGITS || d % pep_pow10[-exponent] != 0)
				pep_numeric_refuse(value, precision, scale, column,
								   "The value has more fraction digits than the scale; it is not rounded.");
			d /= pep_pow10[-exponent];
			exponent = 0;
		}
		if (exponent > precision ||
			pg_mul_s64_overflow(d, pep_pow10[exponent], &d) ||
			pg_add_s64_overflow(unscaled, d, &unscaled))
			pep_numeric_refuse(value, precision, scale, column,
							   "The value has more digits than the precision.");
	}
	if (unscaled >= pep_pow10[precision])
		pep_numeric_refuse(value, precision, scale, column,
						   "The value has more digits than the precision.");
	return parts.negative ? -unscaled : unscaled;
}
