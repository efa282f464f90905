/*-------------------------------------------------------------------------
 *
 * pep_fault.c
 *	  Deterministic fault injection for the failure tests.
 *
 * The superuser-only setting parallel_export_parquet.fault_injection names
 * one point where an export fails, so that every failure test is driven by
 * an event instead of a timer.  Its form is point[:worker[:batches]]:
 *
 *	worker_error:K:N	worker K raises ERROR after writing N batches
 *	java_error:K:N		worker K's Java writer throws on batch N+1
 *	hang:K:N			worker K waits for cancellation after N batches
 *	open_error:K		worker K raises ERROR while opening its first part
 *	close_error:K		worker K raises ERROR while closing its part
 *	publish_error		the leader raises ERROR during publication
 *
 * Worker and batches default to 0.
 *
 * IDENTIFICATION
 *	  extension/pep_fault.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pep.h"
#include "pep_fault.h"

static const char *const pep_fault_points[] = {
	"worker_error", "java_error", "hang", "open_error", "close_error", "publish_error"
};

void
pep_fault_parse(PEPFault *fault)
{
	char	   *copy;
	char	   *point;
	char	   *worker;
	char	   *batches;
	char	   *save = NULL;
	bool		known = false;

	memset(fault, 0, sizeof(PEPFault));
	if (pep_fault_injection == NULL || pep_fault_injection[0] == '\0')
		return;

	copy = pstrdup(pep_fault_injection);
	point = strtok_r(copy, ":", &save);
	worker = strtok_r(NULL, ":", &save);
	batches = strtok_r(NULL, ":", &save);

	for (int i = 0; point && i < lengthof(pep_fault_points); i++)
		if (strcmp(point, pep_fault_points[i]) == 0)
			known = true;
	if (!known)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for parameter \"%s\": \"%s\"",
						"parallel_export_parquet.fault_injection", pep_fault_injection),
				 errhint("The point is one of worker_error, java_error, hang, open_error, close_error, publish_error.")));

	strlcpy(fault->point, point, sizeof(fault->point));
	fault->worker = worker ? atoi(worker) : 0;
	fault->batches = batches ? atoi(batches) : 0;
}

bool
pep_fault_is(const PEPFault *fault, const char *point, int worker)
{
	return strcmp(fault->point, point) == 0 && fault->worker == worker;
}
