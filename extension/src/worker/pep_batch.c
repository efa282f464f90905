/*-------------------------------------------------------------------------
 *
 * pep_batch.c
 *	  Fill columnar batches from tuples, in the binary form Java expects.
 *
 * Each column of a batch gets a null byte per row and a values area; the
 * values themselves are encoded by pep_values.c (flat columns) and
 * pep_nested.c (arrays and composites, into the var area), except the
 * common fixed kinds whose bytes follow from their Datum alone (the Datum
 * places of pep_value_place: booleans, integers, floats, time, dates,
 * timestamps, uuid), which pep_batch_add_row stores itself, without a call
 * or a branch per value, and the varlenas whose bytes are their own
 * (pep_varlena_bytes, inline).  A date or timestamp to refuse is found by
 * one test per row; that row is then stored again in column order, so that
 * it fails with the error pep_put_fixed gives its first failing column.
 *
 * A row whose variable width values do not fit in the var area is not
 * added: the caller flushes the batch and adds it again, and a row that
 * does not fit an empty batch grows the buffer.
 *
 * IDENTIFICATION
 *	  extension/src/worker/pep_batch.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "pep_batch.h"
#include "pep_nested.h"
#include "pep_numeric.h"
#include "pep_values.h"

/* Initial size of the var area; it grows only for rows larger than this. */
#define PEP_VAR_AREA_INITIAL (8 * 1024 * 1024)

#define PEP_ALIGN(x) TYPEALIGN(8, (x))

StaticAssertDecl(PEP_VAR_SLOT_WIDTH == 2 * sizeof(int32),
				 "a var kind's value is an int32 offset and an int32 length");

/*
 * Put the slots of the Datum places first, grouped by place (stable, so
 * each group keeps column order), and the others after them in column
 * order, which is the order their errors and var-area values come in.  The
 * slots in column order stay for a row with a value to refuse
 * (pep_batch_add_row_in_order).
 */
static void
pep_batch_order_slots(PEPBatch *batch)
{
	PEPBatchSlot *ordered = palloc(sizeof(PEPBatchSlot) * batch->ncolumns);
	int n = 0;

	for (int place = PEP_PLACE_BOOL; place <= PEP_PLACE_UUID; place++)
	{
		for (int c = 0; c < batch->ncolumns; c++)
			if (batch->slots[c].place == place)
				ordered[n++] = batch->slots[c];
		batch->datum_ends[place] = n;
	}
	for (int c = 0; c < batch->ncolumns; c++)
		if (batch->slots[c].place > PEP_PLACE_UUID)
			ordered[n++] = batch->slots[c];
	Assert(n == batch->ncolumns);
	batch->column_slots = batch->slots;
	batch->slots = ordered;
}

PEPBatch *
pep_batch_create(const PEPColumn *columns, int ncolumns, int capacity,
				 const PEPTypeChoices *types)
{
	PEPBatch *batch = palloc0(sizeof(PEPBatch));
	Size cursor = 0;

	batch->columns = columns;
	batch->ncolumns = ncolumns;
	batch->capacity = capacity;
	batch->null_offsets = palloc(sizeof(int) * ncolumns);
	batch->value_offsets = palloc(sizeof(int) * ncolumns);
	batch->slots = palloc(sizeof(PEPBatchSlot) * ncolumns);
	batch->trees = palloc(sizeof(PEPNode *) * ncolumns);
	initStringInfo(&batch->scratch);

	for (int c = 0; c < ncolumns; c++)
	{
		const PEPColumn *col = &columns[c];
		PEPBatchSlot *slot = &batch->slots[c];

		batch->null_offsets[c] = (int) cursor;
		cursor = PEP_ALIGN(cursor + capacity);
		batch->value_offsets[c] = (int) cursor;
		slot->attidx = col->attidx;
		slot->null_offset = batch->null_offsets[c];
		slot->value_offset = batch->value_offsets[c];
		slot->width = pep_kind_width(col->kind);
		slot->column = c;
		cursor = PEP_ALIGN(cursor + (Size) capacity * slot->width);

		batch->trees[c] = pep_resolve_tree(col->name, col->typid, col->typmod, col->ndims,
										   types);
		if (pep_tree_count(batch->trees[c]) != col->nnodes ||
			pep_tree_hash(batch->trees[c], 0) != col->tree_hash)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("type of column \"%s\" changed during the export", col->name)));
		slot->place = pep_value_place(batch->trees[c]);
	}
	pep_batch_order_slots(batch);
	batch->var_start = cursor;
	batch->size = cursor + PEP_VAR_AREA_INITIAL;
	batch->buf = MemoryContextAllocHuge(TopMemoryContext, batch->size);
	return batch;
}

