/*-------------------------------------------------------------------------
 *
 * pep_numtext.c
 *	  A numeric as the text numeric_out writes.
 *
 * numeric crosses into Java as its text where no DECIMAL holds it: a
 * column without a typmod under the default unconstrained_numeric =>
 * 'text', a DECIMAL wider than 18 digits (Java scales the text), and every
 * number inside a jsonb.  numeric_out costs more than its digits: a call
 * through fmgr, a NumericVar filled from the datum, a palloc'd string the
 * caller then measures with strlen, and for jsonb one more copy into the
 * document's text.  This file prints the same text straight from the
 * storage format (pep_numeric.h) into memory sized once.
 *
 * The text must be exactly numeric_out's: readers compare it with what
 * PostgreSQL shows, and a DECIMAL's text is parsed again.  Its rules are
 * get_str_from_var's, the same in every supported major version: a '-' for
 * a negative sign; the digits before the point, all four of each base
 * 10000 digit but the first, whose leading zeros are dropped, or a single
 * "0" when the weight is negative; then, when dscale > 0, a '.' and exactly
 * dscale digits, missing base 10000 digits counting as zeros; "NaN",
 * "Infinity" and "-Infinity" for the special values.  The read-back tests
 * compare numerics of every shape (weights below zero and far above the
 * last digit, dscale not a multiple of four, zero with a scale, the
 * special values) with PostgreSQL's numeric::text.
 *
 * IDENTIFICATION
 *	  extension/src/encode/pep_numtext.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pep_numeric.h"
#include "pep_numtext.h"

/* "00" to "99": a base 10000 digit is two table lookups, not four divisions */
static const char pep_digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Split value; a truncated header is an error. */
static void
pep_numtext_parts(Datum value, PEPNumericParts *parts)
{
	if (!pep_numeric_parts(value, parts))
		elog(ERROR, "numeric value has a truncated header");
}

/*
 * Bytes the text may take, with numeric_out's slack: up to three digits of
 * the last base 10000 digit after the point are written and then cut.
 */
static Size
pep_numtext_bound(const PEPNumericParts *parts)
{
	int before = (parts->weight + 1) * PEP_DEC_DIGITS;

	if (parts->special)
		return sizeof("-Infinity");
	return Max(before, 1) + parts->dscale + PEP_DEC_DIGITS + 2;
}

/* All four decimal digits of the base 10000 digit dig at cp. */
static inline char *
pep_numtext_put4(char *cp, int dig)
{
	memcpy(cp, pep_digit_pairs + 2 * (dig / 100), 2);
	memcpy(cp + 2, pep_digit_pairs + 2 * (dig % 100), 2);
	return cp + 4;
}

/* Write the text at cp, which has pep_numtext_bound bytes; returns its end. */
static char *
pep_numtext_put(const PEPNumericParts *parts, char *cp)
{
	int d;

	if (parts->special)
	{
		const char *word = parts->special == PEP_NUMERIC_PINF ? "Infinity" : parts->special == PEP_NUMERIC_NINF ? "-Infinity"
																												: "NaN";
		Size n = strlen(word);

		memcpy(cp, word, n);
		return cp + n;
	}
	if (parts->negative)
		*cp++ = '-';
	if (parts->weight < 0)
	{
		d = parts->weight + 1;
		*cp++ = '0';
	}
	else
	{
		int first = parts->ndigits > 0 ? parts->digits[0] : 0;

		/* the first digit without its leading zeros */
		if (first >= 1000)
			cp = pep_numtext_put4(cp, first);
		else if (first >= 100)
		{
			*cp++ = (char) ('0' + first / 100);
			memcpy(cp, pep_digit_pairs + 2 * (first % 100), 2);
			cp += 2;
		}
		else if (first >= 10)
		{
			memcpy(cp, pep_digit_pairs + 2 * first, 2);
			cp += 2;
		}
		else
			*cp++ = (char) ('0' + first);
		for (d = 1; d <= parts->weight; d++)
			cp = pep_numtext_put4(cp, d < parts->ndigits ? parts->digits[d] : 0);
	}
	if (parts->dscale > 0)
	{
		char *end;

		*cp++ = '.';
		end = cp + parts->dscale;
		for (int i = 0; i < parts->dscale; d++, i += PEP_DEC_DIGITS)
			cp = pep_numtext_put4(cp, d >= 0 && d < parts->ndigits ? parts->digits[d] : 0);
		cp = end;
	}
	return cp;
}

const char *
pep_numeric_text(Datum value, Size *len)
{
	PEPNumericParts parts;
	char *text;
	char *end;

	pep_numtext_parts(value, &parts);
	text = palloc(pep_numtext_bound(&parts));
	end = pep_numtext_put(&parts, text);
	*end = '\0';
	*len = end - text;
	return text;
}

void
pep_numeric_append(StringInfo out, Datum value)
{
	PEPNumericParts parts;
	char *end;

	pep_numtext_parts(value, &parts);
	enlargeStringInfo(out, (int) pep_numtext_bound(&parts));
	end = pep_numtext_put(&parts, out->data + out->len);
	out->len = end - out->data;
	out->data[out->len] = '\0';
}
