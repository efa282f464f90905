/*-------------------------------------------------------------------------
 *
 * pep.h
 *	  Shared declarations of parallel_export_parquet.
 *
 * The export has three parties.  The caller's backend (the leader) checks
 * the call, guards the target directory, resolves the source into column
 * specs, launches parallel workers and, for query sources, runs the
 * executor and streams tuples to them.  Each worker boots a JVM, turns
 * tuples into columnar batches and hands them to the Java writer.  The
 * dynamic shared memory segment described here ties them together: fixed
 * facts about the export, a ledger of every file the export creates, and
 * what the workers report back.
 *
 * IDENTIFICATION
 *	  extension/pep.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_H
#define PEP_H

#include "access/parallel.h"
#include "access/relscan.h"
#include "access/tupdesc.h"
#include "fmgr.h"
#include "storage/condition_variable.h"
#include "storage/shm_mq.h"
#include "storage/spin.h"
#include "utils/guc.h"
#include "utils/relcache.h"

#define PEP_EXTENSION_NAME		"parallel_export_parquet"
#define PEP_VERSION				"1.1"

/* DSM keys of the export's parallel context */
#define PARALLEL_KEY_PEP_SHARED		UINT64CONST(0xA000000000000001)
#define PARALLEL_KEY_PEP_COLUMNS	UINT64CONST(0xA000000000000002)
#define PARALLEL_KEY_PEP_SCANS		UINT64CONST(0xA000000000000003)
#define PARALLEL_KEY_PEP_QUEUES		UINT64CONST(0xA000000000000004)
#define PARALLEL_KEY_PEP_LEDGER		UINT64CONST(0xA000000000000005)

/* The most leaf relations a partitioned source may have. */
#define PEP_MAX_LEAVES			8192
/* Room in the ledger of an unpartitioned export: every part plus _SUCCESS. */
#define PEP_LEDGER_CAPACITY		8192
/* Bytes of name area per file entry ("part-NNNNN.parquet" and its NUL). */
#define PEP_LEDGER_NAME_LEN		32
/* Bytes of name area per partition folder, on average over the export. */
#define PEP_LEDGER_FOLDER_NAME_LEN	64
/* Levels of partition folders at most. */
#define PEP_MAX_PARTITION_LEVELS	32
/* Bytes of each leader-to-worker tuple queue for streamed sources. */
#define PEP_QUEUE_SIZE			(2 * 1024 * 1024)

/*
 * Value kinds crossing into Java.  The codes are part of the contract with
 * org.parallelexport.parquet.BatchSink and must not be renumbered.
 */
typedef enum PEPKind
{
	PEP_KIND_BOOL = 0,
	PEP_KIND_INT16 = 1,
	PEP_KIND_INT32 = 2,
	PEP_KIND_INT64 = 3,
	PEP_KIND_FLOAT32 = 4,
	PEP_KIND_FLOAT64 = 5,
	PEP_KIND_DECIMAL = 6,
	PEP_KIND_STRING = 7,
	PEP_KIND_JSON = 8,
	PEP_KIND_BYTES = 9,
	PEP_KIND_DATE = 10,
	PEP_KIND_TIME = 11,
	PEP_KIND_TIMESTAMP = 12,
	PEP_KIND_TIMESTAMPTZ = 13,
	PEP_KIND_UUID = 14,
	PEP_KIND_LIST = 15,			/* array: a LIST of one element node */
	PEP_KIND_STRUCT = 16,		/* composite: a group of field nodes */
	PEP_KIND_INTERVAL = 17,		/* int32 months, int32 days, int64 microseconds */
	PEP_KIND_ENUM = 18,			/* the label's text */
	PEP_KIND_TIMETZ = 19,		/* int64 microseconds of the day in UTC */
	PEP_KIND_UINT32 = 20,		/* oid */
	PEP_KIND_DECIMAL64 = 21		/* numeric as the int64 value * 10^scale, precision <= 18 */
} PEPKind;

/* Where a column's bytes come from, decided once in the leader. */
typedef enum PEPSourceForm
{
	PEP_FORM_FIXED,				/* a pass-by-value or fixed-size binary */
	PEP_FORM_VARLENA,			/* text-like varlena whose bytes are the value */
	PEP_FORM_NAME,				/* a NameData */
	PEP_FORM_OUTPUT,			/* the type's output function */
	PEP_FORM_NESTED				/* an array or composite, serialized by pep_nested.c */
} PEPSourceForm;

