/*-------------------------------------------------------------------------
 *
 * pep_s3worker.c
 *	  A worker's side of an export into s3://bucket/prefix: its JNI calls
 *	  into org.parallelexport.parquet.s3.S3Export, and the phases it waits for.
 *
 * The worker opens its S3Export right after its sink, with PostgreSQL's
 * signals blocked (pep_jvm_call_begin), because the session starts every
 * thread it will ever use there and threads inherit the signal mask
 * (DESIGN.md, "Who calls S3").  The export is attached to the sink, so each
 * part the sink opens is a multipart upload under the prefix; closing the
 * part leaves the upload pending.  Worker 0 checks the target before it
 * reports ready, so no worker reads a row of an export whose target is
 * refused.  After writing, each worker waits for PUBLISH, completes its own
 * uploads, and worker 0 writes _SUCCESS last once all have; then every
 * worker waits for COMMITTED.
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
 *	  extension/pep_s3worker.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "mb/pg_wchar.h"
#include "pgstat.h"
#include "storage/ipc.h"
#include "utils/memutils.h"

#include "pep_extension.h"
#include "pep_jvm.h"
#include "pep_output.h"
#include "pep_s3export.h"
#include "pep_sink.h"

#define PEP_S3_EXPORT_CLASS	"org/parallelexport/parquet/s3/S3Export"

struct PEPS3Worker
{
	PEPShared  *shared;			/* the export's shared state */
	PEPS3Shared *s3;			/* its object-store part */
	jobject		sink;			/* the worker's BatchSink */
	jobject		export;			/* global ref to the S3Export */
	jmethodID	start_sweep;
	jmethodID	sweep_step;
	jmethodID	part_closed;
	jmethodID	probe;
	jmethodID	first_key;
	jmethodID	previous_problem;
	jmethodID	complete_all;
	jmethodID	write_success;
	jmethodID	delete_superseded;
	jmethodID	fail_uploads;
	jmethodID	undo;
};

/* Set once the worker saw COMMITTED: from then on nothing is undone. */
static bool pep_s3w_committed = false;

/* A Java string as a palloc'd server-encoded string; NULL for null. */
static char *
pep_s3w_cstring(JNIEnv *env, jstring s)
{
	const char *utf;
	char	   *result;

	if (s == NULL)
		return NULL;
	utf = (*env)->GetStringUTFChars(env, s, NULL);
	if (utf == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory in the java virtual machine")));
	result = pstrdup(pg_any_to_server(utf, strlen(utf), PG_UTF8));
	(*env)->ReleaseStringUTFChars(env, s, utf);
	(*env)->DeleteLocalRef(env, s);
	return result;
}

/* Call a no-argument method of the export that returns a String or nothing. */
static char *
pep_s3w_call(PEPS3Worker *sw, jmethodID method, bool returns, const char *what)
{
	JNIEnv	   *env = pep_jvm_env();
	jobject		result = NULL;
	sigset_t	saved;

	pep_jvm_call_begin(&saved);
	if (returns)
		result = (*env)->CallObjectMethod(env, sw->export, method);
	else
		(*env)->CallVoidMethod(env, sw->export, method);
	pep_jvm_call_end(&saved, what);
	return pep_s3w_cstring(env, (jstring) result);
}

/*
 * before_shmem_exit callback: undo what this worker made unless the export
 * committed.  It runs during proc_exit, so it reports with WARNING only and
 * never lets a Java exception escape as an ERROR.
 */
static void
pep_s3w_exit(int code, Datum arg)
{
	PEPS3Worker *sw = (PEPS3Worker *) DatumGetPointer(arg);
	JNIEnv	   *env;
	jobject		left;
	bool		failed;
	sigset_t	saved;

	if (pep_s3w_committed)
		return;
	env = pep_jvm_env();
	pep_jvm_call_begin(&saved);
	left = (*env)->CallObjectMethod(env, sw->export, sw->undo);
	failed = (*env)->ExceptionCheck(env);
	if (failed)
		(*env)->ExceptionClear(env);
	pep_jvm_call_end(&saved, "could not undo the export");
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
	else if (left != NULL)
		ereport(WARNING,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("could not undo all of the export into \"%s\"", sw->s3->url),
				 errdetail("%s", pep_s3w_cstring(env, (jstring) left)),
				 errhint("Call parallel_export_parquet_sweep('%s') to remove what is left.",
						 sw->s3->url)));
}

