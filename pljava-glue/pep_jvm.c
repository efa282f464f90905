/*-------------------------------------------------------------------------
 *
 * pep_jvm.c
 *	  Boot a JVM inside a PostgreSQL backend and call into it safely.
 *
 * The export's leader never loads a JVM, but it checks with pep_jvm_check,
 * before it creates anything, what a worker's start needs: a libjvm and a
 * jar it can read, options that fit the worker's table.  A worker then only
 * loads what was checked, and what can still fail there (a library that is
 * no JVM, options HotSpot refuses) fails after the export's cleanup is in
 * place.
 *
 * A backend process gets at most one JVM (JNI_CreateJavaVM refuses a
 * second), created on the process's main thread, which is the only thread
 * that ever calls PostgreSQL.  The rules that make this safe come from
 * PL/Java's Backend.c and from PostgreSQL's signal handling:
 *
 *	- -Xrs keeps the JVM off SIGQUIT, SIGINT, SIGTERM and SIGHUP, which are
 *	  PostgreSQL's.  The JVM still handles SIGSEGV and friends itself.
 *	- Threads inherit the creating thread's signal mask.  PostgreSQL's
 *	  asynchronous signals are blocked around JNI_CreateJavaVM and around
 *	  every call into Java, so every JVM thread starts with them blocked and
 *	  no PostgreSQL handler ever runs on a JVM thread.
 *	- A pending Java exception is checked after every call and becomes
 *	  ereport(ERROR) only once the Java frame has returned: a longjmp never
 *	  crosses a Java frame.  The error names the exception with its causes
 *	  and suppressed exceptions, which decide the SQLSTATE too: a wrapper
 *	  must not hide an OutOfMemoryError.
 *	- HotSpot ends the process itself when it gives up its own start (a
 *	  heap too small, sizes at odds): it prints why, calls the exit or the
 *	  abort hook, then exit() or abort().  A process that ends so, without
 *	  proc_exit's cleanup, makes the postmaster restart the whole cluster.
 *	  So both hooks raise FATAL while the JVM starts, on the main thread
 *	  that starts it: the worker ends as any backend does, and the caller
 *	  gets the error with what the JVM printed (captured through the
 *	  vfprintf hook) in its detail.
 *	- Once the JVM runs, the exit hook still raises FATAL on the main
 *	  thread, but the abort hook aborts: HotSpot calls it after a crash it
 *	  caught (a SIGSEGV in this process, on any thread), and a crashed
 *	  backend is what PostgreSQL's crash restart is for.  On any other
 *	  thread both abort, since PostgreSQL cannot run there.
 *
 * IDENTIFICATION
 *	  pljava-glue/pep_jvm.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"

#include "pep_jni.h"
#include "pep_jni_methods.h"
#include "pep_jvm.h"
/* This file is part of the glue: it may include pep_jvm_internal.h. */
#define PEP_JVM_GLUE
#include "pep_jvm_internal.h"

typedef jint (*pep_create_vm_fn)(JavaVM **vm, void **env, void *args);

static JavaVM *pep_vm = NULL;
static JNIEnv *pep_env = NULL;
static pthread_t pep_main_thread;
static jclass pep_string_class = NULL;
static jmethodID pep_string_ctor = NULL;
static jmethodID pep_throwable_tostring = NULL;
static jmethodID pep_throwable_getcause = NULL;
static jmethodID pep_throwable_getsuppressed = NULL;

/*
 * The signals PostgreSQL handles asynchronously.  Synchronous faults stay
 * deliverable: the JVM relies on SIGSEGV for its own null checks.
 */
static void
pep_async_signals(sigset_t *set)
{
	sigfillset(set);
	sigdelset(set, SIGSEGV);
	sigdelset(set, SIGBUS);
	sigdelset(set, SIGFPE);
	sigdelset(set, SIGILL);
	sigdelset(set, SIGTRAP);
	sigdelset(set, SIGABRT);
}

/*
 * What the JVM printed while it started, for the error of a failed start.
 * The vfprintf hook may be called on any JVM thread, hence the lock; a
 * thread that cannot take it at once (the JVM reporting a crash) only
 * prints.
 */
