/*-------------------------------------------------------------------------
 *
 * pep_fault.h
 *	  Deterministic fault injection for the failure tests.
 *
 * IDENTIFICATION
 *	  extension/pep_fault.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_FAULT_H
#define PEP_FAULT_H

typedef struct PEPFault
{
	char		point[32];		/* fault point, empty for none */
	int			worker;			/* ParallelWorkerNumber it applies to */
	int			batches;		/* batches written before it fires */
} PEPFault;

extern void pep_fault_parse(PEPFault *fault);
extern bool pep_fault_is(const PEPFault *fault, const char *point, int worker);

#endif							/* PEP_FAULT_H */
