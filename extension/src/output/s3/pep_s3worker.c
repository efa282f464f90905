/*-------------------------------------------------------------------------
 *
 * pep_s3worker.c
 *	  A worker's side of an export into s3://bucket/prefix: its JNI calls
 *	  into org.parallelexport.parquet.s3.S3Export, and the phases it waits for.
 *
 * The worker opens its S3Export right after its JVM, before its sink, with
 * PostgreSQL's signals blocked (pep_jni.h), because the session
 * starts every thread it will ever use there and threads inherit the signal
 * mask (DESIGN.md, "Who calls S3").  The session builds its client on its
 * own threads and worker 0 sends its checks of the target at once, so both
 * travel while the worker sets up its sink.  The export is then attached to
 * the sink, so each part the sink opens is a multipart upload under the
 * prefix; closing the part leaves the upload pending.  Worker 0 waits for
 * the checks' answers before it reports ready, so no worker reads a row of
 * an export whose target is refused.  After writing, each worker waits for
 * PUBLISH, completes its own uploads, and worker 0 writes _SUCCESS last once
 * all have; then every worker waits for COMMITTED.
 *
 * The exit path: opening the export registers a before_shmem_exit
 * callback, which runs on the FATAL that the leader's terminate turns into
 * and after an ERROR, while the JVM is still up.  Unless the worker saw
 * COMMITTED it undoes what this worker made (S3Export.undo: _SUCCESS
 * first, then the uploads and objects, with short timeouts) and warns with
 * what may be left, and counts itself undone in the DSM when nothing is,
 * so the leader knows whether the ledger file's record can go.  A worker
 * that dies without it (SIGKILL, a crash) leaves that to the sweep of the
 * record: every step is in the ledger file before it is taken (S3Export).
 * Worker 0 sweeps a dead export's record before it checks the target.
 *
 * IDENTIFICATION
 *	  extension/src/output/s3/pep_s3worker.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "mb/pg_wchar.h"
#include "pgstat.h"
#include "storage/ipc.h"
#include "utils/memutils.h"

#include "pep_jni.h"
#include "pep_jni_methods.h"
#include "pep_manifest.h"
#include "pep_output.h"
#include "pep_partition.h"
#include "pep_s3export.h"
#include "pep_s3ledger.h"
#include "pep_sink.h"

struct PEPS3Worker
{
	PEPShared *shared; /* the export's shared state */
	PEPS3Shared *s3;   /* its object-store part */
	jobject sink;	   /* the worker's BatchSink */
	jobject export;	   /* global ref to the S3Export */
};

/* Set once the worker saw COMMITTED: from then on nothing is undone. */
static bool pep_s3w_committed = false;

/*
 * S3Export's methods, each with its descriptor and its one typed caller
 * (pep_jni.h).  The no-argument ones that return a String or nothing share
 * pep_s3w_call.
 */
static PEPJavaMethod pep_s3w_open_m = PEP_JNI_S3EXPORT_OPEN;
static PEPJavaMethod pep_s3w_attach_m = PEP_JNI_S3EXPORT_ATTACH;
static PEPJavaMethod pep_s3w_start_sweep_m = PEP_JNI_S3EXPORT_START_SWEEP;
static PEPJavaMethod pep_s3w_sweep_step_m = PEP_JNI_S3EXPORT_SWEEP_STEP;
static PEPJavaMethod pep_s3w_part_closed_m = PEP_JNI_S3EXPORT_PART_CLOSED;
static PEPJavaMethod pep_s3w_start_checks_m = PEP_JNI_S3EXPORT_START_CHECKS;
static PEPJavaMethod pep_s3w_probe_m = PEP_JNI_S3EXPORT_PROBE;
static PEPJavaMethod pep_s3w_first_key_m = PEP_JNI_S3EXPORT_FIRST_KEY;
static PEPJavaMethod pep_s3w_previous_problem_m = PEP_JNI_S3EXPORT_PREVIOUS_EXPORT_PROBLEM;
static PEPJavaMethod pep_s3w_complete_all_m = PEP_JNI_S3EXPORT_COMPLETE_ALL;
static PEPJavaMethod pep_s3w_write_success_m = PEP_JNI_S3EXPORT_WRITE_SUCCESS;
static PEPJavaMethod pep_s3w_seal_with_m = PEP_JNI_S3EXPORT_SEAL_WITH;
static PEPJavaMethod pep_s3w_supersede_m = PEP_JNI_S3EXPORT_SUPERSEDE;
static PEPJavaMethod pep_s3w_delete_superseded_m = PEP_JNI_S3EXPORT_DELETE_SUPERSEDED;
static PEPJavaMethod pep_s3w_inject_fault_m = PEP_JNI_S3EXPORT_INJECT_FAULT;
static PEPJavaMethod pep_s3w_undo_m = PEP_JNI_S3EXPORT_UNDO;

