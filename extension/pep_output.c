/*-------------------------------------------------------------------------
 *
 * pep_output.c
 *	  The output protocol: directory guard, lock, staging, publication.
 *
 * An export into DIR never writes under a name that a reader globbing DIR
 * can see until the whole export is done.  Its files go to a staging
 * directory beside the target, PARENT/.NAME.pep-staging, owned by an
 * exclusive flock on PARENT/.NAME.pep-lock that the exporting backend holds
 * for the export's whole life.  Publication writes _SUCCESS into the
 * staging directory last, fsyncs it, and renames the staging directory onto
 * the target in one rename(2): a reader sees either no target (or the empty
 * one that was there) or the complete export with its _SUCCESS.  If the
 * server dies during publication, the rename either happened or it did
 * not; there is no state in between.
 *
 * The kernel drops the flock when its owner dies, whatever the death (kill
 * -9, a crash restart, a power cut).  So a staging directory whose lock can
 * be taken belongs to a dead export and is swept by the next export into
 * the same target, while one whose lock is held belongs to a live export
 * and is never touched: no pid files, no timestamps, no grace periods.  The
 * lock file is created and locked before the staging directory exists, so
 * there is never a moment when staging exists unowned.
 *
 * Cleanup after a failure removes exactly the names in the export's ledger
 * from its staging directory, then the staging directory and the lock
 * file, and nothing else.  It therefore stays safe even if a later mode
 * relaxes the rule that the target must be empty.
 *
 * IDENTIFICATION
 *	  extension/pep_output.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "miscadmin.h"

#include "pep_output.h"

#define PEP_SUCCESS_NAME "_SUCCESS"

/* Linux's atomic exchange of two names; glibc declares it with _GNU_SOURCE. */
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

/* Is a directory empty?  Raises ERROR if it cannot be read. */
static bool
pep_dir_is_empty(const char *path)
{
	DIR		   *dir = opendir(path);
	struct dirent *de;
	bool		empty = true;

	if (dir == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open directory \"%s\": %m", path)));
	while ((de = readdir(dir)) != NULL)
	{
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
		{
			empty = false;
			break;
		}
	}
	closedir(dir);
	return empty;
}

/* Is this a name a complete export of this extension leaves in its directory? */
static bool
pep_is_export_file(const char *name)
{
	size_t		len = strlen(name);

	return strcmp(name, PEP_SUCCESS_NAME) == 0 ||
		(strncmp(name, "part-", 5) == 0 && len > 13 && strcmp(name + len - 8, ".parquet") == 0);
}

/*
 * Check that a non-empty target holds exactly a previous complete export:
 * its _SUCCESS and part files, nothing else.  Only such a directory may be
 * replaced by overwrite.
 */
static void
pep_check_previous_export(const char *target)
{
	DIR		   *dir = opendir(target);
	struct dirent *de;
	bool		success = false;

	if (dir == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open directory \"%s\": %m", target)));
	while ((de = readdir(dir)) != NULL)
	{
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (!pep_is_export_file(de->d_name))
		{
			char	   *name = pstrdup(de->d_name);

			closedir(dir);
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("directory \"%s\" does not hold only a previous export", target),
					 errdetail("It contains \"%s\", which no export writes.", name),
					 errhint("Only a directory written by an earlier complete export can be overwritten.")));
		}
		if (strcmp(de->d_name, PEP_SUCCESS_NAME) == 0)
			success = true;
	}
	closedir(dir);
	if (!success)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("directory \"%s\" does not hold a complete export", target),
				 errdetail("It has no \"%s\" file.", PEP_SUCCESS_NAME),
				 errhint("Only a directory written by an earlier complete export can be overwritten.")));
}

/*
 * Check that the target may receive an export: absent, or a directory that
 * is not a symbolic link and is empty or, with overwrite, holds a previous
 * complete export.  Shared by the guard and by the check repeated under the
 * lock.  Returns whether the target holds an export to replace.
 */
static bool
pep_check_target(const char *target, bool overwrite)
{
	struct stat st;

	if (lstat(target, &st) != 0)
	{
		if (errno == ENOENT)
			return false;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not access directory \"%s\": %m", target)));
	}
	if (S_ISLNK(st.st_mode))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("directory \"%s\" is a symbolic link", target),
				 errhint("Give the path of the directory the link points to.")));
	if (!S_ISDIR(st.st_mode))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a directory", target)));
	if (pep_dir_is_empty(target))
		return false;
	if (!overwrite)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("directory \"%s\" is not empty", target),
				 errhint("Export into a new or an empty directory, or pass overwrite => true to replace a previous export.")));
	pep_check_previous_export(target);
	return true;
}

