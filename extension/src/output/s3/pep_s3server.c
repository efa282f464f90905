/*-------------------------------------------------------------------------
 *
 * pep_s3server.c
 *	  Foreign servers and user mappings of parallel_export_parquet_s3.
 *
 * An object store's endpoint and keys live in the catalog the way
 * postgres_fdw keeps a remote server's: a foreign server of the extension's
 * handler-less foreign-data wrapper says where (endpoint, region,
 * path_style, checksum, and the buckets it may be used for), and a user
 * mapping says as whom (access_key_id, secret_access_key, session_token).
 * A server's options are visible to every role (pg_foreign_server), a user
 * mapping's only to its user and superusers (pg_user_mappings), so keys
 * are accepted in a user mapping only.  A mapping without keys leaves them
 * to the AWS SDK's chain.
 *
 * The validator checks every option where it is set (CREATE and ALTER
 * SERVER and USER MAPPING), with the same rules the export applies again
 * when it turns them into the "key=value" lines S3Settings.java parses:
 * that format has no quoting, and S3Settings trims values, so no value may
 * hold a control character or begin or end with a blank.  A key is never
 * shown in a message, not even a malformed one.
 *
 * At export time, s3_server => 'name' must name a server of this wrapper
 * on which the current role has USAGE, and there must be a user mapping
 * for the role or for PUBLIC.  The resulting settings go into the
 * export's DSM and nowhere else (DESIGN.md, "Target, checks and settings").
 *
 * pep_s3target.c calls this file; of the front, it calls only the parsers
 * of pep_s3parse.c.
 *
 * IDENTIFICATION
 *	  extension/src/output/s3/pep_s3server.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/reloptions.h"
#include "catalog/dependency.h"
#include "catalog/pg_foreign_data_wrapper.h"
#include "catalog/pg_foreign_server.h"
#include "catalog/pg_foreign_table.h"
#include "catalog/pg_user_mapping.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "foreign/foreign.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/syscache.h"

#include "pep_contract.h"
#include "pep_extension.h"
#include "pep_s3front.h"
#include "pep_s3parse.h"

#define PEP_S3_FDW_NAME "parallel_export_parquet_s3"

PG_FUNCTION_INFO_V1(pep_s3_fdw_validator);

/* The options, in the order their settings lines are written. */
typedef struct PEPS3Option
{
	const char *name; /* option name, also the S3Settings key */
	Oid catalog;	  /* where it may be given */
	int max_len;	  /* longest value */
	bool secret;	  /* never shown in a message */
} PEPS3Option;

static const PEPS3Option pep_s3_options[] = {
	{ PEP_S3_SETTING(ENDPOINT), ForeignServerRelationId, 500, false },
	{ PEP_S3_SETTING(REGION), ForeignServerRelationId, 64, false },
	{ PEP_S3_SETTING(PATH_STYLE), ForeignServerRelationId, 16, false },
	{ PEP_S3_SETTING(CHECKSUM), ForeignServerRelationId, 16, false },
	{ "buckets", ForeignServerRelationId, 8192, false },
	{ PEP_S3_SETTING(ACCESS_KEY_ID), UserMappingRelationId, 128, true },
	{ PEP_S3_SETTING(SECRET_ACCESS_KEY), UserMappingRelationId, 256, true },
	{ PEP_S3_SETTING(SESSION_TOKEN), UserMappingRelationId, 8192, true },
};

static const PEPS3Option *
pep_s3_find_option(const char *name)
{
	for (int i = 0; i < lengthof(pep_s3_options); i++)
		if (strcmp(pep_s3_options[i].name, name) == 0)
			return &pep_s3_options[i];
	return NULL;
}

static void
pep_s3_bad_value(const PEPS3Option *opt, const char *value, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 opt->secret ? errmsg("invalid value for option \"%s\"", opt->name) : errmsg("invalid value for option \"%s\": %s", opt->name, quote_literal_cstr(value)),
			 errdetail("%s", detail)));
}

/*
 * Check the value of opt and return it as its settings line has it, or NULL
 * when it adds no line (path_style 'auto', buckets).
 */
