/*-------------------------------------------------------------------------
 *
 * pep_progress.c
 *	  Progress of a running export, visible to other sessions.
 *
 * An export is a COPY TO a server file in all but name, so the leader
 * reports through PostgreSQL's own progress machinery as a COPY TO FILE:
 * pg_stat_progress_copy shows its rows and bytes with no setup at all, and
 * the extension's view parallel_export_parquet_progress reads the same
 * slots, picks exports out by a marker, and adds what COPY has no column
 * for (phase, workers, parts, blocks scanned).  This needs no shared memory
 * of its own, so no shared_preload_libraries.
 *
 * Only the leader may write its progress slots, so it copies what the
 * workers report in the export's DSM: from its wait loop for table
 * sources, and every few megabytes it sends for streamed sources.
 *
 * Text does not fit a progress slot (they hold int64s), so one slot holds
 * the handle of the export's DSM segment instead, and
 * parallel_export_parquet_progress_targets() attaches to it and reads the
 * directory and source there, from fields the leader wrote before it
 * published the handle and never changes.  Nothing is parsed from display
 * text, so no directory name can pass for another.  The function shows
 * only the exports whose progress pg_stat_get_progress_info would show the
 * caller, and nothing for a segment that is gone or is not an export's.
 *
 * Who may see an export's directory and source, here and in its summary
 * afterwards (parallel_export_parquet_last()), is pep_may_see_role:
 * pg_stat_activity's rule for its query column, keyed on the role whose
 * privileges the export used rather than on the session's login role.  A
 * session may run as many roles in turn (a pooler's SET ROLE per request),
 * and its login role does not say which of them ran the export.  The
 * workers' activity text, which pg_stat_activity shows by the login role,
 * names them only when that cannot reach further.
 *
 * IDENTIFICATION
 *	  extension/src/caller/pep_progress.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relscan.h"
#include "catalog/pg_authid.h"
#include "commands/progress.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "storage/dsm.h"
#include "storage/shm_toc.h"
#include "utils/acl.h"
#include "utils/backend_progress.h"
#include "utils/backend_status.h"
#include "utils/builtins.h"

#include "pep_progress.h"
#include "pep_shared.h"

/* Slots beyond COPY's own, 0-based; the view reads them as param N+1. */
#define PEP_PROGRESS_MARKER		  10
#define PEP_PROGRESS_PHASE		  11
#define PEP_PROGRESS_WORKERS	  12
#define PEP_PROGRESS_PARTS		  13
#define PEP_PROGRESS_BLOCKS_TOTAL 14
#define PEP_PROGRESS_BLOCKS_DONE  15
#define PEP_PROGRESS_SEGMENT	  16
#define PEP_PROGRESS_PARTITIONS	  17

/* "PEP" in ASCII: tells an export from a real COPY. */
#define PEP_PROGRESS_MARKER_VALUE 0x504550

/* parallel.c's PARALLEL_MAGIC, which it does not export: a parallel context's TOC. */
#define PEP_PARALLEL_MAGIC 0x50477c7c

PG_FUNCTION_INFO_V1(pep_progress_targets);

void
pep_progress_start(Oid relid, uint64 blocks_total)
{
	const int index[] = { PROGRESS_COPY_COMMAND, PROGRESS_COPY_TYPE, PEP_PROGRESS_MARKER,
						  PEP_PROGRESS_PHASE, PEP_PROGRESS_BLOCKS_TOTAL };
	int64 value[] = { PROGRESS_COPY_COMMAND_TO, PROGRESS_COPY_TYPE_FILE,
					  PEP_PROGRESS_MARKER_VALUE, PEP_PHASE_STARTING, (int64) blocks_total };

	pgstat_progress_start_command(PROGRESS_COMMAND_COPY, relid);
	pgstat_progress_update_multi_param(lengthof(index), index, value);
}

void
pep_progress_phase(int phase)
{
	pgstat_progress_update_param(PEP_PROGRESS_PHASE, phase);
}

/*
 * Copy the workers' counts into the progress slots.  scans, when not NULL,
 * holds the shared block scans of the leaves: the blocks they have handed
 * out measure how far a table source has come.
 */
void
pep_progress_report(PEPShared *shared, int nworkers, char *scans)
{
	const int index[] = { PROGRESS_COPY_TUPLES_PROCESSED, PROGRESS_COPY_BYTES_PROCESSED,
						  PEP_PROGRESS_PARTS, PEP_PROGRESS_WORKERS, PEP_PROGRESS_BLOCKS_DONE, PEP_PROGRESS_PARTITIONS };
	int64 value[lengthof(index)] = { 0 };
	uint64 blocks = 0;

	for (int i = 0; i < nworkers; i++)
	{
		value[0] += (int64) shared->workers[i].rows;
		value[1] += (int64) (shared->workers[i].bytes + shared->workers[i].bytes_open);
		value[2] += shared->workers[i].parts;
	}
	value[3] = nworkers;

	for (int i = 0; scans != NULL && i < shared->nleaves; i++)
	{
		ParallelBlockTableScanDesc pbscan =
			(ParallelBlockTableScanDesc) (scans + shared->scan_offsets[i]);
		uint64 handed = pg_atomic_read_u64(&pbscan->phs_nallocated);

		blocks += Min(handed, (uint64) pbscan->phs_nblocks);
	}
	value[4] = (int64) blocks;
	SpinLockAcquire(&shared->mutex);
	value[5] = shared->partitions;
	SpinLockRelease(&shared->mutex);

	pgstat_progress_update_multi_param(lengthof(index), index, value);
}