#define PEP_JVM_OUTPUT_MAX 2048
static pthread_mutex_t pep_output_lock = PTHREAD_MUTEX_INITIALIZER;
static bool pep_starting = false;
static char pep_output[PEP_JVM_OUTPUT_MAX];
static size_t pep_output_len = 0;

static jint pep_jvm_vfprintf(FILE *fp, const char *format, va_list args) pg_attribute_printf(2, 0);

static jint
pep_jvm_vfprintf(FILE *fp, const char *format, va_list args)
{
	char line[512];
	va_list copy;
	int n;

	va_copy(copy, args);
	n = vsnprintf(line, sizeof(line), format, copy);
	va_end(copy);
	if (n > 0 && pthread_mutex_trylock(&pep_output_lock) == 0)
	{
		size_t len = Min((size_t) n, sizeof(line) - 1);

		if (pep_starting)
		{
			len = Min(len, sizeof(pep_output) - 1 - pep_output_len);
			memcpy(pep_output + pep_output_len, line, len);
			pep_output_len += len;
			pep_output[pep_output_len] = '\0';
		}
		pthread_mutex_unlock(&pep_output_lock);
	}
	/* The server log keeps getting it, as it did before the hook. */
	return vfprintf(fp, format, args);
}

/* Start or stop capturing; other JVM threads read the flag under the lock. */
static void
pep_set_starting(bool starting)
{
	pthread_mutex_lock(&pep_output_lock);
	if (starting)
	{
		pep_output_len = 0;
		pep_output[0] = '\0';
	}
	pep_starting = starting;
	pthread_mutex_unlock(&pep_output_lock);
}

/* The captured output, trimmed, for an error detail. */
static const char *
pep_jvm_output(void)
{
	char *text;
	size_t len;

	pthread_mutex_lock(&pep_output_lock);
	text = pstrdup(pep_output);
	pthread_mutex_unlock(&pep_output_lock);
	len = strlen(text);
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
		text[--len] = '\0';
	if (len == 0)
		return "The Java virtual machine printed no reason.";
	return text;
}

/* FATAL for a JVM that gave up its start: the worker ends as a backend does. */
static void
pep_jvm_start_failed(const char *how)
{
	pep_set_starting(false);
	ereport(FATAL,
			(errcode(ERRCODE_CONFIG_FILE_ERROR),
			 errmsg("could not start the Java virtual machine"),
			 errdetail("The Java virtual machine %s during its start: %s", how, pep_jvm_output()),
			 errhint("Check \"%s\".", "parallel_export_parquet.jvm_options")));
}

static void
pep_jvm_exit_hook(jint code)
{
	if (pthread_equal(pthread_self(), pep_main_thread))
	{
		if (pep_starting)
			pep_jvm_start_failed("exited");
		ereport(FATAL,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("java virtual machine exited"),
				 errdetail("The exit code was %d.", (int) code)));
	}
	abort();
}

static void
pep_jvm_abort_hook(void)
{
	if (pep_starting && pthread_equal(pthread_self(), pep_main_thread))
		pep_jvm_start_failed("gave up");
	abort();
}

List *
pep_jvm_split_options(const char *options)
{
	char *copy = pstrdup(options ? options : "");
	char *save = NULL;
	List *split = NIL;

	for (char *tok = strtok_r(copy, PEP_JVM_OPTION_SEPARATORS, &save); tok;
		 tok = strtok_r(NULL, PEP_JVM_OPTION_SEPARATORS, &save))
		split = lappend(split, pstrdup(tok));
	pfree(copy);
	return split;
}

/* Split options into JavaVMOptions appended to opts. */
static int
pep_split_options(const char *options, JavaVMOption *opts, int nopts, int max)
{
	ListCell *lc;

	foreach (lc, pep_jvm_split_options(options))
	{
		if (nopts >= max)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("too many java virtual machine options")));
		opts[nopts].optionString = lfirst(lc);
		opts[nopts].extraInfo = NULL;
		nopts++;
	}
	return nopts;
}

/*
 * Check that path names a regular file the server can read, as a worker
 * will need it: opened, not only looked up, so that a file without read
 * permission is found here too.  O_NONBLOCK keeps a FIFO from blocking.
 */
