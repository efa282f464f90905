/*-------------------------------------------------------------------------
 *
 * pep_export.c
 *	  The leader's side of an export: set up, launch, wait, publish, clean up.
 *
 * The leader is the caller's backend; it never loads a JVM.  After the
 * directory guard has accepted the target (and only then), it registers
 * pep_export_cleanup with PG_ENSURE_ERROR_CLEANUP, so that a cancel, an
 * ERROR in the leader or in any worker, statement_timeout, or a FATAL such
 * as pg_terminate_backend all run the same cleanup.  Inside, it takes the
 * staging lock, creates the staging directory, launches the workers through
 * a ParallelContext (the way parallel CREATE INDEX does), streams rows to
 * them for query sources, waits for them, and publishes.
 *
 * The cleanup callback runs while the workers may still be alive (on ERROR
 * before AbortCurrentTransaction, on FATAL before ShutdownPostgres).  It
 * therefore terminates the workers and waits for them to exit before it
 * removes a single file, so no worker can create a file after cleanup.  It
 * then removes exactly the ledger's files, the staging directory and the
 * lock (pep_output_remove), and never throws.  It does not run on PANIC,
 * SIGKILL or crash restart: the flock-owned staging area and the sweep in
 * pep_output.c cover those.
 *
 * IDENTIFICATION
 *	  extension/pep_export.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>

#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "optimizer/cost.h"
#include "optimizer/paths.h"
#include "postmaster/bgworker.h"
#include "postmaster/bgworker_internals.h"
#include "storage/ipc.h"
#include "utils/snapmgr.h"

#include "pep.h"
#include "pep_export.h"
#include "pep_fault.h"
#include "pep_output.h"
#include "pep_stream.h"

/* Rows per batch handed to Java, and the cap on its fixed-width bytes. */
#define PEP_BATCH_ROWS			4096
#define PEP_BATCH_FIXED_BYTES	(16 * 1024 * 1024)

/* Everything the leader keeps for one export; the cleanup callback's argument. */
typedef struct PEPExport
{
	PEPOutput	out;			/* the output protocol's state */
	ParallelContext *pcxt;		/* the workers, once created */
	PEPShared  *shared;			/* shared state in the DSM */
	PEPLedger  *ledger;			/* the ledger in the DSM */
	Snapshot	snapshot;		/* registered snapshot the scans use */
} PEPExport;

/* Terminate every launched worker and wait until each has exited. */
static void
pep_terminate_workers(ParallelContext *pcxt)
{
	for (int i = 0; i < pcxt->nworkers_launched; i++)
		if (pcxt->worker[i].bgwhandle != NULL)
			TerminateBackgroundWorker(pcxt->worker[i].bgwhandle);
	for (int i = 0; i < pcxt->nworkers_launched; i++)
		if (pcxt->worker[i].bgwhandle != NULL)
			(void) WaitForBackgroundWorkerShutdown(pcxt->worker[i].bgwhandle);
}

/*
 * PG_ENSURE_ERROR_CLEANUP callback: code is 0 on ERROR, 1 on FATAL.  Workers
 * first, files second; see the file header.
 */
static void
pep_export_cleanup(int code, Datum arg)
{
	PEPExport  *ex = (PEPExport *) DatumGetPointer(arg);

	HOLD_INTERRUPTS();
	if (ex->pcxt != NULL)
		pep_terminate_workers(ex->pcxt);
	pep_output_remove(&ex->out, ex->ledger);
	if (ex->pcxt != NULL)
	{
		DestroyParallelContext(ex->pcxt);
		ex->pcxt = NULL;
		ex->shared = NULL;
		ex->ledger = NULL;
	}
	RESUME_INTERRUPTS();
}

/* The worker count for workers => NULL, sized like a Parallel Seq Scan. */
static int
pep_auto_workers(PEPSource *src)
{
	int			workers = 1;

	if (src->parallel_workers > 0)
		workers = src->parallel_workers;
	else if (src->query == NULL)
	{
		double		threshold = Max(min_parallel_table_scan_size, 1);

		while ((double) src->pages >= threshold * 3 && workers < MAX_PARALLEL_WORKER_LIMIT)
		{
			workers++;
			threshold *= 3;
		}
	}
	else
		workers = Max(max_parallel_workers_per_gather, 1);
	return Min(workers, Max(max_parallel_workers, 1));
}

/*
 * Find the installed jar, and add the AppCDS archive made for it at install
 * time to the JVM options: it cuts a worker's start-up by most of the class
 * loading.  A stale archive is harmless; the JVM ignores it.
 */
