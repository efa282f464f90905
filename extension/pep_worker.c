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
 * still published.  Every part name is entered into the ledger before the
 * file is created (see pep_export.c for why), and marked created after.
 * Parts are created only inside the staging directory the leader made,
 * reached through a descriptor this worker holds, never by its name
 * (pep_worker_open_staging).  For an object-store target there is no
 * staging directory: each part is a multipart upload under the prefix that
 * stays pending until publication, and after writing the worker stays for
 * the publication phases (pep_s3worker.c).
 *
 * IDENTIFICATION
 *	  extension/pep_worker.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>

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
#include "pep_s3export.h"
#include "pep_shared.h"
#include "pep_sink.h"
#include "pep_worker.h"

/*
 * Part bytes written between two writeback requests
 * (pep_worker_start_writeback): about one row group of a typical table.
 */
#define PEP_WRITEBACK_AFTER (8 * 1024 * 1024)

/* Everything one worker keeps while it runs. */
typedef struct PEPWorker
{
	PEPShared  *shared;			/* the export's shared state */
	PEPLedger  *ledger;			/* the export's ledger */
	PEPWorkerSlot *slot;		/* what this worker reports */
	PEPBatch   *batch;			/* the batch being filled */
	PEPSink    *sink;			/* the Java writer */
	PEPS3Worker *s3;			/* an object-store export's side, or NULL */
	PEPOpenPart *part;			/* the current part: only's, or its folder's */
	PEPOpenPart only;			/* the part of an unpartitioned export */
	PEPFault	fault;			/* injected fault, if any */
	uint64		part_limit;		/* a part ends past this: file_size_bytes, or what its file holds */
	int			staging_fd;		/* the leader's staging directory, held open; -1: object store */
	char		staging_via[64];	/* /proc/self/fd/N: that directory by its fd */
	MemoryContext row_context;	/* reset after every row */
	bool		part_open;		/* a part is being written */
	const PEPColumn *columns;	/* every column of the source */
	PEPRoute   *route;			/* partition_by: rows by folder; else NULL */
	PEPLeafSet *leaf_set;		/* an object store's leaves met by all workers */
	PEPLeaf    *leaf;			/* the folder being written to */
	PEPLeaf   **slots;			/* the folder of each Java part slot, or NULL */
	int			nslots;			/* Java part slots */
	uint64		clock;			/* ticks at each folder written to, for LRU */
	int64		batches;		/* batches written */
	uint64		rows;			/* rows written */
} PEPWorker;

static void
pep_worker_error_context(void *arg)
{
	errcontext("parallel export worker %d", ParallelWorkerNumber);
}

/*
 * Open the staging directory the leader created and keep it open for the
 * worker's life.  The path only finds it: it must be the very directory the
 * leader made (st_dev and st_ino in the shared state), so a parent that
 * others can write cannot redirect the parts by swapping the name.  Java
 * then creates each part as /proc/self/fd/N/part-K.parquet: the kernel
 * resolves that link to the open directory itself, not to any name, so a
 * part lands in this directory even if its name is swapped for a link
 * later, and the last component is created with O_CREAT | O_EXCL
 * (CREATE_NEW) and O_NOFOLLOW.  This keeps the Java side a plain path-based
 * OutputFile, and the directory's own bytes never cross into the JVM.  It
 * costs one path lookup per part, not per write: measured, creating and
 * removing a file through /proc/self/fd/N took 0.10 to 0.15 ms, the same as
 * by its path, within the noise.
 */
static void
pep_worker_open_staging(PEPWorker *w)
{
	const char *staging = w->shared->staging;
	int			fd = open(staging, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	struct stat via;

	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open directory \"%s\": %m", staging)));
	w->staging_fd = fd;
	if (fstat(fd, &st) != 0 ||
		(uint64) st.st_dev != w->shared->staging_dev || (uint64) st.st_ino != w->shared->staging_ino)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("staging directory \"%s\" was replaced during the export", staging),
				 errdetail("It is no longer the directory the exporting backend created.")));
	snprintf(w->staging_via, sizeof(w->staging_via), "/proc/self/fd/%d", fd);
	if (stat(w->staging_via, &via) != 0 || via.st_dev != st.st_dev || via.st_ino != st.st_ino)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("could not reach staging directory \"%s\" through \"%s\"",
						staging, w->staging_via),
				 errhint("An export needs the proc file system mounted at /proc.")));
}

