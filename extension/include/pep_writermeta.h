/*-------------------------------------------------------------------------
 *
 * pep_writermeta.h
 *	  The options field_ids and kv_metadata, checked in the leader.
 *
 * IDENTIFICATION
 *	  extension/include/pep_writermeta.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_WRITERMETA_H
#define PEP_WRITERMETA_H

#include "utils/jsonb.h"

#include "pep_source.h"

extern char *pep_field_ids_line(const char *spec, const PEPSource *src);
extern char *pep_kv_metadata_line(Jsonb *json);

#endif /* PEP_WRITERMETA_H */
