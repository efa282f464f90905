/*-------------------------------------------------------------------------
 *
 * pep_numeric.c
 *	  Decode a numeric into the unscaled int64 of a Parquet DECIMAL.
 *
 * A DECIMAL(p,s) with p <= 18 is written as the integer value * 10^s.
 * Printing every numeric with numeric_out and parsing the text again in
 * Java cost about a third of such a column's time, so the value is decoded
 * here from numeric's storage format: a header word (or two), then base
 * 10000 digits, the first of weight `weight`.  That format is on disk in
 * every database and pg_upgrade carries it over unchanged, so it does not
 * change between major versions; numeric.c keeps its struct private, which
 * is why its layout is restated below.
 *
 * A value that would need rounding, more than p digits, or is NaN or
 * infinite is an error naming the column and the value: a numeric(p,s)
 * column never holds one, but unconstrained_numeric => 'decimal(P,S)'
 * applies a DECIMAL to values that were never checked against it.
 *
 * IDENTIFICATION
 *	  extension/pep_numeric.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/int.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

#include "pep_numeric.h"

/* numeric's storage format, as numeric.c defines it */
#define PEP_NBASE					10000
#define PEP_DEC_DIGITS				4
#define PEP_NUMERIC_SIGN_MASK		0xC000
#define PEP_NUMERIC_NEG				0x4000
#define PEP_NUMERIC_SHORT			0x8000
#define PEP_NUMERIC_SPECIAL			0xC000
#define PEP_NUMERIC_SHORT_SIGN_MASK	0x2000
#define PEP_NUMERIC_SHORT_WEIGHT_SIGN_MASK 0x0040
#define PEP_NUMERIC_SHORT_WEIGHT_MASK 0x003F

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
	int64		whole = 0;
	int			exponent;

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
		uint64		quotient;

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
	struct varlena *v = (struct varlena *) DatumGetPointer(value);
	const uint16 *words;
	int			nwords;
	uint16		header;
	bool		negative;
	int			weight;
	const uint16 *digits;
	int			ndigits;
	int64		unscaled = 0;

	Assert(precision >= 1 && precision <= 18 && scale >= 0 && scale <= precision);
	/* pg_detoast_datum_packed's test, inline: a numeric is rarely toasted */
	if (VARATT_IS_COMPRESSED(v) || VARATT_IS_EXTERNAL(v))
		v = pg_detoast_datum_packed(v);
	words = (const uint16 *) VARDATA_ANY(v);
	nwords = VARSIZE_ANY_EXHDR(v) / sizeof(uint16);
	if (nwords < 1)
		elog(ERROR, "numeric value of column \"%s\" has no header", column);
	header = words[0];

	if ((header & PEP_NUMERIC_SIGN_MASK) == PEP_NUMERIC_SPECIAL)
		pep_numeric_refuse(value, precision, scale, column,
						   "Parquet DECIMAL has no NaN or infinite values.");
	if (header & PEP_NUMERIC_SHORT)
	{
		negative = (header & PEP_NUMERIC_SHORT_SIGN_MASK) != 0;
		weight = (header & PEP_NUMERIC_SHORT_WEIGHT_MASK);
		if (header & PEP_NUMERIC_SHORT_WEIGHT_SIGN_MASK)
			weight |= ~PEP_NUMERIC_SHORT_WEIGHT_MASK;
		digits = words + 1;
		ndigits = nwords - 1;
	}
	else
	{
		if (nwords < 2)
			elog(ERROR, "numeric value of column \"%s\" has a truncated header", column);
		negative = (header & PEP_NUMERIC_SIGN_MASK) == PEP_NUMERIC_NEG;
		weight = (int16) words[1];
		digits = words + 2;
		ndigits = nwords - 2;
	}

	if (pep_numeric_unscaled_short(digits, ndigits, weight, precision, scale, &unscaled))
		return negative ? -unscaled : unscaled;
	unscaled = 0;

	/* digit i is worth 10000^(weight - i), so 10^(4 * (weight - i) + scale) unscaled */
	for (int i = 0; i < ndigits; i++)
	{
		int			exponent = PEP_DEC_DIGITS * (weight - i) + scale;
		int64		d = digits[i];

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
	return negative ? -unscaled : unscaled;
}