static void
pep_worker_close_part(PEPWorker *w)
{
	uint64		bytes;

	if (pep_fault_strikes(&w->fault, "close_error", w->shared))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("injected fault while closing a part")));
	bytes = pep_sink_close_part(w->sink);
	w->part_open = false;
	if (w->s3 != NULL)
		pep_s3w_part_closed(w->s3, w->part->entry, w->part->rows, bytes);
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
	PEPLeaf    *current = w->leaf;

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
	PEPLeaf    *leaf = w->leaf;
	int			victim = -1;

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
 * folder, reached from the staging descriptor without following links and
 * held open only until Java has created the file in it; for an object store,
 * an upload under the prefix (its name carries the export id).
 */
static void
pep_worker_open_part(PEPWorker *w)
{
	int			folder = w->leaf != NULL ? w->leaf->entry : -1;
	int			entry = pep_ledger_enter(w->ledger, PEP_LEDGER_PART, folder, NULL);
	const char *name = pep_ledger_name(w->ledger, entry);
	char	   *path = NULL;
	char	   *display_path;
	int			fd = -1;

	if (w->leaf != NULL)
		(void) pep_worker_take_slot(w);
	if (w->s3 != NULL)
		pep_s3w_name_part(w->s3, w->ledger, entry, &path, &display_path);
	else if (w->leaf != NULL)
	{
		display_path = psprintf("%s/%s/%s", w->shared->staging,
								pep_name_for_message(w->leaf->path), name);
		fd = pep_ledger_open_folder(w->staging_fd, w->ledger, folder);
		if (fd < 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not open directory \"%s/%s\": %m",
							w->shared->staging, pep_name_for_message(w->leaf->path))));
	}
	else
		display_path = psprintf("%s/%s", w->shared->staging, name);

	if (pep_fault_strikes(&w->fault, "open_error", w->shared))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("injected fault while opening part \"%s\"", display_path)));
	if (fd >= 0)
	{
		pep_sink_open_part(w->sink, psprintf("/proc/self/fd/%d/%s", fd, name), display_path);
		close(fd);
	}
	else if (w->s3 != NULL)
		pep_sink_open_part(w->sink, path, display_path);
	else
		pep_sink_open_part(w->sink, psprintf("%s/%s", w->staging_via, name), display_path);
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

/*
 * Ask the kernel to start writing the current part's dirty pages to disk,
 * without waiting for them, as PostgreSQL's own *_flush_after settings do.
 * Otherwise a part's bytes stay in the page cache until the fsync that
 * closes it (DESIGN.md, "Output protocol"), and a worker then waits for
 * all of them at once, with its CPU idle: about a second for the 800 MB of
 * a 10-million-row export on a disk that writes 750 MB/s.  Started as the
 * part grows, the writing overlaps the encoding and the fsync finds little
 * left.
 *
 * The bytes the previous request covered have been on their way to disk for
 * a whole interval since: the worker waits for any still in flight and
 * drops them from the page cache, as PostgreSQL's bulk writes keep to a ring
 * of buffers.  An export then holds about two intervals of its part in the
 * cache, not the whole output, so a large export does not push the
 * server's cached data out; it runs at the same speed as before
 * (bench/results/writeback.md).
 *
 * The part is reached as Java created it, from the staging descriptor and
 * without following a link.  Only hints: a failure here changes nothing,
 * and the fsync at close reports any write that failed.
 */
