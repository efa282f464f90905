/*-------------------------------------------------------------------------
 *
 * pep_fault.c
 *	  Deterministic fault injection for the failure tests.
 *
 * The superuser-only setting parallel_export_parquet.fault_injection names
 * one point where an export fails or pauses, so that every failure test is
 * driven by an event instead of a timer.  Its forms:
 *
 *	worker_error:K:N	worker K raises ERROR after writing N batches
 *	java_error:K:N		worker K's Java writer throws on batch N+1
 *	hang:K:N			worker K waits for cancellation after N batches
 *	open_error:K		worker K raises ERROR while opening its first part
 *	close_error:K		worker K raises ERROR while closing its part
 *	publish_error		the leader raises ERROR during publication
 *	s3_error:K:N		after N batches, the object store answers worker K's
 *						uploads with HTTP 503 until its retries give up
 *	s3_success_lost		the object store stores worker 0's _SUCCESS but its
 *						answer is lost, and worker 0 reaches it no more, so
 *						its exit path cannot take _SUCCESS back
 *	s3_success_denied:K	every request of worker K for a _SUCCESS key fails
 *						before it is sent (an export's worker 0, or the
 *						sweep function's worker), so that it can neither
 *						write nor take back _SUCCESS
 *	s3_conditions_501	the object store answers worker 0's conditional
 *						_SUCCESS write with 501 Not Implemented
 *	s3_delete_denied:K	every DeleteObject of worker K (an export's worker
 *						0, or the sweep function's worker) of a key other
 *						than _SUCCESS fails before it is sent, so that the
 *						parts an overwrite replaced stay
 *	s3_small_uploads:K	not a failure: worker K's uploads hold 3 parts of
 *						5 MiB, so its parts end at 13.5 MiB, as they end at
 *						70.3 GiB with S3's 10,000 parts of 8 MiB
 *	pause:PHASE			the leader waits in PHASE: starting (staging created,
 *						no worker yet), publishing (_SUCCESS staged, before
 *						the rename; object storage: every part written and
 *						pending, before PUBLISH), committing (object storage
 *						only: _SUCCESS written, before the commit point) or
 *						published (after the commit point)
 *	pause:sending		object storage: worker 0 waits, every worker's parts
 *						complete, just before it decides to write _SUCCESS
 *	pause:committed		object storage, overwrite: worker 0 waits at each
 *	pause:superseding	step of the tail after the commit: the caller
 *	pause:superseded	recorded "committed" (no "superseded" line yet),
 *						every replaced part recorded "superseded" (none
 *						deleted), every replaced part deleted (before the
 *						worker exits and the caller removes the record)
 *
 * Worker and batches default to 0.  The check hook refuses any other value
 * at SET, so a typo cannot silently disable a test's fault.
 *
 * The points a worker meets while it writes (worker_error, java_error,
 * hang, s3_error, open_error, close_error) also take the worker "any": the
 * fault strikes the first worker to reach the point (at batch N), and only
 * that one (PEPShared.fault_struck).  How a parallel scan shares its blocks
 * between workers depends on how the kernel runs them, so a fault for
 * worker K may find K with fewer than N batches, or none, and never strike;
 * a test of a table source with several workers names "any", and learns
 * which worker it was from the error's context or pg_stat_activity.  A
 * query source's rows go round-robin to the workers (pep_stream.c), so
 * there each worker's share is certain.  The names of
 * the object-store points are Java's (s3.S3FaultPoints, pep_contract.h),
 * which hands them to the worker's session.
 *
 * A paused leader says so in pg_stat_activity (its query text becomes the
 * pause's mark, wait event Extension), so a harness waits for that row and
 * then acts.  Before the commit point the pause honours a cancel or a
 * terminate at once, as any wait of the export does.  After it (published)
 * interrupts are held, as they are for the rest of the export there: the
 * pause ends when an interrupt arrives, and the export then finishes
 * according to its commit-point rules (pep_export.c).  Worker 0's sending
 * pause holds interrupts too, so that the leader's terminate cannot end it
 * before another worker's exit path has run: only a cancel sent to worker 0
 * itself ends it, and is spent on it; a terminate that came meanwhile
 * takes effect at worker 0's next interrupt check.  The pauses of the
 * overwrite's tail (committed, superseding, superseded) are worker 0's too,
 * after the commit, with interrupts allowed: a cancel or terminate of
 * worker 0 ends the worker there, as a SIGKILL does, and the record, which
 * names the replaced parts, stays for the sweep (pep_s3worker.c).
 *
 * A second setting, parallel_export_parquet.starve_worker = K, makes worker
 * K begin its share of a table's scan only after every other worker has
 * finished its own (or stopped at the hang fault), so that it gets no block,
 * as a worker starved of CPU might.  tools/split_audit.sh runs the suites
 * so, to find the checks that count on each worker getting rows of a table.
 *
 * IDENTIFICATION
 *	  extension/src/testhooks/pep_fault.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "access/parallel.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/backend_status.h"

#include "pep_contract.h"
#include "pep_fault.h"
#include "pep_guc.h"
#include "pep_shared.h"

static const char *const pep_fault_points[] = {
	"worker_error", "java_error", "hang", "open_error", "close_error", "publish_error",
	PEP_S3_FAULT(S3_ERROR), PEP_S3_FAULT(S3_SUCCESS_LOST), PEP_S3_FAULT(S3_SUCCESS_DENIED),
	PEP_S3_FAULT(S3_CONDITIONS_501), PEP_S3_FAULT(S3_SMALL_UPLOADS),
	PEP_S3_FAULT(S3_DELETE_DENIED), "pause"
};

/* Indexed by PEPPause. */
static const char *const pep_pause_names[] = {
	"", "starting", "publishing", "published", "committing", "sending", "committed",
	"superseding", "superseded"
};