PEPS3Worker *
pep_s3w_open(PEPShared *shared, PEPS3Shared *s3, PEPSink *sink)
{
	JNIEnv	   *env = pep_jvm_env();
	PEPS3Worker *sw = MemoryContextAllocZero(TopMemoryContext, sizeof(PEPS3Worker));
	jclass		cls = pep_jvm_class(PEP_S3_EXPORT_CLASS);
	jmethodID	open;
	jmethodID	attach;
	jstring		settings;
	jstring		bucket;
	jstring		prefix;
	jstring		export_id;
	jstring		ledger_path;
	jobject		local;
	sigset_t	saved;

	sw->shared = shared;
	sw->s3 = s3;
	sw->sink = pep_sink_object(sink);
	open = pep_jvm_method(cls, "open",
						  "(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;"
						  "Ljava/lang/String;Ljava/lang/String;)L" PEP_S3_EXPORT_CLASS ";", true);
	attach = pep_jvm_method(cls, "attach", "(Lorg/parallelexport/parquet/BatchSink;)V", false);
	sw->start_sweep = pep_jvm_method(cls, "startSweep", "()V", false);
	sw->sweep_step = pep_jvm_method(cls, "sweepStep", "()Z", false);
	sw->part_closed = pep_jvm_method(cls, "partClosed", "()V", false);
	sw->probe = pep_jvm_method(cls, "probe", "()V", false);
	sw->first_key = pep_jvm_method(cls, "firstKey", "()Ljava/lang/String;", false);
	sw->previous_problem = pep_jvm_method(cls, "previousExportProblem", "()Ljava/lang/String;",
										  false);
	sw->complete_all = pep_jvm_method(cls, "completeAll", "()V", false);
	sw->write_success = pep_jvm_method(cls, "writeSuccess",
									   "(Lorg/parallelexport/parquet/BatchSink;"
									   "[Ljava/lang/String;[J[JLjava/lang/String;"
									   "Ljava/lang/String;)V", false);
	sw->delete_superseded = pep_jvm_method(cls, "deleteSuperseded", "()Ljava/lang/String;",
										   false);
	sw->fail_uploads = pep_jvm_method(cls, "failUploadsFromNow", "()V", false);
	sw->undo = pep_jvm_method(cls, "undo", "()Ljava/lang/String;", false);

	settings = pep_jvm_string(s3->settings);
	bucket = pep_jvm_string(s3->bucket);
	prefix = pep_jvm_string(s3->prefix);
	export_id = pep_jvm_string(s3->export_id);
	ledger_path = pep_jvm_string(s3->ledger_path);
	pep_jvm_call_begin(&saved);
	local = (*env)->CallStaticObjectMethod(env, cls, open, settings, bucket, prefix, export_id,
										   ledger_path);
	pep_jvm_call_end(&saved, psprintf("could not set up the object-store client for \"%s\"",
									  s3->url));
	(*env)->DeleteLocalRef(env, settings);
	sw->export = (*env)->NewGlobalRef(env, local);
	(*env)->DeleteLocalRef(env, local);

	/* From here on every failure undoes what this worker made. */
	before_shmem_exit(pep_s3w_exit, PointerGetDatum(sw));
	SpinLockAcquire(&shared->mutex);
	s3->nopened++;
	SpinLockRelease(&shared->mutex);

	pep_jvm_call_begin(&saved);
	(*env)->CallVoidMethod(env, sw->export, attach, sw->sink);
	pep_jvm_call_end(&saved, "could not attach the object store to the parquet writer");
	return sw;
}

/*
 * Worker 0, first, when the ledger file held a dead export's record: undo
 * what it lists, a step at a time with interrupts checked in between, and
 * tell the leader, which then begins this export's record in the file.
 */