/* Does the raw path have a ".." component anywhere? */
static bool
pep_has_parent_component(const char *path)
{
	const char *p = path;

	while (*p)
	{
		size_t		len = strcspn(p, "/");

		if (len == 2 && p[0] == '.' && p[1] == '.')
			return true;
		p += len;
		while (*p == '/')
			p++;
	}
	return false;
}

/* Is path equal to dir or inside it?  Both must be canonical. */
static bool
pep_path_within(const char *path, const char *dir)
{
	size_t		len = strlen(dir);

	return strncmp(path, dir, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

/*
 * Refuse a target that is, holds or lies inside a tablespace's directory:
 * an export must never write among relation files.  The locations are the
 * links in the data directory's pg_tblspc, resolved.
 */
static void
pep_check_tablespaces(const char *real_target)
{
	char		tblspc[MAXPGPATH];
	DIR		   *dir;
	struct dirent *de;

	snprintf(tblspc, MAXPGPATH, "%s/pg_tblspc", DataDir);
	dir = opendir(tblspc);
	if (dir == NULL)
		return;
	while ((de = readdir(dir)) != NULL)
	{
		char		link[MAXPGPATH];
		char		location[PATH_MAX];

		if (de->d_name[0] == '.')
			continue;
		snprintf(link, MAXPGPATH, "%s/%s", tblspc, de->d_name);
		if (realpath(link, location) == NULL)
			continue;
		if (pep_path_within(real_target, location) || pep_path_within(location, real_target))
		{
			closedir(dir);
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("cannot export into a tablespace's directory or a directory containing one"),
					 errdetail("The directory was \"%s\"; tablespace %s is at \"%s\".",
							   real_target, de->d_name, location)));
		}
	}
	closedir(dir);
}

/*
 * The directory guard.  It only reads: an export it rejects has touched
 * nothing.  It runs before the cleanup callback is registered, so a
 * rejected directory can never be reached by any cleanup.
 */
void
pep_output_guard(PEPOutput *out, const char *directory, bool overwrite)
{
	char	   *last;
	char		real_parent[PATH_MAX];
	char		real_datadir[PATH_MAX];
	char		real_target[PATH_MAX + NAME_MAX + 2];
	struct stat st;

	memset(out, 0, sizeof(PEPOutput));
	out->lock_fd = -1;
	out->overwrite = overwrite;

	if (directory[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("directory must not be empty")));
	if (!is_absolute_path(directory))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("directory must be an absolute path"),
				 errdetail("\"%s\" is relative.", directory)));
	if (strlen(directory) >= MAXPGPATH - 32)
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("directory path is too long")));

	/* Checked before canonicalize_path, which would fold ".." away. */
	strlcpy(out->target, directory, MAXPGPATH);
	if (pep_has_parent_component(out->target))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("directory must not contain \"..\" components"),
				 errdetail("The path was \"%s\".", directory)));
	canonicalize_path(out->target);
	if (strcmp(out->target, "/") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot export into the root directory")));

	strlcpy(out->parent, out->target, MAXPGPATH);
	get_parent_directory(out->parent);
	if (out->parent[0] == '\0')
		strlcpy(out->parent, "/", MAXPGPATH);
	last = strrchr(out->target, '/') + 1;

	if (stat(out->parent, &st) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not access parent directory \"%s\": %m", out->parent),
				 errhint("Create the parent directory first; an export creates only the last component of its path.")));
	if (!S_ISDIR(st.st_mode))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a directory", out->parent)));

	/* Resolve links in the parent before comparing it with the data directory. */
	if (realpath(out->parent, real_parent) == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not resolve directory \"%s\": %m", out->parent)));
	if (realpath(DataDir, real_datadir) == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not resolve directory \"%s\": %m", DataDir)));
	snprintf(real_target, sizeof(real_target), "%s/%s",
			 strcmp(real_parent, "/") == 0 ? "" : real_parent, last);
	if (pep_path_within(real_target, real_datadir) ||
		pep_path_within(real_datadir, real_target))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("cannot export into the data directory or a directory containing it"),
				 errdetail("The directory was \"%s\".", out->target)));
	pep_check_tablespaces(real_target);

	if (access(out->parent, W_OK | X_OK) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write into directory \"%s\": %m", out->parent),
				 errhint("An export stages its files beside the target directory, so the server needs write access to the parent.")));

	(void) pep_check_target(out->target, overwrite);

	if (snprintf(out->lock_path, MAXPGPATH, "%s/.%s.pep-lock", out->parent, last) >= MAXPGPATH ||
		snprintf(out->staging, MAXPGPATH, "%s/.%s.pep-staging", out->parent, last) >= MAXPGPATH)
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("directory path is too long")));
}