/* A non-negative int, the whole token; false otherwise. */
static bool
pep_fault_number(const char *token, int *result)
{
	char *end;
	long value;

	errno = 0;
	value = strtol(token, &end, 10);
	if (end == token || *end != '\0' || errno != 0 || value < 0 || value > INT_MAX)
		return false;
	*result = (int) value;
	return true;
}

/* Whether the point is one a worker meets while it writes, and so takes the worker any. */
static bool
pep_fault_any_worker_point(const char *point)
{
	return strcmp(point, "worker_error") == 0 || strcmp(point, "java_error") == 0 ||
		   strcmp(point, "hang") == 0 || strcmp(point, PEP_S3_FAULT(S3_ERROR)) == 0 ||
		   strcmp(point, "open_error") == 0 || strcmp(point, "close_error") == 0;
}

/*
 * Parse a value of the setting into fault.  Returns false with a sentence
 * for the error detail if the value is malformed.
 */
static bool
pep_fault_read(const char *value, PEPFault *fault, const char **problem)
{
	char *copy;
	char *tokens[4] = { NULL };
	char *save = NULL;
	int ntokens = 0;
	bool known = false;

	memset(fault, 0, sizeof(PEPFault));
	if (value == NULL || value[0] == '\0')
		return true;

	copy = pstrdup(value);
	for (char *t = strtok_r(copy, ":", &save); t != NULL; t = strtok_r(NULL, ":", &save))
	{
		if (ntokens == lengthof(tokens) - 1)
		{
			*problem = "The value has more than three fields.";
			return false;
		}
		tokens[ntokens++] = t;
	}

	for (int i = 0; ntokens > 0 && i < lengthof(pep_fault_points); i++)
		if (strcmp(tokens[0], pep_fault_points[i]) == 0)
			known = true;
	if (!known)
	{
		*problem = "The point is one of worker_error, java_error, hang, open_error, close_error, publish_error, " PEP_S3_FAULT(S3_ERROR) ", " PEP_S3_FAULT(S3_SUCCESS_LOST) ", " PEP_S3_FAULT(S3_SUCCESS_DENIED) ", " PEP_S3_FAULT(S3_CONDITIONS_501) ", " PEP_S3_FAULT(S3_SMALL_UPLOADS) ", " PEP_S3_FAULT(S3_DELETE_DENIED) ", pause.";
		return false;
	}
	strlcpy(fault->point, tokens[0], sizeof(fault->point));

	if (strcmp(fault->point, "pause") == 0)
	{
		for (int p = PEP_PAUSE_STARTING; ntokens == 2 && p < lengthof(pep_pause_names); p++)
			if (strcmp(tokens[1], pep_pause_names[p]) == 0)
				fault->pause = (PEPPause) p;
		if (fault->pause == PEP_PAUSE_NONE)
		{
			*problem = "A pause names one phase: pause:starting, pause:publishing, pause:committing, pause:published, pause:sending, pause:committed, pause:superseding or pause:superseded.";
			return false;
		}
		return true;
	}

	if (tokens[1] && strcmp(tokens[1], "any") == 0)
	{
		if (!pep_fault_any_worker_point(fault->point))
		{
			*problem = "Only worker_error, java_error, hang, open_error, close_error and " PEP_S3_FAULT(S3_ERROR) " take the worker any.";
			return false;
		}
		fault->worker = PEP_FAULT_ANY_WORKER;
	}
	else if (tokens[1] && !pep_fault_number(tokens[1], &fault->worker))
	{
		*problem = "The worker is a non-negative integer or any.";
		return false;
	}
	if (tokens[2] && !pep_fault_number(tokens[2], &fault->batches))
	{
		*problem = "The number of batches is a non-negative integer.";
		return false;
	}
	return true;
}

