/*-------------------------------------------------------------------------
 *
 * pep_jsonb.h
 *	  A jsonb value as the text jsonb's output function writes.
 *
 * IDENTIFICATION
 *	  extension/include/pep_jsonb.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_JSONB_H
#define PEP_JSONB_H

#include "postgres.h"

/*
 * The text of the jsonb Datum value, byte for byte what jsonb_out returns
 * for it, and its length; palloc'd in the current memory context.
 */
extern const char *pep_jsonb_text(Datum value, Size *len);

#endif /* PEP_JSONB_H */
