/*-------------------------------------------------------------------------
 *
 * pep_s3sweep.c
 *	  parallel_export_parquet_sweep(target, s3_server): undo what a dead
 *	  object-store export left, by the record in its ledger file.
 *
 * The caller's backend resolves the target as an export would (syntax,
 * object_store_targets, the foreign server, USAGE and the user mapping),
 * then takes the target's ledger lock (pep_s3ledger.c): a lock held by a
 * running export is an error, and its record is never read.  A file it can
 * lock and that has content is a dead export's record.  The caller never
 * loads a JVM, so one parallel worker does the S3 side: it starts its JVM
 * as an export's worker does, opens an S3Session with the target's
 * settings, and runs org.parallelexport.parquet.s3.S3Sweep over the record
 * one step (one or two requests) at a time, checking for interrupts in
 * between, then reports what it did through the DSM.  Only once every step
 * has succeeded does the caller remove the ledger file, still holding its
 * lock.  On any error the parallel context and the ledger file (a transient
 * file) are closed by the transaction's abort, which drops the lock and
 * keeps the record, so the sweep can simply be called again: every step is
 * safe to repeat.
 *
 * IDENTIFICATION
 *	  extension/src/output/s3/pep_s3sweep.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/acl.h"
#include "utils/builtins.h"

#include "pep_contract.h"
#include "pep_extension.h"
#include "pep_fault.h"
#include "pep_java.h"
#include "pep_jni.h"
#include "pep_jni_methods.h"
#include "pep_progress.h"
#include "pep_s3ledger.h"
#include "pep_s3sweep.h"
#include "pep_shared.h"

/* What the caller hands its sweep worker, and what the worker reports back. */
typedef struct PEPSweepShared
{
	PEPJvmConfig jvm;							   /* how the worker starts its JVM, checked */
	char ledger_path[MAXPGPATH];				   /* the dead record */
	char url[sizeof(((PEPS3Target *) NULL)->url)]; /* the target it must name */
	int uploads_aborted;						   /* set by the worker */
	int objects_deleted;						   /* set by the worker */
	bool done;									   /* the worker took every step */
	char settings[FLEXIBLE_ARRAY_MEMBER];		   /* S3Settings lines; holds the secret */
} PEPSweepShared;

PG_FUNCTION_INFO_V1(pep_s3_sweep);

static void
pep_sweep_error_context(void *arg)
{
	errcontext("parallel_export_parquet sweep worker");
}

/*
 * S3Sweep's methods, each with its descriptor and its one typed caller
 * (pep_jni.h).
 */
static PEPJavaMethod pep_sweep_open_m = PEP_JNI_S3SWEEP_OPEN;
static PEPJavaMethod pep_sweep_step_m = PEP_JNI_S3SWEEP_STEP;
static PEPJavaMethod pep_sweep_uploads_aborted_m = PEP_JNI_S3SWEEP_UPLOADS_ABORTED;
static PEPJavaMethod pep_sweep_objects_deleted_m = PEP_JNI_S3SWEEP_OBJECTS_DELETED;
static PEPJavaMethod pep_sweep_close_m = PEP_JNI_S3SWEEP_CLOSE;
static PEPJavaMethod pep_sweep_inject_fault_m = PEP_JNI_S3SWEEP_INJECT_FAULT;

/* All of them, resolved when the sweep opens (as pep_s3worker.c does). */
static PEPJavaMethod *const pep_sweep_methods[] = {
	&pep_sweep_open_m,
	&pep_sweep_step_m,
	&pep_sweep_uploads_aborted_m,
	&pep_sweep_objects_deleted_m,
	&pep_sweep_close_m,
	&pep_sweep_inject_fault_m,
};
StaticAssertDecl(lengthof(pep_sweep_methods) == PEP_JNI_S3SWEEP_METHODS,
				 "pep_sweep_methods must list every S3Sweep method in JniMethods.java");

static jobject
pep_sweep_java_open(jstring settings, jstring ledger_path, jstring url, jstring old_charset)
{
	return pep_jni_call_object(&pep_sweep_open_m, NULL, "could not read the dead export's record",
							   settings, ledger_path, url, old_charset);
}

static bool
pep_sweep_java_step(jobject sweep)
{
	return pep_jni_call_boolean(&pep_sweep_step_m, sweep,
								"could not sweep the dead export's record");
}

static int
pep_sweep_java_uploads_aborted(jobject sweep)
{
	return (int) pep_jni_call_int(&pep_sweep_uploads_aborted_m, sweep,
								  "could not sweep the dead export's record");
}

static int
pep_sweep_java_objects_deleted(jobject sweep)
{
	return (int) pep_jni_call_int(&pep_sweep_objects_deleted_m, sweep,
								  "could not sweep the dead export's record");
}

static void
pep_sweep_java_inject_fault(jobject sweep, jstring point)
{
	pep_jni_call_void(&pep_sweep_inject_fault_m, sweep, "could not inject a fault", point);
}

static void
pep_sweep_java_close(jobject sweep)
{
	pep_jni_call_void(&pep_sweep_close_m, sweep, "could not close the object-store session");
}

