/*-------------------------------------------------------------------------
 *
 * pep_batch.c
 *	  Fill columnar batches from tuples, in the binary form Java expects.
 *
 * Each column of a batch gets a null byte per row and a values area; the
 * values themselves are encoded by pep_values.c (flat columns) and
 * pep_nested.c (arrays and composites, into the var area), except the
 * common fixed kinds that are their Datum's bytes (pep_value_place), which
 * pep_batch_add_row stores itself, without a call per value.
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

#include "utils/memutils.h"

#include "pep_batch.h"
#include "pep_nested.h"
#include "pep_values.h"

/* Initial size of the var area; it grows only for rows larger than this. */
#define PEP_VAR_AREA_INITIAL	(8 * 1024 * 1024)

#define PEP_ALIGN(x)		TYPEALIGN(8, (x))

StaticAssertDecl(PEP_VAR_SLOT_WIDTH == 2 * sizeof(int32),
				 "a var kind's value is an int32 offset and an int32 length");

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
	batch->value_widths = palloc(sizeof(int) * ncolumns);
	batch->places = palloc(sizeof(uint8) * ncolumns);
	batch->trees = palloc(sizeof(PEPNode *) * ncolumns);
	initStringInfo(&batch->scratch);

	for (int c = 0; c < ncolumns; c++)
	{
		const PEPColumn *col = &columns[c];

		batch->null_offsets[c] = (int) cursor;
		cursor = PEP_ALIGN(cursor + capacity);
		batch->value_offsets[c] = (int) cursor;
		/* looked up once here, not for every value in pep_batch_add_row */
		batch->value_widths[c] = pep_kind_width(col->kind);
		cursor = PEP_ALIGN(cursor + (Size) capacity * batch->value_widths[c]);

		batch->trees[c] = pep_resolve_tree(col->name, col->typid, col->typmod, col->ndims,
											  types);
		if (pep_tree_count(batch->trees[c]) != col->nnodes ||
			pep_tree_hash(batch->trees[c], 0) != col->tree_hash)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("type of column \"%s\" changed during the export", col->name)));
		batch->places[c] = (uint8) pep_value_place(batch->trees[c]);
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

/*
 * Copy a variable width value into the var area and point dst at it; false
 * when it does not fit.
 */
static bool
pep_batch_put_var(PEPBatch *batch, const PEPColumn *col, const PEPNode *node, Datum value,
				  char *dst)
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
		return false;
	memcpy(batch->buf + at, bytes, len);
	pair[0] = (int32) at;
	pair[1] = (int32) len;
	memcpy(dst, pair, sizeof(pair));
	batch->var_used += len;
	return true;
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
		char	   *dst = batch->buf + batch->value_offsets[c] + (Size) r * batch->value_widths[c];
		Datum		value = values[col->attidx];

		if (isnull[col->attidx])
		{
			*nullp = 1;
			continue;
		}
		*nullp = 0;

		switch ((PEPPlace) batch->places[c])
		{
			case PEP_PLACE_BOOL:
			case PEP_PLACE_DATUM2:
			case PEP_PLACE_DATUM4:
			case PEP_PLACE_DATUM8:
				/* inlined: the common fixed kinds cost no call per value */
				pep_put_datum((PEPPlace) batch->places[c], value, dst);
				break;
			case PEP_PLACE_ENCODE:
				pep_put_fixed(node, col->name, value, dst);
				break;
			case PEP_PLACE_VAR:
				if (!pep_batch_put_var(batch, col, node, value, dst))
				{
					batch->var_used = var_mark;
					return false;
				}
				break;
		}
	}
	batch->nrows++;
	return true;
}
