/*-------------------------------------------------------------------------
 *
 * pep_s3export.c
 *	  The leader's side of an export into s3://bucket/prefix.
 *
 * Object stores have no rename, so the local protocol's one rename becomes
 * phases (DESIGN.md, "The export, step by step"): workers write every part
 * as a multipart upload and leave it pending; once all of them finished
 * writing, the leader sets PUBLISH and each worker completes its own
 * uploads; worker 0 then PUTs _SUCCESS, the manifest, last.  Seeing it, the
 * leader passes the commit point (pep_export.c) and sets COMMITTED, which
 * tells the workers not to undo anything when they exit; worker 0 then
 * deletes the parts of an export it replaced.  If it could not delete them
 * all, the record stays (its "previous" manifest names them) for the sweep.
 *
 * Before COMMITTED, a failure anywhere ends in the leader's cleanup, which
 * terminates the workers (pep_export.c); each worker's exit path undoes
 * what it made, worker 0's its _SUCCESS first, and no part that a _SUCCESS
 * which may be up names is deleted before that _SUCCESS is taken back
 * (pep_s3worker.c), so a reader that trusts _SUCCESS never sees it name a
 * missing part.
 *
 * The settings text may hold a secret: it is copied into the DSM here and
 * goes nowhere else.  So does the manifest key (pep_s3seal.c), which worker
 * 0 seals _SUCCESS with.
 *
 * IDENTIFICATION
 *	  extension/src/output/s3/pep_s3export.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"

#include "pep_s3export.h"

/* How often the leader looks at its workers while it waits for a phase. */
#define PEP_S3_WAIT_MS 1000

static const char *
pep_s3_settings_text(const PEPS3Target *target)
{
	return target->settings != NULL ? target->settings : "";
}

/* The chunk: the fixed fields, then the settings text. */
Size
pep_s3_shared_size(const PEPS3Target *target)
{
	return add_size(offsetof(PEPS3Shared, settings), strlen(pep_s3_settings_text(target)) + 1);
}

PEPS3Shared *
pep_s3_shared_init(void *space, const PEPS3Target *target, bool overwrite,
				   const char *ledger_path, bool sweep)
{
	PEPS3Shared *s3 = (PEPS3Shared *) space;
	const char *settings = pep_s3_settings_text(target);
	uint8 id[PEP_S3_EXPORT_ID_LEN / 2];

	memset(s3, 0, offsetof(PEPS3Shared, settings));
	strlcpy(s3->bucket, target->bucket, sizeof(s3->bucket));
	strlcpy(s3->prefix, target->prefix, sizeof(s3->prefix));
	strlcpy(s3->url, target->url, sizeof(s3->url));
	if (!pg_strong_random(id, sizeof(id)))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not generate a random export id")));
	for (int i = 0; i < (int) sizeof(id); i++)
		snprintf(s3->export_id + 2 * i, 3, "%02x", id[i]);
	s3->overwrite = overwrite;
	strlcpy(s3->ledger_path, ledger_path, sizeof(s3->ledger_path));
	s3->sweep = sweep;
	pep_s3_manifest_key(s3->manifest_key);
	s3->ledger_ready = !sweep;
	s3->phase = PEP_S3_WRITING;
	memcpy(s3->settings, settings, strlen(settings) + 1);
	return s3;
}

static void
pep_s3_set_phase(PEPShared *shared, PEPS3Shared *s3, int phase)
{
	SpinLockAcquire(&shared->mutex);
	s3->phase = phase;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->cv);
}

/*
 * Wait, interruptibly, until a worker sets *flag.  A worker's ERROR arrives
 * through CHECK_FOR_INTERRUPTS in the sleep; one that stopped without a
 * word is reported by WaitForParallelWorkersToFinish, or here.
 */
static void
pep_s3_wait_for(PEPShared *shared, ParallelContext *pcxt, const bool *flag, const char *during)
{
	for (;;)
	{
		bool set;

		SpinLockAcquire(&shared->mutex);
		set = *flag;
		SpinLockRelease(&shared->mutex);
		if (set)
			break;
		for (int i = 0; i < pcxt->nworkers_launched; i++)
		{
			pid_t pid;

			if (GetBackgroundWorkerPid(pcxt->worker[i].bgwhandle, &pid) == BGWH_STOPPED)
			{
				WaitForParallelWorkersToFinish(pcxt);
				ereport(ERROR,
						(errcode(ERRCODE_INTERNAL_ERROR),
						 errmsg("parallel export worker %d stopped during %s", i, during)));
			}
		}
		(void) ConditionVariableTimedSleep(&shared->cv, PEP_S3_WAIT_MS, WAIT_EVENT_PARALLEL_FINISH);
	}
	ConditionVariableCancelSleep();
}

/*
 * Wait until worker 0 has swept the dead record the ledger file held; the
 * caller then begins this export's record in it.
 */
void
pep_s3_wait_swept(PEPShared *shared, PEPS3Shared *s3, ParallelContext *pcxt)
{
	pep_s3_wait_for(shared, pcxt, &s3->swept, "the sweep");
}

/* The ledger file holds this export's record: workers may start writing. */
void
pep_s3_ledger_ready(PEPShared *shared, PEPS3Shared *s3)
{
	SpinLockAcquire(&shared->mutex);
	s3->ledger_ready = true;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->cv);
}

/*
 * After the workers are gone: did every worker that opened a session undo
 * all it made?  Then the ledger file's record has nothing left to sweep.
 */
bool
pep_s3_all_undone(PEPShared *shared, PEPS3Shared *s3)
{
	bool all;

	SpinLockAcquire(&shared->mutex);
	all = s3->nundone == s3->nopened;
	SpinLockRelease(&shared->mutex);
	return all;
}

/* Set PUBLISH and wait until worker 0 has written _SUCCESS. */
void
pep_s3_publish(PEPShared *shared, PEPS3Shared *s3, ParallelContext *pcxt, const PEPFault *fault)
{
	pep_s3_set_phase(shared, s3, PEP_S3_PUBLISH);
	pep_s3_wait_for(shared, pcxt, &s3->success_sent, "publication");
	pep_fault_pause(fault, PEP_PAUSE_COMMITTING);
}

/*
 * Past the commit point (interrupts held): tell the workers, and wait for
 * each to exit, so that worker 0 has deleted a replaced export's parts
 * before the call returns.  Waiting for the postmaster's word needs no
 * interrupt processing, unlike WaitForParallelWorkersToFinish.  Returns
 * whether the record may go: false when worker 0 could not delete every
 * replaced part, or stopped before it said so (then its sweep deletes them).
 */
bool
pep_s3_commit(PEPShared *shared, PEPS3Shared *s3, ParallelContext *pcxt)
{
	bool deleted;

	pep_s3_set_phase(shared, s3, PEP_S3_COMMITTED);
	for (int i = 0; i < pcxt->nworkers_launched; i++)
		(void) WaitForBackgroundWorkerShutdown(pcxt->worker[i].bgwhandle);
	SpinLockAcquire(&shared->mutex);
	deleted = s3->replaced_deleted;
	SpinLockRelease(&shared->mutex);
	return !s3->overwrite || deleted;
}
