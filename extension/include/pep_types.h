/*-------------------------------------------------------------------------
 *
 * pep_types.h
 *	  Value kinds, column specs and type trees: how a PostgreSQL type maps
 *	  to what the Java writer knows.
 *
 * The leader resolves each column into a PEPColumn (it travels to the
 * workers in the DSM, see pep_shared.h); every process that fills or checks
 * batches builds the column's PEPNode tree locally from the catalogs.
 *
 * IDENTIFICATION
 *	  extension/include/pep_types.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_TYPES_H
#define PEP_TYPES_H

#include "access/tupdesc.h"
#include "fmgr.h"

#include "pep_contract.h"

/*
 * Value kinds crossing into Java.  The codes are ColumnKind's (see
 * pep_contract.h); a kind Java does not define does not compile here.
 */
typedef enum PEPKind
{
	PEP_KIND_BOOL = PEP_JAVA_KIND(BOOL),
	PEP_KIND_INT16 = PEP_JAVA_KIND(INT16),
	PEP_KIND_INT32 = PEP_JAVA_KIND(INT32),
	PEP_KIND_INT64 = PEP_JAVA_KIND(INT64),
	PEP_KIND_FLOAT32 = PEP_JAVA_KIND(FLOAT32),
	PEP_KIND_FLOAT64 = PEP_JAVA_KIND(FLOAT64),
	PEP_KIND_DECIMAL = PEP_JAVA_KIND(DECIMAL),
	PEP_KIND_STRING = PEP_JAVA_KIND(STRING),
	PEP_KIND_JSON = PEP_JAVA_KIND(JSON),
	PEP_KIND_BYTES = PEP_JAVA_KIND(BYTES),
	PEP_KIND_DATE = PEP_JAVA_KIND(DATE),
	PEP_KIND_TIME = PEP_JAVA_KIND(TIME),
	PEP_KIND_TIMESTAMP = PEP_JAVA_KIND(TIMESTAMP),
	PEP_KIND_TIMESTAMPTZ = PEP_JAVA_KIND(TIMESTAMPTZ),
	PEP_KIND_UUID = PEP_JAVA_KIND(UUID),
	PEP_KIND_LIST = PEP_JAVA_KIND(LIST),		  /* array: a LIST of one element node */
	PEP_KIND_STRUCT = PEP_JAVA_KIND(STRUCT),	  /* composite: a group of field nodes */
	PEP_KIND_INTERVAL = PEP_JAVA_KIND(INTERVAL),  /* int32 months, int32 days, int64 microseconds */
	PEP_KIND_ENUM = PEP_JAVA_KIND(ENUM),		  /* the label's text */
	PEP_KIND_TIMETZ = PEP_JAVA_KIND(TIMETZ),	  /* int64 microseconds of the day in UTC */
	PEP_KIND_UINT32 = PEP_JAVA_KIND(UINT32),	  /* oid */
	PEP_KIND_DECIMAL64 = PEP_JAVA_KIND(DECIMAL64) /* numeric as the int64 value * 10^scale, precision <= 18 */
} PEPKind;

/* Where a column's bytes come from, decided once in the leader. */
typedef enum PEPSourceForm
{
	PEP_FORM_FIXED,	  /* a pass-by-value or fixed-size binary */
	PEP_FORM_VARLENA, /* text-like varlena whose bytes are the value */
	PEP_FORM_NAME,	  /* a NameData */
	PEP_FORM_OUTPUT,  /* the type's output function */
	PEP_FORM_JSONB,	  /* jsonb, as its output function writes it (pep_jsonb.c) */
	PEP_FORM_NUMERIC, /* numeric, as its output function writes it (pep_numtext.c) */
	PEP_FORM_NESTED	  /* an array or composite, serialized by pep_nested.c */
} PEPSourceForm;

/*
 * Mappings the caller chooses for types that have no exact Parquet
 * counterpart (the unconstrained_numeric option) or that a reader cannot
 * read (the compatibility option).  Every process that builds
 * a type tree uses the same choices: the leader's, copied to PEPShared.
 */
