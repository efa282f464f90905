/*-------------------------------------------------------------------------
 *
 * pep_java.h
 *	  How this extension's workers start their JVM (pep_java.c).
 *
 * IDENTIFICATION
 *	  extension/include/pep_java.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_JAVA_H
#define PEP_JAVA_H

#include "pep_jvm.h"

/* What a caller without an estimate passes (the sweep): the JIT stays tiered. */
#define PEP_JAVA_NO_ESTIMATE (-1.0)

/*
 * Fill config for workers that each encode about values_per_worker values
 * (rows times columns, the planner's estimate), checked; raises ERROR.
 */
extern void pep_java_prepare(PEPJvmConfig *config, double values_per_worker);

#endif /* PEP_JAVA_H */
