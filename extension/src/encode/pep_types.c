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
 * A column's type is a tree (PEPNode): arrays are LISTs of their element,
 * composites STRUCTs of their attributes, to any depth.  PostgreSQL does not
 * fix an array's dimensions in its type, so the declared ones (attndims of
 * the table column or row type attribute) decide how deep the LISTs nest; a
 * value of other dimensions is refused when it is met (pep_nested.c).
 *
 * numeric without a usable typmod (unconstrained, or more than 38 digits)
 * has no exact Parquet type of its own: by default it is its exact text, or
 * what the caller chose with unconstrained_numeric (PEPTypeChoices).  The leader builds
 * it to decide the column and records its size and hash in PEPColumn; each
 * worker builds it again from the catalogs (it needs the element storage,
 * row types and output functions locally anyway) and refuses to go on if
 * the hash differs, which only concurrent DDL on a row type could cause.
 *
 * compatibility => 'spark' gives the types Apache Spark cannot read in
 * their faithful encoding (uuid as FIXED_LEN_BYTE_ARRAY(16) UUID, time and
 * timetz as TIME) the text of their output function instead, wherever they
 * occur: as columns, array elements or composite fields.  The reader matrix
 * (regress/matrix) shows which readers need it and proves the result.
 *
 * IDENTIFICATION
 *	  extension/src/encode/pep_types.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "pep_types.h"

/* Parquet DECIMAL holds at most 38 digits in a 16-byte FIXED_LEN_BYTE_ARRAY. */
#define PEP_DECIMAL_MAX_PRECISION 38
/* Unscaled values of up to 18 digits fit an int64, and cross as one. */
#define PEP_DECIMAL64_MAX_PRECISION 18

/*
 * A DECIMAL of the given precision: up to 18 digits the C side decodes the
 * numeric into its unscaled int64 (no text on the hot path); wider ones
 * cross as numeric_out's exact text (pep_numtext.c), which Java scales.
 */
static void
pep_set_decimal(PEPNode *node, int precision, int scale)
{
	node->precision = precision;
	node->scale = scale;
	if (precision <= PEP_DECIMAL64_MAX_PRECISION)
	{
		node->kind = PEP_KIND_DECIMAL64;
		node->form = PEP_FORM_FIXED;
	}
	else
	{
		node->kind = PEP_KIND_DECIMAL;
		node->form = PEP_FORM_NUMERIC;
	}
}

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
	int p;
	int s;

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

/* numeric without a DECIMAL of its own, as the caller chose. */
static void
pep_numeric_fallback(PEPNode *node, const PEPTypeChoices *types)
{
	switch (types->numeric_as)
	{
		case PEP_NUMERIC_DOUBLE:
			/* numeric_float8 rounds to nearest; NaN and infinities carry over */
			node->kind = PEP_KIND_FLOAT64;
			node->form = PEP_FORM_FIXED;
			break;
		case PEP_NUMERIC_DECIMAL:
			/* values that would need rounding or more digits are errors */
			pep_set_decimal(node, types->numeric_precision, types->numeric_scale);
			break;
		default:
			node->kind = PEP_KIND_STRING;
			node->form = PEP_FORM_NUMERIC;
			break;
	}
}

/* The types a reader profile turns into their text, as the file header says. */
static bool
pep_compat_as_text(Oid basetypid, const PEPTypeChoices *types)
{
	if (types->compatibility != PEP_COMPAT_SPARK)
		return false;
	return basetypid == UUIDOID || basetypid == TIMEOID || basetypid == TIMETZOID;
}

/*
 * A domain over an array records the dimensions it was declared with
 * (typndims), like a column does (attndims); a column of the domain type
 * itself declares none.
 */
static int
pep_domain_ndims(Oid typid)
{
	HeapTuple tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	int ndims;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for type %u", typid);
	ndims = ((Form_pg_type) GETSTRUCT(tup))->typndims;
	ReleaseSysCache(tup);
	return ndims;
}

/* The LIST nodes of an array of ndims dimensions, from the outermost down. */
static PEPNode *
pep_resolve_list(PEPNode *node, Oid elemtype, int32 typmod, int ndims,
				 const PEPTypeChoices *types)
{
	node->kind = PEP_KIND_LIST;
	node->form = PEP_FORM_NESTED;
	node->ndims = ndims;
	node->nchildren = 1;
	node->children = palloc(sizeof(PEPNode *));
	if (ndims > 1)
	{
		PEPNode *inner = palloc0(sizeof(PEPNode));

		/* a sub-array is not a datum: only its storage facts are the array's */
		inner->name = pstrdup("element");
		inner->typid = node->typid;
		inner->typmod = node->typmod;
		inner->basetypid = node->basetypid;
		inner->typlen = node->typlen;
		inner->typbyval = node->typbyval;
		inner->typalign = node->typalign;
		node->children[0] = pep_resolve_list(inner, elemtype, typmod, ndims - 1, types);
	}
	else
		node->children[0] = pep_resolve_tree("element", elemtype, typmod, 0, types);
	return node;
}