typedef enum PEPNumericAs
{
	PEP_NUMERIC_TEXT,	/* exact decimal text, STRING (the default) */
	PEP_NUMERIC_DOUBLE, /* nearest DOUBLE */
	PEP_NUMERIC_DECIMAL /* DECIMAL(precision, scale), or an error */
} PEPNumericAs;

/*
 * The compatibility option: a reader profile that gives every type the
 * reader cannot read in its faithful encoding one it can (pep_types.c).
 */
typedef enum PEPCompatibility
{
	PEP_COMPAT_NONE, /* faithful encodings (the default) */
	PEP_COMPAT_SPARK /* uuid, time and timetz as their text */
} PEPCompatibility;

typedef struct PEPTypeChoices
{
	int numeric_as;		   /* PEPNumericAs, for numeric without a usable typmod */
	int numeric_precision; /* PEP_NUMERIC_DECIMAL's precision */
	int numeric_scale;	   /* and scale */
	int compatibility;	   /* PEPCompatibility */
} PEPTypeChoices;

/* One exported column, as the leader resolved it. */
typedef struct PEPColumn
{
	char name[NAMEDATALEN];		  /* column name as PostgreSQL shows it */
	char pgtype[2 * NAMEDATALEN]; /* format_type() of the column */
	int attidx;					  /* index of the value in the deformed tuple */
	Oid typid;					  /* type of the value in the tuple */
	int32 typmod;				  /* its typmod */
	int ndims;					  /* declared array dimensions (attndims), 0 if unknown */
	Oid basetypid;				  /* typid with domains resolved */
	int kind;					  /* PEPKind */
	int form;					  /* PEPSourceForm */
	int precision;				  /* DECIMAL precision, else 0 */
	int scale;					  /* DECIMAL scale, else 0 */
	bool mostly_distinct;		  /* statistics say most values differ */
	int nnodes;					  /* nodes of the column's type tree (1 if flat) */
	uint32 tree_hash;			  /* hash of that tree, checked by each worker */
} PEPColumn;

/*
 * One node of a column's type tree, built by pep_resolve_tree in the
 * process that uses it (the leader to decide the column, each worker to
 * fill batches; PEPColumn.tree_hash proves they agree).  A flat column is
 * one node.  A LIST has one child, its element; a STRUCT one child per live
 * attribute; an INTERVAL has none (its three fields are fixed).  An array
 * declared with N dimensions is a chain of N LIST nodes, one per dimension,
 * all describing the same PostgreSQL array.
 */
typedef struct PEPNode
{
	char *name;	   /* field name; "element" for a list element */
	Oid typid;	   /* type of the value */
	int32 typmod;  /* its typmod */
	Oid basetypid; /* typid with domains resolved */
	int kind;	   /* PEPKind */
	int form;	   /* PEPSourceForm */
	int precision; /* DECIMAL precision, else 0 */
	int scale;	   /* DECIMAL scale, else 0 */
	int16 typlen;  /* storage of the value, for array elements */
	bool typbyval;
	char typalign;
	bool any_lbound;		   /* LIST: a lower bound other than 1 is intrinsic (int2vector) */
	int ndims;				   /* LIST: array dimensions from this node down (1: elements) */
	FmgrInfo outfn;			   /* output function when form is PEP_FORM_OUTPUT */
	TupleDesc tupdesc;		   /* STRUCT: the row type, attributes dropped included */
	int nchildren;			   /* entries in children */
	struct PEPNode **children; /* element or fields, in order */
	int *attnums;			   /* STRUCT: tupdesc index of each child */
} PEPNode;

extern void pep_resolve_column(PEPColumn *col, int attidx, const char *name,
							   Oid typid, int32 typmod, int ndims,
							   const PEPTypeChoices *types);
extern PEPNode *pep_resolve_tree(const char *name, Oid typid, int32 typmod, int ndims,
								 const PEPTypeChoices *types);
extern int pep_tree_count(const PEPNode *node);
extern uint32 pep_tree_hash(const PEPNode *node, uint32 hash);
extern int pep_kind_width(int kind);
extern bool pep_kind_is_var(int kind);

#endif /* PEP_TYPES_H */
