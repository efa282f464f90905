/*-------------------------------------------------------------------------
 *
 * pep_worker.c
 *	  A parallel export worker: read rows, batch them, write Parquet parts.
 *
 * Each worker is a member of the leader's parallel group, so it sees what
 * the leader's transaction sees, its uncommitted rows included.  It boots
 * its JVM first and then waits until every launched worker is ready, so
 * that a worker whose JVM starts quickly cannot drain a small table before
 * the others begin.  Rows come either from a shared parallel heap scan
 * (tables, and the leaves of a partitioned table one after another) or,
 * for query sources, from the leader through this worker's tuple queue.
 *
 * A part file is opened only when the first batch is ready, so a worker
 * that receives no rows writes no part; when the whole export has no rows,
 * the last worker to finish writes one empty part so that the schema is
 * still published; the last worker to finish also hands the target the
 * finished export (a directory's writes its _SUCCESS manifest then).  Every
 * part name is entered into the ledger before the
 * file is created (see pep_export.c for why), and marked created after.
 * Where a part goes is the output target's (pep_target.h): a directory's
 * parts are created only inside the staging directory the leader made,
 * reached through a descriptor this worker holds, never by its name
 * (pep_dirtarget.c); an object store's are multipart uploads that stay
 * pending until publication, for which its workers stay after writing
 * (pep_s3methods.c).
 *
 * IDENTIFICATION
 *	  extension/src/worker/pep_worker.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/tableam.h"
#include "access/tupconvert.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "utils/memutils.h"

#include "pep_batch.h"
#include "pep_contract.h"
#include "pep_fault.h"
#include "pep_guc.h"
#include "pep_jvm.h"
#include "pep_output.h"
#include "pep_partition.h"
#include "pep_progress.h"
#include "pep_route.h"
#include "pep_shared.h"
#include "pep_sink.h"
#include "pep_target.h"
#include "pep_worker.h"

/* Everything one worker keeps while it runs. */
typedef struct PEPWorker
{
	PEPShared *shared;		   /* the export's shared state */
	PEPLedger *ledger;		   /* the export's ledger */
	PEPWorkerSlot *slot;	   /* what this worker reports */
	PEPBatch *batch;		   /* the batch being filled */
	PEPSink *sink;			   /* the Java writer */
	PEPWorkerTarget *target;   /* where the parts go (pep_target.h) */
	PEPOpenPart *part;		   /* the current part: only's, or its folder's */
	PEPOpenPart only;		   /* the part of an unpartitioned export */
	PEPFault fault;			   /* injected fault, if any */
	uint64 part_limit;		   /* a part ends past this: file_size_bytes, or what its file holds */
	MemoryContext row_context; /* reset after every row */
	bool part_open;			   /* a part is being written */
	const PEPColumn *columns;  /* every column of the source */
	PEPRoute *route;		   /* partition_by: rows by folder; else NULL */
	PEPLeaf *leaf;			   /* the folder being written to */
	PEPLeaf **slots;		   /* the folder of each Java part slot, or NULL */
	int nslots;				   /* Java part slots */
	uint64 clock;			   /* ticks at each folder written to, for LRU */
	int64 batches;			   /* batches written */
	uint64 rows;			   /* rows written */
} PEPWorker;

static void
pep_worker_error_context(void *arg)
{
	errcontext("parallel export worker %d", ParallelWorkerNumber);
}

static void
pep_worker_close_part(PEPWorker *w)
{
	uint64 bytes;

	if (pep_fault_strikes(&w->fault, "close_error", w->shared))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("injected fault while closing a part")));
	bytes = pep_sink_close_part(w->sink);
	w->part_open = false;
	pep_ledger_part_closed(w->ledger, w->part->entry, w->part->rows, bytes);
	if (w->target->methods->part_closed != NULL)
		w->target->methods->part_closed(w->target);
	w->slot->bytes += bytes;
	w->slot->bytes_open = 0;
	w->slot->parts++;
	if (w->leaf != NULL && w->leaf->slot >= 0)
	{
		w->slots[w->leaf->slot] = NULL;
		w->leaf->slot = -1;
	}
}

/* Make leaf the folder written to, and its part, if open, the current one. */
static void
pep_worker_enter_leaf(PEPWorker *w, PEPLeaf *leaf)
{
	w->leaf = leaf;
	w->part = &leaf->part;
	leaf->last_used = ++w->clock;
	if (leaf->slot >= 0)
		pep_sink_select_part(w->sink, leaf->slot);
	w->part_open = leaf->slot >= 0;
}

