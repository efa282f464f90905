/*-------------------------------------------------------------------------
 *
 * pep_shared.h
 *	  The dynamic shared memory contract of an export.
 *
 * The export has three parties.  The caller's backend (the leader) checks
 * the call, guards the target directory, resolves the source into column
 * specs, launches parallel workers and, for query sources, runs the
 * executor and streams tuples to them.  Each worker boots a JVM, turns
 * tuples into columnar batches and hands them to the Java writer.  The
 * dynamic shared memory segment described here ties them together: fixed
 * facts about the export, the column specs (PEPColumn, pep_types.h), a
 * ledger of every file the export creates (PEPLedger, pep_ledger.h), and
 * what the workers report back.  Leader and workers are built from the
 * same library, so every struct here is read with the layout it was
 * written with.
 *
 * IDENTIFICATION
 *	  extension/include/pep_shared.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_SHARED_H
#define PEP_SHARED_H

#include "storage/condition_variable.h"
#include "storage/spin.h"

#include "pep_jvm.h"
#include "pep_types.h"

/*
 * DSM keys of the extension's parallel contexts, all of them: one
 * registry, so no two chunks can share a key.  A target's own chunks
 * (pep_target.h) are under the target's keys.
 */
#define PARALLEL_KEY_PEP_SHARED	 UINT64CONST(0xA000000000000001)
#define PARALLEL_KEY_PEP_COLUMNS UINT64CONST(0xA000000000000002)
#define PARALLEL_KEY_PEP_SCANS	 UINT64CONST(0xA000000000000003)
#define PARALLEL_KEY_PEP_QUEUES	 UINT64CONST(0xA000000000000004)
#define PARALLEL_KEY_PEP_LEDGER	 UINT64CONST(0xA000000000000005)
/* an object-store target's PEPS3Shared (pep_s3export.h) */
#define PARALLEL_KEY_PEP_S3 UINT64CONST(0xA000000000000006)
/* a directory target's PEPDirShared (pep_dirtarget.c) */
#define PARALLEL_KEY_PEP_DIRECTORY UINT64CONST(0xA000000000000007)
/* an object-store target's leaves met by all workers (pep_route.c) */
#define PARALLEL_KEY_PEP_LEAF_SET UINT64CONST(0xA00000000000000E)
/* the sweep function's context (pep_s3sweep.c) */
#define PARALLEL_KEY_PEP_SWEEP UINT64CONST(0xA000000000000010)

/* Which output target an export writes to (pep_target.h). */
typedef enum PEPTargetKind
{
	PEP_TARGET_DIRECTORY,	/* a server directory, pep_dirtarget.c */
	PEP_TARGET_OBJECT_STORE /* s3://bucket/prefix, pep_s3methods.c */
} PEPTargetKind;

/* The most leaf relations a partitioned source may have. */
#define PEP_MAX_LEAVES 8192
/* Levels of partition folders at most. */
#define PEP_MAX_PARTITION_LEVELS 32
/* Bytes of each leader-to-worker tuple queue for streamed sources. */
#define PEP_QUEUE_SIZE (2 * 1024 * 1024)

/* Worker outcome, reported in PEPWorkerSlot.state. */
#define PEP_WORKER_STARTING 0
#define PEP_WORKER_READY	1
#define PEP_WORKER_DONE		2

/* What one worker reports back. */
typedef struct PEPWorkerSlot
{
	int state;		   /* PEP_WORKER_* */
	int pid;		   /* process id, for tests and progress */
	uint64 rows;	   /* rows written */
	uint64 bytes;	   /* bytes of closed parts */
	uint64 bytes_open; /* bytes the open part holds so far */
	int parts;		   /* parts closed */
} PEPWorkerSlot;

/* Status shared by the leader and its workers. */
typedef struct PEPShared
{
	/* Fixed at setup. */
	int leader_pid;									 /* the leader's process id, for the progress view */
	Oid userid;										 /* the role whose privileges the export uses */
	int ncolumns;									 /* entries in the column array */
	int nleaves;									 /* heap relations scanned; 0 for streamed sources */
	Oid relid;										 /* the source relation for heap scans */
	Oid leaves[PEP_MAX_LEAVES];						 /* relations whose heaps are scanned */
	Size scan_offsets[PEP_MAX_LEAVES];				 /* their ParallelTableScanDesc in the scan area */
	int batch_rows;									 /* rows per batch handed to Java */
	PEPTargetKind target_kind;						 /* which implementation the workers use */
	char target[MAXPGPATH];							 /* what the export publishes to, for people */
	char source[1024];								 /* the source as messages name it */
	PEPJvmConfig jvm;								 /* how a worker starts its JVM, checked by the leader */
	char writer_options[8192];						 /* key=value lines for BatchSink */
	int64 file_size_bytes;							 /* a worker starts a new part past this; 0: never */
	PEPTypeChoices types;							 /* the caller's type mappings */
	int npartition;									 /* partition_by levels; 0: not partitioned */
	int partition_columns[PEP_MAX_PARTITION_LEVELS]; /* their column indexes */
	bool write_partition_columns;					 /* partition columns stored in the files too */
	int max_partitions;								 /* leaf folders allowed */
	int partition_writers;							 /* open parts per worker at most */

	ConditionVariable cv; /* signalled when the fields below change */

	slock_t mutex;								  /* protects following fields */
	int nlaunched;								  /* workers launched, -1 until known */
	int nready;									  /* workers whose JVM is up */
	int nfinished;								  /* workers done with their input */
	int nscanned;								  /* workers that scan no more of the table */
	bool input_done;							  /* leader sent all tuples of a streamed source */
	uint64 rows_total;							  /* rows written by all workers */
	int partitions;								  /* leaf folders created so far */
	bool fault_struck;							  /* a fault for any worker has struck (pep_fault.c) */
	PEPWorkerSlot workers[FLEXIBLE_ARRAY_MEMBER]; /* one per worker */
} PEPShared;

#endif /* PEP_SHARED_H */
