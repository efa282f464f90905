/*-------------------------------------------------------------------------
 *
 * pep_s3methods.c
 *	  The output target for s3://bucket/prefix: both tables of pep_target.h.
 *
 * The protocol is DESIGN.md's "Object storage: never a partial export";
 * its leader's phases are pep_s3export.c, its workers' requests
 * pep_s3worker.c, its crash record pep_s3ledger.c.  This file only puts
 * them behind the interface, in the order the protocol needs:
 *
 *	- guard resolves the target and locks its ledger file (a transient file,
 *	  so an error before the cleanup exists closes it); begin writes this
 *	  export's record, unless the file holds a dead export's record, which
 *	  worker 0 sweeps first and launched then waits for;
 *	- the target's chunks in the DSM hold the settings, secret included, and
 *	  for a partitioned export the set of leaves met, since an object store
 *	  has no folders whose mkdirat would count each once;
 *	- the workers stay after writing: publish completes their uploads and
 *	  writes _SUCCESS; commit records the commit in the ledger file before
 *	  the workers hear of it, so a failure there still undoes everything;
 *	- cleanup finds the workers gone, each having undone its own objects.
 *
 * IDENTIFICATION
 *	  extension/src/output/s3/pep_s3methods.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"

#include "pep_guc.h"
#include "pep_s3export.h"
#include "pep_s3ledger.h"
#include "pep_target.h"

/* The leader's side. */
typedef struct PEPS3Export
{
	PEPTarget target;	  /* the interface; display is s3target.url */
	PEPS3Target s3target; /* the resolved target */
	bool overwrite;		  /* a previous export of ours may be replaced */
	PEPS3Ledger ledger;	  /* its ledger file, locked (fd -1 if not) */
	bool ledger_begun;	  /* the file holds this export's record */
	PEPS3Shared *s3;	  /* its shared state in the DSM, once made */
} PEPS3Export;

/* A worker's side. */
typedef struct PEPS3WorkerTarget
{
	PEPWorkerTarget target; /* the interface */
	PEPShared *shared;		/* the export's shared state */
	PEPS3Shared *s3;		/* the target's, in the DSM */
	PEPLeafSet *leaf_set;	/* the leaves met by all workers, or NULL */
	PEPS3Worker *sw;		/* the session, once the JVM is up */
} PEPS3WorkerTarget;

static PEPTarget *
pep_s3_guard(const char *directory, const PEPOptions *opts)
{
	PEPS3Export *se = palloc0(sizeof(PEPS3Export));

	se->target.methods = &pep_s3_target_methods;
	pep_s3_target_resolve(&se->s3target, directory, opts->s3_server);
	se->overwrite = opts->overwrite;
	/* A transient file: an error before the cleanup is registered closes it. */
	(void) pep_s3ledger_open(&se->ledger, &se->s3target, true);
	se->target.display = se->s3target.url;
	return &se->target;
}

static void
pep_s3_begin(PEPTarget *target)
{
	PEPS3Export *se = (PEPS3Export *) target;

	if (!se->ledger.dead)
	{
		pep_s3ledger_begin(&se->ledger, &se->s3target);
		se->ledger_begun = true;
	}
}

static void
pep_s3_estimate_shm(PEPTarget *target, ParallelContext *pcxt, int ledger_capacity,
					int npartition)
{
	PEPS3Export *se = (PEPS3Export *) target;

	shm_toc_estimate_chunk(&pcxt->estimator, pep_s3_shared_size(&se->s3target));
	shm_toc_estimate_keys(&pcxt->estimator, 1);
	if (npartition > 0)
	{
		shm_toc_estimate_chunk(&pcxt->estimator, pep_leaf_set_size(pep_max_partitions));
		shm_toc_estimate_keys(&pcxt->estimator, 1);
	}
}

