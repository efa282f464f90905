/*-------------------------------------------------------------------------
 *
 * pep_route.c
 *	  A partitioned export's worker: rows grouped by partition folder.
 *
 * A worker of an export with partition_by collects a round of rows (copied
 * as MinimalTuples into a context reset after the round), up to
 * PEP_ROUND_BATCHES batches of rows or PEP_ROUND_BYTES, finds each row's folder from its
 * partition values (pep_partition.c), and then hands the rows out folder
 * by folder (a counting sort), so pep_worker.c writes each folder's rows
 * to that folder's part as ordinary batches.  C memory stays one round,
 * one batch and the table of folders met (DESIGN.md, "Hive-partitioned
 * output").
 *
 * Folders are made the first time this worker meets them, level by level,
 * inside the staging directory only: each is entered in the ledger first
 * (its name and parent entry), then made with mkdirat relative to its
 * parent, which is opened from the worker's staging descriptor one segment
 * at a time without following links (pep_ledger_open_folder).  A folder
 * another worker made first (EEXIST) is used as it is; its entry here
 * stays uncreated, so cleanup removes it once, through the maker's entry.
 * The leaf folders are counted where mkdirat succeeds, exactly once per
 * export, against parallel_export_parquet.max_partitions.
 *
 * IDENTIFICATION
 *	  extension/pep_route.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "executor/tuptable.h"
#include "lib/stringinfo.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "pep_compat.h"
#include "pep_output.h"
#include "pep_partition.h"
#include "pep_route.h"

/*
 * A round: at most this many batches of rows, and this many bytes of them.
 * Large rounds give each folder's part more rows per write when rows of
 * many folders arrive interleaved.
 */
#define PEP_ROUND_BATCHES	16
#define PEP_ROUND_BYTES		(32 * 1024 * 1024)

struct PEPRoute
{
	PEPShared  *shared;			/* the export's shared state */
	PEPLedger  *ledger;			/* the export's ledger */
	int			staging_fd;		/* the worker's staging descriptor */
	int			nlevels;		/* folder levels */
	PEPPartitionLevel levels[PEP_MAX_PARTITION_LEVELS];	/* how each is named */
	HTAB	   *folders;		/* PEPLeaf by path: every folder met */
	TupleDesc	desc;			/* the rows' descriptor */
	TupleTableSlot *slot;		/* a row of the round, deformed */
	MemoryContext round_context;	/* the round's rows; reset after it */
	int			capacity;		/* rows in a round at most */
	int			nrows;			/* rows of this round */
	Size		bytes;			/* their bytes */
	MinimalTuple *rows;			/* the round's rows, in arrival order */
	PEPLeaf   **row_leaf;		/* each row's leaf folder */
	int		   *order;			/* row numbers grouped by leaf */
	int			nleaves;		/* leaves met in this round */
	PEPLeaf   **leaves;			/* them, in the order first met */
	StringInfoData path;		/* scratch: a row's folder path */
};

PEPRoute *
pep_route_create(PEPShared *shared, PEPLedger *ledger, const PEPColumn *columns, TupleDesc desc,
				 int staging_fd)
{
	PEPRoute   *route = palloc0(sizeof(PEPRoute));
	HASHCTL		ctl;

	route->shared = shared;
	route->ledger = ledger;
	route->staging_fd = staging_fd;
	route->nlevels = shared->npartition;
	for (int i = 0; i < route->nlevels; i++)
		pep_partition_level_init(&route->levels[i], &columns[shared->partition_columns[i]]);
	ctl.keysize = MAXPGPATH;
	ctl.entrysize = sizeof(PEPLeaf);
	route->folders = hash_create("parallel export partition folders", 256, &ctl,
								 HASH_ELEM | HASH_STRINGS);
	route->desc = desc;
	route->slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	route->round_context = AllocSetContextCreate(CurrentMemoryContext, "parallel export round",
												 ALLOCSET_DEFAULT_SIZES);
	route->capacity = shared->batch_rows * PEP_ROUND_BATCHES;
	route->rows = palloc(sizeof(MinimalTuple) * route->capacity);
	route->row_leaf = palloc(sizeof(PEPLeaf *) * route->capacity);
	route->order = palloc(sizeof(int) * route->capacity);
	route->leaves = palloc(sizeof(PEPLeaf *) * route->capacity);
	initStringInfo(&route->path);
	return route;
}

/* Count a leaf folder this worker made; the export's limit is checked here. */
static void
pep_route_count_leaf(PEPRoute *route)
{
	PEPShared  *shared = route->shared;
	int			n;

	SpinLockAcquire(&shared->mutex);
	n = ++shared->partitions;
	SpinLockRelease(&shared->mutex);
	if (n > shared->max_partitions)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("export would write more than %d partitions", shared->max_partitions),
				 errdetail("The columns of partition_by have more distinct values than that."),
				 errhint("Partition by columns with fewer distinct values, or ask a superuser to raise \"%s\".",
						 "parallel_export_parquet.max_partitions")));
}

