/*-------------------------------------------------------------------------
 *
 * pep_route.h
 *	  A partitioned export's worker: rows grouped by partition folder.
 *
 * IDENTIFICATION
 *	  extension/include/pep_route.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_ROUTE_H
#define PEP_ROUTE_H

#include "access/tupdesc.h"

#include "pep_ledger.h"
#include "pep_shared.h"
#include "pep_types.h"

/* A part being written: its ledger entry, and the rows written to it. */
typedef struct PEPOpenPart
{
	int entry;			 /* the part's ledger entry */
	uint64 rows;		 /* rows written to it so far */
	uint64 written_back; /* its bytes the kernel was asked to write back */
} PEPOpenPart;

/* One partition folder this worker has met (any level; leaves hold parts). */
typedef struct PEPLeaf
{
	char path[MAXPGPATH]; /* hash key: the folder's path below staging */
	int entry;			  /* this worker's ledger entry of the folder */
	int slot;			  /* Java part slot of its open part, or -1 */
	PEPOpenPart part;	  /* that part */
	uint64 last_used;	  /* when its part was last written to, for LRU */
	int nrows;			  /* rows of the current round */
	int first;			  /* where they start in the round's order */
} PEPLeaf;

typedef struct PEPRoute PEPRoute;
typedef struct PEPLeafSet PEPLeafSet;
struct PEPWorkerTarget;

extern Size pep_leaf_set_size(int max_partitions);
extern PEPLeafSet *pep_leaf_set_init(void *space, int max_partitions);
extern bool pep_leaf_set_add(PEPLeafSet *set, const char *path);
extern PEPRoute *pep_route_create(PEPShared *shared, PEPLedger *ledger, const PEPColumn *columns,
								  TupleDesc desc, struct PEPWorkerTarget *target);
extern bool pep_route_add(PEPRoute *route, Datum *values, bool *isnull);
extern int pep_route_group(PEPRoute *route, PEPLeaf ***leaves);
extern void pep_route_row(PEPRoute *route, PEPLeaf *leaf, int i, Datum **values, bool **isnull);
extern void pep_route_reset(PEPRoute *route);

#endif /* PEP_ROUTE_H */
