/*-------------------------------------------------------------------------
 *
 * pep_output.h
 *	  The output protocol: directory guard, lock, staging, publication.
 *
 * IDENTIFICATION
 *	  extension/pep_output.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_OUTPUT_H
#define PEP_OUTPUT_H

#include <sys/stat.h>

#include "pep_shared.h"

typedef struct PEPOutput
{
	char target[MAXPGPATH];		  /* canonical absolute target directory */
	char parent[MAXPGPATH];		  /* its parent, where staging lives */
	char name[MAXPGPATH];		  /* the target's name in the parent */
	char lock_name[MAXPGPATH];	  /* the lock file's name in the parent */
	char staging_name[MAXPGPATH]; /* the staging directory's name there */
	char lock_path[MAXPGPATH];	  /* lock file's path, for messages */
	char staging[MAXPGPATH];	  /* staging directory's path, for messages */
	int parent_fd;				  /* the parent, opened once by the guard, or -1 */
	int lock_fd;				  /* open lock file holding flock, or -1 */
	int staging_fd;				  /* the staging directory this export made, or -1 */
	struct stat staging_st;		  /* its identity (st_dev, st_ino) */
	struct stat replaced_st;	  /* identity of the previous export being replaced */
	bool published;				  /* staging was renamed onto the target */
	bool overwrite;				  /* a previous complete export may be replaced */
} PEPOutput;

extern void pep_output_guard(PEPOutput *out, const char *directory, bool overwrite);
extern void pep_output_lock(PEPOutput *out);
extern void pep_output_create_staging(PEPOutput *out);
extern void pep_output_seal(PEPOutput *out, PEPLedger *ledger);
extern void pep_output_publish(PEPOutput *out);
extern void pep_output_release(PEPOutput *out);
extern void pep_output_remove(PEPOutput *out, PEPLedger *ledger);

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
extern const char *pep_file_problem(const struct stat *st);
extern int pep_ledger_open_folder(int staging_fd, const PEPLedger *ledger, int entry);

#endif /* PEP_OUTPUT_H */
