/*-------------------------------------------------------------------------
 *
 * pep_s3allow.c
 *	  parallel_export_parquet.object_store_targets: where s3:// exports may go.
 *
 * A superuser-only setting, because it is the superuser's limit on what
 * roles that may write server files may also write to object storage:
 *
 *	'*'		(the default) every bucket on every endpoint;
 *	''		no s3:// target at all;
 *	a list	of comma-separated entries, each one of
 *			  bucket				that bucket, on any endpoint;
 *			  host[:port]/bucket	that bucket on a foreign server whose
 *									endpoint has this host (and port, when
 *									given; a URL without one has its scheme's);
 *			  host[:port]/bucket	with "*" as the bucket: every bucket there.
 *
 * An entry with a host matches only a target whose foreign server names an
 * endpoint: without one the SDK's chain picks it, from a place the backend
 * cannot see (~/.aws/config), so only a bare bucket can allow such a target.
 * Host names compare without regard to case.
 *
 * The value is checked where it is set (SET, ALTER SYSTEM, ALTER ROLE,
 * postgresql.conf), so that a typo fails there and not every export.  A
 * value PostgreSQL applies without anyone to tell (postgresql.conf, a role's
 * or database's setting, the client's connection options, all applied when
 * the library loads) is only warned about when refused, and the setting
 * keeps what it had: the default "*" at load.  So that such a typo cannot
 * open every bucket, it forbids s3:// targets in the session instead, until
 * a value from one of those places is accepted (a corrected file, reloaded).
 *
 * pep_s3target.c and pep_guc.c call this file; of the front, it calls only
 * the parsers of pep_s3parse.c.
 *
 * IDENTIFICATION
 *	  extension/src/output/s3/pep_s3allow.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pep_s3front.h"
#include "pep_s3parse.h"

#define PEP_S3_TARGETS_GUC "parallel_export_parquet.object_store_targets"

char *pep_object_store_targets = NULL;

/* The last value applied without a caller to tell was refused. */
static bool pep_s3_targets_refused = false;

/* One entry of the list: host NULL for a bare bucket, bucket "*" for all. */
typedef struct PEPAllowEntry
{
	char *host;	  /* endpoint host, lower case, or NULL */
	int port;	  /* endpoint port, 0 for any */
	char *bucket; /* bucket name, or "*" */
} PEPAllowEntry;

/* Parse one trimmed entry into e; a detail sentence when it is malformed. */
static const char *
pep_s3_parse_entry(const char *entry, PEPAllowEntry *e)
{
	const char *slash = strchr(entry, '/');
	const char *problem;

	e->host = NULL;
	e->port = 0;
	e->bucket = pstrdup(slash ? slash + 1 : entry);
	if (entry[0] == '\0')
		return "The list has an empty entry.";
	if (strcmp(entry, "*") == 0)
		return "\"*\" allows every target only on its own.";
	if (slash == NULL || strcmp(e->bucket, "*") != 0)
		problem = pep_s3_bucket_problem(e->bucket);
	else
		problem = NULL;
	if (problem == NULL && slash != NULL)
		problem = pep_s3_endpoint_parse(psprintf("https://%.*s", (int) (slash - entry), entry),
										&e->host, &e->port);
	return problem ? psprintf("Entry \"%s\" is not valid. %s", entry, problem) : NULL;
}

/*
 * Parse value into entries; returns a detail sentence for the first
 * malformed one, or NULL with *entries and *n set.
 */
static const char *
pep_s3_parse_targets(const char *value, PEPAllowEntry **entries, int *n)
{
	List *items = pep_s3_split_list(value);
	ListCell *lc;

	*n = 0;
	*entries = palloc(list_length(items) * sizeof(PEPAllowEntry));
	foreach (lc, items)
	{
		const char *problem = pep_s3_parse_entry(lfirst(lc), &(*entries)[*n]);

		if (problem != NULL)
			return problem;
		(*n)++;
	}
	return NULL;
}

static bool
pep_s3_all_allowed(const char *value)
{
	return strcmp(value, "*") == 0;
}

static bool
pep_s3_none_allowed(const char *value)
{
	return strspn(value, " \t") == strlen(value);
}

bool
pep_s3_check_targets(char **newval, void **extra, GucSource source)
{
	PEPAllowEntry *entries;
	int n;
	const char *problem;
	bool unattended = source > PGC_S_DEFAULT && source < PGC_S_INTERACTIVE;

	if (pep_s3_all_allowed(*newval) || pep_s3_none_allowed(*newval))
		problem = NULL;
	else
		problem = pep_s3_parse_targets(*newval, &entries, &n);
	if (unattended)
		pep_s3_targets_refused = problem != NULL;
	if (problem == NULL)
		return true;
	GUC_check_errdetail("%s", problem);
	GUC_check_errhint("Give \"*\", an empty string, or a comma-separated list of bucket, host/bucket and host/* entries.");
	return false;
}

void
pep_s3_check_allowed(const PEPS3Target *t)
{
	const char *value = pep_object_store_targets;
	PEPAllowEntry *entries;
	char *host = NULL;
	int port = 0;
	int n;

	if (pep_s3_targets_refused)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("object storage target \"%s\" is not allowed", t->url),
				 errdetail("The configured value of \"%s\" is invalid, which forbids every object storage target.",
						   PEP_S3_TARGETS_GUC),
				 errhint("The server log says what is wrong with the value; correct it where it is set.")));
	if (pep_s3_all_allowed(value))
		return;

	if (!pep_s3_none_allowed(value))
	{
		/* The check hook accepted the value, so it parses. */
		if (pep_s3_parse_targets(value, &entries, &n) != NULL)
			elog(ERROR, "unparsable setting \"%s\"", PEP_S3_TARGETS_GUC);
		if (t->endpoint[0] != '\0')
		{
			if (pep_s3_endpoint_parse(t->endpoint, &host, &port) != NULL)
				elog(ERROR, "unparsable endpoint of foreign server \"%s\"", t->server);
			if (port == 0)
				port = pg_strncasecmp(t->endpoint, "https:", 6) == 0 ? 443 : 80;
		}
		for (int i = 0; i < n; i++)
		{
			PEPAllowEntry *e = &entries[i];

			if (e->host != NULL &&
				(host == NULL || pg_strcasecmp(e->host, host) != 0 || (e->port != 0 && e->port != port)))
				continue;
			if (strcmp(e->bucket, "*") == 0 || strcmp(e->bucket, t->bucket) == 0)
				return;
		}
	}

	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("object storage target \"%s\" is not allowed", t->url),
			 pep_s3_none_allowed(value) ? errdetail("The configuration parameter \"%s\" is empty, which forbids every object storage target.",
													PEP_S3_TARGETS_GUC)
			 : host == NULL				? errdetail("The configuration parameter \"%s\" does not list the bucket \"%s\".",
													PEP_S3_TARGETS_GUC, t->bucket)
										: errdetail("The configuration parameter \"%s\" lists neither the bucket \"%s\" nor it on the endpoint host \"%s\".",
													PEP_S3_TARGETS_GUC, t->bucket, host),
			 errhint("A superuser can allow the target by adding \"%s\" to \"%s\".",
					 host == NULL ? t->bucket : psprintf(strchr(host, ':') ? "[%s]/%s" : "%s/%s", host, t->bucket),
					 PEP_S3_TARGETS_GUC)));
}