/*
 * Remove the files of the staging directory, then the directory itself;
 * only the names an export writes when only_export_files.  Problems are
 * reported at elevel.  Returns the number of files removed, or -1 if there
 * was no staging directory.
 */
static int
pep_remove_staging(PEPOutput *out, bool only_export_files, int elevel)
{
	DIR		   *dir = opendir(out->staging);
	struct dirent *de;
	int			removed = 0;

	if (dir == NULL)
	{
		if (errno != ENOENT)
			ereport(elevel,
					(errcode_for_file_access(),
					 errmsg("could not open directory \"%s\": %m", out->staging)));
		return -1;
	}
	while ((de = readdir(dir)) != NULL)
	{
		char		path[MAXPGPATH];

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
			(only_export_files && !pep_is_export_file(de->d_name)))
			continue;
		snprintf(path, MAXPGPATH, "%s/%s", out->staging, de->d_name);
		if (unlink(path) != 0)
		{
			int			save_errno = errno;

			if (elevel >= ERROR)
				closedir(dir);
			errno = save_errno;
			ereport(elevel,
					(errcode_for_file_access(),
					 errmsg("could not remove file \"%s\": %m", path)));
			continue;
		}
		removed++;
	}
	closedir(dir);
	if (rmdir(out->staging) != 0)
		ereport(elevel,
				(errcode_for_file_access(),
				 errmsg("could not remove directory \"%s\": %m", out->staging)));
	return removed;
}

/* Remove a dead export's staging directory, which the caller now owns. */
static void
pep_sweep_staging(PEPOutput *out)
{
	int			removed = pep_remove_staging(out, false, ERROR);

	if (removed >= 0)
		ereport(LOG,
				(errmsg("removed staging directory \"%s\" and its %d files, left by an export that did not finish",
						out->staging, removed)));
}

/*
 * Take the lock that owns the target's staging area, re-check the target
 * now that no other export can change it, and sweep a dead export's
 * staging directory.
 */
void
pep_output_lock(PEPOutput *out)
{
	for (;;)
	{
		int			fd = open(out->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, S_IRUSR | S_IWUSR);
		struct stat held;
		struct stat named;

		if (fd < 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not open lock file \"%s\": %m", out->lock_path)));
		if (flock(fd, LOCK_EX | LOCK_NB) != 0)
		{
			int			save_errno = errno;

			close(fd);
			if (save_errno == EWOULDBLOCK)
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_IN_USE),
						 errmsg("another export into directory \"%s\" is in progress", out->target),
						 errdetail("Lock file \"%s\" is held by a running export.", out->lock_path)));
			errno = save_errno;
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not lock file \"%s\": %m", out->lock_path)));
		}

		/*
		 * The previous owner may have unlinked the file between our open and
		 * our flock; then we hold a lock nobody else can see.  Keep the lock
		 * only if the name still refers to the file we locked.
		 */
		if (fstat(fd, &held) == 0 && stat(out->lock_path, &named) == 0 &&
			held.st_dev == named.st_dev && held.st_ino == named.st_ino)
		{
			out->lock_fd = fd;
			break;
		}
		close(fd);
	}

	(void) pep_check_target(out->target, out->overwrite);
	pep_sweep_staging(out);
}

