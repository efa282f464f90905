/*-------------------------------------------------------------------------
 *
 * pep_s3target.c
 *	  Parse and check an s3:// target in the caller's backend.
 *
 * An object-store export is refused here, before anything starts, when its
 * target is not one S3 could hold or one the superuser allows (DESIGN.md,
 * "Target, checks and settings"):
 *
 *	- the bucket follows S3's naming rules for general purpose buckets: 3 to
 *	  63 lower-case letters, digits, dots and hyphens, a letter or digit at
 *	  each end, no two dots in a row, not shaped like an IPv4 address, none
 *	  of the prefixes and suffixes AWS reserves;
 *	- the prefix is the start of every key the export writes: valid UTF-8
 *	  (converted from the database encoding), no control character, no
 *	  empty, "." or ".." segment (readers and S3-to-filesystem gateways take
 *	  them for directories), and short enough that prefix plus the longest
 *	  object name an export writes fits S3's 1,024-byte key.  It is
 *	  normalised to end in "/"; the bucket's root is "";
 *	- the foreign server named by s3_server, USAGE on it and the user
 *	  mapping give the endpoint and the settings (pep_s3server.c);
 *	- parallel_export_parquet.object_store_targets (pep_s3allow.c) lists the
 *	  target's bucket, or the endpoint's host with the bucket: it is checked
 *	  last because an entry may name the server's endpoint.
 *
 * Every error names the target by the text the caller wrote or by t->url,
 * never by the settings.
 *
 * This file is the top of the front: it calls pep_s3server.c and
 * pep_s3allow.c, and all three use the parsers of the leaf pep_s3parse.c;
 * nothing there calls back into this file.
 *
 * IDENTIFICATION
 *	  extension/src/output/s3/pep_s3target.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "mb/pg_wchar.h"

#include "pep_s3front.h"
#include "pep_s3parse.h"

#define PEP_S3_SCHEME "s3://"

/*
 * The longest object name an export writes under its prefix:
 * "part-NNNNN-EXPORTID.parquet" with 5 digits and 12 hex digits (DESIGN.md,
 * "The export, step by step"); "_SUCCESS" is shorter.
 */
#define PEP_S3_MAX_NAME_BYTES (sizeof("part-00000-000000000000.parquet") - 1)

bool
pep_s3_is_target(const char *directory)
{
	return strncmp(directory, PEP_S3_SCHEME, strlen(PEP_S3_SCHEME)) == 0;
}

static void
pep_s3_invalid(const char *directory, const char *detail, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid object storage target \"%s\"", directory),
			 errdetail("%s", detail),
			 hint ? errhint("%s", hint) : 0));
}

/* What is wrong with the UTF-8 key prefix, or NULL; prefix has no trailing '/'. */
static const char *
pep_s3_prefix_problem(const char *prefix)
{
	const unsigned char *p;
	const char *segment = prefix;

	for (p = (const unsigned char *) prefix; *p; p++)
		if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			return "The key prefix contains a control character.";

	for (;;)
	{
		const char *slash = strchr(segment, '/');
		size_t seglen = slash ? (size_t) (slash - segment) : strlen(segment);

		if (seglen == 0)
			return "The key prefix contains an empty segment (a leading \"/\" or \"//\").";
		if ((seglen == 1 && segment[0] == '.') ||
			(seglen == 2 && segment[0] == '.' && segment[1] == '.'))
			return "The key prefix contains a \".\" or \"..\" segment.";
		if (slash == NULL)
			return NULL;
		segment = slash + 1;
	}
}

/* Fill t->bucket, t->prefix and t->url from directory, or fail. */
static void
pep_s3_parse(PEPS3Target *t, const char *directory)
{
	const char *rest = directory + strlen(PEP_S3_SCHEME);
	const char *slash = strchr(rest, '/');
	size_t bucket_len = slash ? (size_t) (slash - rest) : strlen(rest);
	const char *bucket_problem;
	char *prefix;
	char *utf8;
	size_t len;

	/*
	 * The text is valid in the database encoding; SQL_ASCII checks nothing.
	 * The message leaves such a target out: a client's encoding could not
	 * take it.
	 */
	if (GetDatabaseEncoding() == PG_SQL_ASCII &&
		!pg_verify_mbstr(PG_UTF8, directory, strlen(directory), true))
		ereport(ERROR,
				(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
				 errmsg("object storage target is not valid UTF-8"),
				 errdetail("The database encoding is SQL_ASCII, which does not check text; object keys are UTF-8."),
				 errhint("Give the target as valid UTF-8 text.")));

	if (bucket_len >= sizeof(t->bucket))
		pep_s3_invalid(directory, "A bucket name is 3 to 63 characters long.", NULL);
	memcpy(t->bucket, rest, bucket_len);
	t->bucket[bucket_len] = '\0';
	bucket_problem = pep_s3_bucket_problem(t->bucket);
	if (bucket_problem != NULL)
		pep_s3_invalid(directory, bucket_problem, "Write the target as s3://bucket/prefix.");

	/* The prefix, without the one trailing "/" that normalisation adds back. */
	prefix = pstrdup(slash ? slash + 1 : "");
	len = strlen(prefix);
	if (len > 0 && prefix[len - 1] == '/')
		prefix[--len] = '\0';
	if (len == 0)
		t->prefix[0] = '\0';
	else
	{
		const char *prefix_problem;

		/* S3 keys are UTF-8 whatever the database's encoding is. */
		utf8 = pg_server_to_any(prefix, (int) len, PG_UTF8);
		prefix_problem = pep_s3_prefix_problem(utf8);
		if (prefix_problem != NULL)
			pep_s3_invalid(directory, prefix_problem, NULL);
		if (strlen(utf8) + 1 + PEP_S3_MAX_NAME_BYTES > PEP_S3_MAX_KEY_BYTES)
			pep_s3_invalid(directory,
						   psprintf("The key prefix is %zu bytes in UTF-8; an export's object keys must fit %d bytes, so the prefix may have at most %zu.",
									strlen(utf8), PEP_S3_MAX_KEY_BYTES,
									(size_t) PEP_S3_MAX_KEY_BYTES - 1 - PEP_S3_MAX_NAME_BYTES),
						   NULL);
		snprintf(t->prefix, sizeof(t->prefix), "%s/", utf8);
	}

	/* The url is for messages, in the database encoding like any text. */
	if (snprintf(t->url, sizeof(t->url), "%s%s/%s%s", PEP_S3_SCHEME, t->bucket,
				 prefix, len > 0 ? "/" : "") >= (int) sizeof(t->url))
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("object storage target \"%s\" is too long", directory)));
}

void
pep_s3_target_resolve(PEPS3Target *t, const char *directory, const char *s3_server)
{
	memset(t, 0, sizeof(PEPS3Target));
	pep_s3_parse(t, directory);
	pep_s3_server_settings(t, s3_server);
	pep_s3_check_allowed(t);
}
