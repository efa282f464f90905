/*-------------------------------------------------------------------------
 *
 * pep_export.c
 *	  The leader's side of an export: set up, launch, wait, publish, clean up.
 *
 * The leader is the caller's backend; it never loads a JVM.  After the
 * directory guard has accepted the target (and only then), it registers
 * pep_export_cleanup with PG_ENSURE_ERROR_CLEANUP, so that a cancel, an
 * ERROR in the leader or in any worker, statement_timeout, or a FATAL such
 * as pg_terminate_backend all run the same cleanup.  Inside, it begins the
 * output target (pep_target.h; a directory's takes the staging lock and
 * creates the staging directory), launches the workers through a
 * ParallelContext (the way parallel CREATE INDEX does), streams rows to
 * them for query sources, waits for them, and publishes.
 *
 * The cleanup callback runs while the workers may still be alive (on ERROR
 * before AbortCurrentTransaction, on FATAL before ShutdownPostgres).  It
 * therefore terminates the workers and waits for them to exit before it
 * removes a single file, so no worker can create a file after cleanup.  It
 * then has the target remove what the export made (a directory's: exactly
 * the ledger's files, the staging directory and the lock,
 * pep_output_remove), and never throws.  It does not run on PANIC,
 * SIGKILL or crash restart: the flock-owned staging area and the sweep in
 * pep_output.c cover those.
 *
 * The commit point.  Once the staging directory is sealed (_SUCCESS in it),
 * the leader checks for interrupts one last time and then holds them until
 * it returns; the rename onto the target follows with no wait in between
 * (an ERROR before the rename, such as a target that is no longer empty,
 * still fails the export cleanly).  So the client's outcome always matches
 * the disk:
 *
 *	- a cancel, statement_timeout or terminate that is processed before that
 *	  last check undoes everything (cleanup removes staging, _SUCCESS
 *	  included, and the lock) and the client gets the error;
 *	- one that arrives after it is too late, as a cancel during COMMIT is:
 *	  the export is published, the summary and the LOG line are written,
 *	  and the call returns its row count.  A pending cancel (statement_timeout
 *	  raises the same flag) is dropped before interrupts are resumed, or the
 *	  first CHECK_FOR_INTERRUPTS after the return would fail the statement;
 *	  it counts as having arrived after the statement.  A pending terminate
 *	  is kept: the backend exits right after the return, the export stays
 *	  published and its LOG line says so, but the client gets no outcome.
 *
 * A cancel that arrives after the function has returned belongs to the
 * rest of the statement, like one after any function with side effects.
 *
 * IDENTIFICATION
 *	  extension/src/caller/pep_export.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_am_d.h"
#include "pgstat.h"
#include "miscadmin.h"
#include "optimizer/cost.h"
#include "optimizer/paths.h"
#include "postmaster/bgworker.h"
#include "postmaster/bgworker_internals.h"
#include "storage/ipc.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "pep_contract.h"
#include "pep_export.h"
#include "pep_extension.h"
#include "pep_fault.h"
#include "pep_guc.h"
#include "pep_java.h"
#include "pep_output.h"
#include "pep_partition.h"
#include "pep_progress.h"
#include "pep_route.h"
#include "pep_shared.h"
#include "pep_stream.h"
#include "pep_target.h"

/* Rows per batch handed to Java, and the cap on its fixed-width bytes. */
#define PEP_BATCH_ROWS		  4096
#define PEP_BATCH_FIXED_BYTES (16 * 1024 * 1024)
/* How often the leader refreshes progress while it waits. */
#define PEP_PROGRESS_INTERVAL_MS 500

/* Everything the leader keeps for one export; the cleanup callback's argument. */
typedef struct PEPExport
{
	PEPTarget *target;								 /* where the parts go (pep_target.h) */
	PEPJvmConfig jvm;								 /* how the workers start their JVM, checked */
	ParallelContext *pcxt;							 /* the workers, once created */
	PEPShared *shared;								 /* shared state in the DSM */
	PEPLedger *ledger;								 /* the ledger in the DSM */
	char *scans;									 /* the block scans in the DSM, for progress; or NULL */
	Snapshot snapshot;								 /* registered snapshot the scans use */
	int npartition;									 /* partition_by levels, 0: none */
	int partition_columns[PEP_MAX_PARTITION_LEVELS]; /* their column indexes */
	bool write_partition_columns;					 /* partition columns in the files too */
} PEPExport;

