/*-------------------------------------------------------------------------
 *
 * pep_s3parse.h
 *	  The leaf of an s3:// target's front: parsers of bucket names, lists
 *	  and endpoint URLs that pep_s3target.c, pep_s3server.c and
 *	  pep_s3allow.c share, and that call none of them (pep_s3parse.c).
 *
 * IDENTIFICATION
 *	  extension/include/pep_s3parse.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_S3PARSE_H
#define PEP_S3PARSE_H

#include "nodes/pg_list.h"

/* What is wrong with a bucket name, as a detail sentence, or NULL. */
extern const char *pep_s3_bucket_problem(const char *bucket);

/* The comma-separated items of value, without surrounding blanks. */
extern List *pep_s3_split_list(const char *value);

/*
 * An endpoint URL's host (lower case, an IPv6 address without its brackets)
 * and port (0 when the URL gives none), or a detail sentence saying what is
 * wrong with it.
 */
extern const char *pep_s3_endpoint_parse(const char *endpoint, char **host, int *port);

/* Whether s[0..len) is only [0-9A-Za-z] and the characters of extra. */
extern bool pep_s3_only(const char *s, size_t len, const char *extra);

#endif /* PEP_S3PARSE_H */
