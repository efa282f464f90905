/*-------------------------------------------------------------------------
 *
 * pep_guc.h
 *	  The extension's settings (pep_guc.c).
 *
 * IDENTIFICATION
 *	  extension/include/pep_guc.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_GUC_H
#define PEP_GUC_H

#include "utils/guc.h"

extern char *pep_libjvm_path;
extern char *pep_jvm_options;
extern char *pep_fault_injection;
extern int pep_starve_worker;
extern bool pep_log_exports;
extern int pep_max_partitions;
extern int pep_partition_writers;
extern int pep_partition_memory;

extern void pep_define_gucs(void);

#endif /* PEP_GUC_H */
