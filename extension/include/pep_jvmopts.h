/*-------------------------------------------------------------------------
 *
 * pep_jvmopts.h
 *	  The allow-list of jvm_options, checked where it is set (pep_jvmopts.c).
 *
 * IDENTIFICATION
 *	  extension/include/pep_jvmopts.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_JVMOPTS_H
#define PEP_JVMOPTS_H

#include "utils/guc.h"

extern bool pep_check_jvm_options(char **newval, void **extra, GucSource source);

/*
 * Is option one of the HotSpot diagnostic flags jvm_options allows?  Those
 * need diagnostic options unlocked, which the extension does around each of
 * them alone (pep_java.c).
 */
extern bool pep_jvm_option_is_diagnostic(const char *option);

#endif /* PEP_JVMOPTS_H */
