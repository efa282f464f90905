/*-------------------------------------------------------------------------
 *
 * pep_nested.c
 *	  Serialize arrays and composites into the batch's var area for Java.
 *
 * A column whose type tree (PEPNode, see pep_types.c) has a LIST or STRUCT
 * root is a variable width column: its (offset, length) pair points at the
 * value's payload, in this compact native-endian form, which Java's
 * ListValueWriter and StructValueWriter decode (their header comments
 * repeat it):
 *
 *	 LIST payload    int32 count, count null bytes (1 = NULL element), then
 *	                 each non-NULL element in its node's nested form
 *	 STRUCT payload  per field, in order: a null byte, then the field's
 *	                 nested form unless it is NULL
 *
 *	 nested form of a fixed width kind: its bytes as in a batch's value area
 *	                 (pep_kind_width bytes: INTERVAL 16, UUID 16, ...)
 *	 nested form of any other kind: int32 length, then that many bytes (the
 *	                 UTF-8 text, the bytes, or a LIST or STRUCT payload)
 *
 * An array declared with N dimensions is N nested LISTs: each sub-array a
 * LIST payload of the dimension below, the innermost holding the elements
 * (row-major, as PostgreSQL stores them).  A value must have the declared
 * dimensions and start every dimension at subscript 1 (int2vector and
 * oidvector, which start at 0 by definition, excepted): Parquet lists have
 * no subscripts, so anything else is refused with an error naming the
 * column rather than exported with its shape lost.  An empty array is an
 * empty list.
 *
 * IDENTIFICATION
 *	  extension/src/encode/pep_nested.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/arrayaccess.h"

#include "pep_nested.h"
#include "pep_values.h"

static void pep_nested_value(StringInfo out, const PEPNode *node, Datum value,
							 const char *column);

/* Error for an array whose shape the column's LISTs cannot hold. */
static void
pep_refuse_shape(const char *column, int ndim, int depth)
{
	ereport(ERROR,
			(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
			 errmsg("cannot export a %d-dimensional array in column \"%s\"", ndim, column),
			 errdetail("The column's declared dimensions make it a list nested %d deep.", depth),
			 errhint("Declare the column with the dimensions its arrays have (integer[][] for two), or export a query that reshapes the arrays.")));
}

/*
 * Where the elements of the array being serialized are read from, in
 * row-major order: the array's own storage, walked once, rather than
 * deconstruct_array's palloc'd copies of every element.
 */
typedef struct PEPArrayWalk
{
	array_iter iter;
	const PEPNode *elem; /* the element node */
	bits8 *nullbitmap;	 /* 1 = not NULL; NULL when no element is */
	int pos;			 /* the next element's index */
	/* with raw, the stored bytes of the non-NULL elements are their nested form */
	bool raw;
	const char *data; /* with raw: the next non-NULL element's bytes */
} PEPArrayWalk;

/*
 * Whether elements of node are stored as their nested form: the fixed width
 * kinds pep_put_fixed writes as the Datum's own bytes, of a pass-by-value
 * type as wide.  Such elements lie back to back in an array, NULLs taking
 * no space, so a run of them is copied whole.
 */
static bool
pep_nested_raw(const PEPNode *elem)
{
	PEPPlace place;

	if (pep_kind_is_var(elem->kind) || !elem->typbyval ||
		elem->typlen != pep_kind_width(elem->kind))
		return false;
	place = pep_value_place(elem);
	return place == PEP_PLACE_BOOL || place == PEP_PLACE_DATUM2 ||
		   place == PEP_PLACE_DATUM4 || place == PEP_PLACE_DATUM8;
}

/* The LIST payload of the next count elements: the innermost dimension. */
static void
pep_nested_elements(StringInfo out, PEPArrayWalk *walk, int32 count, const char *column)
{
	const PEPNode *elem = walk->elem;
	char *nulls;
	int present = count;

	enlargeStringInfo(out, sizeof(count) + count);
	memcpy(out->data + out->len, &count, sizeof(count));
	out->len += sizeof(count);
	nulls = out->data + out->len;
	if (walk->nullbitmap == NULL)
		memset(nulls, 0, count);
	else
	{
		for (int i = 0; i < count; i++)
		{
			int k = walk->pos + i;

			nulls[i] = (walk->nullbitmap[k / 8] & (1 << (k % 8))) ? 0 : 1;
			present -= nulls[i];
		}
	}
	out->len += count;

	if (walk->raw)
	{
		int bytes = present * elem->typlen;

		enlargeStringInfo(out, bytes);
		memcpy(out->data + out->len, walk->data, bytes);
		out->len += bytes;
		walk->data += bytes;
		walk->pos += count;
		return;
	}
	for (int i = 0; i < count; i++, walk->pos++)
	{
		bool isnull;
		Datum value = array_iter_next(&walk->iter, &isnull, walk->pos,
									  elem->typlen, elem->typbyval, elem->typalign);

		if (!isnull)
			pep_nested_value(out, elem, value, column);
	}
}