/* Double the var area; the caller re-registers the buffer with Java. */
void
pep_batch_grow(PEPBatch *batch)
{
	Size var_size = batch->size - batch->var_start;

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
static inline bool
pep_batch_put_var(PEPBatch *batch, const PEPBatchSlot *slot, Datum value, char *dst)
{
	const PEPNode *node = batch->trees[slot->column];
	const char *name = batch->columns[slot->column].name;
	Size len;
	const char *bytes;
	Size at;
	int32 pair[2];

	if (slot->place == PEP_PLACE_VARLENA)
		bytes = pep_varlena_bytes(node, name, value, &len);
	else if (node->form == PEP_FORM_NESTED)
	{
		resetStringInfo(&batch->scratch);
		pep_nested_serialize(&batch->scratch, node, value, name);
		bytes = batch->scratch.data;
		len = batch->scratch.len;
	}
	else
		bytes = pep_leaf_bytes(node, name, value, &len);
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

/* Bytes per row of a Datum place; a constant where place is one. */
static inline Size
pep_place_width(PEPPlace place)
{
	switch (place)
	{
		case PEP_PLACE_BOOL:
			return 1;
		case PEP_PLACE_DATUM2:
			return 2;
		case PEP_PLACE_DATUM4:
		case PEP_PLACE_DATE:
			return 4;
		case PEP_PLACE_DATUM8:
		case PEP_PLACE_TIMESTAMP:
			return 8;
		case PEP_PLACE_UUID:
			return UUID_LEN;
		default:
			Assert(false);
			return 0;
	}
}

/* What a NULL uuid's slot is given, as its Datum may point nowhere. */
static const pg_uuid_t pep_null_uuid;

/*
 * Store row r of the columns of one Datum place; true when a non-NULL value
 * among them is one pep_put_fixed refuses.  No branch on NULL: a NULL's null
 * byte is stored the same way, and so is its Datum, whatever it holds (Java
 * reads no value of a NULL), which costs less than the mispredicted branches
 * of NULLs scattered over many columns; only a uuid's Datum, a pointer, is
 * swapped for one that points somewhere.  Called with a constant place, so
 * pep_put_datum is a store or two.
 */
static inline bool
pep_batch_put_datums(PEPBatch *batch, PEPPlace place, int r, const Datum *values,
					 const bool *isnull)
{
	Size width = pep_place_width(place);
	bool refused = false;
	/* in locals: a store through char * could change batch's fields */
	char *buf = batch->buf;
	const PEPBatchSlot *slot = &batch->slots[place == PEP_PLACE_BOOL ? 0 : batch->datum_ends[place - 1]];
	const PEPBatchSlot *end = &batch->slots[batch->datum_ends[place]];

	for (; slot < end; slot++)
	{
		bool null = isnull[slot->attidx];
		Datum value = values[slot->attidx];

		Assert(slot->place == place && slot->width == width);
		buf[slot->null_offset + r] = null ? 1 : 0;
		/* an int8, float8 or timestamp Datum points to its value on 32-bit builds */
		if ((place == PEP_PLACE_DATUM8 || place == PEP_PLACE_TIMESTAMP) &&
			!FLOAT8PASSBYVAL && null)
			continue;
		if (place == PEP_PLACE_UUID)
			value = null ? UUIDPGetDatum(&pep_null_uuid) : value;
		refused |= pep_put_datum(place, value, buf + slot->value_offset + r * width) & !null;
	}
	return refused;
}

/*
 * Store row r's value of a column that is not of a Datum place, or one of a
 * Datum place through pep_put_fixed, which raises its error; false when a
 * variable width value does not fit.  Always inline: out of line, it is a
 * call per value in pep_batch_add_row's loop.  A DECIMAL64 is decoded here,
 * not through pep_put_fixed: one call per value less.
 */
static pg_attribute_always_inline bool
pep_batch_put_value(PEPBatch *batch, const PEPBatchSlot *slot, int r, const Datum *values,
					const bool *isnull)
{
	char *dst = batch->buf + slot->value_offset + (Size) r * slot->width;
	Datum value = values[slot->attidx];

	if (isnull[slot->attidx])
	{
		batch->buf[slot->null_offset + r] = 1;
		return true;
	}
	batch->buf[slot->null_offset + r] = 0;
	if (slot->place == PEP_PLACE_DECIMAL64)
	{
		const PEPNode *node = batch->trees[slot->column];
		int64 v = pep_numeric_unscaled(value, node->precision, node->scale,
									   batch->columns[slot->column].name);

		memcpy(dst, &v, sizeof(v));
		return true;
	}
	if (slot->place < PEP_PLACE_VAR)
	{
		pep_put_fixed(batch->trees[slot->column], batch->columns[slot->column].name,
					  value, dst);
		return true;
	}
	return pep_batch_put_var(batch, slot, value, dst);
}

/*
 * The rest of a row that holds a date or timestamp to refuse: every column
 * that can fail, in column order, as pep_batch_add_row stored them before
 * the Datum places went first.  So the row raises the error of its first
 * failing column, and a var-area value before it that does not fit still
 * comes first (the row is added to an empty batch again, and fails there).
 * The places BOOL to DATUM8, which refuse nothing, are stored already.
 */
static pg_noinline bool
pep_batch_add_row_in_order(PEPBatch *batch, Datum *values, bool *isnull)
{
	Size var_mark = batch->var_used;

	for (int c = 0; c < batch->ncolumns; c++)
	{
		const PEPBatchSlot *slot = &batch->column_slots[c];

		if (slot->place <= PEP_PLACE_DATUM8)
			continue;
		if (!pep_batch_put_value(batch, slot, batch->nrows, values, isnull))
		{
			batch->var_used = var_mark;
			return false;
		}
	}
	batch->nrows++;
	return true;
}

bool
pep_batch_add_row(PEPBatch *batch, Datum *values, bool *isnull)
{
	int r = batch->nrows;
	Size var_mark = batch->var_used;
	bool refused = false;

	Assert(r < batch->capacity);
	pep_batch_put_datums(batch, PEP_PLACE_BOOL, r, values, isnull);
	pep_batch_put_datums(batch, PEP_PLACE_DATUM2, r, values, isnull);
	pep_batch_put_datums(batch, PEP_PLACE_DATUM4, r, values, isnull);
	pep_batch_put_datums(batch, PEP_PLACE_DATUM8, r, values, isnull);
	refused |= pep_batch_put_datums(batch, PEP_PLACE_DATE, r, values, isnull);
	refused |= pep_batch_put_datums(batch, PEP_PLACE_TIMESTAMP, r, values, isnull);
	refused |= pep_batch_put_datums(batch, PEP_PLACE_UUID, r, values, isnull);
	if (unlikely(refused))
		return pep_batch_add_row_in_order(batch, values, isnull);
	for (int i = batch->datum_ends[PEP_PLACE_UUID]; i < batch->ncolumns; i++)
	{
		if (!pep_batch_put_value(batch, &batch->slots[i], r, values, isnull))
		{
			batch->var_used = var_mark;
			return false;
		}
	}
	batch->nrows++;
	return true;
}