static const char *
pep_s3_option_value(const PEPS3Option *opt, const char *value)
{
	size_t len = strlen(value);
	bool flag;

	if (len == 0 || len > opt->max_len)
		pep_s3_bad_value(opt, value, psprintf("The value is 1 to %d characters long.", opt->max_len));
	for (const unsigned char *c = (const unsigned char *) value; *c; c++)
		if (*c < 0x20 || *c == 0x7f || (opt->secret && (*c == ' ' || *c > 0x7f)))
			pep_s3_bad_value(opt, value, opt->secret ? "The value is printable ASCII without blanks." : "The value contains a control character.");
	if (value[0] == ' ' || value[len - 1] == ' ')
		pep_s3_bad_value(opt, value, "The value begins or ends with a blank.");

	if (strcmp(opt->name, PEP_S3_SETTING(ENDPOINT)) == 0)
	{
		char *host;
		int port;
		const char *problem = pep_s3_endpoint_parse(value, &host, &port);

		if (problem != NULL)
			pep_s3_bad_value(opt, value, problem);
	}
	else if (strcmp(opt->name, PEP_S3_SETTING(REGION)) == 0)
	{
		if (!pep_s3_only(value, len, "-_."))
			pep_s3_bad_value(opt, value, "A region is letters, digits, hyphens, underscores and dots.");
	}
	else if (strcmp(opt->name, PEP_S3_SETTING(PATH_STYLE)) == 0)
	{
		if (pg_strcasecmp(value, "auto") == 0)
			return NULL;
		if (!parse_bool(value, &flag))
			pep_s3_bad_value(opt, value, "Valid values are true, false and auto.");
		return flag ? "true" : "false";
	}
	else if (strcmp(opt->name, PEP_S3_SETTING(CHECKSUM)) == 0)
	{
		if (pg_strcasecmp(value, PEP_S3_SETTING(CHECKSUM_WHEN_REQUIRED)) == 0)
			return PEP_S3_SETTING(CHECKSUM_WHEN_REQUIRED);
		if (pg_strcasecmp(value, PEP_S3_SETTING(CHECKSUM_WHEN_SUPPORTED)) == 0)
			return PEP_S3_SETTING(CHECKSUM_WHEN_SUPPORTED);
		pep_s3_bad_value(opt, value, "Valid values are when_required and when_supported.");
	}
	else if (strcmp(opt->name, "buckets") == 0)
	{
		List *names;
		ListCell *lc;

		names = pep_s3_split_list(value);
		foreach (lc, names)
		{
			const char *problem = pep_s3_bucket_problem(lfirst(lc));

			if (problem != NULL)
				pep_s3_bad_value(opt, value, psprintf("The bucket \"%s\" is not valid. %s", (char *) lfirst(lc), problem));
		}
		return NULL;
	}
	return value;
}

/* "a, b and c": the options valid for catalog, for a hint. */
static char *
pep_s3_option_names(Oid catalog)
{
	StringInfoData buf;
	int n = 0;
	int total = 0;

	for (int i = 0; i < lengthof(pep_s3_options); i++)
		if (pep_s3_options[i].catalog == catalog)
			total++;
	initStringInfo(&buf);
	for (int i = 0; i < lengthof(pep_s3_options); i++)
		if (pep_s3_options[i].catalog == catalog)
		{
			n++;
			appendStringInfo(&buf, "%s%s", n == 1 ? "" : n == total ? " and "
																	: ", ",
							 pep_s3_options[i].name);
		}
	return buf.data;
}

/* The value of option name in options, or NULL. */
static char *
pep_s3_get(List *options, const char *name)
{
	ListCell *lc;

	foreach (lc, options)
	{
		DefElem *def = lfirst_node(DefElem, lc);

		if (strcmp(def->defname, name) == 0)
			return defGetString(def);
	}
	return NULL;
}

/* Every option of a server or user mapping, checked; keys come as a pair. */
static void
pep_s3_check_options(List *options, Oid catalog)
{
	ListCell *lc;

	foreach (lc, options)
	{
		DefElem *def = lfirst_node(DefElem, lc);
		const PEPS3Option *opt = pep_s3_find_option(def->defname);

		if (opt == NULL || opt->catalog != catalog)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
					 errmsg("invalid option \"%s\"", def->defname),
					 opt != NULL && opt->secret ? errdetail("Keys belong in a user mapping, whose options only its user and superusers can read.") : 0,
					 catalog == ForeignServerRelationId ? errhint("Valid options for a server are %s.", pep_s3_option_names(catalog)) : errhint("Valid options for a user mapping are %s.", pep_s3_option_names(catalog))));
		(void) pep_s3_option_value(opt, defGetString(def));
	}
	if ((pep_s3_get(options, PEP_S3_SETTING(ACCESS_KEY_ID)) == NULL) !=
		(pep_s3_get(options, PEP_S3_SETTING(SECRET_ACCESS_KEY)) == NULL))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("options \"%s\" and \"%s\" must be given together",
						PEP_S3_SETTING(ACCESS_KEY_ID), PEP_S3_SETTING(SECRET_ACCESS_KEY))));
	if (pep_s3_get(options, PEP_S3_SETTING(SESSION_TOKEN)) != NULL &&
		pep_s3_get(options, PEP_S3_SETTING(ACCESS_KEY_ID)) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"%s\" needs options \"%s\" and \"%s\"",
						PEP_S3_SETTING(SESSION_TOKEN), PEP_S3_SETTING(ACCESS_KEY_ID),
						PEP_S3_SETTING(SECRET_ACCESS_KEY))));
}

/*
 * The wrapper's validator, called by CREATE and ALTER of the wrapper, its
 * servers, user mappings and foreign tables with the options the object
 * would have.
 */