static int
pep_check_readable(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int save_errno;

	if (fd < 0)
		return -1;
	if (fstat(fd, st) != 0)
	{
		save_errno = errno;
		close(fd);
		errno = save_errno;
		return -1;
	}
	close(fd);
	return 0;
}

void
pep_jvm_check(PEPJvmConfig *config, const char *libjvm_path, const char *class_path,
			  const char *options)
{
	struct stat st;

	if (libjvm_path == NULL || libjvm_path[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_CONFIG_FILE_ERROR),
				 errmsg("no java virtual machine library is configured"),
				 errhint("Set \"%s\" to the path of libjvm.so.",
						 "parallel_export_parquet.libjvm_path")));
	if (pep_check_readable(libjvm_path, &st) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not access java virtual machine library \"%s\": %m", libjvm_path),
				 errhint("Set \"%s\" to the path of libjvm.so of a JDK 17 or later.",
						 "parallel_export_parquet.libjvm_path")));
	if (!S_ISREG(st.st_mode))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("java virtual machine library \"%s\" is not a file", libjvm_path),
				 errhint("Set \"%s\" to the path of libjvm.so of a JDK 17 or later.",
						 "parallel_export_parquet.libjvm_path")));
	if (pep_check_readable(class_path, &st) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not access the extension's jar \"%s\": %m", class_path),
				 errhint("Install the extension again with \"make install\".")));
	if (!S_ISREG(st.st_mode))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("the extension's jar \"%s\" is not a file", class_path),
				 errhint("Install the extension again with \"make install\".")));

	if (strlen(options) >= sizeof(config->options))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("value of \"%s\" is too long", "parallel_export_parquet.jvm_options"),
				 errdetail("At most %zu bytes fit, the options the extension adds included.",
						   sizeof(config->options) - 1)));
	if (strlen(libjvm_path) >= sizeof(config->libjvm_path) ||
		strlen(class_path) >= sizeof(config->class_path))
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("path of the java virtual machine library or of the extension's jar is too long")));

	strlcpy(config->libjvm_path, libjvm_path, sizeof(config->libjvm_path));
	strlcpy(config->class_path, class_path, sizeof(config->class_path));
	strlcpy(config->options, options, sizeof(config->options));
}

void
pep_jvm_start(const PEPJvmConfig *config)
{
	const char *libjvm_path = config->libjvm_path;
	const char *options = config->options;
	void *handle;
	pep_create_vm_fn create_vm;
	JavaVMOption opts[PEP_JVM_MAX_OPTIONS];
	JavaVMInitArgs args;
	int nopts = 0;
	jint rc;
	sigset_t block;
	sigset_t saved;
	jclass throwable;

	if (pep_vm != NULL)
		return;

	/* The leader checked the files (pep_jvm_check); what is left is loading them. */
	handle = dlopen(libjvm_path, RTLD_NOW | RTLD_LOCAL);
	if (handle == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FILE),
				 errmsg("could not load java virtual machine library \"%s\"", libjvm_path),
				 errdetail("%s", dlerror()),
				 errhint("Set \"%s\" to the path of libjvm.so of a JDK 17 or later.",
						 "parallel_export_parquet.libjvm_path")));
	create_vm = (pep_create_vm_fn) dlsym(handle, "JNI_CreateJavaVM");
	if (create_vm == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("library \"%s\" is not a java virtual machine", libjvm_path),
				 errdetail("%s", dlerror())));

	opts[nopts].optionString = psprintf("-Djava.class.path=%s", config->class_path);
	opts[nopts++].extraInfo = NULL;
	opts[nopts].optionString = "-Xrs";
	opts[nopts++].extraInfo = NULL;
	opts[nopts].optionString = "exit";
	opts[nopts++].extraInfo = (void *) pep_jvm_exit_hook;
	opts[nopts].optionString = "abort";
	opts[nopts++].extraInfo = (void *) pep_jvm_abort_hook;
	opts[nopts].optionString = "vfprintf";
	opts[nopts++].extraInfo = (void *) pep_jvm_vfprintf;
	nopts = pep_split_options(options, opts, nopts, lengthof(opts));

	args.version = JNI_VERSION_10;
	args.options = opts;
	args.nOptions = nopts;
	args.ignoreUnrecognized = JNI_FALSE;

	pep_main_thread = pthread_self();
	pep_set_starting(true);
	pep_async_signals(&block);
	pthread_sigmask(SIG_BLOCK, &block, &saved);
	rc = create_vm(&pep_vm, (void **) &pep_env, &args);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	pep_set_starting(false);

	if (rc != JNI_OK)
	{
		pep_vm = NULL;
		pep_env = NULL;
		ereport(ERROR,
				(errcode(ERRCODE_CONFIG_FILE_ERROR),
				 errmsg("could not start the Java virtual machine"),
				 errdetail("JNI_CreateJavaVM returned %d with options \"%s\": %s",
						   (int) rc, options, pep_jvm_output()),
				 errhint("Check \"%s\" and \"%s\".",
						 "parallel_export_parquet.jvm_options",
						 "parallel_export_parquet.libjvm_path")));
	}

	pep_string_class = pep_jvm_class("java/lang/String");
	pep_string_ctor = pep_jvm_method(pep_string_class, "<init>", "([BLjava/lang/String;)V", false);
	throwable = pep_jvm_class("java/lang/Throwable");
	pep_throwable_tostring = pep_jvm_method(throwable, "toString", "()Ljava/lang/String;", false);
	pep_throwable_getcause = pep_jvm_method(throwable, "getCause", "()Ljava/lang/Throwable;", false);
	pep_throwable_getsuppressed = pep_jvm_method(throwable, "getSuppressed",
												 "()[Ljava/lang/Throwable;", false);
}

