/*-------------------------------------------------------------------------
 *
 * pep_source.h
 *	  Resolve what an export reads: a relation scanned in parallel, or a
 *	  query the leader runs and streams.
 *
 * IDENTIFICATION
 *	  extension/include/pep_source.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_SOURCE_H
#define PEP_SOURCE_H

#include "nodes/plannodes.h"
#include "storage/block.h"

#include "pep_types.h"

typedef struct PEPSource
{
	char *display;		  /* the source as messages name it */
	Oid relid;			  /* relation whose heaps are scanned, or InvalidOid */
	List *leaves;		  /* OIDs of the heaps scanned, in order */
	BlockNumber pages;	  /* their total size, for the automatic worker count */
	double rows;		  /* the planner's estimate of the rows it yields */
	int parallel_workers; /* the relation's parallel_workers option, or -1 */
	char *query;		  /* SQL the leader runs, for streamed sources */
	PlannedStmt *plan;	  /* its plan */
	PEPTypeChoices types; /* the mappings the columns were resolved with */
	PEPColumn *columns;	  /* exported columns */
	int ncolumns;		  /* entries in columns */
} PEPSource;

extern PEPSource *pep_source_from_text(const char *text, const PEPTypeChoices *types);
extern PEPSource *pep_source_from_relid(Oid relid, const PEPTypeChoices *types);

#endif /* PEP_SOURCE_H */