/* Publish the export's DSM segment for the progress view; NULL withdraws it. */
void
pep_progress_segment(dsm_segment *seg)
{
	pgstat_progress_update_param(PEP_PROGRESS_SEGMENT,
								 seg != NULL ? (int64) dsm_segment_handle(seg) : 0);
}

void
pep_progress_end(void)
{
	pgstat_progress_end_command();
}

/*
 * May the current role see the text of what userid runs or ran?
 * HAS_PGSTAT_PERMISSIONS of pgstatfuncs.c, the rule of pg_stat_activity's
 * query column: roles with userid's privileges (itself, its INHERIT
 * members, superusers) and members of pg_read_all_stats.
 */
bool
pep_may_see_role(Oid userid)
{
	return has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS) ||
		   has_privs_of_role(GetUserId(), userid);
}

/*
 * May this parallel worker's activity name what its export or sweep reads
 * and writes?  pg_stat_activity shows that text to the roles with the
 * privileges of the leader's login role, which after SET ROLE or SET
 * SESSION AUTHORIZATION may lack those of the role the worker runs as (the
 * leader's current one).  Only when the login role has them does everyone
 * who sees the text pass pep_may_see_role.
 */
bool
pep_activity_may_name_target(void)
{
	return has_privs_of_role(GetAuthenticatedUserId(), GetUserId());
}

/* A text datum of a fixed-size shared buffer, or false if it is not valid text here. */
static bool
pep_progress_text(const char *buf, Size size, Datum *result)
{
	int len = (int) strnlen(buf, size);

	/* strlcpy may have cut the last character in half */
	len = pg_mbcliplen(buf, len, len);
	if (!pg_verifymbstr(buf, len, true))
		return false;
	*result = PointerGetDatum(cstring_to_text_with_len(buf, len));
	return true;
}

/*
 * Read the directory and source of pid's export from its DSM segment.
 * False when the segment is gone (the export ended after the slots were
 * read) or holds something else, whose handle was reused since, or when
 * the caller may not see them.
 */
static bool
pep_progress_read_target(int pid, dsm_handle handle, Datum *directory, Datum *source)
{
	dsm_segment *seg;
	bool attached = false;
	shm_toc *toc;
	PEPShared *shared = NULL;
	bool found;

	if (handle == 0)
		return false;
	/* A query source of the export itself may read the view: its own segment. */
	seg = dsm_find_mapping(handle);
	if (seg == NULL)
	{
		seg = dsm_attach(handle);
		attached = (seg != NULL);
	}
	if (seg == NULL)
		return false;

	toc = shm_toc_attach(PEP_PARALLEL_MAGIC, dsm_segment_address(seg));
	if (toc != NULL)
		shared = shm_toc_lookup(toc, PARALLEL_KEY_PEP_SHARED, true);
	found = (shared != NULL && shared->leader_pid == pid &&
			 pep_may_see_role(shared->userid) &&
			 pep_progress_text(shared->target, sizeof(shared->target), directory) &&
			 pep_progress_text(shared->source, sizeof(shared->source), source));

	if (attached)
		dsm_detach(seg);
	return found;
}

/*
 * parallel_export_parquet_progress_targets(): pid, directory and source of
 * every running export whose progress the caller may see.  The rows are
 * pg_stat_get_progress_info's, whose rule is keyed on each session's login
 * role; directory and source are NULL unless the caller may also see the
 * text of the role that runs the export, as pg_stat_activity shows
 * "<insufficient privilege>" for a query.
 */
Datum
pep_progress_targets(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int nbackends;

	InitMaterializedSRF(fcinfo, 0);
	nbackends = pgstat_fetch_stat_numbackends();
	for (int i = 1; i <= nbackends; i++)
	{
#if PG_VERSION_NUM >= 160000
		/* renamed when PostgreSQL 16 added lookups by backend id */
		LocalPgBackendStatus *local = pgstat_get_local_beentry_by_index(i);
#else
		LocalPgBackendStatus *local = pgstat_fetch_stat_local_beentry(i);
#endif
		PgBackendStatus *be;
		Datum values[3];
		bool nulls[3] = { 0 };

		if (local == NULL)
			continue;
		be = &local->backendStatus;
		if (!pep_may_see_role(be->st_userid))
			continue;
		if (be->st_progress_command != PROGRESS_COMMAND_COPY ||
			be->st_progress_param[PEP_PROGRESS_MARKER] != PEP_PROGRESS_MARKER_VALUE)
			continue;

		values[0] = Int32GetDatum(be->st_procpid);
		if (!pep_progress_read_target(be->st_procpid,
									  (dsm_handle) be->st_progress_param[PEP_PROGRESS_SEGMENT],
									  &values[1], &values[2]))
			nulls[1] = nulls[2] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