/* Finish the part in Java part slot s, then make the current folder current again. */
static void
pep_worker_finish_slot(PEPWorker *w, int s)
{
	PEPLeaf *current = w->leaf;

	if (w->slots[s] == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("parquet writer asked to finish part slot %d, which holds no part", s)));
	pep_worker_enter_leaf(w, w->slots[s]);
	pep_worker_close_part(w);
	pep_worker_enter_leaf(w, current);
}

/*
 * A free Java part slot for the current folder.  When every slot holds an
 * open part, the least recently written one is finished first; its folder
 * gets a new part when it next has rows (DESIGN.md, "Bounded memory").
 */
static int
pep_worker_take_slot(PEPWorker *w)
{
	PEPLeaf *leaf = w->leaf;
	int victim = -1;

	for (int s = 0; s < w->nslots; s++)
	{
		if (w->slots[s] == NULL)
		{
			victim = s;
			break;
		}
		if (victim < 0 || w->slots[s]->last_used < w->slots[victim]->last_used)
			victim = s;
	}
	if (w->slots[victim] != NULL)
		pep_worker_finish_slot(w, victim);
	pep_sink_select_part(w->sink, victim);
	w->slots[victim] = leaf;
	leaf->slot = victim;
	return victim;
}

/*
 * Open a part in the staging directory, or in the current partition
 * folder: where is the output target's, which names it (pep_target.h).
 */
static void
pep_worker_open_part(PEPWorker *w)
{
	int folder = w->leaf != NULL ? w->leaf->entry : -1;
	int entry = pep_ledger_enter(w->ledger, PEP_LEDGER_PART, folder, NULL);
	char *path;
	char *display_path;

	if (w->leaf != NULL)
		(void) pep_worker_take_slot(w);
	w->target->methods->name_part(w->target, w->ledger, entry, folder,
								  w->leaf != NULL ? w->leaf->path : NULL, &path, &display_path);

	if (pep_fault_strikes(&w->fault, "open_error", w->shared))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("injected fault while opening part \"%s\"", display_path)));
	pep_sink_open_part(w->sink, path, display_path);
	if (w->target->methods->part_opened != NULL)
		w->target->methods->part_opened(w->target);
	pep_ledger_created(w->ledger, entry);
	w->part->entry = entry;
	w->part->rows = 0;
	w->part->written_back = 0;
	w->part_open = true;
}

/*
 * Wait, interruptibly, until the leader cancels the export.  The activity
 * text tells a test harness, through pg_stat_activity, that the worker has
 * reached the fault point with its part open.  A worker held here scans no
 * more, so a worker held by starve_worker may go on and take the blocks it
 * leaves, as one starved of CPU would once it ran.
 */
static void
pep_worker_hang(PEPShared *shared)
{
	pep_fault_scan_ended(shared);
	pgstat_report_activity(STATE_RUNNING, "parallel_export_parquet fault injection: hang");
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 1000L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

static void
pep_worker_flush(PEPWorker *w)
{
	if (w->batch->nrows == 0)
		return;
	if (!w->part_open)
		pep_worker_open_part(w);
	if (pep_fault_strikes_at(&w->fault, "java_error", w->batches, w->shared))
		pep_sink_fail_next_batch(w->sink);
	pep_sink_write_batch(w->sink, w->batch);
	w->rows += w->batch->nrows;
	w->part->rows += w->batch->nrows;
	w->slot->rows = w->rows;
	w->batches++;
	pep_batch_reset(w->batch);

	/*
	 * A part past file_size_bytes, or past what one part of the target
	 * holds (an object-store upload), is finished; the next batch opens
	 * another.
	 */
	w->slot->bytes_open = pep_sink_part_size(w->sink);
	if (w->slot->bytes_open >= w->part_limit)
		pep_worker_close_part(w);
	else if (w->target->methods->part_grew != NULL)
		w->target->methods->part_grew(w->target, w->ledger, w->part,
									  w->leaf != NULL ? w->leaf->entry : -1,
									  w->slot->bytes_open);

	/*
	 * A target's open parts may hold buffers (an object store's uploads),
	 * which count in partition_memory too and are freed only by finishing
	 * the part: the sink names the parts to finish (DESIGN.md, "Bounded
	 * memory").
	 */
	if (w->target->methods->parts_hold_memory && w->route != NULL)
	{
		int s;

		while ((s = pep_sink_part_to_finish(w->sink)) >= 0)
			pep_worker_finish_slot(w, s);
	}

	if (w->target->methods->batch_written != NULL)
		w->target->methods->batch_written(w->target, &w->fault, w->batches, w->shared);
	if (pep_fault_strikes_at(&w->fault, "worker_error", w->batches, w->shared))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("injected fault after %lld batches", (long long) w->batches)));
	if (pep_fault_strikes_at(&w->fault, "hang", w->batches, w->shared))
		pep_worker_hang(w->shared);
}

