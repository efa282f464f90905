/*-------------------------------------------------------------------------
 *
 * pep_route.c
 *	  A partitioned export's worker: rows grouped by partition folder.
 *
 * A worker of an export with partition_by collects a round of rows, up to
 * PEP_ROUND_BATCHES batches of rows or PEP_ROUND_BYTES, finds each row's
 * folder from its partition values (pep_partition.c), and then hands the
 * rows out folder by folder (a counting sort), so pep_worker.c writes each
 * folder's rows to that folder's part as ordinary batches.  C memory stays
 * one round, one batch and the table of folders met (DESIGN.md,
 * "Hive-partitioned output").
 *
 * Both per-row steps are kept cheap, since every row of the export takes
 * them.  A round's rows are copied as they were deformed, values and null
 * flags followed by the bytes of the by-reference values, into one arena
 * kept for the worker's life: handing a row out is then a pointer, where a
 * MinimalTuple would be formed and deformed again, and no round gives its
 * memory back to be faulted in anew by the next.  A row's folder is found
 * by the bytes of its partition values (PEPKey) in a table of the keys met:
 * only a key not met yet is turned into the folder's text path, which runs
 * each value's output function and escapes it.  Equal bytes give equal
 * text, so the shortcut never changes a row's folder; two keys of one
 * folder (a numeric stored in two forms) both lead to it.
 *
 * Folders are entered the first time this worker meets them, level by
 * level, in the ledger first (its name and parent entry), and then handed
 * to the output target (pep_target.h, enter_folder), which says whether
 * the export met the folder for the first time.  A directory target
 * (pep_dirtarget.c) makes each inside the staging directory only, with
 * mkdirat relative to its parent, which is opened from the worker's
 * staging descriptor one segment at a time without following links
 * (pep_ledger_open_folder).  A folder
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
 *	  extension/src/partition/pep_route.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tupmacs.h"
#include "common/hashfn.h"
#include "lib/stringinfo.h"
#include "storage/shmem.h"
#include "utils/expandeddatum.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

#include "pep_output.h"
#include "pep_partition.h"
#include "pep_route.h"
#include "pep_target.h"

/*
 * A round: at most this many batches of rows, and this many bytes of them.
 * Large rounds give each folder's part more rows per write when rows of
 * many folders arrive interleaved.
 */
#define PEP_ROUND_BATCHES 16
#define PEP_ROUND_BYTES	  (32 * 1024 * 1024)

/*
 * A row's partition values as bytes, the lookup key of its leaf: per level a
 * null flag, then a by-value Datum widened to 8 bytes, or a fixed-length
 * value's bytes, or a varlena's length and detoasted bytes (so no two rows
 * of different values share a key).
 */
typedef struct PEPKey
{
	uint32 len;
	const char *bytes; /* a row's scratch, or the table's own copy */
} PEPKey;

/* A key met, and its leaf. */
typedef struct PEPKeyLeaf
{
	PEPKey key;
	PEPLeaf *leaf;
} PEPKeyLeaf;

/* The leaves met by an object-store export's workers; protected by PEPShared.mutex. */
struct PEPLeafSet
{
	uint64 mask;						  /* slots - 1; slots is a power of 2 */
	uint64 hashes[FLEXIBLE_ARRAY_MEMBER]; /* path hashes, 0 for a free slot */
};