/*
 * All of them, resolved when the session opens: a method missing from the
 * jar then fails every object-store export at its start, not only the one
 * that reaches a rare path (a sweep, an undo) and not in an exit callback,
 * which cannot raise the error.  The count comes from JniMethods.java.
 */
static PEPJavaMethod *const pep_s3w_methods[] = {
	&pep_s3w_open_m,
	&pep_s3w_attach_m,
	&pep_s3w_start_sweep_m,
	&pep_s3w_sweep_step_m,
	&pep_s3w_part_closed_m,
	&pep_s3w_start_checks_m,
	&pep_s3w_probe_m,
	&pep_s3w_first_key_m,
	&pep_s3w_previous_problem_m,
	&pep_s3w_complete_all_m,
	&pep_s3w_write_success_m,
	&pep_s3w_seal_with_m,
	&pep_s3w_supersede_m,
	&pep_s3w_delete_superseded_m,
	&pep_s3w_inject_fault_m,
	&pep_s3w_undo_m,
};
StaticAssertDecl(lengthof(pep_s3w_methods) == PEP_JNI_S3EXPORT_METHODS,
				 "pep_s3w_methods must list every S3Export method in JniMethods.java");

static jobject
pep_s3w_java_open(jstring settings, jstring bucket, jstring prefix, jstring export_id,
				  jstring ledger_path, jstring old_charset, const char *what)
{
	return pep_jni_call_object(&pep_s3w_open_m, NULL, what, settings, bucket, prefix, export_id,
							   ledger_path, old_charset);
}

static void
pep_s3w_java_attach(jobject export, jobject sink)
{
	pep_jni_call_void(&pep_s3w_attach_m, export,
					  "could not attach the object store to the parquet writer", sink);
}

static bool
pep_s3w_java_sweep_step(jobject export, const char *what)
{
	return pep_jni_call_boolean(&pep_s3w_sweep_step_m, export, what);
}

static void
pep_s3w_java_write_success(jobject export, jobject sink, const PEPManifestParts *parts,
						   const char *what)
{
	pep_jni_call_void(&pep_s3w_write_success_m, export, what, sink, parts->names, parts->rows,
					  parts->bytes, parts->extension, parts->postgres);
}

static void
pep_s3w_java_seal_with(jobject export, jstring hex_key)
{
	pep_jni_call_void(&pep_s3w_seal_with_m, export, "could not use the manifest key", hex_key);
}

static void
pep_s3w_java_inject_fault(jobject export, jstring point)
{
	pep_jni_call_void(&pep_s3w_inject_fault_m, export, "could not inject a fault", point);
}

/* Call a no-argument method of the export that returns a String or nothing. */
static char *
pep_s3w_call(PEPS3Worker *sw, PEPJavaMethod *method, const char *what)
{
	if (strcmp(method->descriptor, "()V") == 0)
	{
		pep_jni_call_void(method, sw->export, what);
		return NULL;
	}
	return pep_jni_cstring((jstring) pep_jni_call_object(method, sw->export, what));
}

/*
 * before_shmem_exit callback: undo what this worker made unless the export
 * committed.  It runs during proc_exit, so it reports with WARNING only and
 * never lets a Java exception escape as an ERROR.
 *
 * No part that a _SUCCESS which may be up names is deleted before that
 * _SUCCESS is known taken back.  Under the mutex, with worker 0's decision
 * to send it (pep_s3w_write_success), a worker says it is undoing and learns
 * whether worker 0 began sending _SUCCESS: if it did not, it never will, and
 * the worker deletes its completed parts itself; if it did, the manifest
 * names them all, and the worker leaves them to worker 0, whose exit path
 * deletes every part it named once _SUCCESS is taken back, and none when it
 * cannot be (then worker 0 does not count itself undone, and the record
 * stays for the sweep, which takes _SUCCESS back first).  So the order holds
 * however the workers exit: one by one as the leader terminates them, all at
 * once at a shutdown, or one on its own.
 */
