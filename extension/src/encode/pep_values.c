/*-------------------------------------------------------------------------
 *
 * pep_values.c
 *	  Encode one leaf value in the binary form Java reads.
 *
 * Values cross into Java in binary form wherever a binary mapping exists,
 * so the hot path calls no output function for numbers, dates, times and
 * text.  Dates and timestamps move from PostgreSQL's 2000-01-01 epoch to
 * Parquet's 1970-01-01 here; infinite values and the few timestamps that
 * overflow the move are refused with an error naming the column, never
 * written as a wrong number.  Text is converted to UTF-8 when the database
 * encoding is not UTF-8 (and checked to be UTF-8 when it is SQL_ASCII).
 * pep_batch.c places flat columns' values with these, pep_nested.c the
 * elements and fields of arrays and composites.
 *
 * IDENTIFICATION
 *	  extension/src/encode/pep_values.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "mb/pg_wchar.h"
#include "utils/date.h"
#include "utils/fmgrprotos.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

#include "pep_jsonb.h"
#include "pep_numeric.h"
#include "pep_numtext.h"
#include "pep_values.h"

/*
 * The widths Java reads (ColumnKind) must be what pep_put_fixed writes: a
 * width changed in Java alone fails here, not in a reader.
 */
StaticAssertDecl(PEP_KIND_WIDTH(BOOL) == 1, "BOOL is one byte");
StaticAssertDecl(PEP_KIND_WIDTH(INT16) == sizeof(int16), "INT16 is an int16");
StaticAssertDecl(PEP_KIND_WIDTH(INT32) == sizeof(int32), "INT32 is an int32");
StaticAssertDecl(PEP_KIND_WIDTH(UINT32) == sizeof(uint32), "UINT32 is a uint32");
StaticAssertDecl(PEP_KIND_WIDTH(INT64) == sizeof(int64), "INT64 is an int64");
StaticAssertDecl(PEP_KIND_WIDTH(TIME) == sizeof(int64), "TIME is an int64");
StaticAssertDecl(PEP_KIND_WIDTH(TIMETZ) == sizeof(int64), "TIMETZ is an int64");
StaticAssertDecl(PEP_KIND_WIDTH(FLOAT32) == sizeof(float4), "FLOAT32 is a float4");
StaticAssertDecl(PEP_KIND_WIDTH(FLOAT64) == sizeof(float8), "FLOAT64 is a float8");
StaticAssertDecl(PEP_KIND_WIDTH(DATE) == sizeof(int32), "DATE is an int32");
StaticAssertDecl(PEP_KIND_WIDTH(TIMESTAMP) == sizeof(int64), "TIMESTAMP is an int64");
StaticAssertDecl(PEP_KIND_WIDTH(TIMESTAMPTZ) == sizeof(int64), "TIMESTAMPTZ is an int64");
StaticAssertDecl(PEP_KIND_WIDTH(INTERVAL) == 2 * sizeof(int32) + sizeof(int64),
				 "INTERVAL is int32 months, int32 days, int64 microseconds");
StaticAssertDecl(PEP_KIND_WIDTH(UUID) == UUID_LEN, "UUID is its 16 bytes");
StaticAssertDecl(PEP_KIND_WIDTH(DECIMAL64) == sizeof(int64), "DECIMAL64 is an int64");

static void
pep_refuse_infinite(const char *column, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("cannot export %s in column \"%s\"", what, column),
			 errdetail("Parquet dates, timestamps and intervals have no infinite values."),
			 errhint("Filter the rows out or replace the value in a query source.")));
}

/*
 * How a flat column of node's kind is placed in a batch: pep_put_fixed
 * stores the kinds of the Datum places with pep_put_datum too, so both write
 * the same bytes and refuse the same values.  A float8 converted from
 * numeric needs pep_put_fixed.  A varlena's bytes are the value's own where
 * pep_leaf_bytes would neither convert nor check them (bytea, or text in a
 * UTF-8 database).
 */
PEPPlace
pep_value_place(const PEPNode *node)
{
	if (pep_kind_is_var(node->kind))
	{
		if (node->form == PEP_FORM_VARLENA &&
			(node->kind == PEP_KIND_BYTES || GetDatabaseEncoding() == PG_UTF8))
			return PEP_PLACE_VARLENA;
		return PEP_PLACE_VAR;
	}
	switch (node->kind)
	{
		case PEP_KIND_BOOL:
			return PEP_PLACE_BOOL;
		case PEP_KIND_INT16:
			return PEP_PLACE_DATUM2;
		case PEP_KIND_INT32:
		case PEP_KIND_UINT32:
		case PEP_KIND_FLOAT32:
			return PEP_PLACE_DATUM4;
		case PEP_KIND_INT64:
		case PEP_KIND_TIME:
			return PEP_PLACE_DATUM8;
		case PEP_KIND_FLOAT64:
			return node->basetypid == NUMERICOID ? PEP_PLACE_ENCODE : PEP_PLACE_DATUM8;
		case PEP_KIND_DATE:
			return PEP_PLACE_DATE;
		case PEP_KIND_TIMESTAMP:
		case PEP_KIND_TIMESTAMPTZ:
			return PEP_PLACE_TIMESTAMP;
		case PEP_KIND_UUID:
			return PEP_PLACE_UUID;
		case PEP_KIND_DECIMAL64:
			return PEP_PLACE_DECIMAL64;
		default:
			return PEP_PLACE_ENCODE;
	}
}

/*
 * Write one fixed width value of node's kind at dst (pep_kind_width bytes).
 * column names the exported column in errors.
 */