static void
pep_java_setup(PEPShared *shared)
{
	char		share[MAXPGPATH];
	char	   *archive;
	struct stat st;

	get_share_path(my_exec_path, share);
	snprintf(shared->jar_path, MAXPGPATH, "%s/extension/%s.jar", share, PEP_EXTENSION_NAME);
	if (stat(shared->jar_path, &st) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not access the extension's jar \"%s\": %m", shared->jar_path),
				 errhint("Install the extension again with \"make install\".")));

	archive = psprintf("%s/extension/%s.jsa", share, PEP_EXTENSION_NAME);
	if (stat(archive, &st) == 0)
		snprintf(shared->jvm_options, sizeof(shared->jvm_options),
				 "-Xshare:auto -XX:SharedArchiveFile=%s %s", archive, pep_jvm_options);
	else
		strlcpy(shared->jvm_options, pep_jvm_options, sizeof(shared->jvm_options));
}

/* Rows per batch: as many as fit the fixed-width budget, at most PEP_BATCH_ROWS. */
static int
pep_batch_rows(PEPSource *src)
{
	Size		per_row = 0;

	for (int c = 0; c < src->ncolumns; c++)
		per_row += 1 + pep_kind_width(src->columns[c].kind);
	return (int) Max(Min(PEP_BATCH_ROWS, PEP_BATCH_FIXED_BYTES / Max(per_row, 1)), 16);
}

/* Create the parallel context and the DSM contents, then launch. */
static void
pep_export_launch(PEPExport *ex, PEPSource *src, int nworkers, shm_mq_handle ***queues)
{
	ParallelContext *pcxt;
	int			nleaves = list_length(src->leaves);
	Relation   *leaves = palloc0(sizeof(Relation) * Max(nleaves, 1));
	Size		scan_size = 0;
	Size		shared_size = add_size(offsetof(PEPShared, workers),
									   mul_size(sizeof(PEPWorkerSlot), nworkers));
	PEPShared  *shared;
	PEPColumn  *columns;
	char	   *scan_area = NULL;
	char	   *queue_area = NULL;
	ListCell   *lc;
	int			i = 0;

	foreach(lc, src->leaves)
	{
		leaves[i] = table_open(lfirst_oid(lc), NoLock);
		scan_size = add_size(scan_size, MAXALIGN(table_parallelscan_estimate(leaves[i], ex->snapshot)));
		i++;
	}

	EnterParallelMode();
	pcxt = CreateParallelContext(PEP_EXTENSION_NAME, "pep_worker_main", nworkers);
	ex->pcxt = pcxt;

	shm_toc_estimate_chunk(&pcxt->estimator, shared_size);
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(PEPColumn) * src->ncolumns);
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(PEPLedger));
	shm_toc_estimate_keys(&pcxt->estimator, 3);
	if (nleaves > 0)
	{
		shm_toc_estimate_chunk(&pcxt->estimator, scan_size);
		shm_toc_estimate_keys(&pcxt->estimator, 1);
	}
	else
	{
		shm_toc_estimate_chunk(&pcxt->estimator, mul_size(PEP_QUEUE_SIZE, nworkers));
		shm_toc_estimate_keys(&pcxt->estimator, 1);
	}
	InitializeParallelDSM(pcxt);

	shared = shm_toc_allocate(pcxt->toc, shared_size);
	memset(shared, 0, shared_size);
	shared->ncolumns = src->ncolumns;
	shared->nleaves = nleaves;
	shared->relid = src->relid;
	shared->batch_rows = pep_batch_rows(src);
	strlcpy(shared->staging, ex->out.staging, MAXPGPATH);
	pep_java_setup(shared);
	snprintf(shared->writer_options, sizeof(shared->writer_options),
			 "created_by_extension=%s %s\n", PEP_EXTENSION_NAME, PEP_VERSION);
	ConditionVariableInit(&shared->cv);
	SpinLockInit(&shared->mutex);
	shared->nlaunched = -1;
	shm_toc_insert(pcxt->toc, PARALLEL_KEY_PEP_SHARED, shared);
	ex->shared = shared;

	columns = shm_toc_allocate(pcxt->toc, sizeof(PEPColumn) * src->ncolumns);
	memcpy(columns, src->columns, sizeof(PEPColumn) * src->ncolumns);
	shm_toc_insert(pcxt->toc, PARALLEL_KEY_PEP_COLUMNS, columns);

	ex->ledger = shm_toc_allocate(pcxt->toc, sizeof(PEPLedger));
	SpinLockInit(&ex->ledger->mutex);
	ex->ledger->nentries = 0;
	shm_toc_insert(pcxt->toc, PARALLEL_KEY_PEP_LEDGER, ex->ledger);

	if (nleaves > 0)
	{
		Size		offset = 0;

		scan_area = shm_toc_allocate(pcxt->toc, scan_size);
		for (i = 0; i < nleaves; i++)
		{
			shared->leaves[i] = RelationGetRelid(leaves[i]);
			shared->scan_offsets[i] = offset;
			table_parallelscan_initialize(leaves[i], (ParallelTableScanDesc) (scan_area + offset),
										  ex->snapshot);
			offset += MAXALIGN(table_parallelscan_estimate(leaves[i], ex->snapshot));
			table_close(leaves[i], NoLock);
		}
		shm_toc_insert(pcxt->toc, PARALLEL_KEY_PEP_SCANS, scan_area);
	}
	else
	{
		queue_area = shm_toc_allocate(pcxt->toc, mul_size(PEP_QUEUE_SIZE, nworkers));
		for (i = 0; i < nworkers; i++)
		{
			shm_mq	   *mq = shm_mq_create(queue_area + (Size) i * PEP_QUEUE_SIZE, PEP_QUEUE_SIZE);

			shm_mq_set_sender(mq, MyProc);
		}
		shm_toc_insert(pcxt->toc, PARALLEL_KEY_PEP_QUEUES, queue_area);
	}

	LaunchParallelWorkers(pcxt);

	if (pcxt->nworkers_launched == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("could not start any parallel export worker"),
				 errdetail("All background worker slots are in use."),
				 errhint("Consider increasing the configuration parameters \"%s\" and \"%s\".",
						 "max_worker_processes", "max_parallel_workers")));
	if (pcxt->nworkers_launched < nworkers)
		ereport(NOTICE,
				(errmsg("export runs with %d of %d requested workers",
						pcxt->nworkers_launched, nworkers),
				 errhint("Consider increasing the configuration parameters \"%s\" and \"%s\".",
						 "max_worker_processes", "max_parallel_workers")));

	if (queue_area != NULL)
	{
		*queues = palloc(sizeof(shm_mq_handle *) * pcxt->nworkers_launched);
		for (i = 0; i < pcxt->nworkers_launched; i++)
			(*queues)[i] = shm_mq_attach((shm_mq *) (queue_area + (Size) i * PEP_QUEUE_SIZE),
										 pcxt->seg, pcxt->worker[i].bgwhandle);
	}

	/* A worker that died at start becomes an error here, not a hang. */
	WaitForParallelWorkersToAttach(pcxt);

	SpinLockAcquire(&shared->mutex);
	shared->nlaunched = pcxt->nworkers_launched;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->cv);
}