struct PEPRoute
{
	PEPShared *shared;									/* the export's shared state */
	PEPLedger *ledger;									/* the export's ledger */
	PEPWorkerTarget *target;							/* where the folders are made, if the store has them */
	int nlevels;										/* folder levels */
	PEPPartitionLevel levels[PEP_MAX_PARTITION_LEVELS]; /* how each is named */
	HTAB *folders;										/* PEPLeaf by path: every folder met */
	HTAB *keys;											/* PEPKeyLeaf by PEPKey: every key met */
	MemoryContext context;								/* where the keys' bytes are kept */
	StringInfoData key;									/* scratch: a row's key */
	TupleDesc desc;										/* the rows' descriptor */
	char *arena;										/* the round's rows, PEP_ROUND_BYTES */
	Size used;											/* bytes of the arena taken */
	MemoryContext round_context;						/* rows that did not fit the arena; reset after a round */
	int capacity;										/* rows in a round at most */
	int nrows;											/* rows of this round */
	Size bytes;											/* their bytes */
	char **rows;										/* the round's rows, in arrival order */
	PEPLeaf **row_leaf;									/* each row's leaf folder */
	int *order;											/* row numbers grouped by leaf */
	int nleaves;										/* leaves met in this round */
	PEPLeaf **leaves;									/* them, in the order first met */
	StringInfoData path;								/* scratch: a row's folder path */
};

/* A row in the arena: its values, its null flags, then its by-reference values' bytes. */
#define PEP_ROW_NULLS(natts) MAXALIGN((natts) * sizeof(Datum))
#define PEP_ROW_DATA(natts)	 (PEP_ROW_NULLS(natts) + MAXALIGN((natts) * sizeof(bool)))

