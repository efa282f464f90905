/*-------------------------------------------------------------------------
 *
 * pep_jvm.c
 *	  Boot a JVM inside a PostgreSQL backend and call into it safely.
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
 *	  crosses a Java frame.
 *	- The JVM's exit hook raises FATAL on the main thread (a clean backend
 *	  exit) and aborts on any other thread, where PostgreSQL cannot run.
 *
 * IDENTIFICATION
 *	  pljava-glue/pep_jvm.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <dlfcn.h>
#include <pthread.h>

#include "mb/pg_wchar.h"

#include "pep_jvm.h"

typedef jint (*pep_create_vm_fn) (JavaVM **vm, void **env, void *args);

static JavaVM *pep_vm = NULL;
static JNIEnv *pep_env = NULL;
static pthread_t pep_main_thread;
static jclass pep_string_class = NULL;
static jmethodID pep_string_ctor = NULL;
static jmethodID pep_throwable_tostring = NULL;

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

static void
pep_jvm_exit_hook(jint code)
{
	if (pthread_equal(pthread_self(), pep_main_thread))
		ereport(FATAL,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("java virtual machine exited"),
				 errdetail("The exit code was %d.", (int) code)));
	abort();
}

static void
pep_jvm_abort_hook(void)
{
	abort();
}

/* Split options on white space into JavaVMOptions appended to opts. */
static int
pep_split_options(const char *options, JavaVMOption *opts, int nopts, int max)
{
	char	   *copy = pstrdup(options ? options : "");
	char	   *tok;
	char	   *save = NULL;

	for (tok = strtok_r(copy, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
	{
		if (nopts >= max)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("too many java virtual machine options")));
		opts[nopts].optionString = tok;
		opts[nopts].extraInfo = NULL;
		nopts++;
	}
	return nopts;
}

void
pep_jvm_start(const char *libjvm_path, const char *class_path, const char *options)
{
	void	   *handle;
	pep_create_vm_fn create_vm;
	JavaVMOption opts[64];
	JavaVMInitArgs args;
	int			nopts = 0;
	jint		rc;
	sigset_t	block;
	sigset_t	saved;

	if (pep_vm != NULL)
		return;

	if (libjvm_path == NULL || libjvm_path[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_CONFIG_FILE_ERROR),
				 errmsg("no java virtual machine library is configured"),
				 errhint("Set \"%s\" to the path of libjvm.so.",
						 "parallel_export_parquet.libjvm_path")));

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

	opts[nopts].optionString = psprintf("-Djava.class.path=%s", class_path);
	opts[nopts++].extraInfo = NULL;
	opts[nopts].optionString = "-Xrs";
	opts[nopts++].extraInfo = NULL;
	opts[nopts].optionString = "exit";
	opts[nopts++].extraInfo = (void *) pep_jvm_exit_hook;
	opts[nopts].optionString = "abort";
	opts[nopts++].extraInfo = (void *) pep_jvm_abort_hook;
	nopts = pep_split_options(options, opts, nopts, lengthof(opts));

	args.version = JNI_VERSION_10;
	args.options = opts;
	args.nOptions = nopts;
	args.ignoreUnrecognized = JNI_FALSE;

	pep_main_thread = pthread_self();
	pep_async_signals(&block);
	pthread_sigmask(SIG_BLOCK, &block, &saved);
	rc = create_vm(&pep_vm, (void **) &pep_env, &args);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);

	if (rc != JNI_OK)
	{
		pep_vm = NULL;
		pep_env = NULL;
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("failed to create Java virtual machine"),
				 errdetail("JNI_CreateJavaVM returned %d with options \"%s\".",
						   (int) rc, options ? options : ""),
				 errhint("Check \"%s\" and \"%s\"; the server log may show the JVM's own message.",
						 "parallel_export_parquet.jvm_options",
						 "parallel_export_parquet.libjvm_path")));
	}

	pep_string_class = pep_jvm_class("java/lang/String");
	pep_string_ctor = pep_jvm_method(pep_string_class, "<init>", "([BLjava/lang/String;)V", false);
	pep_throwable_tostring = pep_jvm_method(pep_jvm_class("java/lang/Throwable"),
											"toString", "()Ljava/lang/String;", false);
}

JNIEnv *
pep_jvm_env(void)
{
	Assert(pep_env != NULL);
	return pep_env;
}

/*
 * Describe a pending exception and clear it.  Returns the text of
 * Throwable.toString() (class name and message) in palloc'd memory, and the
 * SQLSTATE that fits the exception's class.
 */
static char *
pep_take_exception(int *sqlstate)
{
	JNIEnv	   *env = pep_env;
	jthrowable	exc = (*env)->ExceptionOccurred(env);
	jstring		jtext;
	char	   *text = pstrdup("unknown Java exception");
	static const struct
	{
		const char *class_name;
		int			sqlstate;
	}			map[] =
	{
		{"java/lang/OutOfMemoryError", ERRCODE_OUT_OF_MEMORY},
		{"java/lang/IllegalArgumentException", ERRCODE_DATA_EXCEPTION},
		{"java/lang/ArithmeticException", ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE},
		{"java/io/IOException", ERRCODE_IO_ERROR},
		{"java/io/UncheckedIOException", ERRCODE_IO_ERROR},
	};

	(*env)->ExceptionClear(env);
	*sqlstate = ERRCODE_INTERNAL_ERROR;
	if (exc == NULL)
		return text;

	for (int i = 0; i < lengthof(map); i++)
	{
		jclass		cls = (*env)->FindClass(env, map[i].class_name);

		if (cls == NULL)
		{
			(*env)->ExceptionClear(env);
			continue;
		}
		if ((*env)->IsInstanceOf(env, exc, cls))
		{
			*sqlstate = map[i].sqlstate;
			(*env)->DeleteLocalRef(env, cls);
			break;
		}
		(*env)->DeleteLocalRef(env, cls);
	}

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
	(*env)->DeleteLocalRef(env, exc);
	return text;
}

jclass
pep_jvm_class(const char *name)
{
	JNIEnv	   *env = pep_env;
	jclass		local = (*env)->FindClass(env, name);
	jclass		global;

	if (local == NULL)
	{
		int			sqlstate;
		char	   *detail = pep_take_exception(&sqlstate);

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
	JNIEnv	   *env = pep_env;
	jmethodID	m;

	m = is_static ? (*env)->GetStaticMethodID(env, cls, name, sig)
		: (*env)->GetMethodID(env, cls, name, sig);
	if (m == NULL)
	{
		int			sqlstate;
		char	   *detail = pep_take_exception(&sqlstate);

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
	sigset_t	block;

	pep_async_signals(&block);
	pthread_sigmask(SIG_BLOCK, &block, saved);
}

void
pep_jvm_call_end(sigset_t *saved, const char *what)
{
	pthread_sigmask(SIG_SETMASK, saved, NULL);

	if ((*pep_env)->ExceptionCheck(pep_env))
	{
		int			sqlstate;
		char	   *detail = pep_take_exception(&sqlstate);

		ereport(ERROR,
				(errcode(sqlstate),
				 errmsg("%s", what),
				 errdetail("Java exception: %s", detail)));
	}
}

jstring
pep_jvm_string(const char *s)
{
	JNIEnv	   *env = pep_env;
	char	   *utf8 = pg_server_to_any(s, strlen(s), PG_UTF8);
	jsize		len = (jsize) strlen(utf8);
	jbyteArray	bytes;
	jstring		charset;
	jstring		result;
	sigset_t	saved;

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