/*
 * Terminate every launched worker and wait until each has exited.  Workers
 * that stay for publication may order their exit paths among themselves
 * (an object store's do, pep_s3worker.c), so they all go at once.
 */
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
	PEPExport *ex = (PEPExport *) DatumGetPointer(arg);

	HOLD_INTERRUPTS();
	/* An error in a wait leaves us on the DSM's condition variable: leave it before unmapping. */
	ConditionVariableCancelSleep();
	pep_progress_phase(PEP_PHASE_CLEANING_UP);
	if (ex->pcxt != NULL)
		pep_terminate_workers(ex->pcxt);
	ex->target->methods->cleanup(ex->target, ex->shared, ex->ledger);
	if (ex->pcxt != NULL)
	{
		pep_progress_segment(NULL);
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
	int workers = 1;

	if (src->parallel_workers > 0)
		workers = src->parallel_workers;
	else if (src->query == NULL)
	{
		double threshold = Max(min_parallel_table_scan_size, 1);

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

/* Rows per batch: as many as fit the fixed-width budget, at most PEP_BATCH_ROWS. */
static int
pep_batch_rows(PEPSource *src)
{
	Size per_row = 0;

	for (int c = 0; c < src->ncolumns; c++)
		per_row += 1 + pep_kind_width(src->columns[c].kind);
	return (int) Max(Min(PEP_BATCH_ROWS, PEP_BATCH_FIXED_BYTES / Max(per_row, 1)), 16);
}

/* Create the parallel context and the DSM contents, then launch. */
static void
pep_export_launch(PEPExport *ex, PEPSource *src, int nworkers, const char *writer_options,
				  int64 file_size_bytes, shm_mq_handle ***queues)
{
	ParallelContext *pcxt;
	int nleaves = list_length(src->leaves);
	Relation *leaves = palloc0(sizeof(Relation) * Max(nleaves, 1));
	Size scan_size = 0;
	Size shared_size = add_size(offsetof(PEPShared, workers),
								mul_size(sizeof(PEPWorkerSlot), nworkers));
	PEPShared *shared;
	PEPColumn *columns;
	char *scan_area = NULL;
	char *queue_area = NULL;
	ListCell *lc;
	int i = 0;
	bool heap_scans = true;
	int ledger_capacity = PEP_LEDGER_CAPACITY;
	Size ledger_names = (Size) PEP_LEDGER_CAPACITY * PEP_LEDGER_NAME_LEN;

	/*
	 * A partitioned export also enters each worker's folders (a folder may
	 * be entered once per worker that meets it) and more parts: one per
	 * leaf and worker, more when workers finish parts early to stay within
	 * their writer limit.
	 */
	if (ex->npartition > 0)
	{
		int64 folders = (int64) pep_max_partitions * ex->npartition * nworkers;

		ledger_capacity = (int) Min((int64) PG_INT32_MAX / 2,
									PEP_LEDGER_CAPACITY + folders + 2 * (int64) pep_max_partitions);
		ledger_names = (Size) ledger_capacity * PEP_LEDGER_NAME_LEN +
					   (Size) folders * PEP_LEDGER_FOLDER_NAME_LEN;
	}

	foreach (lc, src->leaves)
	{
		leaves[i] = table_open(lfirst_oid(lc), NoLock);
		/* Only heap's block scans can be read for progress. */
		if (leaves[i]->rd_rel->relam != HEAP_TABLE_AM_OID)
			heap_scans = false;
		scan_size = add_size(scan_size, MAXALIGN(table_parallelscan_estimate(leaves[i], ex->snapshot)));
		i++;
	}

	EnterParallelMode();
	pcxt = CreateParallelContext(PEP_EXTENSION_NAME, "pep_worker_main", nworkers);
	ex->pcxt = pcxt;

	shm_toc_estimate_chunk(&pcxt->estimator, shared_size);
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(PEPColumn) * src->ncolumns);
	shm_toc_estimate_chunk(&pcxt->estimator, pep_ledger_size(ledger_capacity, ledger_names));
	shm_toc_estimate_keys(&pcxt->estimator, 3);
	ex->target->methods->estimate_shm(ex->target, pcxt, ledger_capacity, ex->npartition);
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
	shared->leader_pid = MyProcPid;
	shared->userid = GetUserId();
	shared->ncolumns = src->ncolumns;
	shared->nleaves = nleaves;
	shared->relid = src->relid;
	shared->batch_rows = pep_batch_rows(src);
	shared->target_kind = ex->target->methods->kind;
	strlcpy(shared->target, ex->target->display, MAXPGPATH);
	strlcpy(shared->source, src->display, sizeof(shared->source));
	shared->jvm = ex->jvm;
	if (strlcpy(shared->writer_options, writer_options, sizeof(shared->writer_options)) >=
		sizeof(shared->writer_options))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("export options are too long")));
	shared->file_size_bytes = file_size_bytes;
	shared->types = src->types;
	shared->npartition = ex->npartition;
	memcpy(shared->partition_columns, ex->partition_columns, sizeof(ex->partition_columns));
	shared->write_partition_columns = ex->write_partition_columns;
	shared->max_partitions = pep_max_partitions;
	shared->partition_writers = pep_partition_writers;
	ConditionVariableInit(&shared->cv);
	SpinLockInit(&shared->mutex);
	shared->nlaunched = -1;
	shm_toc_insert(pcxt->toc, PARALLEL_KEY_PEP_SHARED, shared);
	ex->shared = shared;
	pep_progress_segment(pcxt->seg);

	columns = shm_toc_allocate(pcxt->toc, sizeof(PEPColumn) * src->ncolumns);
	memcpy(columns, src->columns, sizeof(PEPColumn) * src->ncolumns);
	shm_toc_insert(pcxt->toc, PARALLEL_KEY_PEP_COLUMNS, columns);

	ex->ledger = shm_toc_allocate(pcxt->toc, pep_ledger_size(ledger_capacity, ledger_names));
	pep_ledger_init(ex->ledger, ledger_capacity, ledger_names);
	shm_toc_insert(pcxt->toc, PARALLEL_KEY_PEP_LEDGER, ex->ledger);

	ex->target->methods->initialize_shm(ex->target, pcxt, shared, ledger_capacity, ex->npartition);

	if (nleaves > 0)
	{
		Size offset = 0;

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
		ex->scans = heap_scans ? scan_area : NULL;
	}
	else
	{
		queue_area = shm_toc_allocate(pcxt->toc, mul_size(PEP_QUEUE_SIZE, nworkers));
		for (i = 0; i < nworkers; i++)
		{
			shm_mq *mq = shm_mq_create(queue_area + (Size) i * PEP_QUEUE_SIZE, PEP_QUEUE_SIZE);

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

/*
 * Wait until every worker has finished writing, reporting progress
 * meanwhile.  A worker's error interrupts the wait (the sleep's
 * CHECK_FOR_INTERRUPTS rethrows it); a worker that stopped without a word
 * is left to WaitForParallelWorkersToFinish, which reports it.  Workers
 * broadcast on the condition variable when they are done, so the wait ends
 * at once.  Workers of a target whose workers_stay is set stay for
 * publication.
 */
static void
pep_export_wait(PEPExport *ex)
{
	ParallelContext *pcxt = ex->pcxt;
	bool stopped = false;

	for (;;)
	{
		int done = 0;
		bool stopped_now = false;

		pep_progress_report(ex->shared, pcxt->nworkers_launched, ex->scans);
		for (int i = 0; i < pcxt->nworkers_launched; i++)
		{
			pid_t pid;

			if (ex->shared->workers[i].state == PEP_WORKER_DONE)
				done++;
			else if (GetBackgroundWorkerPid(pcxt->worker[i].bgwhandle, &pid) == BGWH_STOPPED)
				stopped_now = true;
		}
		stopped = stopped_now;
		if (done == pcxt->nworkers_launched || stopped)
			break;
		(void) ConditionVariableTimedSleep(&ex->shared->cv, PEP_PROGRESS_INTERVAL_MS,
										   WAIT_EVENT_PARALLEL_FINISH);
	}
	ConditionVariableCancelSleep();
	if (!ex->target->methods->workers_stay || stopped)
		WaitForParallelWorkersToFinish(pcxt);
	pep_progress_report(ex->shared, pcxt->nworkers_launched, ex->scans);
}

/* Check what the workers reported once all have finished. */
static uint64
pep_export_collect(PEPExport *ex, bool streamed, uint64 sent)
{
	PEPShared *shared = ex->shared;
	uint64 rows;

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

/* Fill the summary of a published export and log it if asked to. */
static void
pep_export_summarize(PEPExport *ex, PEPSource *src, uint64 rows, TimestampTz started,
					 PEPSummary *summary)
{
	long secs;
	int usecs;

	memset(summary, 0, sizeof(PEPSummary));
	strlcpy(summary->source, src->display, sizeof(summary->source));
	strlcpy(summary->directory, ex->target->display, sizeof(summary->directory));
	summary->rows = rows;
	summary->workers = ex->pcxt->nworkers_launched;
	for (int i = 0; i < summary->workers; i++)
	{
		summary->bytes += ex->shared->workers[i].bytes;
		summary->parts += ex->shared->workers[i].parts;
	}
	TimestampDifference(started, GetCurrentTimestamp(), &secs, &usecs);
	summary->seconds = secs + usecs / 1000000.0;
	summary->compatibility = pep_compatibility_name(src->types.compatibility);
	summary->userid = ex->shared->userid;

	if (pep_log_exports)
		ereport(LOG,
				(errmsg("exported " UINT64_FORMAT " rows of %s to \"%s\": %d parts, " UINT64_FORMAT " bytes, %d workers, %.3f s",
						summary->rows, summary->source, summary->directory, summary->parts,
						summary->bytes, summary->workers, summary->seconds)));
}

uint64
pep_export_run(PEPSource *src, const char *directory, const PEPOptions *opts,
			   PEPSummary *summary)
{
	TimestampTz started = GetCurrentTimestamp();
	int workers = opts->workers;
	char *writer_options;
	PEPExport *ex = palloc0(sizeof(PEPExport));
	PEPFault fault;
	uint64 rows = 0;
	int nworkers;

	if (IsInParallelMode())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("cannot export during a parallel operation")));

	pep_fault_parse(&fault);

	/* Checked before anything is touched, like every other option. */
	ex->npartition = pep_partition_resolve(src, opts, ex->partition_columns);
	ex->write_partition_columns = opts->write_partition_columns;
	if (ex->npartition > 0 && !opts->write_partition_columns)
	{
		PEPSource file = *src;

		file.columns = pep_partition_file_columns(src->columns, src->ncolumns,
												  ex->partition_columns, ex->npartition,
												  &file.ncolumns);
		writer_options = pep_options_writer_text(opts, &file);
	}
	else
		writer_options = pep_options_writer_text(opts, src);
	if (ex->npartition > 0)
		writer_options = psprintf("%s" PEP_OPTION(PART_WRITERS) "=%d\n" PEP_OPTION(PART_MEMORY_BYTES) "=" INT64_FORMAT "\n",
								  writer_options, pep_partition_writers,
								  (int64) pep_partition_memory * 1024);

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

	/*
	 * What the workers' JVM needs is checked before anything is created: a
	 * missing jar or libjvm fails the call with nothing to clean up.  Their
	 * JIT follows the values each is expected to encode (pep_java.c).
	 */
	pep_java_prepare(&ex->jvm, src->rows * src->ncolumns / nworkers);

	/* Guard first: a rejected target is never reached by the cleanup. */
	ex->target = pep_target_for(directory)->guard(directory, opts);

	ex->snapshot = RegisterSnapshot(GetActiveSnapshot());
	pep_progress_start(src->relid, src->pages);

	PG_ENSURE_ERROR_CLEANUP(pep_export_cleanup, PointerGetDatum(ex));
	{
		shm_mq_handle **queues = NULL;
		uint64 sent = 0;

		ex->target->methods->begin(ex->target);
		pep_fault_pause(&fault, PEP_PAUSE_STARTING);
		pep_export_launch(ex, src, nworkers, writer_options, opts->file_size_bytes, &queues);
		if (ex->target->methods->launched != NULL)
			ex->target->methods->launched(ex->target, ex->shared, ex->pcxt);
		pep_progress_phase(PEP_PHASE_WRITING);

		if (src->plan != NULL)
		{
			sent = pep_stream_run(src->plan, src->query, queues, ex->pcxt->nworkers_launched,
								  ex->shared);
			SpinLockAcquire(&ex->shared->mutex);
			ex->shared->input_done = true;
			SpinLockRelease(&ex->shared->mutex);
			for (int i = 0; i < ex->pcxt->nworkers_launched; i++)
				shm_mq_detach(queues[i]);
		}

		pep_export_wait(ex);
		rows = pep_export_collect(ex, src->plan != NULL, sent);
		pep_progress_phase(PEP_PHASE_PUBLISHING);
		if (ex->target->methods->seal != NULL)
			ex->target->methods->seal(ex->target, ex->ledger);
		pep_fault_pause(&fault, PEP_PAUSE_PUBLISHING);
		if (strcmp(fault.point, "publish_error") == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("injected fault during publication")));
		if (ex->target->methods->publish != NULL)
			ex->target->methods->publish(ex->target, ex->shared, ex->pcxt, &fault);

		/* The commit point: see the file header. */
		CHECK_FOR_INTERRUPTS();
		HOLD_INTERRUPTS();
		ex->target->methods->commit(ex->target, ex->shared, ex->pcxt);
	}
	PG_END_ENSURE_ERROR_CLEANUP(pep_export_cleanup, PointerGetDatum(ex));

	pep_export_summarize(ex, src, rows, started, summary);
	pep_fault_pause(&fault, PEP_PAUSE_PUBLISHED);
	pep_progress_segment(NULL);
	DestroyParallelContext(ex->pcxt);
	ex->pcxt = NULL;
	ExitParallelMode();
	UnregisterSnapshot(ex->snapshot);
	pep_progress_end();
	QueryCancelPending = false;
	RESUME_INTERRUPTS();
	return rows;
}