/* GUC check hook: a malformed value is an error at SET. */
bool
pep_fault_check_hook(char **newval, void **extra, GucSource source)
{
	PEPFault fault;
	const char *problem = NULL;

	if (pep_fault_read(*newval, &fault, &problem))
		return true;
	GUC_check_errdetail("%s", problem);
	GUC_check_errhint("The form is point[:worker[:batches]] or pause:phase; the worker is a number or any.");
	return false;
}

/* The current setting, which the check hook has accepted. */
void
pep_fault_parse(PEPFault *fault)
{
	const char *problem = NULL;

	if (!pep_fault_read(pep_fault_injection, fault, &problem))
		elog(ERROR, "invalid fault injection \"%s\": %s", pep_fault_injection, problem);
}

bool
pep_fault_is(const PEPFault *fault, const char *point, int worker)
{
	return strcmp(fault->point, point) == 0 && fault->worker == worker;
}

/*
 * Whether a point a worker meets while it writes strikes this worker now.
 * A fault for any worker strikes the first to ask, once per export.
 */
bool
pep_fault_strikes(const PEPFault *fault, const char *point, PEPShared *shared)
{
	bool first;

	if (strcmp(fault->point, point) != 0)
		return false;
	if (fault->worker != PEP_FAULT_ANY_WORKER)
		return fault->worker == ParallelWorkerNumber;
	SpinLockAcquire(&shared->mutex);
	first = !shared->fault_struck;
	shared->fault_struck = true;
	SpinLockRelease(&shared->mutex);
	return first;
}

/* The same for a point counted in batches, this worker having written batches of them. */
bool
pep_fault_strikes_at(const PEPFault *fault, const char *point, int64 batches, PEPShared *shared)
{
	return batches == fault->batches && pep_fault_strikes(fault, point, shared);
}

/*
 * Pause here if the setting asks for this phase.  With interrupts allowed
 * the wait ends only by a cancel or a terminate, which CHECK_FOR_INTERRUPTS
 * raises; with interrupts held it ends when one is pending, and the caller
 * decides what it means.  Worker 0's sending pause holds them itself and
 * ends by a cancel only (see the file header).
 */
void
pep_fault_pause(const PEPFault *fault, PEPPause pause)
{
	bool sending = (pause == PEP_PAUSE_SENDING);
	char *activity;

	if (pause == PEP_PAUSE_NONE || fault->pause != pause)
		return;

	activity = pstrdup(pgstat_get_backend_current_activity(MyProcPid, false));
	pgstat_report_activity(STATE_RUNNING,
						   psprintf("parallel_export_parquet fault injection: pause %s",
									pep_pause_names[pause]));
	if (sending)
		HOLD_INTERRUPTS();
	for (;;)
	{
		if (INTERRUPTS_CAN_BE_PROCESSED())
			CHECK_FOR_INTERRUPTS();
		else if (QueryCancelPending || (ProcDiePending && !sending))
			break;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH, -1L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
	if (sending)
	{
		/* This loop reset the latch: a terminate it held must wake the next wait. */
		QueryCancelPending = false;
		RESUME_INTERRUPTS();
		SetLatch(MyLatch);
	}
	pgstat_report_activity(STATE_RUNNING, activity);
}

/*
 * This worker scans no more of the table (its share is done, or it is held
 * by the hang fault): count it in PEPShared.nscanned for pep_fault_starve.
 */
void
pep_fault_scan_ended(PEPShared *shared)
{
	SpinLockAcquire(&shared->mutex);
	shared->nscanned++;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->cv);
}

/*
 * Hold this worker, if starve_worker names it, until every other launched
 * worker scans no more of the table (PEPShared.nscanned).
 * Only table scans are held: a query's rows are dealt to the workers in
 * turn, and the leader would wait on this worker's queue.
 */
void
pep_fault_starve(PEPShared *shared)
{
	if (pep_starve_worker != ParallelWorkerNumber)
		return;
	ConditionVariablePrepareToSleep(&shared->cv);
	for (;;)
	{
		bool others_done;

		SpinLockAcquire(&shared->mutex);
		others_done = shared->nscanned >= shared->nlaunched - 1;
		SpinLockRelease(&shared->mutex);
		if (others_done)
			break;
		ConditionVariableSleep(&shared->cv, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
}
