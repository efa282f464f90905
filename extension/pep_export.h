/*-------------------------------------------------------------------------
 *
 * pep_export.h
 *	  The leader's side of an export.
 *
 * IDENTIFICATION
 *	  extension/pep_export.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_EXPORT_H
#define PEP_EXPORT_H

#include "pep_source.h"

/* Export src into directory with workers workers (0: chosen); returns rows. */
extern uint64 pep_export_run(PEPSource *src, const char *directory, int workers);

#endif							/* PEP_EXPORT_H */