static void
pep_s3w_exit(int code, Datum arg)
{
	PEPS3Worker *sw = (PEPS3Worker *) DatumGetPointer(arg);
	jobject left;
	bool failed;
	bool success_may_name_parts;

	if (pep_s3w_committed)
		return;
	SpinLockAcquire(&sw->shared->mutex);
	sw->s3->undoing = true;
	success_may_name_parts = sw->s3->success_begun && ParallelWorkerNumber != 0;
	SpinLockRelease(&sw->shared->mutex);
	left = pep_jni_call_object_noerror(&pep_s3w_undo_m, sw->export, &failed,
									   (jboolean) success_may_name_parts);
	if (!failed && left == NULL)
	{
		SpinLockAcquire(&sw->shared->mutex);
		sw->s3->nundone++;
		SpinLockRelease(&sw->shared->mutex);
	}
	else if (failed)
		ereport(WARNING,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not undo the export into \"%s\"", sw->s3->url),
				 errdetail("The worker's Java code failed while it cleaned up."),
				 errhint("Call parallel_export_parquet_sweep('%s') to remove what is left.",
						 sw->s3->url)));
	else
		ereport(WARNING,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("could not undo all of the export into \"%s\"", sw->s3->url),
				 errdetail("%s", pep_jni_cstring((jstring) left)),
				 errhint("Call parallel_export_parquet_sweep('%s') to remove what is left.",
						 sw->s3->url)));
}

PEPS3Worker *
pep_s3w_open(PEPShared *shared, PEPS3Shared *s3)
{
	PEPS3Worker *sw = MemoryContextAllocZero(TopMemoryContext, sizeof(PEPS3Worker));
	jstring settings;

	sw->shared = shared;
	sw->s3 = s3;
	for (int i = 0; i < lengthof(pep_s3w_methods); i++)
		pep_jni_resolve(pep_s3w_methods[i]);

	settings = pep_jvm_string(s3->settings);
	sw->export = pep_jni_global(
		pep_s3w_java_open(settings, pep_jvm_string(s3->bucket), pep_jvm_string_utf8(s3->prefix),
						  pep_jvm_string(s3->export_id), pep_jvm_string(s3->ledger_path),
						  pep_jvm_string(pep_s3ledger_old_charset()),
						  psprintf("could not set up the object-store client for \"%s\"", s3->url)));
	pep_jni_delete_local(settings);

	/* From here on every failure undoes what this worker made. */
	before_shmem_exit(pep_s3w_exit, PointerGetDatum(sw));
	SpinLockAcquire(&shared->mutex);
	s3->nopened++;
	SpinLockRelease(&shared->mutex);

	/* Worker 0 seals _SUCCESS and checks the one an overwrite replaces (pep_s3seal.c). */
	if (ParallelWorkerNumber == 0)
	{
		jstring key = pep_jvm_string(s3->manifest_key);

		pep_s3w_java_seal_with(sw->export, key);
		pep_jni_delete_local(key);
	}

	/* A dead record is swept first: it may hold objects under the prefix. */
	if (ParallelWorkerNumber == 0 && !s3->sweep)
		(void) pep_s3w_call(sw, &pep_s3w_start_checks_m,
							psprintf("could not check \"%s\"", s3->url));
	return sw;
}

/* From now on every part the sink opens is an upload under the prefix. */
void
pep_s3w_attach(PEPS3Worker *sw, PEPSink *sink)
{
	sw->sink = pep_sink_object(sink);
	pep_s3w_java_attach(sw->export, sw->sink);
}

/*
 * Worker 0, first, when the ledger file held a dead export's record: undo
 * what it lists, a step at a time with interrupts checked in between, and
 * tell the leader, which then begins this export's record in the file.
 */
