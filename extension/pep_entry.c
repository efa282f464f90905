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
 *	  extension/pep_entry.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_authid.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "postmaster/bgworker_internals.h"
#include "utils/acl.h"
#include "utils/builtins.h"

#include "pep.h"
#include "pep_export.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(pep_export_text);
PG_FUNCTION_INFO_V1(pep_export_regclass);

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

/* The workers argument: NULL chooses, anything else must be sane. */
static int
pep_workers_arg(FunctionCallInfo fcinfo, int argno)
{
	int			workers;

	if (PG_ARGISNULL(argno))
		return 0;
	workers = PG_GETARG_INT32(argno);
	if (workers < 1 || workers > MAX_PARALLEL_WORKER_LIMIT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("workers must be between 1 and %d", MAX_PARALLEL_WORKER_LIMIT),
				 errhint("Pass NULL to let the export choose.")));
	return workers;
}

Datum
pep_export_text(PG_FUNCTION_ARGS)
{
	char	   *directory;
	int			workers;

	pep_check_file_privilege();
	pep_require_arg(fcinfo, 0, "source");
	pep_require_arg(fcinfo, 1, "directory");
	directory = text_to_cstring(PG_GETARG_TEXT_PP(1));
	workers = pep_workers_arg(fcinfo, 2);

	PG_RETURN_INT64((int64) pep_export_run(pep_source_from_text(text_to_cstring(PG_GETARG_TEXT_PP(0))),
										   directory, workers));
}

Datum
pep_export_regclass(PG_FUNCTION_ARGS)
{
	char	   *directory;
	int			workers;

	pep_check_file_privilege();
	pep_require_arg(fcinfo, 0, "source");
	pep_require_arg(fcinfo, 1, "directory");
	directory = text_to_cstring(PG_GETARG_TEXT_PP(1));
	workers = pep_workers_arg(fcinfo, 2);

	PG_RETURN_INT64((int64) pep_export_run(pep_source_from_relid(PG_GETARG_OID(0)),
										   directory, workers));
}