JNIEnv *
pep_jvm_env(void)
{
	Assert(pep_env != NULL);
	return pep_env;
}

/* The SQLSTATE that fits a throwable's class, or 0 if none does. */
static int
pep_exception_sqlstate(jthrowable exc)
{
	JNIEnv *env = pep_env;
	static const struct
	{
		const char *class_name;
		int sqlstate;
	} map[] = {
		{ "java/lang/OutOfMemoryError", ERRCODE_OUT_OF_MEMORY },
		{ "java/lang/IllegalArgumentException", ERRCODE_DATA_EXCEPTION },
		{ "java/lang/ArithmeticException", ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE },
		/* before IOException, which it extends (parquet-writer's DiskFullException.java) */
		{ PEP_JNI_CLASS_DISK_FULL_EXCEPTION, ERRCODE_DISK_FULL },
		{ "java/io/IOException", ERRCODE_IO_ERROR },
		{ "java/io/UncheckedIOException", ERRCODE_IO_ERROR },
	};

	for (int i = 0; i < lengthof(map); i++)
	{
		jclass cls = (*env)->FindClass(env, map[i].class_name);
		bool match;

		if (cls == NULL)
		{
			(*env)->ExceptionClear(env);
			continue;
		}
		match = (*env)->IsInstanceOf(env, exc, cls);
		(*env)->DeleteLocalRef(env, cls);
		if (match)
			return map[i].sqlstate;
	}
	return 0;
}

/* Throwable.toString() (class name and message) in palloc'd memory. */
static char *
pep_exception_text(jthrowable exc)
{
	JNIEnv *env = pep_env;
	jstring jtext;
	char *text = pstrdup("a Java exception that could not be described");

	if (pep_throwable_tostring == NULL)
		return text;
	jtext = (jstring) (*env)->CallObjectMethod(env, exc, pep_throwable_tostring);
	if ((*env)->ExceptionCheck(env))
		(*env)->ExceptionClear(env);
	else if (jtext != NULL)
	{
		const char *utf = (*env)->GetStringUTFChars(env, jtext, NULL);

		if (utf != NULL)
		{
			text = pg_any_to_server(utf, strlen(utf), PG_UTF8);
			if (text == utf)
				text = pstrdup(utf);
			(*env)->ReleaseStringUTFChars(env, jtext, utf);
		}
		(*env)->DeleteLocalRef(env, jtext);
	}
	return text;
}

