/*-------------------------------------------------------------------------
 *
 * pep_target.h
 *	  The output-target interface: where an export's parts go, and how.
 *
 * An export writes into a target: a local directory (pep_dirtarget.c) or
 * an object store (pep_s3methods.c over the pep_s3*.c files).  The leader
 * and its workers know a target only through the two tables of operations
 * here, chosen once per export (pep_target.c), in the way PostgreSQL's
 * DestReceiver and table access methods are: a struct of function
 * pointers, one instance per implementation.  The Java side's PartFile is
 * the same cut one level down.  A new store is one new set of files that
 * fills both tables and one line in pep_target.c; pep_export.c and
 * pep_worker.c do not change.
 *
 * The protocol both tables serve is DESIGN.md's "Output protocol" and its
 * subsection "The output-target interface": the leader guards the target
 * before its cleanup exists, begins it inside the cleanup, puts the
 * target's own state into the export's DSM under the target's own key,
 * seals, publishes and commits after every worker finished writing, and
 * on failure cleans up with the workers already gone.  A worker opens the
 * target, names each part before the sink creates it, and reports each
 * part it finished.
 *
 * Required: guard, begin, estimate_shm, initialize_shm, commit and cleanup
 * of the leader's table, open, enter_folder and name_part of a worker's.
 * Any other operation left NULL has nothing to do for that target.
 *
 * IDENTIFICATION
 *	  extension/include/pep_target.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_TARGET_H
#define PEP_TARGET_H

#include "access/parallel.h"

#include "pep_fault.h"
#include "pep_ledger.h"
#include "pep_options.h"
#include "pep_route.h"
#include "pep_shared.h"

struct PEPSink;

/* The leader's side of one export's target; implementations extend it. */
typedef struct PEPTarget PEPTarget;

typedef struct PEPTargetMethods
{
	PEPTargetKind kind; /* recorded in PEPShared for the workers */
	/* Workers stay after writing, for publish and commit (else they exit). */
	bool workers_stay;

	/*
	 * Check the target and make the leader's state, before the cleanup is
	 * registered: whatever it rejects is never reached by cleanup.  What it
	 * opens must close by itself on an error (transient files).
	 */
	PEPTarget *(*guard)(const char *target, const PEPOptions *opts);
	/* Inside the cleanup, before launch: take the lock, make staging. */
	void (*begin)(PEPTarget *target);
	/* Size the target's own DSM chunks; ledger_capacity as the ledger's. */
	void (*estimate_shm)(PEPTarget *target, ParallelContext *pcxt,
						 int ledger_capacity, int npartition);
	/* Allocate, fill and insert them under the target's own keys. */
	void (*initialize_shm)(PEPTarget *target, ParallelContext *pcxt,
						   PEPShared *shared, int ledger_capacity, int npartition);
	/* The workers attached and were told how many they are. */
	void (*launched)(PEPTarget *target, PEPShared *shared, ParallelContext *pcxt);
	/* Every worker finished writing: make the export complete, unpublished. */
	void (*seal)(PEPTarget *target, PEPLedger *ledger);
	/* After the publishing pause: the step that can still fail cleanly. */
	void (*publish)(PEPTarget *target, PEPShared *shared, ParallelContext *pcxt,
					const PEPFault *fault);
	/* With interrupts held, past the commit point: make it visible. */
	void (*commit)(PEPTarget *target, PEPShared *shared, ParallelContext *pcxt);
	/*
	 * The export failed and its workers are gone: remove what it made.
	 * shared and ledger are NULL before launch.  Must not throw.
	 */
	void (*cleanup)(PEPTarget *target, PEPShared *shared, PEPLedger *ledger);
} PEPTargetMethods;

struct PEPTarget
{
	const PEPTargetMethods *methods; /* the implementation */
	const char *display;			 /* the target as messages and the summary name it */
};

/* A worker's side; implementations extend it. */
typedef struct PEPWorkerTarget PEPWorkerTarget;

typedef struct PEPWorkerTargetMethods
{
	/*
	 * Open parts hold memory (upload buffers) that counts in
	 * partition_memory and is freed only by finishing a part, so the sink
	 * names parts to finish after each batch.
	 */
	bool parts_hold_memory;

	/* Before the JVM starts: find the target's DSM chunks, open what is local. */
	PEPWorkerTarget *(*open)(PEPShared *shared, shm_toc *toc);
	/* The JVM is up: open its session; fault says which test hook is armed. */
	void (*start)(PEPWorkerTarget *wt, const PEPFault *fault);
	/* The sink exists: hand it what it writes through. */
	void (*attach)(PEPWorkerTarget *wt, struct PEPSink *sink);
	/* Worker 0, before it reports ready: check the target, sweep a dead export. */
	void (*check)(PEPWorkerTarget *wt);
	/* Called with PEPShared.mutex held: may rows be read yet (reads one field)? */
	bool (*ready)(PEPWorkerTarget *wt);
	/*
	 * Partition folder entry, called name, in parent_entry's folder, at path:
	 * make it if the store has folders.  True if this worker is the first
	 * of the export to meet it (a leaf so met counts against max_partitions).
	 */
	bool (*enter_folder)(PEPWorkerTarget *wt, PEPLedger *ledger, const char *path,
						 const char *name, int parent_entry, int entry, bool leaf);
	/*
	 * Where the sink creates part entry (in folder, -1: none, at
	 * folder_path) and how messages name it.
	 */
	void (*name_part)(PEPWorkerTarget *wt, PEPLedger *ledger, int entry, int folder,
					  const char *folder_path, char **path, char **display);
	/* The sink created the part named last. */
	void (*part_opened)(PEPWorkerTarget *wt);
	/* The open part is bytes_open bytes long now. */
	void (*part_grew)(PEPWorkerTarget *wt, PEPLedger *ledger, PEPOpenPart *part,
					  int folder, uint64 bytes_open);
	/* The sink finished the part (the ledger has its rows and bytes). */
	void (*part_closed)(PEPWorkerTarget *wt);
	/* A batch went to the sink; batches so far, for the test hooks. */
	void (*batch_written)(PEPWorkerTarget *wt, PEPFault *fault, int64 batches,
						  PEPShared *shared);
	/*
	 * This worker finished writing last: every part of the export is
	 * finished and in the ledger with its rows and bytes.
	 */
	void (*all_written)(PEPWorkerTarget *wt, PEPLedger *ledger);
	/* This worker is done writing: take part in the target's publication. */
	void (*publish)(PEPWorkerTarget *wt, PEPLedger *ledger, const PEPFault *fault);
} PEPWorkerTargetMethods;

struct PEPWorkerTarget
{
	const PEPWorkerTargetMethods *methods; /* the implementation */
};

/* pep_target.c */
extern const PEPTargetMethods *pep_target_for(const char *target);
extern const PEPWorkerTargetMethods *pep_target_worker_methods(PEPTargetKind kind);

/* The implementations. */
extern const PEPTargetMethods pep_dir_target_methods;
extern const PEPWorkerTargetMethods pep_dir_worker_methods;
extern const PEPTargetMethods pep_s3_target_methods;
extern const PEPWorkerTargetMethods pep_s3_worker_methods;

#endif /* PEP_TARGET_H */
