/*-------------------------------------------------------------------------
 *
 * pep_java.h
 *	  How this extension's workers start their JVM (pep_java.c).
 *
 * IDENTIFICATION
 *	  extension/pep_java.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_JAVA_H
#define PEP_JAVA_H

#include "pep_jvm.h"

extern void pep_java_prepare(PEPJvmConfig *config);

#endif							/* PEP_JAVA_H */
