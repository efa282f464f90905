/*-------------------------------------------------------------------------
 *
 * pep_types.c
 *	  Map PostgreSQL column types to the value kinds the Java writer knows.
 *
 * The leader resolves every column once, before any worker starts, so that
 * workers only follow the decision: which kind the Parquet column has and
 * where its bytes come from (the binary datum, or the type's output
 * function for types without a binary mapping).  Domains export as their
 * base type.  Anything without a mapping becomes a STRING of its text
 * output, so no source is refused for its types.
 *
 * IDENTIFICATION
 *	  extension/pep_types.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "pep.h"

/* Parquet DECIMAL holds at most 38 digits in a 16-byte FIXED_LEN_BYTE_ARRAY. */
#define PEP_DECIMAL_MAX_PRECISION 38

/*
 * Decide the Parquet DECIMAL for a numeric typmod, or return false when the
 * column has none (unconstrained, or too wide) and must stay text.
 *
 * A negative scale rounds to tens, hundreds, ...: its values are integers
 * of p - s digits.  A scale above the precision means values below one with
 * leading zeros: they need s digits.
 */
static bool
pep_numeric_decimal(int32 typmod, int *precision, int *scale)
{
	int			p;
	int			s;

	if (typmod < (int32) VARHDRSZ)
		return false;
	p = ((typmod - VARHDRSZ) >> 16) & 0xffff;
	s = (((typmod - VARHDRSZ) & 0x7ff) ^ 1024) - 1024;

	if (s < 0)
	{
		p = p - s;
		s = 0;
	}
	else if (s > p)
		p = s;

	if (p < 1 || p > PEP_DECIMAL_MAX_PRECISION)
		return false;
	*precision = p;
	*scale = s;
	return true;
}

void
pep_resolve_column(PEPColumn *col, int attidx, const char *name, Oid typid, int32 typmod)
{
	int32		basetypmod = typmod;
	Oid			basetypid = getBaseTypeAndTypmod(typid, &basetypmod);

	memset(col, 0, sizeof(PEPColumn));
	col->attidx = attidx;
	strlcpy(col->name, name, NAMEDATALEN);
	strlcpy(col->pgtype, format_type_with_typemod(typid, typmod), sizeof(col->pgtype));
	col->typid = typid;
	col->typmod = typmod;
	col->basetypid = basetypid;
	col->form = PEP_FORM_FIXED;

	switch (basetypid)
	{
		case BOOLOID:
			col->kind = PEP_KIND_BOOL;
			break;
		case INT2OID:
			col->kind = PEP_KIND_INT16;
			break;
		case INT4OID:
			col->kind = PEP_KIND_INT32;
			break;
		case INT8OID:
			col->kind = PEP_KIND_INT64;
			break;
		case FLOAT4OID:
			col->kind = PEP_KIND_FLOAT32;
			break;
		case FLOAT8OID:
			col->kind = PEP_KIND_FLOAT64;
			break;
		case DATEOID:
			col->kind = PEP_KIND_DATE;
			break;
		case TIMEOID:
			col->kind = PEP_KIND_TIME;
			break;
		case TIMESTAMPOID:
			col->kind = PEP_KIND_TIMESTAMP;
			break;
		case TIMESTAMPTZOID:
			col->kind = PEP_KIND_TIMESTAMPTZ;
			break;
		case UUIDOID:
			col->kind = PEP_KIND_UUID;
			break;
		case NUMERICOID:
			/* numeric_out's text is exact; Java scales it to the DECIMAL */
			col->form = PEP_FORM_OUTPUT;
			if (pep_numeric_decimal(basetypmod, &col->precision, &col->scale))
				col->kind = PEP_KIND_DECIMAL;
			else
				col->kind = PEP_KIND_STRING;
			break;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			col->kind = PEP_KIND_STRING;
			col->form = PEP_FORM_VARLENA;
			break;
		case NAMEOID:
			col->kind = PEP_KIND_STRING;
			col->form = PEP_FORM_NAME;
			break;
		case BYTEAOID:
			col->kind = PEP_KIND_BYTES;
			col->form = PEP_FORM_VARLENA;
			break;
		case JSONOID:
			col->kind = PEP_KIND_JSON;
			col->form = PEP_FORM_VARLENA;
			break;
		case JSONBOID:
			col->kind = PEP_KIND_JSON;
			col->form = PEP_FORM_OUTPUT;
			break;
		default:
			col->kind = PEP_KIND_STRING;
			col->form = PEP_FORM_OUTPUT;
			break;
	}
}

/* Bytes per row in the values area of a fixed-width kind; var kinds keep an (offset, length) pair. */
int
pep_kind_width(int kind)
{
	switch (kind)
	{
		case PEP_KIND_BOOL:
			return 1;
		case PEP_KIND_INT16:
			return 2;
		case PEP_KIND_INT32:
		case PEP_KIND_FLOAT32:
		case PEP_KIND_DATE:
			return 4;
		case PEP_KIND_INT64:
		case PEP_KIND_FLOAT64:
		case PEP_KIND_TIME:
		case PEP_KIND_TIMESTAMP:
		case PEP_KIND_TIMESTAMPTZ:
			return 8;
		case PEP_KIND_UUID:
			return 16;
		case PEP_KIND_DECIMAL:
		case PEP_KIND_STRING:
		case PEP_KIND_JSON:
		case PEP_KIND_BYTES:
			return 8;
	}
	elog(ERROR, "unsupported kind: %d", kind);
	return 0;					/* keep compiler quiet */
}

bool
pep_kind_is_var(int kind)
{
	return kind == PEP_KIND_DECIMAL || kind == PEP_KIND_STRING ||
		kind == PEP_KIND_JSON || kind == PEP_KIND_BYTES;
}
