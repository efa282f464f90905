/*-------------------------------------------------------------------------
 *
 * pep_export.h
 *	  The leader's side of an export.
 *
 * IDENTIFICATION
 *	  extension/include/pep_export.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_EXPORT_H
#define PEP_EXPORT_H

#include "pep_options.h"
#include "pep_source.h"

/* What a finished export did, for its LOG line and for the caller. */
typedef struct PEPSummary
{
	char source[1024];		   /* the source as messages name it */
	char directory[1100];	   /* the published directory or s3:// URL */
	uint64 rows;			   /* rows exported */
	uint64 bytes;			   /* bytes of all parts */
	int parts;				   /* part files */
	int workers;			   /* workers that ran */
	double seconds;			   /* wall time of the call */
	const char *compatibility; /* the reader profile the parts were written for */
	Oid userid;				   /* the role whose privileges it used: who may see it */
} PEPSummary;

/* Export src into directory as opts say; fills summary and returns rows. */
extern uint64 pep_export_run(PEPSource *src, const char *directory, const PEPOptions *opts,
							 PEPSummary *summary);

#endif /* PEP_EXPORT_H */
