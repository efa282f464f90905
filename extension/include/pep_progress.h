/*-------------------------------------------------------------------------
 *
 * pep_progress.h
 *	  Progress of a running export, visible to other sessions.
 *
 * IDENTIFICATION
 *	  extension/include/pep_progress.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_PROGRESS_H
#define PEP_PROGRESS_H

#include "storage/dsm.h"

#include "pep_shared.h"

/* Phases, as parallel_export_parquet_progress names them. */
#define PEP_PHASE_STARTING	  1
#define PEP_PHASE_WRITING	  2
#define PEP_PHASE_PUBLISHING  3
#define PEP_PHASE_CLEANING_UP 4

extern void pep_progress_start(Oid relid, uint64 blocks_total);
extern void pep_progress_phase(int phase);
extern void pep_progress_segment(dsm_segment *seg);
extern void pep_progress_report(PEPShared *shared, int nworkers, char *scans);
extern void pep_progress_end(void);
extern bool pep_may_see_role(Oid userid);
extern bool pep_activity_may_name_target(void);

#endif /* PEP_PROGRESS_H */
