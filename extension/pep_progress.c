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
 * sources, and after each chunk it sends for streamed sources.
 *
 * IDENTIFICATION
 *	  extension/pep_progress.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relscan.h"
#include "commands/progress.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "utils/backend_progress.h"

#include "pep.h"
#include "pep_progress.h"

/* Slots beyond COPY's own, 0-based; the view reads them as param N+1. */
#define PEP_PROGRESS_MARKER			10
#define PEP_PROGRESS_PHASE			11
#define PEP_PROGRESS_WORKERS		12
#define PEP_PROGRESS_PARTS			13
#define PEP_PROGRESS_BLOCKS_TOTAL	14
#define PEP_PROGRESS_BLOCKS_DONE	15

/* "PEP" in ASCII: tells an export from a real COPY. */
#define PEP_PROGRESS_MARKER_VALUE	0x504550

void
pep_progress_start(Oid relid, uint64 blocks_total)
{
	const int	index[] = {PROGRESS_COPY_COMMAND, PROGRESS_COPY_TYPE, PEP_PROGRESS_MARKER,
	PEP_PROGRESS_PHASE, PEP_PROGRESS_BLOCKS_TOTAL};
	int64		value[] = {PROGRESS_COPY_COMMAND_TO, PROGRESS_COPY_TYPE_FILE,
		PEP_PROGRESS_MARKER_VALUE, PEP_PHASE_STARTING, (int64) blocks_total};

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
	const int	index[] = {PROGRESS_COPY_TUPLES_PROCESSED, PROGRESS_COPY_BYTES_PROCESSED,
	PEP_PROGRESS_PARTS, PEP_PROGRESS_WORKERS, PEP_PROGRESS_BLOCKS_DONE};
	int64		value[lengthof(index)] = {0};
	uint64		blocks = 0;

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
		uint64		handed = pg_atomic_read_u64(&pbscan->phs_nallocated);

		blocks += Min(handed, (uint64) pbscan->phs_nblocks);
	}
	value[4] = (int64) blocks;

	pgstat_progress_update_multi_param(lengthof(index), index, value);
}

void
pep_progress_end(void)
{
	pgstat_progress_end_command();
}
