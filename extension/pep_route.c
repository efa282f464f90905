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
 * An object store has no folders: a leaf is only a key prefix of its parts
 * (pep_s3worker.c builds the keys from the same ledger entries, which are
 * never created as anything).  Its leaves are counted once per export
 * through a set of their paths' 64-bit hashes in the DSM (PEPLeafSet),
 * shared by the workers; two paths with one hash would count once, which
 * at the limit's sizes is a chance well below one in a million.
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

#include "common/hashfn.h"
#include "executor/tuptable.h"
#include "lib/stringinfo.h"
#include "storage/shmem.h"
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

/* The leaves met by an object-store export's workers; protected by PEPShared.mutex. */
struct PEPLeafSet
{
	uint64		mask;			/* slots - 1; slots is a power of 2 */
	uint64		hashes[FLEXIBLE_ARRAY_MEMBER];	/* path hashes, 0 for a free slot */
};

struct PEPRoute
{
	PEPShared  *shared;			/* the export's shared state */
	PEPLedger  *ledger;			/* the export's ledger */
	int			staging_fd;		/* the worker's staging descriptor; -1: object store */
	PEPLeafSet *leaf_set;		/* an object store's leaves met, or NULL */
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

/* Slots for max_partitions leaves: a power of 2, at least twice as many, so probes stay short. */
static uint64
pep_leaf_set_slots(int max_partitions)
{
	uint64		slots = 64;

	while (slots < 2 * (uint64) max_partitions)
		slots *= 2;
	return slots;
}

Size
pep_leaf_set_size(int max_partitions)
{
	return add_size(offsetof(PEPLeafSet, hashes),
					mul_size(sizeof(uint64), pep_leaf_set_slots(max_partitions)));
}

PEPLeafSet *
pep_leaf_set_init(void *space, int max_partitions)
{
	PEPLeafSet *set = (PEPLeafSet *) space;

	memset(set, 0, pep_leaf_set_size(max_partitions));
	set->mask = pep_leaf_set_slots(max_partitions) - 1;
	return set;
}

/*
 * Add a leaf's path; true if no worker had met it.  The caller holds
 * PEPShared.mutex.  The set never fills: the count it feeds fails the
 * export at max_partitions, half its slots.
 */
static bool
pep_leaf_set_add(PEPLeafSet *set, const char *path)
{
	uint64		hash = hash_bytes_extended((const unsigned char *) path, strlen(path), 0);
	uint64		i;

	if (hash == 0)
		hash = 1;
	for (i = hash & set->mask; set->hashes[i] != 0; i = (i + 1) & set->mask)
		if (set->hashes[i] == hash)
			return false;
	set->hashes[i] = hash;
	return true;
}

PEPRoute *
pep_route_create(PEPShared *shared, PEPLedger *ledger, const PEPColumn *columns, TupleDesc desc,
				 int staging_fd, PEPLeafSet *leaf_set)
{
	PEPRoute   *route = palloc0(sizeof(PEPRoute));
	HASHCTL		ctl;

	route->shared = shared;
	route->ledger = ledger;
	route->staging_fd = staging_fd;
	route->leaf_set = leaf_set;
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

/*
 * Count a leaf folder this worker made, or for an object store one that no
 * worker had met (path is the leaf's); the export's limit is checked here.
 */
static void
pep_route_count_leaf(PEPRoute *route, const char *path)
{
	PEPShared  *shared = route->shared;
	int			n;
	bool		first = true;

	SpinLockAcquire(&shared->mutex);
	if (route->leaf_set != NULL)
		first = pep_leaf_set_add(route->leaf_set, path);
	n = first ? ++shared->partitions : 0;
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
 * Make the folder of ledger entry entry, called name, in the folder of
 * parent_entry, unless another worker made it first.
 */
static void
pep_route_make_folder(PEPRoute *route, const char *path, const char *name, int parent_entry,
					  int entry, bool leaf)
{
	int			parent_fd = pep_ledger_open_folder(route->staging_fd, route->ledger, parent_entry);

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
			pep_route_count_leaf(route, path);
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
}

/*
 * The folder at path (its last segment starts at name), made if this
 * worker has not met it yet, inside its parent folder parent; for an
 * object store only entered and counted.
 */
static PEPLeaf *
pep_route_folder(PEPRoute *route, const char *path, const char *name, PEPLeaf *parent,
				 bool leaf)
{
	PEPLeaf    *folder;
	bool		found;
	int			entry;
	int			parent_entry = parent != NULL ? parent->entry : -1;

	folder = hash_search(route->folders, path, HASH_FIND, NULL);
	if (folder != NULL)
		return folder;

	entry = pep_ledger_enter(route->ledger, PEP_LEDGER_FOLDER, parent_entry, name);
	if (route->staging_fd < 0)
	{
		if (leaf)
			pep_route_count_leaf(route, path);
	}
	else
		pep_route_make_folder(route, path, name, parent_entry, entry, leaf);

	folder = hash_search(route->folders, path, HASH_ENTER, &found);
	folder->entry = entry;
	folder->slot = -1;
	folder->part.entry = -1;
	folder->part.rows = 0;
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