void
pep_s3w_sweep(PEPS3Worker *sw)
{
	JNIEnv	   *env = pep_jvm_env();
	const char *what = psprintf("could not sweep what an earlier export into \"%s\" left",
								sw->s3->url);
	bool		more;
	sigset_t	saved;

	(void) pep_s3w_call(sw, sw->start_sweep, false, what);
	do
	{
		CHECK_FOR_INTERRUPTS();
		pep_jvm_call_begin(&saved);
		more = (*env)->CallBooleanMethod(env, sw->export, sw->sweep_step);
		pep_jvm_call_end(&saved, what);
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
	char	   *first;
	char	   *problem;

	(void) pep_s3w_call(sw, sw->probe, false,
						psprintf("could not reach bucket \"%s\" of \"%s\"", s3->bucket, s3->url));
	first = pep_s3w_call(sw, sw->first_key, true,
						 psprintf("could not list \"%s\"", s3->url));
	if (first == NULL)
		return;
	if (!s3->overwrite)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("\"%s\" is not empty", s3->url),
				 errdetail("It holds object \"%s\".", first),
				 errhint("Export into an empty prefix, or pass overwrite => true to replace a previous export.")));
	problem = pep_s3w_call(sw, sw->previous_problem, true,
						   psprintf("could not read the previous export in \"%s\"", s3->url));
	if (problem != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("\"%s\" does not hold only a previous export", s3->url),
				 errdetail("%s", problem),
				 errhint("Only a prefix written by an earlier complete export can be overwritten.")));
}

/*
 * The key of a ledger entry under the prefix: its partition folders' names
 * (entries too, never created as anything), then its own name.
 */
static char *
pep_s3w_key(const PEPLedger *ledger, int entry)
{
	int			parent = ledger->entries[entry].parent;

	if (parent < 0)
		return pstrdup(pep_ledger_name(ledger, entry));
	return psprintf("%s/%s", pep_s3w_key(ledger, parent), pep_ledger_name(ledger, entry));
}

/*
 * Name the part of a fresh ledger entry part-NNNNN-EXPORTID.parquet, so
 * that it cannot collide with the export it may replace; the entry is this
 * worker's.  key is what the sink is given (the name under the prefix,
 * below its partition folders), display what messages show.  A partition
 * path can make the key longer than S3 allows: that is an error naming it.
 */
void
pep_s3w_name_part(PEPS3Worker *sw, PEPLedger *ledger, int entry, char **key, char **display)
{
	char	   *name = (char *) pep_ledger_name(ledger, entry);
	size_t		bytes;

	snprintf(name, PEP_LEDGER_NAME_LEN, "part-%05d-%s.parquet", entry, sw->s3->export_id);
	*key = pep_s3w_key(ledger, entry);
	*display = psprintf("%s%s", sw->s3->url, *key);
	bytes = strlen(sw->s3->prefix) + strlen(pg_server_to_any(*key, strlen(*key), PG_UTF8));
	if (bytes > PEP_S3_MAX_KEY_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("object key \"%s\" is too long", *display),
				 errdetail("It takes %zu bytes; an object key may take %d.",
						   bytes, PEP_S3_MAX_KEY_BYTES),
				 errhint("Use a shorter prefix, or partition by columns with shorter values.")));
}

/* The sink closed the part: its upload is pending; record it for the manifest. */
void
pep_s3w_part_closed(PEPS3Worker *sw, int entry, uint64 rows, uint64 bytes)
{
	PEPS3Part  *part = &pep_s3_parts(sw->s3)[entry];

	(void) pep_s3w_call(sw, sw->part_closed, false, "could not hand over a finished part");
	part->rows = rows;
	part->bytes = bytes;
	part->closed = true;
}

void
pep_s3w_fail_uploads(PEPS3Worker *sw)
{
	(void) pep_s3w_call(sw, sw->fail_uploads, false, "could not inject a fault");
}

