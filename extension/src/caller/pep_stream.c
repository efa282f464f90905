/*-------------------------------------------------------------------------
 *
 * pep_stream.c
 *	  Run a query source in the leader and stream its rows to the workers.
 *
 * The leader runs the executor; the workers do the expensive part, turning
 * rows into Parquet.  Rows travel as MinimalTuples packed into chunks, each
 * tuple padded to MAXALIGN so a worker can deform it in place, and the
 * chunks go round-robin to the workers' queues.  Values stored out of line
 * are fetched here, in the leader: a worker could not read them from a
 * temporary table's TOAST, whose buffers are the leader's alone.
 *
 * Everything made for one row (the tuple, fetched values, their array)
 * lives in a memory context reset after the row, as printtup does, so the
 * leader's memory stays bounded whatever the source's size.
 *
 * A send that finds its worker gone first lets the worker's own error
 * surface (it was queued before the worker detached), and otherwise
 * reports that the worker exited.
 *
 * IDENTIFICATION
 *	  extension/src/caller/pep_stream.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/htup_details.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "tcop/dest.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "pep_compat.h"
#include "pep_progress.h"
#include "pep_stream.h"

/* Bytes of tuples gathered before a chunk goes to a worker. */
#define PEP_CHUNK_SIZE (64 * 1024)
/* Bytes sent between two progress reports: every few megabytes is plenty. */
#define PEP_REPORT_BYTES (2 * 1024 * 1024)

typedef struct PEPStreamReceiver
{
	DestReceiver pub;		   /* must be first */
	shm_mq_handle **queues;	   /* one per launched worker */
	int nqueues;			   /* entries in queues */
	int next;				   /* queue the next chunk goes to */
	char *chunk;			   /* chunk being filled */
	Size used;				   /* bytes of chunk in use */
	uint64 rows;			   /* rows sent */
	Size unreported;		   /* bytes sent since the last progress report */
	MemoryContext row_context; /* what one row needs, reset after it */
	PEPShared *shared;		   /* the workers' reports, for progress */
} PEPStreamReceiver;

static void
pep_stream_send(PEPStreamReceiver *r, const void *data, Size len)
{
	int worker = r->next;
	shm_mq_result res = shm_mq_send(r->queues[worker], len, data, false, true);

	if (res == SHM_MQ_DETACHED)
	{
		CHECK_FOR_INTERRUPTS();
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("parallel export worker %d exited before its input ended", worker)));
	}
	r->next = (r->next + 1) % r->nqueues;

	/* A tuple bigger than a chunk goes alone, and counts as much. */
	r->unreported += len;
	if (r->unreported >= PEP_REPORT_BYTES)
	{
		pep_progress_report(r->shared, r->nqueues, NULL);
		r->unreported = 0;
	}
}

static void
pep_stream_flush(PEPStreamReceiver *r)
{
	if (r->used == 0)
		return;
	pep_stream_send(r, r->chunk, r->used);
	r->used = 0;
}

/* Form a tuple whose out-of-line values are fetched into it. */
static MinimalTuple
pep_stream_inline(TupleTableSlot *slot)
{
	TupleDesc desc = slot->tts_tupleDescriptor;
	Datum *values = palloc(sizeof(Datum) * desc->natts);

	slot_getallattrs(slot);
	for (int i = 0; i < desc->natts; i++)
	{
		values[i] = slot->tts_values[i];
		if (!slot->tts_isnull[i] && TupleDescAttr(desc, i)->attlen == -1 &&
			VARATT_IS_EXTERNAL(DatumGetPointer(values[i])))
			values[i] = PointerGetDatum(detoast_external_attr((struct varlena *)
																  DatumGetPointer(values[i])));
	}
	return pep_form_minimal_tuple(desc, values, slot->tts_isnull);
}

static bool
pep_stream_receive(TupleTableSlot *slot, DestReceiver *self)
{
	PEPStreamReceiver *r = (PEPStreamReceiver *) self;
	MemoryContext oldcontext = MemoryContextSwitchTo(r->row_context);
	bool should_free; /* a copy, if made, goes with the row context */
	MinimalTuple tup = ExecFetchSlotMinimalTuple(slot, &should_free);
	Size len;

	if (tup->t_infomask & HEAP_HASEXTERNAL)
		tup = pep_stream_inline(slot);

	len = MAXALIGN(tup->t_len);
	if (r->used + len > PEP_CHUNK_SIZE)
		pep_stream_flush(r);
	if (len > PEP_CHUNK_SIZE)
		pep_stream_send(r, tup, tup->t_len);
	else
	{
		memcpy(r->chunk + r->used, tup, tup->t_len);
		r->used += len;
	}
	r->rows++;

	MemoryContextSwitchTo(oldcontext);
	MemoryContextReset(r->row_context);
	CHECK_FOR_INTERRUPTS();
	return true;
}

static void
pep_stream_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

static void
pep_stream_shutdown(DestReceiver *self)
{
}

static void
pep_stream_destroy(DestReceiver *self)
{
}

uint64
pep_stream_run(PlannedStmt *plan, const char *query, shm_mq_handle **queues, int nqueues,
			   PEPShared *shared)
{
	PEPStreamReceiver *r = palloc0(sizeof(PEPStreamReceiver));
	QueryDesc *qd;

	r->pub.receiveSlot = pep_stream_receive;
	r->pub.rStartup = pep_stream_startup;
	r->pub.rShutdown = pep_stream_shutdown;
	r->pub.rDestroy = pep_stream_destroy;
	r->pub.mydest = DestNone;
	r->queues = queues;
	r->nqueues = nqueues;
	r->shared = shared;
	/* palloc'd memory is MAXALIGNed, so are the tuples packed into it */
	r->chunk = palloc(PEP_CHUNK_SIZE);
	r->row_context = AllocSetContextCreate(CurrentMemoryContext, "parallel export row",
										   ALLOCSET_DEFAULT_SIZES);

	qd = CreateQueryDesc(plan, query, GetActiveSnapshot(), InvalidSnapshot,
						 &r->pub, NULL, NULL, 0);
	ExecutorStart(qd, 0);
#if PG_VERSION_NUM >= 180000
	ExecutorRun(qd, ForwardScanDirection, 0);
#else
	ExecutorRun(qd, ForwardScanDirection, 0, true);
#endif
	ExecutorFinish(qd);
	ExecutorEnd(qd);
	FreeQueryDesc(qd);

	pep_stream_flush(r);
	MemoryContextDelete(r->row_context);
	return r->rows;
}
