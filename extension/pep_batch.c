/*-------------------------------------------------------------------------
 *
 * pep_batch.c
 *	  Fill columnar batches from tuples, in the binary form Java expects.
 *
 * Values cross into Java in binary form wherever a binary mapping exists,
 * so the hot path calls no output function for numbers, dates, times and
 * text.  Dates and timestamps move from PostgreSQL's 2000-01-01 epoch to
 * Parquet's 1970-01-01 here; infinite values and the few timestamps that
 * overflow the move are refused with an error naming the column, never
 * written as a wrong number.  Text is converted to UTF-8 when the database
 * encoding is not UTF-8.
 *
 * A row whose variable width values do not fit in the var area is not
 * added: the caller flushes the batch and adds it again, and a row that
 * does not fit an empty batch grows the buffer.
 *
 * IDENTIFICATION
 *	  extension/pep_batch.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/int.h"
#include "datatype/timestamp.h"
#include "mb/pg_wchar.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/uuid.h"

#include "pep_batch.h"

/* Initial size of the var area; it grows only for rows larger than this. */
#define PEP_VAR_AREA_INITIAL	(8 * 1024 * 1024)

/* Days and microseconds between the PostgreSQL and Unix epochs. */
#define PEP_EPOCH_DAYS		(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE)
#define PEP_EPOCH_USECS		((int64) PEP_EPOCH_DAYS * USECS_PER_DAY)

#define PEP_ALIGN(x)		TYPEALIGN(8, (x))

PEPBatch *
pep_batch_create(const PEPColumn *columns, int ncolumns, int capacity)
{
	PEPBatch   *batch = palloc0(sizeof(PEPBatch));
	Size		cursor = 0;

	batch->columns = columns;
	batch->ncolumns = ncolumns;
	batch->capacity = capacity;
	batch->null_offsets = palloc(sizeof(int) * ncolumns);
	batch->value_offsets = palloc(sizeof(int) * ncolumns);
	batch->output_fns = palloc0(sizeof(FmgrInfo) * ncolumns);

	for (int c = 0; c < ncolumns; c++)
	{
		const PEPColumn *col = &columns[c];

		batch->null_offsets[c] = (int) cursor;
		cursor = PEP_ALIGN(cursor + capacity);
		batch->value_offsets[c] = (int) cursor;
		cursor = PEP_ALIGN(cursor + (Size) capacity * pep_kind_width(col->kind));

		if (col->form == PEP_FORM_OUTPUT)
		{
			Oid			outfunc;
			bool		isvarlena;

			getTypeOutputInfo(col->typid, &outfunc, &isvarlena);
			fmgr_info(outfunc, &batch->output_fns[c]);
		}
	}
	batch->var_start = cursor;
	batch->size = cursor + PEP_VAR_AREA_INITIAL;
	batch->buf = MemoryContextAllocHuge(TopMemoryContext, batch->size);
	return batch;
}

/* Double the var area; the caller re-registers the buffer with Java. */
void
pep_batch_grow(PEPBatch *batch)
{
	Size		var_size = batch->size - batch->var_start;

	if (var_size >= MaxAllocHugeSize / 4)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row is too large to export")));
	batch->size = batch->var_start + var_size * 2;
	pfree(batch->buf);
	batch->buf = MemoryContextAllocHuge(TopMemoryContext, batch->size);
	batch->grown = true;
	pep_batch_reset(batch);
}

void
pep_batch_reset(PEPBatch *batch)
{
	batch->nrows = 0;
	batch->var_used = 0;
}

static void
pep_refuse_infinite(const PEPColumn *col, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("cannot export %s in column \"%s\"", what, col->name),
			 errdetail("Parquet dates and timestamps have no infinite values."),
			 errhint("Filter the rows out or replace the value in a query source.")));
}

