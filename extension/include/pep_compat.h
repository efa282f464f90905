/*-------------------------------------------------------------------------
 *
 * pep_compat.h
 *	  Differences between the PostgreSQL versions this extension builds
 *	  against, spelled once for the files that meet them twice.
 *
 * IDENTIFICATION
 *	  extension/include/pep_compat.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_COMPAT_H
#define PEP_COMPAT_H

#include "access/htup_details.h"

/* PostgreSQL 18 added the "extra" argument (bytes reserved ahead of the tuple). */
#if PG_VERSION_NUM >= 180000
#define pep_form_minimal_tuple(desc, values, isnull) \
	heap_form_minimal_tuple((desc), (values), (isnull), 0)
#else
#define pep_form_minimal_tuple(desc, values, isnull) \
	heap_form_minimal_tuple((desc), (values), (isnull))
#endif

#endif /* PEP_COMPAT_H */