void
pep_put_fixed(const PEPNode *node, const char *column, Datum value, char *dst)
{
	switch (node->kind)
	{
		case PEP_KIND_BOOL:
			pep_put_datum(PEP_PLACE_BOOL, value, dst);
			break;
		case PEP_KIND_INT16:
			pep_put_datum(PEP_PLACE_DATUM2, value, dst);
			break;
		case PEP_KIND_INT32:
		case PEP_KIND_UINT32:
		case PEP_KIND_FLOAT32:
			pep_put_datum(PEP_PLACE_DATUM4, value, dst);
			break;
		case PEP_KIND_INT64:
		case PEP_KIND_TIME:
			pep_put_datum(PEP_PLACE_DATUM8, value, dst);
			break;
		case PEP_KIND_TIMETZ:
		{
			TimeTzADT *t = DatumGetTimeTzADTP(value);
			/* zone is seconds west of UTC: local time + zone = UTC */
			int64 v = t->time + (int64) t->zone * USECS_PER_SEC;

			/* into the day; 24:00 stays 24:00 only where it was 24:00 UTC already */
			if (v < 0)
				v += USECS_PER_DAY;
			else if (v > USECS_PER_DAY ||
					 (v == USECS_PER_DAY && t->time != USECS_PER_DAY))
				v -= USECS_PER_DAY;
			memcpy(dst, &v, sizeof(v));
			break;
		}
		case PEP_KIND_FLOAT64:
			/* numeric only arrives here when the caller chose DOUBLE for it */
			if (node->basetypid == NUMERICOID)
				value = DirectFunctionCall1(numeric_float8, value);
			pep_put_datum(PEP_PLACE_DATUM8, value, dst);
			break;
		case PEP_KIND_DATE:
			if (pep_put_datum(PEP_PLACE_DATE, value, dst))
				pep_refuse_infinite(column, "an infinite date");
			break;
		case PEP_KIND_TIMESTAMP:
		case PEP_KIND_TIMESTAMPTZ:
			if (pep_put_datum(PEP_PLACE_TIMESTAMP, value, dst))
			{
				if (TIMESTAMP_NOT_FINITE(DatumGetInt64(value)))
					pep_refuse_infinite(column, "an infinite timestamp");
				ereport(ERROR,
						(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
						 errmsg("timestamp out of range for Parquet in column \"%s\"", column)));
			}
			break;
		case PEP_KIND_INTERVAL:
		{
			Interval *iv = DatumGetIntervalP(value);

#ifdef INTERVAL_NOT_FINITE
			if (INTERVAL_NOT_FINITE(iv))
				pep_refuse_infinite(column, "an infinite interval");
#endif
			memcpy(dst, &iv->month, sizeof(int32));
			memcpy(dst + 4, &iv->day, sizeof(int32));
			memcpy(dst + 8, &iv->time, sizeof(int64));
			break;
		}
		case PEP_KIND_UUID:
			pep_put_datum(PEP_PLACE_UUID, value, dst);
			break;
		case PEP_KIND_DECIMAL64:
		{
			int64 v = pep_numeric_unscaled(value, node->precision, node->scale, column);

			memcpy(dst, &v, sizeof(v));
			break;
		}
		default:
			elog(ERROR, "unsupported fixed kind: %d", node->kind);
	}
}

/*
 * Find the bytes of a variable width leaf value.  Text-like values are
 * converted to UTF-8; in a SQL_ASCII database, where nothing checked them,
 * they must already be valid UTF-8.  The result may point into the datum or
 * into palloc'd memory of the current context.
 */
const char *
pep_leaf_bytes(const PEPNode *node, const char *column, Datum value, Size *len)
{
	const char *ptr;
	int dbenc;

	switch (node->form)
	{
		case PEP_FORM_VARLENA:
		{
			struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value));

			ptr = VARDATA_ANY(v);
			*len = VARSIZE_ANY_EXHDR(v);
			break;
		}
		case PEP_FORM_NAME:
			ptr = NameStr(*DatumGetName(value));
			*len = strlen(ptr);
			break;
		case PEP_FORM_OUTPUT:
			ptr = OutputFunctionCall((FmgrInfo *) &node->outfn, value);
			*len = strlen(ptr);
			break;
		case PEP_FORM_JSONB:
			ptr = pep_jsonb_text(value, len);
			break;
		case PEP_FORM_NUMERIC:
			ptr = pep_numeric_text(value, len);
			break;
		default:
			elog(ERROR, "unsupported source form: %d", node->form);
	}

	dbenc = GetDatabaseEncoding();
	if (node->kind == PEP_KIND_BYTES || dbenc == PG_UTF8 || *len == 0)
		return ptr;
	if (dbenc == PG_SQL_ASCII)
	{
		if (!pg_verify_mbstr(PG_UTF8, ptr, (int) *len, true))
			ereport(ERROR,
					(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
					 errmsg("invalid UTF-8 in column \"%s\"", column),
					 errdetail("The database encoding is SQL_ASCII, which does not check text; Parquet strings must be UTF-8."),
					 errhint("Export a query that converts the column, for example with convert_from(convert_to(col, 'SQL_ASCII'), 'LATIN1'), or exports it as bytea.")));
		return ptr;
	}
	{
		char *utf8 = pg_server_to_any(ptr, (int) *len, PG_UTF8);

		if (utf8 != ptr)
		{
			ptr = utf8;
			*len = strlen(utf8);
		}
	}
	return ptr;
}