/* Sleep on the export's condition variable until the leader sets phase. */
static void
pep_s3w_wait_phase(PEPS3Worker *sw, int phase)
{
	PEPShared  *shared = sw->shared;

	ConditionVariablePrepareToSleep(&shared->cv);
	for (;;)
	{
		bool		reached;

		SpinLockAcquire(&shared->mutex);
		reached = sw->s3->phase >= phase;
		SpinLockRelease(&shared->mutex);
		if (reached)
			break;
		ConditionVariableSleep(&shared->cv, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
}

/* Worker 0: PUT _SUCCESS with the manifest of every finished part, by its key under the prefix. */
static void
pep_s3w_write_success(PEPS3Worker *sw, PEPLedger *ledger)
{
	JNIEnv	   *env = pep_jvm_env();
	PEPS3Shared *s3 = sw->s3;
	PEPS3Part  *parts = pep_s3_parts(s3);
	jclass		string_class = pep_jvm_class("java/lang/String");
	int			nentries;
	int			nparts = 0;
	jobjectArray names;
	jlongArray	rows;
	jlongArray	bytes;
	jlong	   *tmp;
	jstring		extension_version = pep_jvm_string(PEP_VERSION);
	jstring		pg_version = pep_jvm_string(PG_VERSION);
	sigset_t	saved;

	SpinLockAcquire(&ledger->mutex);
	nentries = ledger->nentries;
	SpinLockRelease(&ledger->mutex);
	for (int i = 0; i < nentries; i++)
		if (parts[i].closed)
			nparts++;

	names = (*env)->NewObjectArray(env, nparts, string_class, NULL);
	rows = (*env)->NewLongArray(env, nparts);
	bytes = (*env)->NewLongArray(env, nparts);
	if (names == NULL || rows == NULL || bytes == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory in the java virtual machine")));
	tmp = palloc(sizeof(jlong) * Max(nparts, 1));
	for (int i = 0, p = 0; i < nentries; i++)
		if (parts[i].closed)
		{
			jstring		name = pep_jvm_string(pep_s3w_key(ledger, i));

			(*env)->SetObjectArrayElement(env, names, p, name);
			(*env)->DeleteLocalRef(env, name);
			tmp[p++] = (jlong) parts[i].rows;
		}
	(*env)->SetLongArrayRegion(env, rows, 0, nparts, tmp);
	for (int i = 0, p = 0; i < nentries; i++)
		if (parts[i].closed)
			tmp[p++] = (jlong) parts[i].bytes;
	(*env)->SetLongArrayRegion(env, bytes, 0, nparts, tmp);

	pep_jvm_call_begin(&saved);
	(*env)->CallVoidMethod(env, sw->export, sw->write_success, sw->sink, names, rows, bytes,
						   extension_version, pg_version);
	pep_jvm_call_end(&saved, psprintf("could not write \"%s_SUCCESS\"", s3->url));
}

/*
 * After writing: wait for PUBLISH, complete this worker's uploads; worker 0
 * then waits for all workers' and writes _SUCCESS.  Then wait for
 * COMMITTED, after which worker 0 deletes a replaced export's parts.
 */
void
pep_s3w_publish(PEPS3Worker *sw, PEPLedger *ledger)
{
	PEPShared  *shared = sw->shared;
	PEPS3Shared *s3 = sw->s3;

	pep_s3w_wait_phase(sw, PEP_S3_PUBLISH);
	(void) pep_s3w_call(sw, sw->complete_all, false,
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
			bool		all;

			SpinLockAcquire(&shared->mutex);
			all = s3->npublished >= shared->nlaunched;
			SpinLockRelease(&shared->mutex);
			if (all)
				break;
			ConditionVariableSleep(&shared->cv, PG_WAIT_EXTENSION);
		}
		ConditionVariableCancelSleep();
		pep_s3w_write_success(sw, ledger);
		SpinLockAcquire(&shared->mutex);
		s3->success_sent = true;
		SpinLockRelease(&shared->mutex);
		ConditionVariableBroadcast(&shared->cv);
	}

	pep_s3w_wait_phase(sw, PEP_S3_COMMITTED);
	pep_s3w_committed = true;
	if (ParallelWorkerNumber == 0 && s3->overwrite)
	{
		char	   *left = pep_s3w_call(sw, sw->delete_superseded, true,
										"could not delete the replaced export");

		if (left != NULL)
			ereport(WARNING,
					(errcode(ERRCODE_CONNECTION_FAILURE),
					 errmsg("could not delete all parts of the export replaced in \"%s\"", s3->url),
					 errdetail("%s", left)));
	}
}