/*
 * Mappings the caller chooses for types that have no exact Parquet
 * counterpart (the unconstrained_numeric option).  Every process that builds
 * a type tree uses the same choices: the leader's, copied to PEPShared.
 */
typedef enum PEPNumericAs
{
	PEP_NUMERIC_TEXT,			/* exact decimal text, STRING (the default) */
	PEP_NUMERIC_DOUBLE,			/* nearest DOUBLE */
	PEP_NUMERIC_DECIMAL			/* DECIMAL(precision, scale), or an error */
} PEPNumericAs;

typedef struct PEPTypeChoices
{
	int			numeric_as;		/* PEPNumericAs, for numeric without a usable typmod */
	int			numeric_precision;	/* PEP_NUMERIC_DECIMAL's precision */
	int			numeric_scale;	/* and scale */
} PEPTypeChoices;

/* One exported column, as the leader resolved it. */
typedef struct PEPColumn
{
	char		name[NAMEDATALEN];	/* column name as PostgreSQL shows it */
	char		pgtype[2 * NAMEDATALEN];	/* format_type() of the column */
	int			attidx;			/* index of the value in the deformed tuple */
	Oid			typid;			/* type of the value in the tuple */
	int32		typmod;			/* its typmod */
	int			ndims;			/* declared array dimensions (attndims), 0 if unknown */
	Oid			basetypid;		/* typid with domains resolved */
	int			kind;			/* PEPKind */
	int			form;			/* PEPSourceForm */
	int			precision;		/* DECIMAL precision, else 0 */
	int			scale;			/* DECIMAL scale, else 0 */
	bool		mostly_distinct;	/* statistics say most values differ */
	int			nnodes;			/* nodes of the column's type tree (1 if flat) */
	uint32		tree_hash;		/* hash of that tree, checked by each worker */
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
	char	   *name;			/* field name; "element" for a list element */
	Oid			typid;			/* type of the value */
	int32		typmod;			/* its typmod */
	Oid			basetypid;		/* typid with domains resolved */
	int			kind;			/* PEPKind */
	int			form;			/* PEPSourceForm */
	int			precision;		/* DECIMAL precision, else 0 */
	int			scale;			/* DECIMAL scale, else 0 */
	int16		typlen;			/* storage of the value, for array elements */
	bool		typbyval;
	char		typalign;
	bool		any_lbound;		/* LIST: a lower bound other than 1 is intrinsic (int2vector) */
	int			ndims;			/* LIST: array dimensions from this node down (1: elements) */
	FmgrInfo	outfn;			/* output function when form is PEP_FORM_OUTPUT */
	TupleDesc	tupdesc;		/* STRUCT: the row type, attributes dropped included */
	int			nchildren;		/* entries in children */
	struct PEPNode **children;	/* element or fields, in order */
	int		   *attnums;		/* STRUCT: tupdesc index of each child */
} PEPNode;

/* Worker outcome, reported in PEPWorkerSlot.state. */
#define PEP_WORKER_STARTING		0
#define PEP_WORKER_READY		1
#define PEP_WORKER_DONE			2

/* What one worker reports back. */
typedef struct PEPWorkerSlot
{
	int			state;			/* PEP_WORKER_* */
	int			pid;			/* process id, for tests and progress */
	uint64		rows;			/* rows written */
	uint64		bytes;			/* bytes of closed parts */
	uint64		bytes_open;		/* bytes the open part holds so far */
	int			parts;			/* parts closed */
} PEPWorkerSlot;

/*
 * The ledger: every file and partition folder an export creates inside its
 * staging directory is entered here before it is created, and marked
 * created once it exists.  Cleanup removes exactly these names and nothing
 * else, so it stays safe whatever else the directory holds; it warns only
 * about entries marked created, so a warning never names a file that never
 * existed.  An entry names one path segment inside its parent, a folder
 * entered earlier or the staging directory itself; the names live in an
 * area after the entries, so the ledger is sized per export
 * (pep_ledger_size).
 */