/* Slots for max_partitions leaves: a power of 2, at least twice as many, so probes stay short. */
static uint64
pep_leaf_set_slots(int max_partitions)
{
	uint64 slots = 64;

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
bool
pep_leaf_set_add(PEPLeafSet *set, const char *path)
{
	uint64 hash = hash_bytes_extended((const unsigned char *) path, strlen(path), 0);
	uint64 i;

	if (hash == 0)
		hash = 1;
	for (i = hash & set->mask; set->hashes[i] != 0; i = (i + 1) & set->mask)
		if (set->hashes[i] == hash)
			return false;
	set->hashes[i] = hash;
	return true;
}

static uint32
pep_key_hash(const void *key, Size keysize)
{
	const PEPKey *k = (const PEPKey *) key;

	return hash_bytes((const unsigned char *) k->bytes, (int) k->len);
}

static int
pep_key_match(const void *key1, const void *key2, Size keysize)
{
	const PEPKey *a = (const PEPKey *) key1;
	const PEPKey *b = (const PEPKey *) key2;

	return a->len == b->len && memcmp(a->bytes, b->bytes, a->len) == 0 ? 0 : 1;
}

PEPRoute *
pep_route_create(PEPShared *shared, PEPLedger *ledger, const PEPColumn *columns, TupleDesc desc,
				 PEPWorkerTarget *target)
{
	PEPRoute *route = palloc0(sizeof(PEPRoute));
	HASHCTL ctl;
	HASHCTL key_ctl;

	route->shared = shared;
	route->ledger = ledger;
	route->target = target;
	route->nlevels = shared->npartition;
	for (int i = 0; i < route->nlevels; i++)
		pep_partition_level_init(&route->levels[i], &columns[shared->partition_columns[i]]);
	ctl.keysize = MAXPGPATH;
	ctl.entrysize = sizeof(PEPLeaf);
	route->folders = hash_create("parallel export partition folders", 256, &ctl,
								 HASH_ELEM | HASH_STRINGS);
	key_ctl.keysize = sizeof(PEPKey);
	key_ctl.entrysize = sizeof(PEPKeyLeaf);
	key_ctl.hash = pep_key_hash;
	key_ctl.match = pep_key_match;
	route->keys = hash_create("parallel export partition keys", 256, &key_ctl,
							  HASH_ELEM | HASH_FUNCTION | HASH_COMPARE);
	initStringInfo(&route->key);
	route->context = CurrentMemoryContext;
	route->desc = desc;
	/* Untouched pages of it cost nothing: a round faults in what it uses, once. */
	route->arena = MemoryContextAllocHuge(CurrentMemoryContext, PEP_ROUND_BYTES);
	route->round_context = AllocSetContextCreate(CurrentMemoryContext, "parallel export round",
												 ALLOCSET_DEFAULT_SIZES);
	route->capacity = shared->batch_rows * PEP_ROUND_BATCHES;
	route->rows = palloc(sizeof(char *) * route->capacity);
	route->row_leaf = palloc(sizeof(PEPLeaf *) * route->capacity);
	route->order = palloc(sizeof(int) * route->capacity);
	route->leaves = palloc(sizeof(PEPLeaf *) * route->capacity);
	initStringInfo(&route->path);
	return route;
}

/*
 * Count a leaf folder that no worker of the export had met; the export's
 * limit is checked here.
 */
static void
pep_route_count_leaf(PEPRoute *route)
{
	PEPShared *shared = route->shared;
	int n;

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
 * worker has not met it yet, inside its parent folder parent; for an
 * object store only entered and counted.
 */
static PEPLeaf *
pep_route_folder(PEPRoute *route, const char *path, const char *name, PEPLeaf *parent,
				 bool leaf)
{
	PEPLeaf *folder;
	bool found;
	int entry;
	int parent_entry = parent != NULL ? parent->entry : -1;

	folder = hash_search(route->folders, path, HASH_FIND, NULL);
	if (folder != NULL)
		return folder;

	entry = pep_ledger_enter(route->ledger, PEP_LEDGER_FOLDER, parent_entry, name);
	if (route->target->methods->enter_folder(route->target, route->ledger, path, name,
											 parent_entry, entry, leaf) &&
		leaf)
		pep_route_count_leaf(route);

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
	PEPLeaf *folder = NULL;
	StringInfo path = &route->path;

	resetStringInfo(path);
	for (int i = 0; i < route->nlevels; i++)
	{
		int attidx = route->levels[i].column->attidx;
		int start;

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

/* The row's key (see PEPKey) in route->key. */
static void
pep_route_key(PEPRoute *route, Datum *values, bool *isnull)
{
	StringInfo key = &route->key;

	resetStringInfo(key);
	for (int i = 0; i < route->nlevels; i++)
	{
		int attidx = route->levels[i].column->attidx;
		Form_pg_attribute att = TupleDescAttr(route->desc, attidx);
		Datum value = values[attidx];

		appendStringInfoChar(key, isnull[attidx] ? 'n' : 'v');
		if (isnull[attidx])
			continue;
		if (att->attbyval)
		{
			char bytes[sizeof(Datum)];

			store_att_byval(bytes, value, att->attlen);
			appendBinaryStringInfo(key, bytes, att->attlen);
		}
		else if (att->attlen > 0)
			appendBinaryStringInfo(key, DatumGetPointer(value), att->attlen);
		else
		{
			const char *bytes;
			uint32 len;

			if (att->attlen == -1)
			{
				struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value));

				bytes = VARDATA_ANY(v);
				len = VARSIZE_ANY_EXHDR(v);
			}
			else
			{
				bytes = DatumGetCString(value);
				len = strlen(bytes);
			}
			appendBinaryStringInfo(key, (const char *) &len, sizeof(len));
			appendBinaryStringInfo(key, bytes, len);
		}
	}
}

/* The leaf folder of a row: by its key if met before, else by its path. */
static PEPLeaf *
pep_route_find(PEPRoute *route, Datum *values, bool *isnull)
{
	PEPKey key;
	PEPKeyLeaf *entry;
	PEPLeaf *leaf;
	bool found;

	pep_route_key(route, values, isnull);
	key.len = route->key.len;
	key.bytes = route->key.data;
	entry = hash_search(route->keys, &key, HASH_FIND, NULL);
	if (entry != NULL)
		return entry->leaf;

	leaf = pep_route_leaf(route, values, isnull);
	entry = hash_search(route->keys, &key, HASH_ENTER, &found);
	entry->key.bytes = MemoryContextAlloc(route->context, key.len);
	memcpy((char *) entry->key.bytes, key.bytes, key.len);
	entry->leaf = leaf;
	return leaf;
}

/* Bytes of a non-null by-reference value, as copied into a row. */
static Size
pep_route_value_size(Form_pg_attribute att, Datum value)
{
	if (att->attlen > 0)
		return att->attlen;
	if (att->attlen == -2)
		return strlen(DatumGetCString(value)) + 1;
	if (VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(value)))
		return EOH_get_flat_size(DatumGetEOHP(value));
	return VARSIZE_ANY(DatumGetPointer(value));
}

/*
 * Copy a deformed row into the round: into the arena, or, the one row of a
 * round that does not fit what is left of it, into the round's context.
 * Values stay as they came (a TOAST pointer stays one, as in a tuple); an
 * expanded object is flattened, as forming a tuple would.
 */
static char *
pep_route_copy_row(PEPRoute *route, Datum *values, bool *isnull)
{
	TupleDesc desc = route->desc;
	int natts = desc->natts;
	Size size = PEP_ROW_DATA(natts);
	char *row;
	Datum *copy;
	char *data;

	for (int a = 0; a < natts; a++)
		if (!isnull[a] && !TupleDescAttr(desc, a)->attbyval)
			size += MAXALIGN(pep_route_value_size(TupleDescAttr(desc, a), values[a]));
	if (size <= PEP_ROUND_BYTES - route->used)
	{
		row = route->arena + route->used;
		route->used += size;
	}
	else
		row = MemoryContextAllocHuge(route->round_context, size);
	route->bytes += size;

	copy = (Datum *) row;
	memcpy(row + PEP_ROW_NULLS(natts), isnull, natts * sizeof(bool));
	data = row + PEP_ROW_DATA(natts);
	for (int a = 0; a < natts; a++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, a);
		Size len;

		if (isnull[a] || att->attbyval)
		{
			copy[a] = isnull[a] ? (Datum) 0 : values[a];
			continue;
		}
		len = pep_route_value_size(att, values[a]);
		if (att->attlen == -1 && VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(values[a])))
			EOH_flatten_into(DatumGetEOHP(values[a]), data, len);
		else
			memcpy(data, DatumGetPointer(values[a]), len);
		copy[a] = PointerGetDatum(data);
		data += MAXALIGN(len);
	}
	return row;
}