/*
 * The folder at path (its last segment starts at name), made if this
 * worker has not met it yet, inside its parent folder parent.
 */
static PEPLeaf *
pep_route_folder(PEPRoute *route, const char *path, const char *name, PEPLeaf *parent,
				 bool leaf)
{
	PEPLeaf    *folder;
	bool		found;
	int			entry;
	int			parent_fd;
	int			parent_entry = parent != NULL ? parent->entry : -1;

	folder = hash_search(route->folders, path, HASH_FIND, NULL);
	if (folder != NULL)
		return folder;

	entry = pep_ledger_enter(route->ledger, PEP_LEDGER_FOLDER, parent_entry, name);
	parent_fd = pep_ledger_open_folder(route->staging_fd, route->ledger, parent_entry);
	if (parent_fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open partition folder of \"%s/%s\": %m",
						route->shared->staging, path)));
	if (mkdirat(parent_fd, name, S_IRWXU) == 0)
	{
		close(parent_fd);
		pep_ledger_created(route->ledger, entry);
		if (leaf)
			pep_route_count_leaf(route);
	}
	else
	{
		int			save_errno = errno;

		close(parent_fd);
		errno = save_errno;
		/* Another worker made it; pep_ledger_open_folder checks it before use. */
		if (save_errno != EEXIST)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not create directory \"%s/%s\": %m",
							route->shared->staging, path)));
	}

	folder = hash_search(route->folders, path, HASH_ENTER, &found);
	folder->entry = entry;
	folder->slot = -1;
	folder->last_used = 0;
	folder->nrows = 0;
	return folder;
}

/* The leaf folder of a row, made with the levels above it if new. */
static PEPLeaf *
pep_route_leaf(PEPRoute *route, Datum *values, bool *isnull)
{
	PEPLeaf    *folder = NULL;
	StringInfo	path = &route->path;

	resetStringInfo(path);
	for (int i = 0; i < route->nlevels; i++)
	{
		int			attidx = route->levels[i].column->attidx;
		int			start;

		pep_partition_append(path, &route->levels[i], values[attidx], isnull[attidx]);
		if (path->len >= MAXPGPATH)
			ereport(ERROR,
					(errcode(ERRCODE_NAME_TOO_LONG),
					 errmsg("partition folder path is too long"),
					 errdetail("The folders of one row take %d bytes below the export's directory.",
							   path->len)));
		start = path->len - 1;
		while (start > 0 && path->data[start - 1] != '/')
			start--;
		folder = pep_route_folder(route, path->data, path->data + start, folder,
								  i == route->nlevels - 1);
	}
	return folder;
}

/* Add a row to the round; true when the round is full and must be handed out. */
bool
pep_route_add(PEPRoute *route, Datum *values, bool *isnull)
{
	PEPLeaf    *leaf = pep_route_leaf(route, values, isnull);
	MemoryContext old = MemoryContextSwitchTo(route->round_context);
	MinimalTuple tuple = pep_form_minimal_tuple(route->desc, values, isnull);

	MemoryContextSwitchTo(old);
	if (leaf->nrows++ == 0)
		route->leaves[route->nleaves++] = leaf;
	route->row_leaf[route->nrows] = leaf;
	route->rows[route->nrows++] = tuple;
	route->bytes += tuple->t_len;
	return route->nrows == route->capacity || route->bytes >= PEP_ROUND_BYTES;
}

/* Group the round's rows by leaf; returns the leaves met, in the order first met. */
int
pep_route_group(PEPRoute *route, PEPLeaf ***leaves)
{
	int			next = 0;

	for (int l = 0; l < route->nleaves; l++)
	{
		route->leaves[l]->first = next;
		next += route->leaves[l]->nrows;
		route->leaves[l]->nrows = 0;
	}
	for (int r = 0; r < route->nrows; r++)
	{
		PEPLeaf    *leaf = route->row_leaf[r];

		route->order[leaf->first + leaf->nrows++] = r;
	}
	*leaves = route->leaves;
	return route->nleaves;
}

/* The i-th row of leaf in this round, deformed. */
void
pep_route_row(PEPRoute *route, PEPLeaf *leaf, int i, Datum **values, bool **isnull)
{
	ExecStoreMinimalTuple(route->rows[route->order[leaf->first + i]], route->slot, false);
	slot_getallattrs(route->slot);
	*values = route->slot->tts_values;
	*isnull = route->slot->tts_isnull;
}

/* Start a new round. */
void
pep_route_reset(PEPRoute *route)
{
	for (int l = 0; l < route->nleaves; l++)
		route->leaves[l]->nrows = 0;
	route->nleaves = 0;
	route->nrows = 0;
	route->bytes = 0;
	ExecClearTuple(route->slot);
	MemoryContextReset(route->round_context);
}
