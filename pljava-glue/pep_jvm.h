/*-------------------------------------------------------------------------
 *
 * pep_jvm.h
 *	  The JVM bridge: boot a JVM inside a backend and call into it safely.
 *
 * This is the small part of PL/Java's job the export needs.  It finds and
 * loads libjvm, starts the JVM with PostgreSQL's signals kept away from its
 * threads, and turns every pending Java exception into an ereport(ERROR)
 * after the Java frame has returned, so no longjmp ever crosses Java.
 *
 * IDENTIFICATION
 *	  pljava-glue/pep_jvm.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_JVM_H
#define PEP_JVM_H

#include <jni.h>
#include <signal.h>

/* What separates the options of the options string. */
#define PEP_JVM_OPTION_SEPARATORS " \t\n"

/*
 * Options a caller may pass to pep_jvm_start: what its fixed table holds
 * beyond the glue's own four and the extension's own few, with room to
 * spare.
 */
#define PEP_JVM_MAX_OPTIONS 64
#define PEP_JVM_MAX_USER_OPTIONS 48

/*
 * Start the JVM once per process.  libjvm_path is the shared library to
 * load, class_path the jar(s), options extra JVM options separated by
 * white space.  Raises ERROR on any failure.
 */
extern void pep_jvm_start(const char *libjvm_path, const char *class_path,
						  const char *options);

/* The JNIEnv of the process's main thread; the JVM must be started. */
extern JNIEnv *pep_jvm_env(void);

/* Resolve a class to a global reference, or raise ERROR. */
extern jclass pep_jvm_class(const char *name);

/* Resolve a method of a class, or raise ERROR. */
extern jmethodID pep_jvm_method(jclass cls, const char *name, const char *sig, bool is_static);

/*
 * Bracket every call into Java: block PostgreSQL's signals so that any
 * thread Java creates during the call starts with them blocked, and check
 * for an exception afterwards.  pep_jvm_call_end raises ERROR, with "what"
 * as the primary message, if the call left an exception pending.
 */
extern void pep_jvm_call_begin(sigset_t *saved);
extern void pep_jvm_call_end(sigset_t *saved, const char *what);

/* Make a Java string from a server-encoded C string, or raise ERROR. */
extern jstring pep_jvm_string(const char *s);

#endif							/* PEP_JVM_H */
