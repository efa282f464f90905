/*-------------------------------------------------------------------------
 *
 * pep_s3parse.c
 *	  The parsers the parts of an s3:// target's front share: bucket names,
 *	  comma-separated lists, endpoint URLs.
 *
 * The front is pep_s3target.c (the target), which calls pep_s3server.c (the
 * foreign server and its settings) and pep_s3allow.c
 * (parallel_export_parquet.object_store_targets); all three parse bucket
 * names, lists and endpoints with these functions.  This file is the leaf
 * of that graph: it calls none of them and includes only its own header,
 * so the front's calls and includes run one way (target -> server, allow
 * -> parse).  Each parser returns what is wrong as a detail sentence, so
 * that its caller chooses the error and the name it reports.
 *
 * IDENTIFICATION
 *	  extension/src/output/s3/pep_s3parse.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pep_s3parse.h"

static bool
pep_s3_is_ipv4_shaped(const char *name)
{
	int a,
		b,
		c,
		d,
		end = -1;

	return sscanf(name, "%d.%d.%d.%d%n", &a, &b, &c, &d, &end) == 4 &&
		   end == (int) strlen(name) && strspn(name, "0123456789.") == strlen(name);
}

/*
 * What is wrong with bucket as an S3 bucket name, as a detail sentence, or
 * NULL when it is a valid name.
 */
const char *
pep_s3_bucket_problem(const char *bucket)
{
	static const char *const reserved_prefixes[] = { "xn--", "sthree-", "amzn-s3-demo-" };
	static const char *const reserved_suffixes[] = { "-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3" };
	size_t len = strlen(bucket);

	if (len < 3 || len > 63)
		return "A bucket name is 3 to 63 characters long.";
	if (strspn(bucket, "abcdefghijklmnopqrstuvwxyz0123456789.-") != len)
		return "A bucket name consists of lower-case letters, digits, dots and hyphens.";
	if (strchr(".-", bucket[0]) != NULL || strchr(".-", bucket[len - 1]) != NULL)
		return "A bucket name begins and ends with a letter or a digit.";
	if (strstr(bucket, "..") != NULL)
		return "A bucket name has no two adjacent dots.";
	if (pep_s3_is_ipv4_shaped(bucket))
		return "A bucket name is not formatted as an IP address.";
	for (int i = 0; i < lengthof(reserved_prefixes); i++)
		if (strncmp(bucket, reserved_prefixes[i], strlen(reserved_prefixes[i])) == 0)
			return psprintf("Bucket names beginning with \"%s\" are reserved.", reserved_prefixes[i]);
	for (int i = 0; i < lengthof(reserved_suffixes); i++)
	{
		size_t slen = strlen(reserved_suffixes[i]);

		if (len > slen && strcmp(bucket + len - slen, reserved_suffixes[i]) == 0)
			return psprintf("Bucket names ending in \"%s\" are reserved.", reserved_suffixes[i]);
	}
	return NULL;
}

/* The comma-separated items of value, without surrounding blanks. */
List *
pep_s3_split_list(const char *value)
{
	List *items = NIL;
	char *item = pstrdup(value);

	for (;;)
	{
		char *comma = strchr(item, ',');
		char *end;

		if (comma != NULL)
			*comma = '\0';
		item += strspn(item, " \t");
		end = item + strlen(item);
		while (end > item && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		items = lappend(items, item);
		if (comma == NULL)
			return items;
		item = comma + 1;
	}
}

/* Characters [0-9A-Za-z] and those of extra, and nothing else? */
bool
pep_s3_only(const char *s, size_t len, const char *extra)
{
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
			  (s[i] >= 'A' && s[i] <= 'Z') || (s[i] != '\0' && strchr(extra, s[i]) != NULL)))
			return false;
	return true;
}

/*
 * An endpoint URL's host (lower case, an IPv6 address without its
 * brackets) and port (0 when the URL gives none); NULL, or a detail
 * sentence saying what is wrong with it.
 */
const char *
pep_s3_endpoint_parse(const char *endpoint, char **host, int *port)
{
	const char *p;
	const char *end;
	const char *host_end;
	const char *colon;

	if (pg_strncasecmp(endpoint, "http://", 7) == 0)
		p = endpoint + 7;
	else if (pg_strncasecmp(endpoint, "https://", 8) == 0)
		p = endpoint + 8;
	else
		return "An endpoint is an http:// or https:// URL.";
	end = p + strcspn(p, "/?#");
	if (memchr(p, '@', end - p) != NULL)
		return "An endpoint must not carry credentials; give them in a user mapping.";
	if (!pep_s3_only(end, strlen(end), "/-._~"))
		return "An endpoint has no query or fragment, and its path has only letters, digits and \"/-._~\".";

	if (*p == '[')
	{
		host_end = memchr(p, ']', end - p);
		if (host_end == NULL || host_end == p + 1 || !pep_s3_only(p + 1, host_end - p - 1, ":."))
			return "An endpoint's IPv6 address is hexadecimal digits, colons and dots in brackets.";
		*host = pnstrdup(p + 1, host_end - p - 1);
		colon = host_end + 1 < end ? host_end + 1 : NULL;
		if (colon != NULL && *colon != ':')
			return "An endpoint's IPv6 address in brackets is followed by nothing or a port.";
	}
	else
	{
		colon = memchr(p, ':', end - p);
		host_end = colon ? colon : end;
		if (host_end == p || host_end - p > 253 || !pep_s3_only(p, host_end - p, ".-"))
			return "An endpoint's host name is letters, digits, dots and hyphens.";
		*host = pnstrdup(p, host_end - p);
	}
	for (char *c = *host; *c; c++)
		*c = pg_ascii_tolower((unsigned char) *c);

	*port = 0;
	if (colon != NULL)
	{
		const char *digits = colon + 1;
		size_t ndigits = end - digits;

		if (ndigits < 1 || ndigits > 5 || strspn(digits, "0123456789") < ndigits ||
			(*port = atoi(pnstrdup(digits, ndigits))) < 1 || *port > 65535)
			return "An endpoint's port is a number from 1 to 65535.";
	}
	return NULL;
}