/* A throwable's cause, or NULL; never leaves an exception pending. */
static jthrowable
pep_exception_cause(jthrowable exc)
{
	JNIEnv *env = pep_env;
	jthrowable cause;

	if (pep_throwable_getcause == NULL)
		return NULL;
	cause = (jthrowable) (*env)->CallObjectMethod(env, exc, pep_throwable_getcause);
	if ((*env)->ExceptionCheck(env))
	{
		(*env)->ExceptionClear(env);
		return NULL;
	}
	return cause;
}

/*
 * Add a throwable and what it wraps to the description: its cause chain,
 * and the exceptions suppressed along it (a close that failed after a write
 * failed, say).  Wrappers such as parquet-java's "Unable to close resource"
 * hide the real failure, so the SQLSTATE is the first that fits along the
 * chain, and an OutOfMemoryError anywhere in it wins: the worker ran out of
 * heap, whatever was being done.  After it a full disk anywhere in the chain
 * wins over the I/O error that wraps or follows it, for the same reason.
 */
#define PEP_EXCEPTION_DEPTH 8

static void
pep_describe_exception(StringInfo buf, jthrowable exc, int depth, int *sqlstate)
{
	JNIEnv *env = pep_env;
	jthrowable cur = exc;

	for (int i = 0; cur != NULL && i < PEP_EXCEPTION_DEPTH - depth; i++)
	{
		int state = pep_exception_sqlstate(cur);
		jobjectArray suppressed;
		jthrowable next;

		if (state == ERRCODE_OUT_OF_MEMORY ||
			(state == ERRCODE_DISK_FULL && *sqlstate != ERRCODE_OUT_OF_MEMORY) ||
			(*sqlstate == 0 && state != 0))
			*sqlstate = state;
		if (buf->len > 0)
			appendStringInfoString(buf, i == 0 ? "; suppressed: " : "; caused by: ");
		appendStringInfoString(buf, pep_exception_text(cur));

		suppressed = pep_throwable_getsuppressed == NULL ? NULL : (jobjectArray) (*env)->CallObjectMethod(env, cur, pep_throwable_getsuppressed);
		if ((*env)->ExceptionCheck(env))
			(*env)->ExceptionClear(env);
		else if (suppressed != NULL)
		{
			jsize n = (*env)->GetArrayLength(env, suppressed);

			for (jsize k = 0; k < n && depth + i + 1 < PEP_EXCEPTION_DEPTH; k++)
			{
				jthrowable s = (jthrowable) (*env)->GetObjectArrayElement(env, suppressed, k);

				if (s != NULL)
				{
					pep_describe_exception(buf, s, depth + i + 1, sqlstate);
					(*env)->DeleteLocalRef(env, s);
				}
			}
			(*env)->DeleteLocalRef(env, suppressed);
		}

		next = pep_exception_cause(cur);
		if (cur != exc)
			(*env)->DeleteLocalRef(env, cur);
		if (next != NULL && (*env)->IsSameObject(env, next, cur))
		{
			(*env)->DeleteLocalRef(env, next);
			next = NULL;
		}
		cur = next;
	}
	if (cur != NULL && cur != exc)
		(*env)->DeleteLocalRef(env, cur);
}

/*
 * Describe a pending exception and clear it.  Returns its description (see
 * pep_describe_exception) in palloc'd memory, and the SQLSTATE that fits.
 */
static char *
pep_take_exception(int *sqlstate)
{
	JNIEnv *env = pep_env;
	jthrowable exc = (*env)->ExceptionOccurred(env);
	StringInfoData buf;

	(*env)->ExceptionClear(env);
	*sqlstate = 0;
	if (exc == NULL)
	{
		*sqlstate = ERRCODE_INTERNAL_ERROR;
		return pstrdup("unknown Java exception");
	}
	initStringInfo(&buf);
	pep_describe_exception(&buf, exc, 0, sqlstate);
	(*env)->DeleteLocalRef(env, exc);
	if (*sqlstate == 0)
		*sqlstate = ERRCODE_INTERNAL_ERROR;
	return buf.data;
}

