/*-------------------------------------------------------------------------
 *
 * pep_nested.h
 *	  Serialize arrays and composites for Java (pep_nested.c).
 *
 * IDENTIFICATION
 *	  extension/include/pep_nested.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_NESTED_H
#define PEP_NESTED_H

#include "lib/stringinfo.h"

#include "pep_types.h"

extern void pep_nested_serialize(StringInfo out, const PEPNode *node, Datum value,
								 const char *column);

#endif /* PEP_NESTED_H */