static void
pep_worker_start_writeback(PEPWorker *w)
{
	uint64		previous = w->part->written_back;

	/* counted as asked even if it fails, so a failure is not retried every batch */
	w->part->written_back = w->slot->bytes_open;
#ifdef HAVE_SYNC_FILE_RANGE
	{
		int			folder_fd = pep_ledger_open_folder(w->staging_fd, w->ledger,
													   w->leaf != NULL ? w->leaf->entry : -1);
		int			fd;

		if (folder_fd < 0)
			return;
		fd = openat(folder_fd, pep_ledger_name(w->ledger, w->part->entry),
					O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		close(folder_fd);
		if (fd < 0)
			return;
#ifdef USE_POSIX_FADVISE
		if (previous > 0 &&
			sync_file_range(fd, 0, (off_t) previous,
							SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
							SYNC_FILE_RANGE_WAIT_AFTER) == 0)
			(void) posix_fadvise(fd, 0, (off_t) previous, POSIX_FADV_DONTNEED);
#endif
		(void) sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
		close(fd);
	}
#endif
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
	 * A part past file_size_bytes, or past what one object-store upload
	 * holds, is finished; the next batch opens another.
	 */
	w->slot->bytes_open = pep_sink_part_size(w->sink);
	if (w->slot->bytes_open >= w->part_limit)
		pep_worker_close_part(w);
	else if (w->s3 == NULL &&
			 w->slot->bytes_open >= w->part->written_back + PEP_WRITEBACK_AFTER)
		pep_worker_start_writeback(w);

	/*
	 * An object store's open parts hold their upload buffers, which count in
	 * partition_memory too and are freed only by finishing the part: the
	 * sink names the parts to finish (DESIGN.md, "Bounded memory").
	 */
	if (w->s3 != NULL && w->route != NULL)
	{
		int			s;

		while ((s = pep_sink_part_to_finish(w->sink)) >= 0)
			pep_worker_finish_slot(w, s);
	}

	if (w->s3 != NULL && pep_fault_strikes_at(&w->fault, PEP_S3_FAULT(S3_ERROR), w->batches, w->shared))
		pep_s3w_inject_fault(w->s3, w->fault.point);
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
	PEPLeaf   **leaves;
	int			nleaves = pep_route_group(w->route, &leaves);

	for (int l = 0; l < nleaves; l++)
	{
		pep_worker_enter_leaf(w, leaves[l]);
		for (int i = 0; i < leaves[l]->nrows; i++)
		{
			Datum	   *values;
			bool	   *isnull;

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
	bool		full;

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
	PEPShared  *shared = w->shared;
	Relation	parent = table_open(shared->relid, AccessShareLock);
	TupleDesc	parent_desc = RelationGetDescr(parent);

	if (shared->npartition > 0)
		w->route = pep_route_create(shared, w->ledger, w->columns, CreateTupleDescCopy(parent_desc),
									w->staging_fd, w->leaf_set);

	for (int i = 0; i < shared->nleaves; i++)
	{
		Relation	rel = table_open(shared->leaves[i], AccessShareLock);
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
	PEPShared  *shared = w->shared;
	shm_mq	   *mq = (shm_mq *) (queue_area + (Size) ParallelWorkerNumber * PEP_QUEUE_SIZE);
	shm_mq_handle *mqh;
	TupleDesc	desc = CreateTemplateTupleDesc(shared->ncolumns);
	TupleTableSlot *slot;

	for (int c = 0; c < shared->ncolumns; c++)
		TupleDescInitEntry(desc, (AttrNumber) (c + 1), columns[c].name,
						   columns[c].typid, columns[c].typmod, 0);
	slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	if (shared->npartition > 0)
		w->route = pep_route_create(shared, w->ledger, columns, desc, w->staging_fd, w->leaf_set);

	shm_mq_set_receiver(mq, MyProc);
	mqh = shm_mq_attach(mq, seg, NULL);

	for (;;)
	{
		Size		nbytes;
		void	   *data;
		shm_mq_result res = shm_mq_receive(mqh, &nbytes, &data, false);
		Size		off = 0;
		bool		done;

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
 * for an object-store export until the leader began its ledger record.
 */
static void
pep_worker_start_barrier(PEPShared *shared, PEPS3Shared *s3)
{
	SpinLockAcquire(&shared->mutex);
	shared->nready++;
	shared->workers[ParallelWorkerNumber].state = PEP_WORKER_READY;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->cv);

	ConditionVariablePrepareToSleep(&shared->cv);
	for (;;)
	{
		bool		all;

		SpinLockAcquire(&shared->mutex);
		all = shared->nlaunched >= 0 && shared->nready >= shared->nlaunched &&
			(s3 == NULL || s3->ledger_ready);
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
	PEPWorker	w;
	PEPS3Shared *s3;
	PEPColumn  *columns;
	ErrorContextCallback errcallback;
	bool		write_empty;
	PEPColumn  *file_columns;
	int			nfile_columns;

	memset(&w, 0, sizeof(w));
	w.shared = shm_toc_lookup(toc, PARALLEL_KEY_PEP_SHARED, false);
	w.ledger = shm_toc_lookup(toc, PARALLEL_KEY_PEP_LEDGER, false);
	columns = shm_toc_lookup(toc, PARALLEL_KEY_PEP_COLUMNS, false);
	s3 = shm_toc_lookup(toc, PARALLEL_KEY_PEP_S3, true);
	w.leaf_set = shm_toc_lookup(toc, PARALLEL_KEY_PEP_LEAF_SET, true);
	w.slot = &w.shared->workers[ParallelWorkerNumber];
	w.part = &w.only;
	w.staging_fd = -1;
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

	if (s3 == NULL)
		pep_worker_open_staging(&w);
	pep_fault_parse(&w.fault);

	pep_jvm_start(&w.shared->jvm);
	/* First: its client and worker 0's checks get going while the sink is set up. */
	if (s3 != NULL)
	{
		w.s3 = pep_s3w_open(w.shared, s3);
		if (pep_fault_is(&w.fault, PEP_S3_FAULT(S3_SUCCESS_LOST), ParallelWorkerNumber) ||
			pep_fault_is(&w.fault, PEP_S3_FAULT(S3_SUCCESS_DENIED), ParallelWorkerNumber) ||
			pep_fault_is(&w.fault, PEP_S3_FAULT(S3_CONDITIONS_501), ParallelWorkerNumber) ||
			pep_fault_is(&w.fault, PEP_S3_FAULT(S3_DELETE_DENIED), ParallelWorkerNumber) ||
			pep_fault_is(&w.fault, PEP_S3_FAULT(S3_SMALL_UPLOADS), ParallelWorkerNumber))
			pep_s3w_inject_fault(w.s3, w.fault.point);
	}
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
	if (s3 != NULL)
		pep_s3w_attach(w.s3, w.sink);
	w.part_limit = pep_sink_part_size_limit(w.sink);
	if (w.shared->file_size_bytes > 0)
		w.part_limit = Min(w.part_limit, (uint64) w.shared->file_size_bytes);
	if (s3 != NULL)
	{
		/* Worker 0 checks the target before it reports ready: no row is read before. */
		if (ParallelWorkerNumber == 0)
		{
			if (s3->sweep)
				pep_s3w_sweep(w.s3);
			pep_s3w_check_target(w.s3);
		}
	}

	pep_worker_start_barrier(w.shared, s3);

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
	write_empty = (w.shared->nfinished == w.shared->nlaunched && w.shared->rows_total == 0);
	SpinLockRelease(&w.shared->mutex);

	/*
	 * The last worker of an export without rows still publishes the schema;
	 * a partitioned one has no folder to put it in, and writes only
	 * _SUCCESS, as Spark does.
	 */
	if (write_empty && w.shared->npartition == 0)
	{
		pep_worker_open_part(&w);
		pep_worker_close_part(&w);
	}

	SpinLockAcquire(&w.shared->mutex);
	w.slot->state = PEP_WORKER_DONE;
	SpinLockRelease(&w.shared->mutex);
	ConditionVariableBroadcast(&w.shared->cv);

	if (w.s3 != NULL)
		pep_s3w_publish(w.s3, w.ledger, &w.fault);

	error_context_stack = errcallback.previous;
}