jclass
pep_jvm_class(const char *name)
{
	JNIEnv *env = pep_env;
	jclass local = (*env)->FindClass(env, name);
	jclass global;

	if (local == NULL)
	{
		int sqlstate;
		char *detail = pep_take_exception(&sqlstate);

		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("could not find Java class \"%s\"", name),
				 errdetail("%s", detail),
				 errhint("Check that the extension's jar is installed.")));
	}
	global = (*env)->NewGlobalRef(env, local);
	(*env)->DeleteLocalRef(env, local);
	return global;
}

jmethodID
pep_jvm_method(jclass cls, const char *name, const char *sig, bool is_static)
{
	JNIEnv *env = pep_env;
	jmethodID m;

	m = is_static ? (*env)->GetStaticMethodID(env, cls, name, sig)
				  : (*env)->GetMethodID(env, cls, name, sig);
	if (m == NULL)
	{
		int sqlstate;
		char *detail = pep_take_exception(&sqlstate);

		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("could not find Java method \"%s\" with signature \"%s\"", name, sig),
				 errdetail("%s", detail),
				 errhint("The installed jar does not match the extension's library.")));
	}
	return m;
}

void
pep_jvm_call_begin(sigset_t *saved)
{
	sigset_t block;

	pep_async_signals(&block);
	pthread_sigmask(SIG_BLOCK, &block, saved);
}

void
pep_jvm_call_end(sigset_t *saved, const char *what)
{
	pthread_sigmask(SIG_SETMASK, saved, NULL);

	if ((*pep_env)->ExceptionCheck(pep_env))
	{
		int sqlstate;
		char *detail = pep_take_exception(&sqlstate);

		ereport(ERROR,
				(errcode(sqlstate),
				 errmsg("%s", what),
				 errdetail("Java exception: %s", detail),
				 sqlstate == ERRCODE_OUT_OF_MEMORY ? errhint("The worker's Java heap is exhausted. Raise its maximum with -Xmx in \"%s\", or lower row_group_bytes or file_size_bytes.",
															 "parallel_export_parquet.jvm_options")
				 : sqlstate == ERRCODE_DISK_FULL   ? errhint("Free space on the file system of the target directory, or export into another one.")
												   : 0));
	}
}

bool
pep_jvm_call_end_noerror(sigset_t *saved)
{
	pthread_sigmask(SIG_SETMASK, saved, NULL);
	if (!(*pep_env)->ExceptionCheck(pep_env))
		return false;
	(*pep_env)->ExceptionClear(pep_env);
	return true;
}

/* A Java string from len bytes of valid UTF-8. */
static jstring
pep_jvm_string_bytes(const char *utf8, jsize len)
{
	JNIEnv *env = pep_env;
	jbyteArray bytes;
	jstring charset;
	jstring result;
	sigset_t saved;

	pep_jvm_call_begin(&saved);
	bytes = (*env)->NewByteArray(env, len);
	if (bytes != NULL)
		(*env)->SetByteArrayRegion(env, bytes, 0, len, (const jbyte *) utf8);
	charset = (*env)->NewStringUTF(env, "UTF-8");
	result = (*env)->NewObject(env, pep_string_class, pep_string_ctor, bytes, charset);
	pep_jvm_call_end(&saved, "could not pass a string to the java virtual machine");
	(*env)->DeleteLocalRef(env, bytes);
	(*env)->DeleteLocalRef(env, charset);
	return result;
}

/*
 * Text in the database encoding is converted to UTF-8 here, once; in a
 * SQL_ASCII database, where nothing checked it, pg_server_to_any refuses
 * bytes that are not UTF-8.
 */
jstring
pep_jvm_string(const char *s)
{
	char *utf8 = pg_server_to_any(s, strlen(s), PG_UTF8);

	return pep_jvm_string_bytes(utf8, (jsize) strlen(utf8));
}

/*
 * A name made UTF-8 where it was made (an object key, a partition path):
 * converting it again would encode it twice, so it is only checked.
 */
jstring
pep_jvm_string_utf8(const char *utf8)
{
	size_t len = strlen(utf8);

	if (!pg_verify_mbstr(PG_UTF8, utf8, len, true))
		elog(ERROR, "a name handed to the java virtual machine is not valid UTF-8");
	return pep_jvm_string_bytes(utf8, (jsize) len);
}
