/*-------------------------------------------------------------------------
 *
 * pep_values.h
 *	  Encode one leaf value in the binary form Java reads (pep_values.c).
 *
 * Used for a flat column's value in a batch (pep_batch.c) and for the
 * leaves of arrays and composites (pep_nested.c).
 *
 * IDENTIFICATION
 *	  extension/include/pep_values.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_VALUES_H
#define PEP_VALUES_H

#include "datatype/timestamp.h"
#include "utils/date.h"
#include "utils/uuid.h"
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

#include "pep_types.h"

/*
 * How pep_batch_add_row places a flat column's value (pep_value_place): as
 * bytes pep_put_datum makes from its Datum alone (the Datum places, BOOL to
 * UUID, first here: stored in the batch itself, no call per value), through
 * pep_numeric_unscaled (DECIMAL64) or pep_put_fixed, or in the var area
 * (VARLENA: a varlena whose bytes are stored as they are, such as text in a
 * UTF-8 database or bytea, found inline by pep_varlena_bytes).  The places
 * BOOL to DATUM8 are the Datum's low 1, 2, 4 or 8 bytes; DATE and TIMESTAMP
 * move the value from PostgreSQL's epoch to Unix's and can refuse it; UUID
 * copies the 16 bytes the Datum points to.
 */
typedef enum PEPPlace
{
	PEP_PLACE_BOOL,
	PEP_PLACE_DATUM2,
	PEP_PLACE_DATUM4,
	PEP_PLACE_DATUM8,
	PEP_PLACE_DATE,
	PEP_PLACE_TIMESTAMP,
	PEP_PLACE_UUID,
	PEP_PLACE_DECIMAL64,
	PEP_PLACE_ENCODE,
	PEP_PLACE_VAR,
	PEP_PLACE_VARLENA
} PEPPlace;

/* Days and microseconds between the PostgreSQL and Unix epochs. */
#define PEP_EPOCH_DAYS	(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE)
#define PEP_EPOCH_USECS ((int64) PEP_EPOCH_DAYS * USECS_PER_DAY)

extern PEPPlace pep_value_place(const PEPNode *node);

/*
 * Store a value of a Datum place at dst: the bytes pep_put_fixed writes
 * for the kinds of that place.  An int4, oid or float4 Datum holds its 4
 * bytes as an int32 (Float4GetDatum), an int8, time or float8 Datum its 8
 * bytes as an int64 (Float8GetDatum, by value or not); a timestamp's
 * likewise.  True when pep_put_fixed refuses the value (an infinite date or
 * timestamp, or a timestamp the move overflows); what it stored at dst is
 * then not the value.  The test is computed, not branched on, so that a
 * caller can fold it into one test per row.
 */
static inline bool
pep_put_datum(PEPPlace place, Datum value, char *dst)
{
	switch (place)
	{
		case PEP_PLACE_BOOL:
			*dst = DatumGetBool(value) ? 1 : 0;
			return false;
		case PEP_PLACE_DATUM2:
		{
			int16 v = DatumGetInt16(value);

			memcpy(dst, &v, sizeof(v));
			return false;
		}
		case PEP_PLACE_DATUM4:
		{
			int32 v = DatumGetInt32(value);

			memcpy(dst, &v, sizeof(v));
			return false;
		}
		case PEP_PLACE_DATUM8:
		{
			int64 v = DatumGetInt64(value);

			memcpy(dst, &v, sizeof(v));
			return false;
		}
		case PEP_PLACE_DATE:
		{
			DateADT d = DatumGetDateADT(value);
			/* unsigned: the sum of a refused value may wrap */
			int32 v = (int32) ((uint32) d + PEP_EPOCH_DAYS);

			memcpy(dst, &v, sizeof(v));
			return (d == DATEVAL_NOBEGIN) | (d == DATEVAL_NOEND);
		}
		case PEP_PLACE_TIMESTAMP:
		{
			int64 ts = DatumGetInt64(value);
			int64 v = (int64) ((uint64) ts + PEP_EPOCH_USECS);

			memcpy(dst, &v, sizeof(v));
			/* DT_NOEND is among those the move overflows */
			return (ts == DT_NOBEGIN) | (ts > PG_INT64_MAX - PEP_EPOCH_USECS);
		}
		case PEP_PLACE_UUID:
			memcpy(dst, DatumGetUUIDP(value)->data, UUID_LEN);
			return false;
		default:
			Assert(false);
			return false;
	}
}

extern void pep_put_fixed(const PEPNode *node, const char *column, Datum value, char *dst);
extern const char *pep_leaf_bytes(const PEPNode *node, const char *column, Datum value, Size *len);

/*
 * The bytes of a value of a VARLENA place: the datum's own when it is
 * neither compressed nor stored out of line (pg_detoast_datum_packed's
 * test), else what pep_leaf_bytes finds.
 */
static inline const char *
pep_varlena_bytes(const PEPNode *node, const char *column, Datum value, Size *len)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(value);

	if (VARATT_IS_COMPRESSED(v) || VARATT_IS_EXTERNAL(v))
		return pep_leaf_bytes(node, column, value, len);
	*len = VARSIZE_ANY_EXHDR(v);
	return VARDATA_ANY(v);
}

#endif /* PEP_VALUES_H */