/*
 * Build the type tree of a value of type typid/typmod, named name, declared
 * with ndims array dimensions (0 when not an array or not known: one).
 * Arrays become LISTs of their element (the column's typmod is the
 * element's), composites a STRUCT of their live attributes, domains their
 * base type.  Every process that needs the tree builds it the same way from
 * the catalogs; nothing of it crosses shared memory but its size and hash.
 */
PEPNode *
pep_resolve_tree(const char *name, Oid typid, int32 typmod, int ndims,
				 const PEPTypeChoices *types)
{
	PEPNode *node = palloc0(sizeof(PEPNode));
	int32 basetypmod = typmod;
	Oid basetypid = getBaseTypeAndTypmod(typid, &basetypmod);
	Oid elemtype;
	char typtype;

	/* composites nest composites and arrays without a bound */
	check_stack_depth();

	node->name = pstrdup(name);
	node->typid = typid;
	node->typmod = typmod;
	node->basetypid = basetypid;
	node->form = PEP_FORM_FIXED;
	get_typlenbyvalalign(typid, &node->typlen, &node->typbyval, &node->typalign);

	switch (basetypid)
	{
		case BOOLOID:
			node->kind = PEP_KIND_BOOL;
			break;
		case INT2OID:
			node->kind = PEP_KIND_INT16;
			break;
		case INT4OID:
			node->kind = PEP_KIND_INT32;
			break;
		case INT8OID:
			node->kind = PEP_KIND_INT64;
			break;
		case OIDOID:
			node->kind = PEP_KIND_UINT32;
			break;
		case FLOAT4OID:
			node->kind = PEP_KIND_FLOAT32;
			break;
		case FLOAT8OID:
			node->kind = PEP_KIND_FLOAT64;
			break;
		case DATEOID:
			node->kind = PEP_KIND_DATE;
			break;
		case TIMEOID:
			node->kind = PEP_KIND_TIME;
			break;
		case TIMETZOID:
			node->kind = PEP_KIND_TIMETZ;
			break;
		case TIMESTAMPOID:
			node->kind = PEP_KIND_TIMESTAMP;
			break;
		case TIMESTAMPTZOID:
			node->kind = PEP_KIND_TIMESTAMPTZ;
			break;
		case INTERVALOID:
			node->kind = PEP_KIND_INTERVAL;
			break;
		case UUIDOID:
			node->kind = PEP_KIND_UUID;
			break;
		case NUMERICOID:
		{
			int precision;
			int scale;

			if (pep_numeric_decimal(basetypmod, &precision, &scale))
				pep_set_decimal(node, precision, scale);
			else
				pep_numeric_fallback(node, types);
			break;
		}
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			node->kind = PEP_KIND_STRING;
			node->form = PEP_FORM_VARLENA;
			break;
		case NAMEOID:
			node->kind = PEP_KIND_STRING;
			node->form = PEP_FORM_NAME;
			break;
		case BYTEAOID:
			node->kind = PEP_KIND_BYTES;
			node->form = PEP_FORM_VARLENA;
			break;
		case JSONOID:
			node->kind = PEP_KIND_JSON;
			node->form = PEP_FORM_VARLENA;
			break;
		case JSONBOID:
			node->kind = PEP_KIND_JSON;
			node->form = PEP_FORM_JSONB;
			break;
		default:
			elemtype = get_element_type(basetypid);
			typtype = get_typtype(basetypid);
			if (OidIsValid(elemtype))
			{
				/* int2vector and oidvector count from 0 by definition */
				node->any_lbound = (basetypid == INT2VECTOROID || basetypid == OIDVECTOROID);
				if (ndims <= 0 && typid != basetypid)
					ndims = pep_domain_ndims(typid);
				pep_resolve_list(node, elemtype, basetypmod, Max(ndims, 1), types);
			}
			else if (typtype == TYPTYPE_COMPOSITE)
			{
				TupleDesc desc = lookup_rowtype_tupdesc_copy(basetypid, basetypmod);

				node->kind = PEP_KIND_STRUCT;
				node->form = PEP_FORM_NESTED;
				node->tupdesc = desc;
				node->children = palloc(sizeof(PEPNode *) * Max(desc->natts, 1));
				node->attnums = palloc(sizeof(int) * Max(desc->natts, 1));
				for (int i = 0; i < desc->natts; i++)
				{
					Form_pg_attribute att = TupleDescAttr(desc, i);

					if (att->attisdropped)
						continue;
					node->attnums[node->nchildren] = i;
					node->children[node->nchildren++] =
						pep_resolve_tree(NameStr(att->attname), att->atttypid, att->atttypmod,
										 att->attndims, types);
				}
				if (node->nchildren == 0)
				{
					/* Parquet has no empty group: a row of no columns is its text, "()" */
					node->kind = PEP_KIND_STRING;
					node->form = PEP_FORM_OUTPUT;
				}
			}
			else if (typtype == TYPTYPE_ENUM)
			{
				node->kind = PEP_KIND_ENUM;
				node->form = PEP_FORM_OUTPUT;
			}
			else
			{
				/* ranges, record, network, geometric, money, bit, xml, ...: exact text */
				node->kind = PEP_KIND_STRING;
				node->form = PEP_FORM_OUTPUT;
			}
			break;
	}

	/* uuid, time and timetz are flat: nothing of their faithful kind remains */
	if (pep_compat_as_text(basetypid, types))
	{
		node->kind = PEP_KIND_STRING;
		node->form = PEP_FORM_OUTPUT;
	}

	if (node->form == PEP_FORM_OUTPUT)
	{
		Oid outfunc;
		bool isvarlena;

		getTypeOutputInfo(typid, &outfunc, &isvarlena);
		fmgr_info(outfunc, &node->outfn);
	}
	return node;
}