void
pep_s3sweep_worker_main(dsm_segment *seg, shm_toc *toc)
{
	PEPSweepShared *shared = shm_toc_lookup(toc, PARALLEL_KEY_PEP_SWEEP, false);
	ErrorContextCallback errcallback;
	jstring jsettings;
	jobject sweep;
	PEPFault fault;

	pgstat_report_appname("parallel_export_parquet sweep");
	if (pep_activity_may_name_target())
		pgstat_report_activity(STATE_RUNNING,
							   psprintf("parallel_export_parquet sweep\ntarget: %s", shared->url));
	else
		pgstat_report_activity(STATE_RUNNING, "parallel_export_parquet sweep");
	errcallback.callback = pep_sweep_error_context;
	errcallback.arg = NULL;
	errcallback.previous = error_context_stack;
	error_context_stack = &errcallback;

	pep_jvm_start(&shared->jvm);
	for (int i = 0; i < lengthof(pep_sweep_methods); i++)
		pep_jni_resolve(pep_sweep_methods[i]);
	jsettings = pep_jvm_string(shared->settings);
	sweep = pep_jni_global(pep_sweep_java_open(jsettings, pep_jvm_string(shared->ledger_path),
											   pep_jvm_string(shared->url),
											   pep_jvm_string(pep_s3ledger_old_charset())));
	pep_jni_delete_local(jsettings);
	/* A test's _SUCCESS that cannot be taken back, or parts not deleted (pep_fault.c). */
	pep_fault_parse(&fault);
	if (pep_fault_is(&fault, PEP_S3_FAULT(S3_SUCCESS_DENIED), ParallelWorkerNumber) ||
		pep_fault_is(&fault, PEP_S3_FAULT(S3_DELETE_DENIED), ParallelWorkerNumber))
	{
		jstring jpoint = pep_jvm_string(fault.point);

		pep_sweep_java_inject_fault(sweep, jpoint);
		pep_jni_delete_local(jpoint);
	}

	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		if (!pep_sweep_java_step(sweep))
			break;
	}
	shared->uploads_aborted = pep_sweep_java_uploads_aborted(sweep);
	shared->objects_deleted = pep_sweep_java_objects_deleted(sweep);
	pep_sweep_java_close(sweep);
	pep_jni_delete_global(sweep);
	shared->done = true;

	error_context_stack = errcallback.previous;
}

/*
 * Run the sweep worker over ledger's dead record and wait for it.  Its
 * ERROR, if any, is rethrown here by WaitForParallelWorkersToFinish.
 */
static void
pep_sweep_run(PEPS3Ledger *ledger, const PEPS3Target *target, const PEPJvmConfig *jvm,
			  int *aborted, int *deleted)
{
	const char *settings = target->settings != NULL ? target->settings : "";
	Size size = add_size(offsetof(PEPSweepShared, settings), strlen(settings) + 1);
	ParallelContext *pcxt;
	PEPSweepShared *shared;

	EnterParallelMode();
	pcxt = CreateParallelContext(PEP_EXTENSION_NAME, "pep_s3sweep_worker_main", 1);
	shm_toc_estimate_chunk(&pcxt->estimator, size);
	shm_toc_estimate_keys(&pcxt->estimator, 1);
	InitializeParallelDSM(pcxt);

	shared = shm_toc_allocate(pcxt->toc, size);
	memset(shared, 0, size);
	shared->jvm = *jvm;
	strlcpy(shared->ledger_path, pep_s3ledger_path(ledger), sizeof(shared->ledger_path));
	strlcpy(shared->url, target->url, sizeof(shared->url));
	strcpy(shared->settings, settings);
	shm_toc_insert(pcxt->toc, PARALLEL_KEY_PEP_SWEEP, shared);

	LaunchParallelWorkers(pcxt);
	if (pcxt->nworkers_launched == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("could not start the sweep worker"),
				 errdetail("All background worker slots are in use."),
				 errhint("Consider increasing the configuration parameters \"%s\" and \"%s\".",
						 "max_worker_processes", "max_parallel_workers")));
	WaitForParallelWorkersToFinish(pcxt);

	if (!shared->done)
		elog(ERROR, "sweep worker of \"%s\" stopped before it was done", target->url);
	*aborted = shared->uploads_aborted;
	*deleted = shared->objects_deleted;
	DestroyParallelContext(pcxt);
	ExitParallelMode();
}

Datum
pep_s3_sweep(PG_FUNCTION_ARGS)
{
	PEPS3Target target;
	PEPS3Ledger ledger;
	PEPJvmConfig jvm;
	TupleDesc desc;
	Datum values[4];
	bool nulls[4] = { 0 };
	bool dead = false;
	int aborted = 0;
	int deleted = 0;

	if (!has_privs_of_role(GetUserId(), ROLE_PG_WRITE_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to sweep an export's record"),
				 errdetail("Only roles with privileges of the \"%s\" role may sweep what an export left.",
						   "pg_write_server_files")));
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("target must not be null")));
	if (IsInParallelMode())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("cannot sweep during a parallel operation")));
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	pep_s3_target_resolve(&target, text_to_cstring(PG_GETARG_TEXT_PP(0)),
						  PG_ARGISNULL(1) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(1)));
	/* Before the ledger file is locked, as an export checks it (pep_java.c). */
	pep_java_prepare(&jvm, PEP_JAVA_NO_ESTIMATE);

	if (pep_s3ledger_open(&ledger, &target, false))
	{
		dead = ledger.dead;
		if (dead)
			pep_sweep_run(&ledger, &target, &jvm, &aborted, &deleted);
		pep_s3ledger_remove(&ledger);
		if (dead)
			ereport(LOG,
					(errmsg("swept the dead export into \"%s\": %d uploads aborted, %d objects deleted",
							target.url, aborted, deleted)));
	}

	values[0] = CStringGetTextDatum(target.url);
	values[1] = BoolGetDatum(dead);
	values[2] = Int32GetDatum(aborted);
	values[3] = Int32GetDatum(deleted);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