static void
pep_s3_initialize_shm(PEPTarget *target, ParallelContext *pcxt, PEPShared *shared,
					  int ledger_capacity, int npartition)
{
	PEPS3Export *se = (PEPS3Export *) target;

	/* The settings, secret included, go into the DSM and nowhere else. */
	se->s3 = pep_s3_shared_init(shm_toc_allocate(pcxt->toc, pep_s3_shared_size(&se->s3target)),
								&se->s3target, se->overwrite,
								pep_s3ledger_path(&se->ledger), se->ledger.dead);
	shm_toc_insert(pcxt->toc, PARALLEL_KEY_PEP_S3, se->s3);
	/* An object store has no folders whose mkdirat counts its leaves once: this set does. */
	if (npartition > 0)
		shm_toc_insert(pcxt->toc, PARALLEL_KEY_PEP_LEAF_SET,
					   pep_leaf_set_init(shm_toc_allocate(pcxt->toc,
														  pep_leaf_set_size(pep_max_partitions)),
										 pep_max_partitions));
}

/* A dead record: worker 0 sweeps it before this export's record begins. */
static void
pep_s3_launched(PEPTarget *target, PEPShared *shared, ParallelContext *pcxt)
{
	PEPS3Export *se = (PEPS3Export *) target;

	if (!se->ledger.dead)
		return;
	pep_s3_wait_swept(shared, se->s3, pcxt);
	pep_s3ledger_begin(&se->ledger, &se->s3target);
	se->ledger_begun = true;
	pep_s3_ledger_ready(shared, se->s3);
}

static void
pep_s3_publish_target(PEPTarget *target, PEPShared *shared, ParallelContext *pcxt,
					  const PEPFault *fault)
{
	pep_s3_publish(shared, ((PEPS3Export *) target)->s3, pcxt, fault);
}

static void
pep_s3_commit_target(PEPTarget *target, PEPShared *shared, ParallelContext *pcxt)
{
	PEPS3Export *se = (PEPS3Export *) target;

	/* Recorded before the workers hear of it: a failure here still undoes all. */
	pep_s3ledger_append(&se->ledger, PEP_S3LEDGER_COMMITTED);
	if (pep_s3_commit(shared, se->s3, pcxt))
	{
		pep_s3ledger_remove(&se->ledger);
		return;
	}
	/* Its "previous" manifest names the replaced parts for the sweep. */
	pep_s3ledger_release(&se->ledger);
	ereport(WARNING,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("parts of the export replaced in \"%s\" may be left", se->s3target.url),
			 errdetail("The export is complete.  Its record stays in \"%s\".",
					   pep_s3ledger_path(&se->ledger)),
			 errhint("The next export into the same target removes them, or call parallel_export_parquet_sweep('%s').",
					 se->s3target.url)));
}

/*
 * The ledger file after a failed object-store export, its workers gone
 * (each undid its own objects as it exited): removed when every worker
 * undid all it made, else kept (the lock released) for the next export or
 * the sweep function, with a WARNING.  A dead record not swept yet is
 * simply kept.
 */
static void
pep_s3_cleanup(PEPTarget *target, PEPShared *shared, PEPLedger *ledger)
{
	PEPS3Export *se = (PEPS3Export *) target;

	if (se->ledger_begun && (se->s3 == NULL || pep_s3_all_undone(shared, se->s3)))
	{
		pep_s3ledger_remove(&se->ledger);
		return;
	}
	pep_s3ledger_release(&se->ledger);
	if (se->ledger_begun)
		ereport(WARNING,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("objects or uploads of the failed export into \"%s\" may be left", se->s3target.url),
				 errdetail("Its record stays in \"%s\".", pep_s3ledger_path(&se->ledger)),
				 errhint("The next export into the same target removes them, or call parallel_export_parquet_sweep('%s').",
						 se->s3target.url)));
}

static PEPWorkerTarget *
pep_s3_worker_open(PEPShared *shared, shm_toc *toc)
{
	PEPS3WorkerTarget *st = palloc0(sizeof(PEPS3WorkerTarget));

	st->target.methods = &pep_s3_worker_methods;
	st->shared = shared;
	st->s3 = shm_toc_lookup(toc, PARALLEL_KEY_PEP_S3, false);
	st->leaf_set = shm_toc_lookup(toc, PARALLEL_KEY_PEP_LEAF_SET, true);
	return &st->target;
}

