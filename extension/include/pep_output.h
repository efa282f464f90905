/*-------------------------------------------------------------------------
 *
 * pep_output.h
 *	  The output protocol: directory guard, lock, staging, publication.
 *
 * IDENTIFICATION
 *	  extension/include/pep_output.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_OUTPUT_H
#define PEP_OUTPUT_H

#include <sys/stat.h>

#include "pep_ledger.h"
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
extern void pep_output_write_success(int staging_fd, const char *staging, PEPLedger *ledger,
									 const char *manifest, Size len);
extern void pep_output_seal(PEPOutput *out, PEPLedger *ledger);
extern void pep_output_publish(PEPOutput *out);
extern void pep_output_release(PEPOutput *out);
extern void pep_output_remove(PEPOutput *out, PEPLedger *ledger);

/* Flags of every directory the protocol opens: no link followed, no fd inherited. */
#define PEP_OPEN_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/*
 * Why a file, or a directory, cannot be one this server's exports made, as
 * the end of a sentence whose subject is it; NULL if it can be.
 */
extern const char *pep_file_problem(const struct stat *st);
extern const char *pep_dir_problem(const struct stat *st);

#endif /* PEP_OUTPUT_H */