Datum
pep_s3_fdw_validator(PG_FUNCTION_ARGS)
{
	List *options = untransformRelOptions(PG_GETARG_DATUM(0));
	Oid catalog = PG_GETARG_OID(1);

	if (catalog == ForeignServerRelationId || catalog == UserMappingRelationId)
		pep_s3_check_options(options, catalog);
	else if (catalog == ForeignTableRelationId)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("foreign-data wrapper \"%s\" has no foreign tables", PEP_S3_FDW_NAME),
				 errdetail("Its servers only tell exports where to write.")));
	else if (options != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
				 errmsg("invalid option \"%s\"", linitial_node(DefElem, options)->defname),
				 errhint("Give options to a server (%s) or a user mapping (%s).",
						 pep_s3_option_names(ForeignServerRelationId),
						 pep_s3_option_names(UserMappingRelationId))));
	PG_RETURN_VOID();
}

/* The user mapping's options for userid, else PUBLIC's, or fail. */
static List *
pep_s3_user_mapping(Oid userid, ForeignServer *server)
{
	HeapTuple tuple;
	Datum datum;
	bool isnull;
	List *options = NIL;

	tuple = SearchSysCache2(USERMAPPINGUSERSERVER, ObjectIdGetDatum(userid),
							ObjectIdGetDatum(server->serverid));
	if (!HeapTupleIsValid(tuple))
		tuple = SearchSysCache2(USERMAPPINGUSERSERVER, ObjectIdGetDatum(InvalidOid),
								ObjectIdGetDatum(server->serverid));
	if (!HeapTupleIsValid(tuple))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("user mapping for \"%s\" does not exist for server \"%s\"",
						GetUserNameFromId(userid, false), server->servername),
				 errhint("Create one with CREATE USER MAPPING FOR CURRENT_USER SERVER %s, with the keys as options, or without options to take them from the AWS SDK's default chain.",
						 quote_identifier(server->servername))));
	datum = SysCacheGetAttr(USERMAPPINGUSERSERVER, tuple, Anum_pg_user_mapping_umoptions, &isnull);
	if (!isnull)
		options = untransformRelOptions(datum);
	ReleaseSysCache(tuple);
	return options;
}

/* Append the settings line of each option in the table's order. */
static void
pep_s3_append_settings(StringInfo buf, List *options)
{
	for (int i = 0; i < lengthof(pep_s3_options); i++)
	{
		const char *given = pep_s3_get(options, pep_s3_options[i].name);
		const char *value = given ? pep_s3_option_value(&pep_s3_options[i], given) : NULL;

		if (value != NULL)
			appendStringInfo(buf, "%s=%s\n", pep_s3_options[i].name, value);
	}
}

/* Fail unless the server's buckets option, when given, lists the bucket. */
static void
pep_s3_check_bucket(ForeignServer *server, const char *bucket)
{
	char *buckets = pep_s3_get(server->options, "buckets");
	List *names;
	ListCell *lc;

	if (buckets == NULL)
		return;
	names = pep_s3_split_list(buckets);
	foreach (lc, names)
		if (strcmp(lfirst(lc), bucket) == 0)
			return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("server \"%s\" may not be used for bucket \"%s\"", server->servername, bucket),
			 errdetail("The server's option \"%s\" is \"%s\".", "buckets", buckets)));
}

void
pep_s3_server_settings(PEPS3Target *t, const char *s3_server)
{
	ForeignServer *server;
	ForeignDataWrapper *fdw;
	AclResult aclresult;
	Oid userid = GetUserId();
	StringInfoData buf;

	t->settings = pstrdup("");
	if (s3_server == NULL)
		return;

	server = GetForeignServerByName(s3_server, false);
	fdw = GetForeignDataWrapper(server->fdwid);
	if (strcmp(fdw->fdwname, PEP_S3_FDW_NAME) != 0 ||
		getExtensionOfObject(ForeignDataWrapperRelationId, fdw->fdwid) !=
			get_extension_oid(PEP_EXTENSION_NAME, false))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("server \"%s\" is not an object storage server", server->servername),
				 errdetail("Its foreign-data wrapper is \"%s\"; s3_server needs one of \"%s\".",
						   fdw->fdwname, PEP_S3_FDW_NAME)));

#if PG_VERSION_NUM >= 160000
	aclresult = object_aclcheck(ForeignServerRelationId, server->serverid, userid, ACL_USAGE);
#else
	aclresult = pg_foreign_server_aclcheck(server->serverid, userid, ACL_USAGE);
#endif
	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, OBJECT_FOREIGN_SERVER, server->servername);

	pep_s3_check_bucket(server, t->bucket);

	initStringInfo(&buf);
	pep_s3_append_settings(&buf, server->options);
	pep_s3_append_settings(&buf, pep_s3_user_mapping(userid, server));
	t->settings = buf.data;

	strlcpy(t->server, server->servername, sizeof(t->server));
	if (pep_s3_get(server->options, PEP_S3_SETTING(ENDPOINT)) != NULL)
		strlcpy(t->endpoint, pep_s3_get(server->options, PEP_S3_SETTING(ENDPOINT)), sizeof(t->endpoint));
}