/* Nodes in the tree, the root included. */
int
pep_tree_count(const PEPNode *node)
{
	int n = 1;

	for (int i = 0; i < node->nchildren; i++)
		n += pep_tree_count(node->children[i]);
	return n;
}

/* A hash of what Java is told about the tree, in pre-order. */
uint32
pep_tree_hash(const PEPNode *node, uint32 hash)
{
	uint32 facts[5] = { node->kind, node->precision, node->scale, node->nchildren, node->ndims };

	hash = hash_combine(hash, hash_bytes((const unsigned char *) facts, sizeof(facts)));
	hash = hash_combine(hash, hash_bytes((const unsigned char *) node->name, strlen(node->name)));
	for (int i = 0; i < node->nchildren; i++)
		hash = pep_tree_hash(node->children[i], hash);
	return hash;
}

void
pep_resolve_column(PEPColumn *col, int attidx, const char *name, Oid typid, int32 typmod,
				   int ndims, const PEPTypeChoices *types)
{
	PEPNode *root = pep_resolve_tree(name, typid, typmod, ndims, types);

	memset(col, 0, sizeof(PEPColumn));
	col->attidx = attidx;
	strlcpy(col->name, name, NAMEDATALEN);
	strlcpy(col->pgtype, format_type_with_typemod(typid, typmod), sizeof(col->pgtype));
	col->typid = typid;
	col->typmod = typmod;
	col->ndims = ndims;
	col->basetypid = root->basetypid;
	col->kind = root->kind;
	col->form = root->form;
	col->precision = root->precision;
	col->scale = root->scale;
	col->nnodes = pep_tree_count(root);
	col->tree_hash = pep_tree_hash(root, 0);
}

/* Bytes per row in the values area of a fixed-width kind; var kinds keep an (offset, length) pair. */
int
pep_kind_width(int kind)
{
	switch (kind)
	{
		case PEP_KIND_BOOL:
			return PEP_KIND_WIDTH(BOOL);
		case PEP_KIND_INT16:
			return PEP_KIND_WIDTH(INT16);
		case PEP_KIND_INT32:
			return PEP_KIND_WIDTH(INT32);
		case PEP_KIND_UINT32:
			return PEP_KIND_WIDTH(UINT32);
		case PEP_KIND_FLOAT32:
			return PEP_KIND_WIDTH(FLOAT32);
		case PEP_KIND_DATE:
			return PEP_KIND_WIDTH(DATE);
		case PEP_KIND_INT64:
			return PEP_KIND_WIDTH(INT64);
		case PEP_KIND_FLOAT64:
			return PEP_KIND_WIDTH(FLOAT64);
		case PEP_KIND_TIME:
			return PEP_KIND_WIDTH(TIME);
		case PEP_KIND_TIMETZ:
			return PEP_KIND_WIDTH(TIMETZ);
		case PEP_KIND_TIMESTAMP:
			return PEP_KIND_WIDTH(TIMESTAMP);
		case PEP_KIND_TIMESTAMPTZ:
			return PEP_KIND_WIDTH(TIMESTAMPTZ);
		case PEP_KIND_DECIMAL64:
			return PEP_KIND_WIDTH(DECIMAL64);
		case PEP_KIND_UUID:
			return PEP_KIND_WIDTH(UUID);
		case PEP_KIND_INTERVAL:
			return PEP_KIND_WIDTH(INTERVAL);
		case PEP_KIND_DECIMAL:
		case PEP_KIND_STRING:
		case PEP_KIND_JSON:
		case PEP_KIND_BYTES:
		case PEP_KIND_ENUM:
		case PEP_KIND_LIST:
		case PEP_KIND_STRUCT:
			return PEP_VAR_SLOT_WIDTH;
	}
	elog(ERROR, "unsupported kind: %d", kind);
	return 0; /* keep compiler quiet */
}

bool
pep_kind_is_var(int kind)
{
	return kind == PEP_KIND_DECIMAL || kind == PEP_KIND_STRING ||
		   kind == PEP_KIND_JSON || kind == PEP_KIND_BYTES ||
		   kind == PEP_KIND_ENUM || kind == PEP_KIND_LIST || kind == PEP_KIND_STRUCT;
}
