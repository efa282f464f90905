/*-------------------------------------------------------------------------
 *
 * pep_numtext.h
 *	  A numeric as the text numeric_out writes (pep_numtext.c).
 *
 * IDENTIFICATION
 *	  extension/include/pep_numtext.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_NUMTEXT_H
#define PEP_NUMTEXT_H

#include "postgres.h"

#include "lib/stringinfo.h"

/*
 * The text of the numeric Datum value, byte for byte what numeric_out
 * returns, and its length; palloc'd in the current memory context.
 */
extern const char *pep_numeric_text(Datum value, Size *len);

/* Append the same text to out. */
extern void pep_numeric_append(StringInfo out, Datum value);

#endif /* PEP_NUMTEXT_H */