/* Add one deformed row to the batch, flushing and growing it as needed. */
static void
pep_worker_batch_row(PEPWorker *w, Datum *values, bool *isnull)
{
	MemoryContext old = MemoryContextSwitchTo(w->row_context);

	while (!pep_batch_add_row(w->batch, values, isnull))
	{
		if (w->batch->nrows > 0)
			pep_worker_flush(w);
		else
			pep_batch_grow(w->batch);
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(w->row_context);

	if (w->batch->nrows == w->batch->capacity)
		pep_worker_flush(w);
}

/* Write a partitioned round: each folder's rows to that folder's part. */
static void
pep_worker_write_round(PEPWorker *w)
{
	PEPLeaf **leaves;
	int nleaves = pep_route_group(w->route, &leaves);

	for (int l = 0; l < nleaves; l++)
	{
		pep_worker_enter_leaf(w, leaves[l]);
		for (int i = 0; i < leaves[l]->nrows; i++)
		{
			Datum *values;
			bool *isnull;

			pep_route_row(w->route, leaves[l], i, &values, &isnull);
			pep_worker_batch_row(w, values, isnull);
		}
		pep_worker_flush(w);
	}
	pep_route_reset(w->route);
}

/* Add one deformed row: to the batch, or to the round of a partitioned export. */
static void
pep_worker_add(PEPWorker *w, Datum *values, bool *isnull)
{
	MemoryContext old;
	bool full;

	if (w->route == NULL)
	{
		pep_worker_batch_row(w, values, isnull);
		return;
	}
	old = MemoryContextSwitchTo(w->row_context);
	full = pep_route_add(w->route, values, isnull);
	MemoryContextSwitchTo(old);
	MemoryContextReset(w->row_context);
	if (full)
		pep_worker_write_round(w);
}

/* Finish every open part: the only one, or each partition folder's. */
static void
pep_worker_finish(PEPWorker *w)
{
	if (w->route == NULL)
	{
		pep_worker_flush(w);
		if (w->part_open)
			pep_worker_close_part(w);
		return;
	}
	pep_worker_write_round(w);
	for (int s = 0; s < w->nslots; s++)
		if (w->slots[s] != NULL)
		{
			pep_worker_enter_leaf(w, w->slots[s]);
			pep_worker_close_part(w);
		}
}

/* Scan every leaf relation's shared parallel heap scan in turn. */
static void
pep_worker_scan(PEPWorker *w, char *scan_area)
{
	PEPShared *shared = w->shared;
	Relation parent = table_open(shared->relid, AccessShareLock);
	TupleDesc parent_desc = RelationGetDescr(parent);

	if (shared->npartition > 0)
		w->route = pep_route_create(shared, w->ledger, w->columns, CreateTupleDescCopy(parent_desc),
									w->target);

	for (int i = 0; i < shared->nleaves; i++)
	{
		Relation rel = table_open(shared->leaves[i], AccessShareLock);
		ParallelTableScanDesc pscan = (ParallelTableScanDesc) (scan_area + shared->scan_offsets[i]);
		TableScanDesc scan = table_beginscan_parallel(rel, pscan);
		TupleTableSlot *slot = table_slot_create(rel, NULL);
		TupleConversionMap *map = NULL;
		TupleTableSlot *out = slot;

		if (rel != parent)
			map = convert_tuples_by_name(RelationGetDescr(rel), parent_desc);
		if (map != NULL)
			out = MakeSingleTupleTableSlot(parent_desc, &TTSOpsVirtual);

		while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
		{
			CHECK_FOR_INTERRUPTS();
			if (map != NULL)
				execute_attr_map_slot(map->attrMap, slot, out);
			slot_getallattrs(out);
			pep_worker_add(w, out->tts_values, out->tts_isnull);
		}

		if (out != slot)
			ExecDropSingleTupleTableSlot(out);
		ExecDropSingleTupleTableSlot(slot);
		table_endscan(scan);
		table_close(rel, AccessShareLock);
	}
	table_close(parent, AccessShareLock);
}

/*
 * Receive chunks of MinimalTuples from the leader.  Each chunk holds whole
 * tuples, each padded to MAXALIGN.  The leader sets input_done before it
 * detaches; a detach without it means the leader is gone mid-stream.
 */
static void
pep_worker_receive(PEPWorker *w, dsm_segment *seg, char *queue_area, const PEPColumn *columns)
{
	PEPShared *shared = w->shared;
	shm_mq *mq = (shm_mq *) (queue_area + (Size) ParallelWorkerNumber * PEP_QUEUE_SIZE);
	shm_mq_handle *mqh;
	TupleDesc desc = CreateTemplateTupleDesc(shared->ncolumns);
	TupleTableSlot *slot;

	for (int c = 0; c < shared->ncolumns; c++)
		TupleDescInitEntry(desc, (AttrNumber) (c + 1), columns[c].name,
						   columns[c].typid, columns[c].typmod, 0);
	slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	if (shared->npartition > 0)
		w->route = pep_route_create(shared, w->ledger, columns, desc, w->target);

	shm_mq_set_receiver(mq, MyProc);
	mqh = shm_mq_attach(mq, seg, NULL);

	for (;;)
	{
		Size nbytes;
		void *data;
		shm_mq_result res = shm_mq_receive(mqh, &nbytes, &data, false);
		Size off = 0;
		bool done;

		if (res == SHM_MQ_DETACHED)
		{
			SpinLockAcquire(&shared->mutex);
			done = shared->input_done;
			SpinLockRelease(&shared->mutex);
			if (!done)
				ereport(ERROR,
						(errcode(ERRCODE_CONNECTION_FAILURE),
						 errmsg("lost connection to the exporting backend")));
			break;
		}

		while (off < nbytes)
		{
			MinimalTuple tup = (MinimalTuple) ((char *) data + off);

			CHECK_FOR_INTERRUPTS();
			ExecStoreMinimalTuple(tup, slot, false);
			slot_getallattrs(slot);
			pep_worker_add(w, slot->tts_values, slot->tts_isnull);
			ExecClearTuple(slot);
			off += MAXALIGN(tup->t_len);
		}
	}
	shm_mq_detach(mqh);
	ExecDropSingleTupleTableSlot(slot);
}

/*
 * Report this worker's JVM ready and wait for every launched worker's, and
 * until the output target is ready (an object store's: the leader began
 * its ledger record).
 */
static void
pep_worker_start_barrier(PEPShared *shared, PEPWorkerTarget *target)
{
	SpinLockAcquire(&shared->mutex);
	shared->nready++;
	shared->workers[ParallelWorkerNumber].state = PEP_WORKER_READY;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->cv);

	ConditionVariablePrepareToSleep(&shared->cv);
	for (;;)
	{
		bool all;

		SpinLockAcquire(&shared->mutex);
		all = shared->nlaunched >= 0 && shared->nready >= shared->nlaunched &&
			  (target->methods->ready == NULL || target->methods->ready(target));
		SpinLockRelease(&shared->mutex);
		if (all)
			break;
		ConditionVariableSleep(&shared->cv, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
}

void
pep_worker_main(dsm_segment *seg, shm_toc *toc)
{
	PEPWorker w;
	const PEPWorkerTargetMethods *target;
	PEPColumn *columns;
	ErrorContextCallback errcallback;
	bool last;
	uint64 rows_total;
	PEPColumn *file_columns;
	int nfile_columns;

	memset(&w, 0, sizeof(w));
	w.shared = shm_toc_lookup(toc, PARALLEL_KEY_PEP_SHARED, false);
	w.ledger = shm_toc_lookup(toc, PARALLEL_KEY_PEP_LEDGER, false);
	columns = shm_toc_lookup(toc, PARALLEL_KEY_PEP_COLUMNS, false);
	w.slot = &w.shared->workers[ParallelWorkerNumber];
	w.part = &w.only;
	w.slot->pid = MyProcPid;
	/*
	 * A name a DBA can find in pg_stat_activity (backend_type stays "parallel
	 * worker"), and an activity that says what the export writes where, for
	 * people.  The progress view of 1.1 reads both from PEPShared; 1.0's,
	 * in a database not yet updated, still splits this text at its lines,
	 * which stay empty when the text may not name them (pep_progress.c).
	 */
	pgstat_report_appname(psprintf("parallel_export_parquet worker %d", ParallelWorkerNumber));
	if (pep_activity_may_name_target())
		pgstat_report_activity(STATE_RUNNING,
							   psprintf("parallel_export_parquet worker %d\ndirectory: %s\nsource: %s",
										ParallelWorkerNumber, w.shared->target, w.shared->source));
	else
		pgstat_report_activity(STATE_RUNNING,
							   psprintf("parallel_export_parquet worker %d\ndirectory: \nsource: ",
										ParallelWorkerNumber));

	errcallback.callback = pep_worker_error_context;
	errcallback.arg = NULL;
	errcallback.previous = error_context_stack;
	error_context_stack = &errcallback;

	target = pep_target_worker_methods(w.shared->target_kind);
	w.target = target->open(w.shared, toc);
	pep_fault_parse(&w.fault);

	pep_jvm_start(&w.shared->jvm);
	/* First: a target's session and worker 0's checks get going while the sink is set up. */
	if (target->start != NULL)
		target->start(w.target, &w.fault);
	w.columns = columns;
	file_columns = columns;
	nfile_columns = w.shared->ncolumns;
	if (w.shared->npartition > 0 && !w.shared->write_partition_columns)
		file_columns = pep_partition_file_columns(columns, w.shared->ncolumns,
												  w.shared->partition_columns,
												  w.shared->npartition, &nfile_columns);
	w.batch = pep_batch_create(file_columns, nfile_columns, w.shared->batch_rows,
							   &w.shared->types);
	w.sink = pep_sink_create(w.batch, w.shared->writer_options);
	if (w.shared->npartition > 0)
	{
		w.nslots = w.shared->partition_writers;
		w.slots = palloc0(sizeof(PEPLeaf *) * w.nslots);
	}
	w.row_context = AllocSetContextCreate(CurrentMemoryContext, "parallel export row",
										  ALLOCSET_DEFAULT_SIZES);
	if (target->attach != NULL)
		target->attach(w.target, w.sink);
	w.part_limit = pep_sink_part_size_limit(w.sink);
	if (w.shared->file_size_bytes > 0)
		w.part_limit = Min(w.part_limit, (uint64) w.shared->file_size_bytes);
	/* Worker 0 checks the target before it reports ready: no row is read before. */
	if (ParallelWorkerNumber == 0 && target->check != NULL)
		target->check(w.target);

	pep_worker_start_barrier(w.shared, w.target);

	if (w.shared->nleaves > 0)
	{
		pep_fault_starve(w.shared);
		pep_worker_scan(&w, shm_toc_lookup(toc, PARALLEL_KEY_PEP_SCANS, false));
		pep_fault_scan_ended(w.shared);
	}
	else
		pep_worker_receive(&w, seg, shm_toc_lookup(toc, PARALLEL_KEY_PEP_QUEUES, false), columns);

	pep_worker_finish(&w);

	SpinLockAcquire(&w.shared->mutex);
	w.shared->rows_total += w.rows;
	w.shared->nfinished++;
	last = (w.shared->nfinished == w.shared->nlaunched);
	rows_total = w.shared->rows_total;
	SpinLockRelease(&w.shared->mutex);

	/*
	 * The last worker of an export without rows still publishes the schema;
	 * a partitioned one has no folder to put it in, and writes only
	 * _SUCCESS, as Spark does.
	 */
	if (last && rows_total == 0 && w.shared->npartition == 0)
	{
		pep_worker_open_part(&w);
		pep_worker_close_part(&w);
	}
	/* Every other worker's parts are finished: the last one's turn. */
	if (last && target->all_written != NULL)
		target->all_written(w.target, w.ledger);

	SpinLockAcquire(&w.shared->mutex);
	w.slot->state = PEP_WORKER_DONE;
	SpinLockRelease(&w.shared->mutex);
	ConditionVariableBroadcast(&w.shared->cv);

	if (target->publish != NULL)
		target->publish(w.target, w.ledger, &w.fault);

	error_context_stack = errcallback.previous;
}
