/*-------------------------------------------------------------------------
 *
 * pep_lockfile.c
 *	  Open a file without following a link and take its exclusive flock
 *	  without waiting, keeping it only while its name still refers to it.
 *
 * Both output targets own what they write through such a lock: a local
 * export through PARENT/.NAME.pep-lock (pep_output.c), an object-store
 * export through its ledger file in the data directory (pep_s3ledger.c).
 * The kernel drops a flock when its owner dies, so a free lock proves the
 * previous owner gone.  The file is used only if it is a regular file of
 * the server's OS user with no other name (pep_file_problem), so a planted
 * link or file cannot make the export create or write anything elsewhere.
 *
 * IDENTIFICATION
 *	  extension/src/output/pep_lockfile.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "storage/fd.h"

#include "pep_lockfile.h"
#include "pep_output.h"

/* Close fd the way lock opened it, keeping errno. */
void
pep_lock_file_close(const PEPLockFile *lock, int fd)
{
	int save_errno = errno;

	if (lock->transient)
		CloseTransientFile(fd);
	else
		close(fd);
	errno = save_errno;
}

/*
 * The fd of lock's file, open and exclusively flocked, with held filled in
 * from it.  Without O_CREAT in flags, -1 when there is no file or its name
 * stopped referring to the file locked; with it, that case is tried again.  ERROR when the file is
 * one the lock refuses, or another export holds it (lock->busy).
 */
int
pep_lock_file(const PEPLockFile *lock, struct stat *held)
{
	int flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | lock->flags;

	Assert(!lock->transient || lock->dirfd == AT_FDCWD);
	for (;;)
	{
		int fd;
		struct stat named;
		const char *why;

		fd = lock->transient ? OpenTransientFilePerm(lock->path, flags, S_IRUSR | S_IWUSR) : openat(lock->dirfd, lock->name, flags, S_IRUSR | S_IWUSR);
		if (fd < 0)
		{
			if (!(flags & O_CREAT) && errno == ENOENT)
				return -1;
			if (errno == ELOOP)
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("cannot use %s \"%s\"", lock->what, lock->path),
						 errdetail("It is a symbolic link."),
						 lock->hint ? lock->hint(lock) : 0));
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not open %s \"%s\": %m", lock->what, lock->path)));
		}
		if (fstat(fd, held) != 0)
		{
			pep_lock_file_close(lock, fd);
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not stat %s \"%s\": %m", lock->what, lock->path)));
		}
		if ((why = pep_file_problem(held)) != NULL)
		{
			pep_lock_file_close(lock, fd);
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("cannot use %s \"%s\"", lock->what, lock->path),
					 errdetail("It %s.", why),
					 lock->hint ? lock->hint(lock) : 0));
		}
		if (flock(fd, LOCK_EX | LOCK_NB) != 0)
		{
			pep_lock_file_close(lock, fd);
			if (errno == EWOULDBLOCK)
				lock->busy(lock);
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not lock %s \"%s\": %m", lock->what, lock->path)));
		}

		/*
		 * The previous owner may have unlinked the file between our open and
		 * our flock; then we hold a lock nobody else can see.  Keep the lock
		 * only if the name still refers to the file we locked; without
		 * O_CREAT, a file that is gone stays gone.
		 */
		if (fstatat(lock->dirfd, lock->name, &named, AT_SYMLINK_NOFOLLOW) == 0 &&
			named.st_dev == held->st_dev && named.st_ino == held->st_ino)
			return fd;
		pep_lock_file_close(lock, fd);
		if (!(flags & O_CREAT))
			return -1;
	}
}