void
pep_s3w_sweep(PEPS3Worker *sw)
{
	const char *what = psprintf("could not sweep what an earlier export into \"%s\" left",
								sw->s3->url);
	bool more;

	(void) pep_s3w_call(sw, &pep_s3w_start_sweep_m, what);
	do
	{
		CHECK_FOR_INTERRUPTS();
		more = pep_s3w_java_sweep_step(sw->export, what);
	} while (more);
	ereport(LOG,
			(errmsg("swept what an export into \"%s\" that did not finish left behind",
					sw->s3->url)));
	SpinLockAcquire(&sw->shared->mutex);
	sw->s3->swept = true;
	SpinLockRelease(&sw->shared->mutex);
	ConditionVariableBroadcast(&sw->shared->cv);
}

/*
 * Worker 0, before any worker reads a row: the bucket is reachable with
 * these credentials, and the prefix is empty or, with overwrite, holds
 * exactly a previous export of ours (DESIGN.md, "The export, step by step").
 */
void
pep_s3w_check_target(PEPS3Worker *sw)
{
	PEPS3Shared *s3 = sw->s3;
	char *first;
	char *problem;

	(void) pep_s3w_call(sw, &pep_s3w_probe_m,
						psprintf("could not reach bucket \"%s\" of \"%s\"", s3->bucket, s3->url));
	first = pep_s3w_call(sw, &pep_s3w_first_key_m,
						 psprintf("could not list \"%s\"", s3->url));
	if (first == NULL)
		return;
	if (!s3->overwrite)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("\"%s\" is not empty", s3->url),
				 errdetail("It holds object \"%s\".", first),
				 errhint("Export into an empty prefix, or pass overwrite => true to replace a previous export.")));
	problem = pep_s3w_call(sw, &pep_s3w_previous_problem_m,
						   psprintf("could not read the previous export in \"%s\"", s3->url));
	if (problem != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("\"%s\" does not hold only a previous export", s3->url),
				 errdetail("%s", problem),
				 errhint("Only a prefix that holds exactly an earlier complete export of this server, its manifest sealed with this server's key, is overwritten.  Otherwise check what the prefix holds and delete it by hand, or export into another prefix.")));
}

/*
 * Name the part of a fresh ledger entry part-NNNNN-EXPORTID.parquet, so
 * that it cannot collide with the export it may replace; the entry is this
 * worker's.  key is what the sink is given (the name under the prefix,
 * below its partition folders, UTF-8 as the folders' names are), display
 * what messages show.  A partition
 * path can make the key longer than S3 allows: that is an error naming it.
 */
void
pep_s3w_name_part(PEPS3Worker *sw, PEPLedger *ledger, int entry, char **key, char **display)
{
	char *name = (char *) pep_ledger_name(ledger, entry);
	size_t bytes;

	snprintf(name, PEP_LEDGER_NAME_LEN, "part-%05d-%s.parquet", entry, sw->s3->export_id);
	/* Its partition folders are ledger entries too, never created as anything. */
	*key = pep_ledger_relpath(ledger, entry);
	*display = psprintf("%s%s", sw->s3->url, pep_name_for_message(*key));
	bytes = strlen(sw->s3->prefix) + strlen(*key);
	if (bytes > PEP_S3_MAX_KEY_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("object key \"%s\" is too long", *display),
				 errdetail("It takes %zu bytes; an object key may take %d.",
						   bytes, PEP_S3_MAX_KEY_BYTES),
				 errhint("Use a shorter prefix, or partition by columns with shorter values.")));
}

/* The sink closed the part: its upload is pending until PUBLISH. */
void
pep_s3w_part_closed(PEPS3Worker *sw)
{
	(void) pep_s3w_call(sw, &pep_s3w_part_closed_m, "could not hand over a finished part");
}

/* Fault injection: the object-store fault of point on this worker's requests from now on. */
void
pep_s3w_inject_fault(PEPS3Worker *sw, const char *point)
{
	jstring jpoint = pep_jvm_string(point);

	pep_s3w_java_inject_fault(sw->export, jpoint);
	pep_jni_delete_local(jpoint);
}

