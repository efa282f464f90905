/*-------------------------------------------------------------------------
 *
 * pep_batch.h
 *	  Columnar batches that a worker fills from tuples and hands to Java.
 *
 * A batch is one buffer that Java sees as a direct ByteBuffer.  Each column
 * has a null byte per row and a values area: the value itself for fixed
 * width kinds, an (offset, length) pair into the shared var area for
 * variable width kinds.  The offsets of every area are computed here once
 * and passed to Java, which never guesses the layout.
 *
 * IDENTIFICATION
 *	  extension/include/pep_batch.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_BATCH_H
#define PEP_BATCH_H

#include "fmgr.h"
#include "lib/stringinfo.h"

#include "pep_types.h"
#include "pep_values.h"

/*
 * A column as pep_batch_add_row visits it: what it reads from the tuple and
 * where it stores the row's bytes, all in one place.
 */
typedef struct PEPBatchSlot
{
	int attidx;		  /* index of the value in the deformed tuple */
	int null_offset;  /* offset of its null bytes */
	int value_offset; /* offset of its values */
	int width;		  /* bytes per row of its values */
	int column;		  /* index in columns and trees */
	PEPPlace place;	  /* how its value is stored */
} PEPBatchSlot;

typedef struct PEPBatch
{
	const PEPColumn *columns;			/* column specs, in output order */
	int ncolumns;						/* entries in columns */
	int capacity;						/* rows per batch */
	int *null_offsets;					/* per column: offset of its null bytes */
	int *value_offsets;					/* per column: offset of its values */
	PEPBatchSlot *slots;				/* every column once: those of a Datum place
								 * (BOOL to UUID) first, grouped by place,
								 * then the rest in column order */
	PEPBatchSlot *column_slots;			/* the same slots in column order */
	int datum_ends[PEP_PLACE_UUID + 1]; /* per Datum place: the end
												 * of its slots */
	PEPNode **trees;					/* per column: its type tree */
	StringInfoData scratch;				/* a nested value being serialized */
	char *buf;							/* the buffer Java reads */
	Size size;							/* its size in bytes */
	Size var_start;						/* offset of the var area */
	Size var_used;						/* bytes of the var area in use */
	int nrows;							/* rows in the batch */
	bool grown;							/* buffer was replaced since last asked */
} PEPBatch;

extern PEPBatch *pep_batch_create(const PEPColumn *columns, int ncolumns, int capacity,
								  const PEPTypeChoices *types);
extern bool pep_batch_add_row(PEPBatch *batch, Datum *values, bool *isnull);
extern void pep_batch_grow(PEPBatch *batch);
extern void pep_batch_reset(PEPBatch *batch);


#endif /* PEP_BATCH_H */
