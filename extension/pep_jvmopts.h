/*-------------------------------------------------------------------------
 *
 * pep_jvmopts.h
 *	  The check of jvm_options where it is set (pep_jvmopts.c).
 *
 * IDENTIFICATION
 *	  extension/pep_jvmopts.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_JVMOPTS_H
#define PEP_JVMOPTS_H

#include "utils/guc.h"

extern bool pep_check_jvm_options(char **newval, void **extra, GucSource source);

#endif							/* PEP_JVMOPTS_H */
