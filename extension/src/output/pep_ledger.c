/*-------------------------------------------------------------------------
 *
 * pep_ledger.c
 *	  The ledger of an export: enter a file or folder before it is created,
 *	  mark it created, record a finished part, name it, open its folder.
 *
 * The leader sizes and initialises the ledger in the export's DSM; the
 * leader and its workers enter what they are about to create under the
 * ledger's spinlock, and cleanup, after every worker is gone, removes
 * exactly the entries and nothing else (pep_output.c for a directory
 * target, pep_s3methods.c for an object store, which names its objects for
 * the entries too).  See pep_ledger.h for the layout.
 *
 * IDENTIFICATION
 *	  extension/src/output/pep_ledger.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pep_ledger.h"
#include "pep_output.h"

/* Shared memory for a ledger of capacity entries and name_capacity bytes of names. */
Size
pep_ledger_size(int capacity, Size name_capacity)
{
	return add_size(add_size(offsetof(PEPLedger, entries),
							 mul_size(sizeof(PEPLedgerEntry), capacity)),
					name_capacity);
}

void
pep_ledger_init(PEPLedger *ledger, int capacity, Size name_capacity)
{
	ledger->capacity = capacity;
	ledger->name_capacity = name_capacity;
	SpinLockInit(&ledger->mutex);
	ledger->nentries = 0;
	ledger->name_used = 0;
}

/* The name of an entry: one segment in its parent folder. */
const char *
pep_ledger_name(const PEPLedger *ledger, int entry)
{
	const char *names = (const char *) &ledger->entries[ledger->capacity];

	return names + ledger->entries[entry].name_off;
}

/*
 * Enter a file or folder into the ledger before it is created: a part,
 * named for its entry number, _SUCCESS, or a partition folder called name,
 * each inside the folder entry parent (-1: the staging directory).
 * Returns the entry.  Used by workers too.
 */
int
pep_ledger_enter(PEPLedger *ledger, PEPLedgerKind kind, int parent, const char *name)
{
	char part[PEP_LEDGER_NAME_LEN];
	Size len;
	int n;
	bool full;

	if (kind == PEP_LEDGER_SUCCESS)
		name = PEP_SUCCESS_NAME;
	len = kind == PEP_LEDGER_PART ? PEP_LEDGER_NAME_LEN : strlen(name) + 1;

	SpinLockAcquire(&ledger->mutex);
	n = ledger->nentries;
	full = n >= ledger->capacity || ledger->name_used + len > ledger->name_capacity;
	if (!full)
	{
		PEPLedgerEntry *e = &ledger->entries[n];

		e->parent = parent;
		e->name_off = (uint32) ledger->name_used;
		e->dir = (kind == PEP_LEDGER_FOLDER);
		e->created = false;
		e->closed = false;
		e->rows = 0;
		e->bytes = 0;
		ledger->nentries++;
		ledger->name_used += len;
	}
	SpinLockRelease(&ledger->mutex);
	if (full && kind == PEP_LEDGER_FOLDER)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("export would write more partition folders than its ledger can hold"),
				 errdetail("The ledger holds %d entries and %zu bytes of folder names.",
						   ledger->capacity, ledger->name_capacity),
				 errhint("Partition by columns with shorter values.")));
	if (full)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("export would write more than %d files", ledger->capacity)));

	/* The slot is ours alone now; only cleanup reads it, after every worker is gone. */
	if (kind == PEP_LEDGER_PART)
	{
		snprintf(part, sizeof(part), "part-%05d.parquet", n);
		name = part;
	}
	strlcpy((char *) pep_ledger_name(ledger, n), name, len);
	return n;
}

/* Mark a ledger entry's file or folder as created, once it exists. */
void
pep_ledger_created(PEPLedger *ledger, int entry)
{
	SpinLockAcquire(&ledger->mutex);
	ledger->entries[entry].created = true;
	SpinLockRelease(&ledger->mutex);
}

/*
 * The worker that entered part entry finished it: rows and bytes, for the
 * manifest.  Read once every worker finished writing.
 */
void
pep_ledger_part_closed(PEPLedger *ledger, int entry, uint64 rows, uint64 bytes)
{
	SpinLockAcquire(&ledger->mutex);
	ledger->entries[entry].rows = rows;
	ledger->entries[entry].bytes = bytes;
	ledger->entries[entry].closed = true;
	SpinLockRelease(&ledger->mutex);
}

/*
 * The path of an entry relative to the export's root, its folders' names
 * joined by '/': where a reader finds it under the target, and what the
 * manifest and an object key call it.  UTF-8, as the names are.
 */
char *
pep_ledger_relpath(const PEPLedger *ledger, int entry)
{
	int parent = ledger->entries[entry].parent;

	if (parent < 0)
		return pstrdup(pep_ledger_name(ledger, entry));
	return psprintf("%s/%s", pep_ledger_relpath(ledger, parent), pep_ledger_name(ledger, entry));
}

/*
 * Open the folder of ledger entry (-1: the staging directory) from the
 * staging directory's descriptor, one segment at a time, following no link
 * and entering only directories of the server's OS user that others cannot
 * write.  Returns a new descriptor, or -1 with errno set (EPERM for a
 * folder that fails the checks).
 */
int
pep_ledger_open_folder(int staging_fd, const PEPLedger *ledger, int entry)
{
	int parent_fd;
	int fd;
	struct stat st;

	if (entry < 0)
		return openat(staging_fd, ".", PEP_OPEN_DIR);
	parent_fd = pep_ledger_open_folder(staging_fd, ledger, ledger->entries[entry].parent);
	if (parent_fd < 0)
		return -1;
	fd = openat(parent_fd, pep_ledger_name(ledger, entry), PEP_OPEN_DIR);
	close(parent_fd);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || pep_dir_problem(&st) != NULL)
	{
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}
