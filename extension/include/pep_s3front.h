/*-------------------------------------------------------------------------
 *
 * pep_s3front.h
 *	  What the parts of an s3:// target's front share among themselves.
 *
 * pep_s3target.c parses the target and calls the other two in turn:
 * pep_s3server.c (the foreign server, USAGE, the user mapping, the
 * settings) and pep_s3allow.c (parallel_export_parquet.object_store_targets).
 * Neither of those calls back into pep_s3target.c or into each other: the
 * parsers all three need are in the leaf pep_s3parse.c (pep_s3parse.h), so
 * the front's call graph is target -> server, allow -> parse.  Other files
 * use only pep_s3target.h, and pep_guc.c the setting below.
 *
 * IDENTIFICATION
 *	  extension/include/pep_s3front.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_S3FRONT_H
#define PEP_S3FRONT_H

#include "utils/guc.h"

#include "pep_s3target.h"

/* pep_s3server.c: fill t->server, t->endpoint and t->settings, or fail */
extern void pep_s3_server_settings(PEPS3Target *t, const char *s3_server);

/* pep_s3allow.c: the setting parallel_export_parquet.object_store_targets */
extern char *pep_object_store_targets;
extern bool pep_s3_check_targets(char **newval, void **extra, GucSource source);

/* pep_s3allow.c: fail unless the setting allows t (bucket and endpoint known) */
extern void pep_s3_check_allowed(const PEPS3Target *t);

#endif /* PEP_S3FRONT_H */