void
pep_output_create_staging(PEPOutput *out)
{
	Assert(out->lock_fd >= 0);
	if (mkdir(out->staging, S_IRWXU) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", out->staging)));
	out->staging_created = true;
}

/* fsync a file or directory by path; a failure is reported at elevel. */
static void
pep_fsync_path(const char *path, bool is_dir, int elevel)
{
	int			fd = open(path, (is_dir ? O_RDONLY : O_RDWR) | O_CLOEXEC);

	if (fd < 0 || fsync(fd) != 0)
	{
		int			save_errno = errno;

		if (fd >= 0)
			close(fd);
		errno = save_errno;
		ereport(elevel,
				(errcode_for_file_access(),
				 errmsg("could not fsync \"%s\": %m", path)));
		return;
	}
	close(fd);
}

/*
 * Seal the staging directory: _SUCCESS last, then fsync.  Nothing is
 * visible yet; a failure from here is undone by cleanup like any other.
 */
void
pep_output_seal(PEPOutput *out, PEPLedger *ledger)
{
	char		path[MAXPGPATH];
	int			fd;

	/* Like every other file, _SUCCESS is in the ledger before it exists. */
	SpinLockAcquire(&ledger->mutex);
	if (ledger->nentries >= PEP_LEDGER_CAPACITY)
	{
		SpinLockRelease(&ledger->mutex);
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("export would write more than %d files", PEP_LEDGER_CAPACITY)));
	}
	strlcpy(ledger->names[ledger->nentries++], PEP_SUCCESS_NAME, PEP_LEDGER_NAME_LEN);
	SpinLockRelease(&ledger->mutex);

	snprintf(path, MAXPGPATH, "%s/%s", out->staging, PEP_SUCCESS_NAME);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, S_IRUSR | S_IWUSR);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", path)));
	if (fsync(fd) != 0)
	{
		int			save_errno = errno;

		close(fd);
		errno = save_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not fsync \"%s\": %m", path)));
	}
	close(fd);
	pep_fsync_path(out->staging, true, ERROR);
}

/*
 * Publish the sealed staging directory with one rename onto the target.
 * The rename is the commit point of the export; after it, cleanup leaves
 * the target alone.  The caller holds interrupts (pep_export.c).  An ERROR
 * before the rename fails the export cleanly; after it, nothing here may
 * raise one, since the export is published and the caller reports success.
 */
void
pep_output_publish(PEPOutput *out)
{
	bool		replaced = false;

	/*
	 * One rename publishes everything.  A previous export being overwritten
	 * is swapped out in one exchange, so its parts stay readable until the
	 * new set is in place; it then sits in the staging directory, still
	 * owned by our lock, and is removed below (or by the next export's
	 * sweep, if we die first).
	 */
	if (pep_check_target(out->target, out->overwrite))
	{
		if (renameat2(AT_FDCWD, out->staging, AT_FDCWD, out->target, RENAME_EXCHANGE) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not exchange directory \"%s\" with \"%s\": %m",
							out->staging, out->target)));
		replaced = true;
	}
	else if (rename(out->staging, out->target) != 0)
	{
		if (errno == ENOTEMPTY || errno == EEXIST)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("directory \"%s\" is no longer empty", out->target),
					 errdetail("Something wrote into it while the export ran.")));
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not rename directory \"%s\" to \"%s\": %m",
						out->staging, out->target)));
	}
	out->published = true;

	/* The export is complete; a lost parent fsync only risks the rename itself. */
	pep_fsync_path(out->parent, true, WARNING);

	/*
	 * What is now in the staging directory is the replaced export, which held
	 * only an export's names (pep_check_previous_export).  A failure is only a
	 * WARNING: the new export is published, and the next sweep finishes.
	 */
	if (replaced)
		(void) pep_remove_staging(out, true, WARNING);
}

/* Give up the lock after a successful export. */
void
pep_output_release(PEPOutput *out)
{
	if (out->lock_fd < 0)
		return;
	/* Unlink while still holding the lock, so no one can lock a doomed file. */
	unlink(out->lock_path);
	close(out->lock_fd);
	out->lock_fd = -1;
}

/*
 * Cleanup after a failure.  The workers are gone by now (the caller made
 * sure), so nothing can create a file behind our back.  This removes
 * exactly the ledger's names from the staging directory, the staging
 * directory, and the lock file; nothing else, so it stays safe even if the
 * target could hold other files.  It must not throw: it runs inside error
 * recovery, so problems are reported as WARNING.
 */
void
pep_output_remove(PEPOutput *out, PEPLedger *ledger)
{
	if (out->staging_created && !out->published)
	{
		int			n = 0;

		if (ledger != NULL)
		{
			SpinLockAcquire(&ledger->mutex);
			n = ledger->nentries;
			SpinLockRelease(&ledger->mutex);
		}
		for (int i = 0; i < n; i++)
		{
			char		path[MAXPGPATH];

			snprintf(path, MAXPGPATH, "%s/%s", out->staging, ledger->names[i]);
			if (unlink(path) != 0 && errno != ENOENT)
				ereport(WARNING,
						(errcode_for_file_access(),
						 errmsg("could not remove file \"%s\": %m", path)));
		}
		if (rmdir(out->staging) != 0 && errno != ENOENT)
			ereport(WARNING,
					(errcode_for_file_access(),
					 errmsg("could not remove directory \"%s\": %m", out->staging)));
		out->staging_created = false;
	}
	pep_output_release(out);
}