/* Write one fixed width value at row r of column c. */
static void
pep_put_fixed(PEPBatch *batch, int c, int r, Datum value)
{
	const PEPColumn *col = &batch->columns[c];
	char	   *dst = batch->buf + batch->value_offsets[c] + (Size) r * pep_kind_width(col->kind);

	switch (col->kind)
	{
		case PEP_KIND_BOOL:
			*dst = DatumGetBool(value) ? 1 : 0;
			break;
		case PEP_KIND_INT16:
			{
				int16		v = DatumGetInt16(value);

				memcpy(dst, &v, sizeof(v));
				break;
			}
		case PEP_KIND_INT32:
			{
				int32		v = DatumGetInt32(value);

				memcpy(dst, &v, sizeof(v));
				break;
			}
		case PEP_KIND_INT64:
		case PEP_KIND_TIME:
			{
				int64		v = DatumGetInt64(value);

				memcpy(dst, &v, sizeof(v));
				break;
			}
		case PEP_KIND_FLOAT32:
			{
				float4		v = DatumGetFloat4(value);

				memcpy(dst, &v, sizeof(v));
				break;
			}
		case PEP_KIND_FLOAT64:
			{
				float8		v = DatumGetFloat8(value);

				memcpy(dst, &v, sizeof(v));
				break;
			}
		case PEP_KIND_DATE:
			{
				DateADT		d = DatumGetDateADT(value);
				int32		v;

				if (DATE_NOT_FINITE(d))
					pep_refuse_infinite(col, "an infinite date");
				v = d + PEP_EPOCH_DAYS;
				memcpy(dst, &v, sizeof(v));
				break;
			}
		case PEP_KIND_TIMESTAMP:
		case PEP_KIND_TIMESTAMPTZ:
			{
				int64		ts = DatumGetInt64(value);
				int64		v;

				if (TIMESTAMP_NOT_FINITE(ts))
					pep_refuse_infinite(col, "an infinite timestamp");
				if (pg_add_s64_overflow(ts, PEP_EPOCH_USECS, &v))
					ereport(ERROR,
							(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
							 errmsg("timestamp out of range for Parquet in column \"%s\"", col->name)));
				memcpy(dst, &v, sizeof(v));
				break;
			}
		case PEP_KIND_UUID:
			memcpy(dst, DatumGetUUIDP(value)->data, UUID_LEN);
			break;
		default:
			elog(ERROR, "unsupported fixed kind: %d", col->kind);
	}
}

/*
 * Find the bytes of a variable width value.  Text-like values are converted
 * to UTF-8; the result may point into the datum or into palloc'd memory of
 * the current context.
 */
static const char *
pep_var_bytes(PEPBatch *batch, int c, Datum value, Size *len)
{
	const PEPColumn *col = &batch->columns[c];
	const char *ptr;

	switch (col->form)
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
			ptr = OutputFunctionCall(&batch->output_fns[c], value);
			*len = strlen(ptr);
			break;
		default:
			elog(ERROR, "unsupported source form: %d", col->form);
	}

	if (col->kind != PEP_KIND_BYTES && GetDatabaseEncoding() != PG_UTF8 && *len > 0)
	{
		char	   *utf8 = pg_server_to_any(ptr, (int) *len, PG_UTF8);

		if (utf8 != ptr)
		{
			ptr = utf8;
			*len = strlen(utf8);
		}
	}
	return ptr;
}

bool
pep_batch_add_row(PEPBatch *batch, Datum *values, bool *isnull)
{
	int			r = batch->nrows;
	Size		var_mark = batch->var_used;

	Assert(r < batch->capacity);
	for (int c = 0; c < batch->ncolumns; c++)
	{
		const PEPColumn *col = &batch->columns[c];
		char	   *nullp = batch->buf + batch->null_offsets[c] + r;
		Datum		value = values[col->attidx];

		if (isnull[col->attidx])
		{
			*nullp = 1;
			continue;
		}
		*nullp = 0;

		if (pep_kind_is_var(col->kind))
		{
			Size		len;
			const char *bytes = pep_var_bytes(batch, c, value, &len);
			Size		at = batch->var_start + batch->var_used;
			int32		pair[2];

			if (len > batch->size - at)
			{
				batch->var_used = var_mark;
				return false;
			}
			memcpy(batch->buf + at, bytes, len);
			pair[0] = (int32) at;
			pair[1] = (int32) len;
			memcpy(batch->buf + batch->value_offsets[c] + (Size) r * 8, pair, sizeof(pair));
			batch->var_used += len;
		}
		else
			pep_put_fixed(batch, c, r, value);
	}
	batch->nrows++;
	return true;
}