/* Check what the workers reported once all have finished. */
static uint64
pep_export_collect(PEPExport *ex, bool streamed, uint64 sent)
{
	PEPShared  *shared = ex->shared;
	uint64		rows;

	for (int i = 0; i < ex->pcxt->nworkers_launched; i++)
		if (shared->workers[i].state != PEP_WORKER_DONE)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("parallel export worker %d did not finish its part", i)));

	SpinLockAcquire(&shared->mutex);
	rows = shared->rows_total;
	SpinLockRelease(&shared->mutex);

	if (streamed && rows != sent)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("parallel export workers wrote " UINT64_FORMAT " rows of " UINT64_FORMAT " sent",
						rows, sent)));
	return rows;
}

uint64
pep_export_run(PEPSource *src, const char *directory, int workers)
{
	PEPExport  *ex = palloc0(sizeof(PEPExport));
	PEPFault	fault;
	uint64		rows = 0;
	int			nworkers;

	if (IsInParallelMode())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("cannot export during a parallel operation")));

	pep_fault_parse(&fault);

	if (workers <= 0)
		nworkers = pep_auto_workers(src);
	else if (workers > max_parallel_workers)
	{
		nworkers = Max(max_parallel_workers, 1);
		ereport(NOTICE,
				(errmsg("export uses %d workers instead of %d requested", nworkers, workers),
				 errdetail("The configuration parameter \"%s\" is %d.",
						   "max_parallel_workers", max_parallel_workers)));
	}
	else
		nworkers = workers;

	/* Guard first: a rejected directory is never reached by the cleanup. */
	pep_output_guard(&ex->out, directory);

	ex->snapshot = RegisterSnapshot(GetActiveSnapshot());

	PG_ENSURE_ERROR_CLEANUP(pep_export_cleanup, PointerGetDatum(ex));
	{
		shm_mq_handle **queues = NULL;
		uint64		sent = 0;

		pep_output_lock(&ex->out);
		pep_output_create_staging(&ex->out);
		pep_export_launch(ex, src, nworkers, &queues);

		if (src->plan != NULL)
		{
			sent = pep_stream_run(src->plan, src->query, queues, ex->pcxt->nworkers_launched);
			SpinLockAcquire(&ex->shared->mutex);
			ex->shared->input_done = true;
			SpinLockRelease(&ex->shared->mutex);
			for (int i = 0; i < ex->pcxt->nworkers_launched; i++)
				shm_mq_detach(queues[i]);
		}

		WaitForParallelWorkersToFinish(ex->pcxt);
		rows = pep_export_collect(ex, src->plan != NULL, sent);
		pep_output_publish(&ex->out, ex->ledger, strcmp(fault.point, "publish_error") == 0);
		pep_output_release(&ex->out);
	}
	PG_END_ENSURE_ERROR_CLEANUP(pep_export_cleanup, PointerGetDatum(ex));

	DestroyParallelContext(ex->pcxt);
	ex->pcxt = NULL;
	ExitParallelMode();
	UnregisterSnapshot(ex->snapshot);
	return rows;
}
