/*-------------------------------------------------------------------------
 *
 * pep_numeric.h
 *	  Decode a numeric into the unscaled int64 of a Parquet DECIMAL
 *	  (pep_numeric.c).
 *
 * IDENTIFICATION
 *	  extension/pep_numeric.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_NUMERIC_H
#define PEP_NUMERIC_H

extern int64 pep_numeric_unscaled(Datum value, int precision, int scale, const char *column);

#endif							/* PEP_NUMERIC_H */
