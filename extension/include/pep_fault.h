/*-------------------------------------------------------------------------
 *
 * pep_fault.h
 *	  Deterministic fault injection for the failure tests.
 *
 * IDENTIFICATION
 *	  extension/include/pep_fault.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_FAULT_H
#define PEP_FAULT_H

#include "utils/guc.h"

struct PEPShared;

/* Where the leader (or, sending, worker 0) pauses for pause:PHASE. */
typedef enum PEPPause
{
	PEP_PAUSE_NONE = 0,
	PEP_PAUSE_STARTING,	   /* staging created, no worker launched */
	PEP_PAUSE_PUBLISHING,  /* _SUCCESS in staging, before the rename; object
								 * storage: every part pending, before PUBLISH */
	PEP_PAUSE_PUBLISHED,   /* after the rename (the commit), before the return */
	PEP_PAUSE_COMMITTING,  /* object storage: _SUCCESS written, before the commit */
	PEP_PAUSE_SENDING,	   /* object storage: worker 0, every part complete,
								 * before it decides to write _SUCCESS */
	PEP_PAUSE_COMMITTED,   /* object storage, overwrite: worker 0 saw
								 * COMMITTED, no replaced part recorded */
	PEP_PAUSE_SUPERSEDING, /* ... every replaced part recorded
								 * "superseded", none deleted */
	PEP_PAUSE_SUPERSEDED   /* ... every replaced part deleted, before the
								 * worker exits */
} PEPPause;

/* PEPFault.worker of point:any[:N]: whichever worker reaches the point first. */
#define PEP_FAULT_ANY_WORKER (-1)

typedef struct PEPFault
{
	char point[32]; /* fault point, empty for none */
	int worker;		/* ParallelWorkerNumber it applies to, or
								 * PEP_FAULT_ANY_WORKER */
	int batches;	/* batches written before it fires */
	PEPPause pause; /* for point "pause": where the leader waits */
} PEPFault;

extern bool pep_fault_check_hook(char **newval, void **extra, GucSource source);
extern void pep_fault_parse(PEPFault *fault);
extern bool pep_fault_is(const PEPFault *fault, const char *point, int worker);
extern bool pep_fault_strikes(const PEPFault *fault, const char *point, struct PEPShared *shared);
extern bool pep_fault_strikes_at(const PEPFault *fault, const char *point, int64 batches,
								 struct PEPShared *shared);
extern void pep_fault_pause(const PEPFault *fault, PEPPause pause);
extern void pep_fault_starve(struct PEPShared *shared);
extern void pep_fault_scan_ended(struct PEPShared *shared);

#endif /* PEP_FAULT_H */
