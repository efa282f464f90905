/*-------------------------------------------------------------------------
 *
 * pep_numeric.h
 *	  Read a numeric from its storage format: into the unscaled int64 of a
 *	  Parquet DECIMAL (pep_numeric.c) or into numeric_out's text
 *	  (pep_numtext.c).
 *
 * Both decode the value here rather than through numeric.c, whose
 * NumericVar and decoding functions are private, because the printed or
 * decoded value is on the hot path of every numeric column.  The storage
 * format is on disk in every database and pg_upgrade carries it over
 * unchanged, so it does not change between major versions; numeric.c keeps
 * its struct private, which is why its layout is restated below: a header
 * word (or two), then base 10000 digits, the first of weight `weight`.
 *
 * IDENTIFICATION
 *	  extension/include/pep_numeric.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_NUMERIC_H
#define PEP_NUMERIC_H

#include "fmgr.h"
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/* numeric's storage format, as numeric.c defines it */
#define PEP_NBASE						   10000
#define PEP_DEC_DIGITS					   4
#define PEP_NUMERIC_SIGN_MASK			   0xC000
#define PEP_NUMERIC_NEG					   0x4000
#define PEP_NUMERIC_SHORT				   0x8000
#define PEP_NUMERIC_SPECIAL				   0xC000
#define PEP_NUMERIC_EXT_SIGN_MASK		   0xF000
#define PEP_NUMERIC_PINF				   0xD000
#define PEP_NUMERIC_NINF				   0xF000
#define PEP_NUMERIC_DSCALE_MASK			   0x3FFF
#define PEP_NUMERIC_SHORT_SIGN_MASK		   0x2000
#define PEP_NUMERIC_SHORT_DSCALE_MASK	   0x1F80
#define PEP_NUMERIC_SHORT_DSCALE_SHIFT	   7
#define PEP_NUMERIC_SHORT_WEIGHT_SIGN_MASK 0x0040
#define PEP_NUMERIC_SHORT_WEIGHT_MASK	   0x003F

/* A numeric's parts, pointing into the datum. */
typedef struct PEPNumericParts
{
	uint16 special; /* 0, or the NaN / infinity header bits */
	bool negative;
	int weight; /* of digits[0], in base 10000 places */
	int dscale; /* decimal digits shown after the point */
	const uint16 *digits;
	int ndigits;
} PEPNumericParts;

/*
 * Split value into its parts, detoasting it if it must be (a short varlena
 * header is read as it is); false if its header is cut short, which no
 * numeric.c function writes.
 */
static inline bool
pep_numeric_parts(Datum value, PEPNumericParts *parts)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(value);
	const uint16 *words;
	int nwords;
	uint16 header;

	/* pg_detoast_datum_packed's test, inline: a numeric is rarely toasted */
	if (VARATT_IS_COMPRESSED(v) || VARATT_IS_EXTERNAL(v))
		v = pg_detoast_datum_packed(v);
	words = (const uint16 *) VARDATA_ANY(v);
	nwords = VARSIZE_ANY_EXHDR(v) / sizeof(uint16);

	if (nwords < 1)
		return false;
	header = words[0];
	parts->special = 0;
	if ((header & PEP_NUMERIC_SIGN_MASK) == PEP_NUMERIC_SPECIAL)
	{
		parts->special = header & PEP_NUMERIC_EXT_SIGN_MASK;
		parts->negative = parts->special == PEP_NUMERIC_NINF;
		parts->weight = 0;
		parts->dscale = 0;
		parts->digits = NULL;
		parts->ndigits = 0;
	}
	else if (header & PEP_NUMERIC_SHORT)
	{
		parts->negative = (header & PEP_NUMERIC_SHORT_SIGN_MASK) != 0;
		parts->weight = (header & PEP_NUMERIC_SHORT_WEIGHT_MASK);
		if (header & PEP_NUMERIC_SHORT_WEIGHT_SIGN_MASK)
			parts->weight |= ~PEP_NUMERIC_SHORT_WEIGHT_MASK;
		parts->dscale = (header & PEP_NUMERIC_SHORT_DSCALE_MASK) >> PEP_NUMERIC_SHORT_DSCALE_SHIFT;
		parts->digits = words + 1;
		parts->ndigits = nwords - 1;
	}
	else
	{
		if (nwords < 2)
			return false;
		parts->negative = (header & PEP_NUMERIC_SIGN_MASK) == PEP_NUMERIC_NEG;
		parts->weight = (int16) words[1];
		parts->dscale = header & PEP_NUMERIC_DSCALE_MASK;
		parts->digits = words + 2;
		parts->ndigits = nwords - 2;
	}
	return true;
}

extern int64 pep_numeric_unscaled(Datum value, int precision, int scale, const char *column);

#endif /* PEP_NUMERIC_H */
