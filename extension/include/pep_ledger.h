/*-------------------------------------------------------------------------
 *
 * pep_ledger.h
 *	  The ledger of an export: every file and partition folder it creates,
 *	  in the export's dynamic shared memory (PARALLEL_KEY_PEP_LEDGER,
 *	  pep_shared.h).
 *
 * IDENTIFICATION
 *	  extension/include/pep_ledger.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_LEDGER_H
#define PEP_LEDGER_H

#include "storage/spin.h"

/* The marker a complete export holds, entered last. */
#define PEP_SUCCESS_NAME "_SUCCESS"

/* Room in the ledger of an unpartitioned export: every part plus _SUCCESS. */
#define PEP_LEDGER_CAPACITY 8192
/*
 * Bytes of name area per file entry: "part-NNNNN.parquet", or an object
 * store's "part-NNNNN-EXPORTID.parquet", whose entry number takes more
 * than 5 digits in a partitioned export, and the NUL.
 */
#define PEP_LEDGER_NAME_LEN 40
/* Bytes of name area per partition folder, on average over the export. */
#define PEP_LEDGER_FOLDER_NAME_LEN 64

/*
 * The ledger: every file and partition folder an export creates inside its
 * staging directory is entered here before it is created, and marked
 * created once it exists.  Cleanup removes exactly these names and nothing
 * else, so it stays safe whatever else the directory holds; it warns only
 * about entries marked created, so a warning never names a file that never
 * existed.  An entry names one path segment inside its parent, a folder
 * entered earlier or the staging directory itself; the names live in an
 * area after the entries, so the ledger is sized per export
 * (pep_ledger_size).  A part's entry also says, once its worker finished
 * it, its rows and bytes: what the _SUCCESS manifest lists (pep_manifest.c).
 */
typedef struct PEPLedgerEntry
{
	int32 parent;	 /* entry of the folder holding it; -1: the staging directory */
	uint32 name_off; /* offset of its name in the name area */
	bool dir;		 /* a partition folder, not a file */
	bool created;	 /* this export created it */
	bool closed;	 /* a part its worker finished: the manifest lists it */
	uint64 rows;	 /* once closed: the part's rows */
	uint64 bytes;	 /* and its size */
} PEPLedgerEntry;

typedef struct PEPLedger
{
	int capacity;								   /* entries there is room for */
	Size name_capacity;							   /* bytes of the name area */
	slock_t mutex;								   /* protects following fields */
	int nentries;								   /* entries used */
	Size name_used;								   /* bytes of the name area used */
	PEPLedgerEntry entries[FLEXIBLE_ARRAY_MEMBER]; /* then the name area */
} PEPLedger;

/* What a ledger entry records. */
typedef enum PEPLedgerKind
{
	PEP_LEDGER_PART,	/* a part file, named for its entry */
	PEP_LEDGER_SUCCESS, /* the _SUCCESS marker */
	PEP_LEDGER_FOLDER	/* a partition folder */
} PEPLedgerKind;

extern Size pep_ledger_size(int capacity, Size name_capacity);
extern void pep_ledger_init(PEPLedger *ledger, int capacity, Size name_capacity);
extern const char *pep_ledger_name(const PEPLedger *ledger, int entry);
extern int pep_ledger_enter(PEPLedger *ledger, PEPLedgerKind kind, int parent, const char *name);
extern void pep_ledger_created(PEPLedger *ledger, int entry);
extern int pep_ledger_open_folder(int staging_fd, const PEPLedger *ledger, int entry);
extern void pep_ledger_part_closed(PEPLedger *ledger, int entry, uint64 rows, uint64 bytes);
extern char *pep_ledger_relpath(const PEPLedger *ledger, int entry);

#endif /* PEP_LEDGER_H */