/* Sleep on the export's condition variable until the leader sets phase. */
static void
pep_s3w_wait_phase(PEPS3Worker *sw, int phase)
{
	PEPShared *shared = sw->shared;

	ConditionVariablePrepareToSleep(&shared->cv);
	for (;;)
	{
		bool reached;

		SpinLockAcquire(&shared->mutex);
		reached = sw->s3->phase >= phase;
		SpinLockRelease(&shared->mutex);
		if (reached)
			break;
		ConditionVariableSleep(&shared->cv, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
}

/*
 * Worker 0: PUT _SUCCESS with the manifest of every finished part, by its
 * key under the prefix.  The sending pause (pep_fault.c) holds it just
 * before its decision, so that a test can have another worker undoing by
 * then.
 */
static void
pep_s3w_write_success(PEPS3Worker *sw, PEPLedger *ledger, const PEPFault *fault)
{
	PEPS3Shared *s3 = sw->s3;
	PEPManifestParts parts;
	const char *what;
	bool undoing;

	pep_manifest_parts(ledger, &parts);
	what = psprintf("could not write \"%s_SUCCESS\"", s3->url);

	/*
	 * Decided with the workers' exit paths (pep_s3w_exit).  From here on the
	 * other workers leave their parts to this one, and nothing may fail
	 * before Java has the names of those parts.
	 */
	pep_fault_pause(fault, PEP_PAUSE_SENDING);
	SpinLockAcquire(&sw->shared->mutex);
	undoing = s3->undoing;
	s3->success_begun = !undoing;
	SpinLockRelease(&sw->shared->mutex);
	if (undoing)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("a worker of the export into \"%s\" stopped before its _SUCCESS was written",
						s3->url)));

	pep_s3w_java_write_success(sw->export, sw->sink, &parts, what);
}

/*
 * Worker 0, overwrite, after COMMITTED: record each replaced part, then
 * delete them, pausing at each step for the tests (pep_fault.c).  Only when
 * every one is gone may the caller remove the record: otherwise its
 * "previous" manifest names them for the sweep (S3Sweep), which covers a
 * worker killed at any of these steps too.
 */
static void
pep_s3w_delete_replaced(PEPS3Worker *sw, const PEPFault *fault)
{
	PEPS3Shared *s3 = sw->s3;
	char *left;

	pep_fault_pause(fault, PEP_PAUSE_COMMITTED);
	left = pep_s3w_call(sw, &pep_s3w_supersede_m, "could not delete the replaced export");
	if (left == NULL)
	{
		pep_fault_pause(fault, PEP_PAUSE_SUPERSEDING);
		left = pep_s3w_call(sw, &pep_s3w_delete_superseded_m,
							"could not delete the replaced export");
	}
	if (left != NULL)
	{
		ereport(WARNING,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("could not delete all parts of the export replaced in \"%s\"", s3->url),
				 errdetail("%s", left)));
		return;
	}
	pep_fault_pause(fault, PEP_PAUSE_SUPERSEDED);
	SpinLockAcquire(&sw->shared->mutex);
	s3->replaced_deleted = true;
	SpinLockRelease(&sw->shared->mutex);
}

/*
 * After writing: wait for PUBLISH, complete this worker's uploads; worker 0
 * then waits for all workers' and writes _SUCCESS.  Then wait for
 * COMMITTED, after which worker 0 deletes a replaced export's parts.
 */
void
pep_s3w_publish(PEPS3Worker *sw, PEPLedger *ledger, const PEPFault *fault)
{
	PEPShared *shared = sw->shared;
	PEPS3Shared *s3 = sw->s3;

	pep_s3w_wait_phase(sw, PEP_S3_PUBLISH);
	(void) pep_s3w_call(sw, &pep_s3w_complete_all_m,
						psprintf("could not publish the parts of \"%s\"", s3->url));
	SpinLockAcquire(&shared->mutex);
	s3->npublished++;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->cv);

	if (ParallelWorkerNumber == 0)
	{
		ConditionVariablePrepareToSleep(&shared->cv);
		for (;;)
		{
			bool all;

			SpinLockAcquire(&shared->mutex);
			all = s3->npublished >= shared->nlaunched;
			SpinLockRelease(&shared->mutex);
			if (all)
				break;
			ConditionVariableSleep(&shared->cv, PG_WAIT_EXTENSION);
		}
		ConditionVariableCancelSleep();
		pep_s3w_write_success(sw, ledger, fault);
		SpinLockAcquire(&shared->mutex);
		s3->success_sent = true;
		SpinLockRelease(&shared->mutex);
		ConditionVariableBroadcast(&shared->cv);
	}

	pep_s3w_wait_phase(sw, PEP_S3_COMMITTED);
	pep_s3w_committed = true;
	if (ParallelWorkerNumber == 0 && s3->overwrite)
		pep_s3w_delete_replaced(sw, fault);
}