/* Add a row to the round; true when the round is full and must be handed out. */
bool
pep_route_add(PEPRoute *route, Datum *values, bool *isnull)
{
	PEPLeaf *leaf = pep_route_find(route, values, isnull);

	if (leaf->nrows++ == 0)
		route->leaves[route->nleaves++] = leaf;
	route->row_leaf[route->nrows] = leaf;
	route->rows[route->nrows++] = pep_route_copy_row(route, values, isnull);
	return route->nrows == route->capacity || route->bytes >= PEP_ROUND_BYTES;
}

/* Group the round's rows by leaf; returns the leaves met, in the order first met. */
int
pep_route_group(PEPRoute *route, PEPLeaf ***leaves)
{
	int next = 0;

	for (int l = 0; l < route->nleaves; l++)
	{
		route->leaves[l]->first = next;
		next += route->leaves[l]->nrows;
		route->leaves[l]->nrows = 0;
	}
	for (int r = 0; r < route->nrows; r++)
	{
		PEPLeaf *leaf = route->row_leaf[r];

		route->order[leaf->first + leaf->nrows++] = r;
	}
	*leaves = route->leaves;
	return route->nleaves;
}

/* The i-th row of leaf in this round, deformed; valid until the round is reset. */
void
pep_route_row(PEPRoute *route, PEPLeaf *leaf, int i, Datum **values, bool **isnull)
{
	char *row = route->rows[route->order[leaf->first + i]];

	*values = (Datum *) row;
	*isnull = (bool *) (row + PEP_ROW_NULLS(route->desc->natts));
}

/* Start a new round. */
void
pep_route_reset(PEPRoute *route)
{
	for (int l = 0; l < route->nleaves; l++)
		route->leaves[l]->nrows = 0;
	route->nleaves = 0;
	route->nrows = 0;
	route->used = 0;
	route->bytes = 0;
	MemoryContextReset(route->round_context);
}
