/*-------------------------------------------------------------------------
 *
 * pep_jvm.h
 *	  The JVM bridge: check how a JVM would start, and start it in a worker.
 *
 * This is the small part of PL/Java's job the export needs.  The leader,
 * which never loads a JVM, checks everything a worker's start depends on
 * (the libjvm to load, the class path, the options) with pep_jvm_check
 * before it creates any file, lock or shared memory, and hands the result
 * to its workers; a worker starts its JVM from it with pep_jvm_start, with
 * PostgreSQL's signals kept away from the JVM's threads.  Calls into the
 * running JVM go through pep_jni.h.
 *
 * IDENTIFICATION
 *	  pljava-glue/pep_jvm.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_JVM_H
#define PEP_JVM_H

#include "nodes/pg_list.h"

/* What separates the options of the options string. */
#define PEP_JVM_OPTION_SEPARATORS " \t\n"

/*
 * Options a caller may pass to pep_jvm_start: what its fixed table holds
 * beyond the glue's own four and the extension's own few, with room to
 * spare.
 */
#define PEP_JVM_MAX_OPTIONS		 64
#define PEP_JVM_MAX_USER_OPTIONS 48

/* Room for a worker's JVM options, the AppCDS archive's included. */
#define PEP_JVM_OPTIONS_LEN 2048

/* How a worker starts its JVM; fixed-size, so it can sit in shared memory. */
typedef struct PEPJvmConfig
{
	char libjvm_path[MAXPGPATH];	   /* the shared library to load */
	char class_path[MAXPGPATH];		   /* the jar */
	char options[PEP_JVM_OPTIONS_LEN]; /* white-space separated */
} PEPJvmConfig;

/*
 * Fill config after checking, without loading anything, that libjvm_path
 * and class_path are readable files and that options fit; raises ERROR
 * otherwise.
 */
extern void pep_jvm_check(PEPJvmConfig *config, const char *libjvm_path,
						  const char *class_path, const char *options);

/*
 * The options of an options string, split on PEP_JVM_OPTION_SEPARATORS: a
 * List of palloc'd strings in order (list_free_deep frees it).  Whoever reads
 * an options string splits it here, so the check where jvm_options is set,
 * the leader's JIT choice and the worker's JVM see the same options.
 */
extern List *pep_jvm_split_options(const char *options);

/* Start the JVM once per process, as config says.  Raises ERROR on any failure. */
extern void pep_jvm_start(const PEPJvmConfig *config);

#endif /* PEP_JVM_H */
