/*-------------------------------------------------------------------------
 *
 * pep_s3target.h
 *	  An s3:// target, parsed, checked and resolved in the caller's backend.
 *
 * The leader-side front of an object-store export (DESIGN.md, "Target,
 * checks and settings"): the bucket and prefix, whether the superuser's
 * parallel_export_parquet.object_store_targets allows them, and the foreign
 * server and user mapping that say where and as whom to write.  Nothing
 * here talks to S3; workers do.
 *
 * IDENTIFICATION
 *	  extension/include/pep_s3target.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_S3TARGET_H
#define PEP_S3TARGET_H

/* S3's longest object key, in bytes of UTF-8. */
#define PEP_S3_MAX_KEY_BYTES 1024

typedef struct PEPS3Target
{
	char bucket[64];		  /* validated bucket name */
	char prefix[1024];		  /* key prefix in UTF-8, normalised to end in '/'
								 * (or "" for the bucket root) */
	char url[1100];			  /* "s3://bucket/prefix/", the only form messages show;
								 * in the database encoding */
	char server[NAMEDATALEN]; /* foreign server name, "" for the SDK's chain */
	char endpoint[512];		  /* endpoint for display and for the ledger hash; "" = SDK default */
	char *settings;			  /* palloc'd S3Settings "key=value" lines; holds the secret:
								 * goes only into the export's DSM, never into a message */
} PEPS3Target;

/* true when directory starts with "s3://" (no other check) */
extern bool pep_s3_is_target(const char *directory);

/*
 * Parse and validate directory (syntax, object_store_targets, the foreign
 * server and USAGE on it, the user mapping) and fill t; ereport(ERROR) with
 * ERRCODE_INVALID_PARAMETER_VALUE / INSUFFICIENT_PRIVILEGE etc. on any
 * violation. s3_server may be NULL.
 */
extern void pep_s3_target_resolve(PEPS3Target *t, const char *directory,
								  const char *s3_server);

#endif /* PEP_S3TARGET_H */
