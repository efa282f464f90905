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
 * encoding is not UTF-8 (and checked to be UTF-8 when it is SQL_ASCII).
 * Arrays and composites are serialized by pep_nested.c into the var area.
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

#include "catalog/pg_type.h"
#include "common/int.h"
#include "datatype/timestamp.h"
#include "mb/pg_wchar.h"
#include "utils/date.h"
#include "utils/fmgrprotos.h"
#include "utils/timestamp.h"
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
pep_batch_create(const PEPColumn *columns, int ncolumns, int capacity,
				 const PEPTypeChoices *types)
{
	PEPBatch   *batch = palloc0(sizeof(PEPBatch));
	Size		cursor = 0;

	batch->columns = columns;
	batch->ncolumns = ncolumns;
	batch->capacity = capacity;
	batch->null_offsets = palloc(sizeof(int) * ncolumns);
	batch->value_offsets = palloc(sizeof(int) * ncolumns);
	batch->trees = palloc(sizeof(PEPNode *) * ncolumns);
	initStringInfo(&batch->scratch);

	for (int c = 0; c < ncolumns; c++)
	{
		const PEPColumn *col = &columns[c];

		batch->null_offsets[c] = (int) cursor;
		cursor = PEP_ALIGN(cursor + capacity);
		batch->value_offsets[c] = (int) cursor;
		cursor = PEP_ALIGN(cursor + (Size) capacity * pep_kind_width(col->kind));

		batch->trees[c] = pep_resolve_tree(col->name, col->typid, col->typmod, col->ndims,
											  types);
		if (pep_tree_count(batch->trees[c]) != col->nnodes ||
			pep_tree_hash(batch->trees[c], 0) != col->tree_hash)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("type of column \"%s\" changed during the export", col->name)));
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
pep_refuse_infinite(const char *column, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("cannot export %s in column \"%s\"", what, column),
			 errdetail("Parquet dates, timestamps and intervals have no infinite values."),
			 errhint("Filter the rows out or replace the value in a query source.")));
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
		case PEP_KIND_UINT32:
			{
				uint32		v = DatumGetObjectId(value);

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
		case PEP_KIND_TIMETZ:
			{
				TimeTzADT  *t = DatumGetTimeTzADTP(value);
				/* zone is seconds west of UTC: local time + zone = UTC */
				int64		v = t->time + (int64) t->zone * USECS_PER_SEC;

				/* into the day; 24:00 stays 24:00 only where it was 24:00 UTC already */
				if (v < 0)
					v += USECS_PER_DAY;
				else if (v > USECS_PER_DAY ||
						 (v == USECS_PER_DAY && t->time != USECS_PER_DAY))
					v -= USECS_PER_DAY;
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
				/* numeric only arrives here when the caller chose DOUBLE for it */
				float8		v = node->basetypid == NUMERICOID ?
					DatumGetFloat8(DirectFunctionCall1(numeric_float8, value)) :
					DatumGetFloat8(value);

				memcpy(dst, &v, sizeof(v));
				break;
			}
		case PEP_KIND_DATE:
			{
				DateADT		d = DatumGetDateADT(value);
				int32		v;

				if (DATE_NOT_FINITE(d))
					pep_refuse_infinite(column, "an infinite date");
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
					pep_refuse_infinite(column, "an infinite timestamp");
				if (pg_add_s64_overflow(ts, PEP_EPOCH_USECS, &v))
					ereport(ERROR,
							(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
							 errmsg("timestamp out of range for Parquet in column \"%s\"", column)));
				memcpy(dst, &v, sizeof(v));
				break;
			}
		case PEP_KIND_INTERVAL:
			{
				Interval   *iv = DatumGetIntervalP(value);

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
			memcpy(dst, DatumGetUUIDP(value)->data, UUID_LEN);
			break;
		case PEP_KIND_DECIMAL64:
			{
				int64		v = pep_numeric_unscaled(value, node->precision, node->scale, column);

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
	int			dbenc;

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
		const PEPNode *node = batch->trees[c];
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
			const char *bytes;
			Size		at;
			int32		pair[2];

			if (node->form == PEP_FORM_NESTED)
			{
				resetStringInfo(&batch->scratch);
				pep_nested_serialize(&batch->scratch, node, value, col->name);
				bytes = batch->scratch.data;
				len = batch->scratch.len;
			}
			else
				bytes = pep_leaf_bytes(node, col->name, value, &len);
			at = batch->var_start + batch->var_used;
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
			pep_put_fixed(node, col->name, value,
						  batch->buf + batch->value_offsets[c] + (Size) r * pep_kind_width(col->kind));
	}
	batch->nrows++;
	return true;
}
