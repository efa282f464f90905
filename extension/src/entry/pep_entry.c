/*-------------------------------------------------------------------------
 *
 * pep_entry.c
 *	  SQL entry points of parallel_export_parquet and the module's init.
 *
 * parallel_export_parquet(source, directory, workers) exists for a text
 * source (a relation name or a query) and for a regclass.  Both check the
 * caller's right to write server files and the arguments here, before
 * anything is resolved or touched; the export itself is pep_export.c's.
 *
 * IDENTIFICATION
 *	  extension/src/entry/pep_entry.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_authid.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"

#include "pep_export.h"
#include "pep_guc.h"
#include "pep_progress.h"

PG_MODULE_MAGIC;

void _PG_init(void);

PG_FUNCTION_INFO_V1(pep_export_text);
PG_FUNCTION_INFO_V1(pep_export_regclass);
PG_FUNCTION_INFO_V1(pep_last_export);

/* The session's last finished export, for parallel_export_parquet_last(). */
static PEPSummary pep_last;
static bool pep_have_last = false;

void
_PG_init(void)
{
	pep_define_gucs();
}

/* Writing server files needs what COPY TO a file needs. */
static void
pep_check_file_privilege(void)
{
	if (!has_privs_of_role(GetUserId(), ROLE_PG_WRITE_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to export to a server directory"),
				 errdetail("Only roles with privileges of the \"%s\" role may export to a server directory.",
						   "pg_write_server_files")));
}

static void
pep_require_arg(FunctionCallInfo fcinfo, int argno, const char *name)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be null", name)));
}

/* Checks shared by both entry points, in the order a caller should hear of them. */
static void
pep_check_call(FunctionCallInfo fcinfo, PEPOptions *opts)
{
	pep_check_file_privilege();
	pep_require_arg(fcinfo, 0, "source");
	pep_require_arg(fcinfo, 1, "directory");
	pep_options_parse(fcinfo, opts);
}

/* Export the resolved source into the directory argument; remember the summary. */
static Datum
pep_export_source(FunctionCallInfo fcinfo, PEPSource *src, const PEPOptions *opts)
{
	uint64 rows = pep_export_run(src, text_to_cstring(PG_GETARG_TEXT_PP(1)), opts, &pep_last);

	pep_have_last = true;
	PG_RETURN_INT64((int64) rows);
}

Datum
pep_export_text(PG_FUNCTION_ARGS)
{
	PEPOptions opts;

	pep_check_call(fcinfo, &opts);
	return pep_export_source(fcinfo,
							 pep_source_from_text(text_to_cstring(PG_GETARG_TEXT_PP(0)), &opts.types),
							 &opts);
}

Datum
pep_export_regclass(PG_FUNCTION_ARGS)
{
	PEPOptions opts;

	pep_check_call(fcinfo, &opts);
	return pep_export_source(fcinfo, pep_source_from_relid(PG_GETARG_OID(0), &opts.types), &opts);
}

/*
 * The summary of this session's last finished export, or no row.  No row
 * either for a role that may not see the export's text (pep_progress.c):
 * a session outlives the roles it runs as, and every column, the row count
 * too, tells of what another role read.  Version 1.0's SQL definition has
 * no compatibility column.
 */
Datum
pep_last_export(PG_FUNCTION_ARGS)
{
	TupleDesc desc;
	Datum values[8];
	bool nulls[8] = { 0 };

	if (!pep_have_last || !pep_may_see_role(pep_last.userid))
		PG_RETURN_NULL();
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	desc = BlessTupleDesc(desc);

	values[0] = CStringGetTextDatum(pep_last.source);
	values[1] = CStringGetTextDatum(pep_last.directory);
	values[2] = Int64GetDatum((int64) pep_last.rows);
	values[3] = Int32GetDatum(pep_last.parts);
	values[4] = Int64GetDatum((int64) pep_last.bytes);
	values[5] = Int32GetDatum(pep_last.workers);
	values[6] = Float8GetDatum(pep_last.seconds);
	if (desc->natts > 7)
		values[7] = CStringGetTextDatum(pep_last.compatibility);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}