/* First after the JVM: its client and worker 0's checks get going while the sink is set up. */
static void
pep_s3_worker_start(PEPWorkerTarget *wt, const PEPFault *fault)
{
	PEPS3WorkerTarget *st = (PEPS3WorkerTarget *) wt;

	st->sw = pep_s3w_open(st->shared, st->s3);
	if (pep_fault_is(fault, PEP_S3_FAULT(S3_SUCCESS_LOST), ParallelWorkerNumber) ||
		pep_fault_is(fault, PEP_S3_FAULT(S3_SUCCESS_DENIED), ParallelWorkerNumber) ||
		pep_fault_is(fault, PEP_S3_FAULT(S3_CONDITIONS_501), ParallelWorkerNumber) ||
		pep_fault_is(fault, PEP_S3_FAULT(S3_DELETE_DENIED), ParallelWorkerNumber) ||
		pep_fault_is(fault, PEP_S3_FAULT(S3_SMALL_UPLOADS), ParallelWorkerNumber))
		pep_s3w_inject_fault(st->sw, fault->point);
}

static void
pep_s3_worker_attach(PEPWorkerTarget *wt, struct PEPSink *sink)
{
	pep_s3w_attach(((PEPS3WorkerTarget *) wt)->sw, sink);
}

static void
pep_s3_worker_check(PEPWorkerTarget *wt)
{
	PEPS3WorkerTarget *st = (PEPS3WorkerTarget *) wt;

	if (st->s3->sweep)
		pep_s3w_sweep(st->sw);
	pep_s3w_check_target(st->sw);
}

/* No row is read before the leader began this export's ledger record. */
static bool
pep_s3_worker_ready(PEPWorkerTarget *wt)
{
	return ((PEPS3WorkerTarget *) wt)->s3->ledger_ready;
}

/* No folder to make: a leaf counts once, when the first worker meets it. */
static bool
pep_s3_enter_folder(PEPWorkerTarget *wt, PEPLedger *ledger, const char *path,
					const char *name, int parent_entry, int entry, bool leaf)
{
	PEPS3WorkerTarget *st = (PEPS3WorkerTarget *) wt;
	bool first;

	if (!leaf)
		return false;
	SpinLockAcquire(&st->shared->mutex);
	first = pep_leaf_set_add(st->leaf_set, path);
	SpinLockRelease(&st->shared->mutex);
	return first;
}

/* An upload under the prefix; its name carries the export id. */
static void
pep_s3_name_part(PEPWorkerTarget *wt, PEPLedger *ledger, int entry, int folder,
				 const char *folder_path, char **path, char **display)
{
	pep_s3w_name_part(((PEPS3WorkerTarget *) wt)->sw, ledger, entry, path, display);
}

static void
pep_s3_part_closed(PEPWorkerTarget *wt)
{
	pep_s3w_part_closed(((PEPS3WorkerTarget *) wt)->sw);
}

static void
pep_s3_batch_written(PEPWorkerTarget *wt, PEPFault *fault, int64 batches, PEPShared *shared)
{
	if (pep_fault_strikes_at(fault, PEP_S3_FAULT(S3_ERROR), batches, shared))
		pep_s3w_inject_fault(((PEPS3WorkerTarget *) wt)->sw, fault->point);
}

static void
pep_s3_worker_publish(PEPWorkerTarget *wt, PEPLedger *ledger, const PEPFault *fault)
{
	pep_s3w_publish(((PEPS3WorkerTarget *) wt)->sw, ledger, fault);
}

const PEPTargetMethods pep_s3_target_methods = {
	.kind = PEP_TARGET_OBJECT_STORE,
	.workers_stay = true,
	.guard = pep_s3_guard,
	.begin = pep_s3_begin,
	.estimate_shm = pep_s3_estimate_shm,
	.initialize_shm = pep_s3_initialize_shm,
	.launched = pep_s3_launched,
	.publish = pep_s3_publish_target,
	.commit = pep_s3_commit_target,
	.cleanup = pep_s3_cleanup,
};

const PEPWorkerTargetMethods pep_s3_worker_methods = {
	.parts_hold_memory = true,
	.open = pep_s3_worker_open,
	.start = pep_s3_worker_start,
	.attach = pep_s3_worker_attach,
	.check = pep_s3_worker_check,
	.ready = pep_s3_worker_ready,
	.enter_folder = pep_s3_enter_folder,
	.name_part = pep_s3_name_part,
	.part_closed = pep_s3_part_closed,
	.batch_written = pep_s3_batch_written,
	.publish = pep_s3_worker_publish,
};