/*
 * The LIST payload of dimension dim of the array walk reads.  Only the
 * innermost dimension has NULL elements; sub-arrays are never NULL.
 */
static void
pep_nested_dims(StringInfo out, const PEPNode *node, const int *dims, int dim,
				PEPArrayWalk *walk, const char *column)
{
	int32 count = dims[dim];

	if (node->ndims == 1)
	{
		pep_nested_elements(out, walk, count, column);
		return;
	}
	appendBinaryStringInfo(out, (char *) &count, sizeof(count));
	for (int i = 0; i < count; i++)
		appendStringInfoCharMacro(out, 0);
	for (int i = 0; i < count; i++)
	{
		int at = out->len;
		int32 len32 = 0;

		appendBinaryStringInfo(out, (char *) &len32, sizeof(len32));
		pep_nested_dims(out, node->children[0], dims, dim + 1, walk, column);
		len32 = out->len - at - (int) sizeof(len32);
		memcpy(out->data + at, &len32, sizeof(len32));
	}
}

static void
pep_nested_list(StringInfo out, const PEPNode *node, Datum value, const char *column)
{
	ArrayType *arr = DatumGetArrayTypeP(value);
	const PEPNode *elem = node;
	int ndim = ARR_NDIM(arr);
	PEPArrayWalk walk;

	if (ndim == 0)
	{
		int32 count = 0;

		/* an empty array has no dimensions: an empty list at any depth */
		appendBinaryStringInfo(out, (char *) &count, sizeof(count));
		return;
	}
	if (ndim != node->ndims)
		pep_refuse_shape(column, ndim, node->ndims);
	for (int d = 0; d < ndim; d++)
	{
		if (ARR_LBOUND(arr)[d] != 1 && !node->any_lbound)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("cannot export an array with lower bound %d in column \"%s\"",
							ARR_LBOUND(arr)[d], column),
					 errdetail("Parquet lists have no subscripts: the elements alone would lose their positions."),
					 errhint("Export a query that renumbers the array from 1, for example with array(SELECT unnest(col)).")));
	}

	while (elem->ndims > 1)
		elem = elem->children[0];
	walk.elem = elem->children[0];
	walk.nullbitmap = ARR_NULLBITMAP(arr);
	walk.pos = 0;
	walk.raw = pep_nested_raw(walk.elem);
	walk.data = ARR_DATA_PTR(arr);
	array_iter_setup(&walk.iter, (AnyArrayType *) arr);
	pep_nested_dims(out, node, ARR_DIMS(arr), 0, &walk, column);
}

static void
pep_nested_struct(StringInfo out, const PEPNode *node, Datum value, const char *column)
{
	HeapTupleHeader td = DatumGetHeapTupleHeader(value);
	TupleDesc desc = node->tupdesc;
	HeapTupleData tuple;
	Datum *values = palloc(sizeof(Datum) * desc->natts);
	bool *isnull = palloc(sizeof(bool) * desc->natts);

	tuple.t_len = HeapTupleHeaderGetDatumLength(td);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = td;
	/* a value stored before ADD ATTRIBUTE has fewer attributes: they read as NULL */
	heap_deform_tuple(&tuple, desc, values, isnull);

	for (int i = 0; i < node->nchildren; i++)
	{
		int a = node->attnums[i];

		appendStringInfoCharMacro(out, isnull[a] ? 1 : 0);
		if (!isnull[a])
			pep_nested_value(out, node->children[i], values[a], column);
	}
	pfree(values);
	pfree(isnull);
}

/* The nested form of one non-NULL value of node. */
static void
pep_nested_value(StringInfo out, const PEPNode *node, Datum value, const char *column)
{
	int32 len32;

	if (!pep_kind_is_var(node->kind))
	{
		int width = pep_kind_width(node->kind);

		enlargeStringInfo(out, width);
		pep_put_fixed(node, column, value, out->data + out->len);
		out->len += width;
		return;
	}
	if (node->form == PEP_FORM_NESTED)
	{
		int at = out->len;

		len32 = 0;
		appendBinaryStringInfo(out, (char *) &len32, sizeof(len32));
		pep_nested_serialize(out, node, value, column);
		len32 = out->len - at - (int) sizeof(len32);
		memcpy(out->data + at, &len32, sizeof(len32));
	}
	else
	{
		Size len;
		const char *bytes = pep_leaf_bytes(node, column, value, &len);

		len32 = (int32) len;
		enlargeStringInfo(out, sizeof(len32) + len32);
		memcpy(out->data + out->len, &len32, sizeof(len32));
		memcpy(out->data + out->len + sizeof(len32), bytes, len);
		out->len += sizeof(len32) + len32;
	}
}

/* Append the payload of a LIST or STRUCT value to out. */
void
pep_nested_serialize(StringInfo out, const PEPNode *node, Datum value, const char *column)
{
	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	if (node->kind == PEP_KIND_LIST)
		pep_nested_list(out, node, value, column);
	else if (node->kind == PEP_KIND_STRUCT)
		pep_nested_struct(out, node, value, column);
	else
		elog(ERROR, "unsupported nested kind: %d", node->kind);
}
