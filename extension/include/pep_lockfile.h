/*-------------------------------------------------------------------------
 *
 * pep_lockfile.h
 *	  Open a file without following a link and take its exclusive flock:
 *	  the lock of a local export (pep_output.c) and the ledger file of an
 *	  object-store export (pep_s3ledger.c).
 *
 * IDENTIFICATION
 *	  extension/include/pep_lockfile.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_LOCKFILE_H
#define PEP_LOCKFILE_H

#include <sys/stat.h>

/*
 * What to lock and how to report a refusal.  The messages name the file as
 * "<what> \"<path>\""; busy reports (ERROR) that another export holds the
 * lock, and hint, when set, adds the hint of a file the lock refuses to use.
 */
typedef struct PEPLockFile
{
	int dirfd;		  /* directory name is relative to, or AT_FDCWD */
	const char *name; /* the file, relative to dirfd */
	const char *path; /* its full path, for messages */
	const char *what; /* "lock file", "ledger file" */
	int flags;		  /* open(2) flags beyond O_RDWR | O_NOFOLLOW |
								 * O_CLOEXEC; without O_CREAT a missing file
								 * is no error */
	bool transient;	  /* through fd.c's transient files, closed at
								 * transaction abort (dirfd is AT_FDCWD) */
	void (*busy)(const struct PEPLockFile *lock);
	int (*hint)(const struct PEPLockFile *lock);
	void *arg; /* the caller's, for busy and hint */
} PEPLockFile;

extern int pep_lock_file(const PEPLockFile *lock, struct stat *held);
extern void pep_lock_file_close(const PEPLockFile *lock, int fd);

#endif /* PEP_LOCKFILE_H */
