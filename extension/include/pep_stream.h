/*-------------------------------------------------------------------------
 *
 * pep_stream.h
 *	  Run a query source in the leader and stream its rows to the workers.
 *
 * IDENTIFICATION
 *	  extension/include/pep_stream.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_STREAM_H
#define PEP_STREAM_H

#include "nodes/plannodes.h"
#include "storage/shm_mq.h"

#include "pep_shared.h"

extern uint64 pep_stream_run(PlannedStmt *plan, const char *query,
							 shm_mq_handle **queues, int nqueues, PEPShared *shared);

#endif /* PEP_STREAM_H */
