/*-------------------------------------------------------------------------
 *
 * pep_worker.h
 *	  Entry point of an export's parallel worker (pep_worker.c).
 *
 * The leader names it to CreateParallelContext, which looks it up in this
 * library by name.
 *
 * IDENTIFICATION
 *	  extension/include/pep_worker.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_WORKER_H
#define PEP_WORKER_H

#include "access/parallel.h"

extern PGDLLEXPORT void pep_worker_main(dsm_segment *seg, shm_toc *toc);

#endif /* PEP_WORKER_H */