typedef struct PEPLedgerEntry
{
	int32		parent;			/* entry of the folder holding it; -1: the staging directory */
	uint32		name_off;		/* offset of its name in the name area */
	bool		dir;			/* a partition folder, not a file */
	bool		created;		/* this export created it */
} PEPLedgerEntry;

typedef struct PEPLedger
{
	int			capacity;		/* entries there is room for */
	Size		name_capacity;	/* bytes of the name area */
	slock_t		mutex;			/* protects following fields */
	int			nentries;		/* entries used */
	Size		name_used;		/* bytes of the name area used */
	PEPLedgerEntry entries[FLEXIBLE_ARRAY_MEMBER];	/* then the name area */
} PEPLedger;

/* Status shared by the leader and its workers. */
typedef struct PEPShared
{
	/* Fixed at setup. */
	int			leader_pid;		/* the leader's process id, for the progress view */
	int			ncolumns;		/* entries in the column array */
	int			nleaves;		/* heap relations scanned; 0 for streamed sources */
	Oid			relid;			/* the source relation for heap scans */
	Oid			leaves[PEP_MAX_LEAVES];	/* relations whose heaps are scanned */
	Size		scan_offsets[PEP_MAX_LEAVES];	/* their ParallelTableScanDesc in the scan area */
	int			batch_rows;		/* rows per batch handed to Java */
	char		staging[MAXPGPATH];	/* staging directory the parts go to */
	uint64		staging_dev;	/* its st_dev, as the leader created it */
	uint64		staging_ino;	/* and its st_ino: workers write only there */
	char		target[MAXPGPATH];	/* directory the export publishes to */
	char		source[1024];	/* the source as messages name it */
	char		jar_path[MAXPGPATH];	/* jar of the Java writer */
	char		jvm_options[2048];	/* JVM options, the AppCDS archive's included */
	char		writer_options[8192];	/* key=value lines for BatchSink */
	int64		file_size_bytes;	/* a worker starts a new part past this; 0: never */
	PEPTypeChoices types;		/* the caller's type mappings */
	int			npartition;		/* partition_by levels; 0: not partitioned */
	int			partition_columns[PEP_MAX_PARTITION_LEVELS];	/* their column indexes */
	bool		write_partition_columns;	/* partition columns stored in the files too */
	int			max_partitions;	/* leaf folders allowed */
	int			partition_writers;	/* open parts per worker at most */

	ConditionVariable cv;		/* signalled when the fields below change */

	slock_t		mutex;			/* protects following fields */
	int			nlaunched;		/* workers launched, -1 until known */
	int			nready;			/* workers whose JVM is up */
	int			nfinished;		/* workers done with their input */
	bool		input_done;		/* leader sent all tuples of a streamed source */
	uint64		rows_total;		/* rows written by all workers */
	int			partitions;		/* leaf folders created so far */
	PEPWorkerSlot workers[FLEXIBLE_ARRAY_MEMBER];	/* one per worker */
} PEPShared;

/* pep_types.c */
extern void pep_resolve_column(PEPColumn *col, int attidx, const char *name,
							   Oid typid, int32 typmod, int ndims,
							   const PEPTypeChoices *types);
extern PEPNode *pep_resolve_tree(const char *name, Oid typid, int32 typmod, int ndims,
								 const PEPTypeChoices *types);
extern int	pep_tree_count(const PEPNode *node);
extern uint32 pep_tree_hash(const PEPNode *node, uint32 hash);
extern int	pep_kind_width(int kind);
extern bool pep_kind_is_var(int kind);

/* pep_guc.c */
extern char *pep_libjvm_path;
extern char *pep_jvm_options;
extern char *pep_fault_injection;
extern bool pep_log_exports;
extern int	pep_max_partitions;
extern int	pep_partition_writers;
extern int	pep_partition_memory;
extern void pep_define_gucs(void);

/* pep_jvmopts.c */
extern bool pep_check_jvm_options(char **newval, void **extra, GucSource source);

/* pep_entry.c */
extern void _PG_init(void);

/* pep_worker.c */
extern PGDLLEXPORT void pep_worker_main(dsm_segment *seg, shm_toc *toc);

#endif							/* PEP_H */
