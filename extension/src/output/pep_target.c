/*-------------------------------------------------------------------------
 *
 * pep_target.c
 *	  The registry of output targets: which implementation serves an export.
 *
 * The leader chooses once, from the target's text, and records the kind in
 * PEPShared; each worker looks its table up by that kind rather than by a
 * pointer, since a worker loads the library anew and its tables need not
 * sit at the leader's addresses.  Adding a target is one line in each
 * function.
 *
 * IDENTIFICATION
 *	  extension/src/output/pep_target.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pep_s3target.h"
#include "pep_target.h"

/* The implementation for target, an export's directory or URL argument. */
const PEPTargetMethods *
pep_target_for(const char *target)
{
	if (pep_s3_is_target(target))
		return &pep_s3_target_methods;
	return &pep_dir_target_methods;
}

/* A worker's table for the kind the leader chose. */
const PEPWorkerTargetMethods *
pep_target_worker_methods(PEPTargetKind kind)
{
	switch (kind)
	{
		case PEP_TARGET_DIRECTORY:
			return &pep_dir_worker_methods;
		case PEP_TARGET_OBJECT_STORE:
			return &pep_s3_worker_methods;
	}
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("unrecognized output target kind %d", (int) kind)));
	return NULL; /* keep compiler quiet */
}
