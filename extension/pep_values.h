/*-------------------------------------------------------------------------
 *
 * pep_values.h
 *	  Encode one leaf value in the binary form Java reads (pep_values.c).
 *
 * Used for a flat column's value in a batch (pep_batch.c) and for the
 * leaves of arrays and composites (pep_nested.c).
 *
 * IDENTIFICATION
 *	  extension/pep_values.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_VALUES_H
#define PEP_VALUES_H

#include "pep_types.h"

extern void pep_put_fixed(const PEPNode *node, const char *column, Datum value, char *dst);
extern const char *pep_leaf_bytes(const PEPNode *node, const char *column, Datum value, Size *len);

#endif							/* PEP_VALUES_H */
