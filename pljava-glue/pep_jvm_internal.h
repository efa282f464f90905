/*-------------------------------------------------------------------------
 *
 * pep_jvm_internal.h
 *	  What pep_jvm.c gives pep_jni.c, and no one else.
 *
 * The running JVM's JNIEnv and the bracket around a call into it are the
 * glue's own: the extension calls Java only through pep_jni.h, so that a
 * pending exception is checked in one place.  Only files in pljava-glue/
 * include this header, and they say so by defining PEP_JVM_GLUE first: a
 * file elsewhere that includes it does not compile.
 *
 * IDENTIFICATION
 *	  pljava-glue/pep_jvm_internal.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_JVM_INTERNAL_H
#define PEP_JVM_INTERNAL_H

#ifndef PEP_JVM_GLUE
#error "pep_jvm_internal.h is pljava-glue's own: call Java through pep_jni.h"
#endif

#include <jni.h>
#include <signal.h>

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
 * as the primary message, if the call left an exception pending;
 * pep_jvm_call_end_noerror clears it and returns true instead.
 */
extern void pep_jvm_call_begin(sigset_t *saved);
extern void pep_jvm_call_end(sigset_t *saved, const char *what);
extern bool pep_jvm_call_end_noerror(sigset_t *saved);

#endif /* PEP_JVM_INTERNAL_H */
