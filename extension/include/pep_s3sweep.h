/*-------------------------------------------------------------------------
 *
 * pep_s3sweep.h
 *	  The worker of parallel_export_parquet_sweep().
 *
 * IDENTIFICATION
 *	  extension/include/pep_s3sweep.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_S3SWEEP_H
#define PEP_S3SWEEP_H

#include "access/parallel.h"

/* Sweeps the dead record the caller locked; run through a parallel context. */
extern PGDLLEXPORT void pep_s3sweep_worker_main(dsm_segment *seg, shm_toc *toc);

#endif /* PEP_S3SWEEP_H */
