/*-------------------------------------------------------------------------
 *
 * pep_output.c
 *	  The output protocol: directory guard, lock, staging, publication.
 *
 * An export into DIR never writes under a name that a reader globbing DIR
 * can see until the whole export is done.  Its files go to a staging
 * directory beside the target, PARENT/.NAME.pep-staging, owned by an
 * exclusive flock on PARENT/.NAME.pep-lock that the exporting backend holds
 * for the export's whole life.  The worker that finishes writing last writes
 * _SUCCESS, the export's manifest, into the staging directory and fsyncs it
 * (pep_output_write_success); publication fsyncs the directory and renames
 * it onto the target in one rename(2): a reader sees either no target (or
 * the empty one that was there) or the complete export with its _SUCCESS.  If the
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
 * PARENT may be writable by others (a shared or group-writable directory),
 * so every name in it is treated as hostile.  The guard opens PARENT once;
 * every later create, open, lock, sweep, remove and rename is relative to
 * that descriptor and never follows a symbolic link (O_NOFOLLOW,
 * AT_SYMLINK_NOFOLLOW).  The staging directory is opened once right after
 * it is made and kept open; its entries are reached only through that
 * descriptor, and before each rename the staging name is checked to still
 * be that very directory (st_dev, st_ino).  A file is removed only after
 * fstatat showed a regular file of the server's OS user with a name an
 * export writes and no other hard link; a directory is removed only while
 * its name still refers to the directory that was emptied.  Whatever fails
 * these checks is refused up front (a lock file, a dead staging directory
 * or a target to overwrite that this server's exports cannot have made) or
 * left in place with a WARNING (during cleanup), never entered or removed.
 * Workers reach the staging directory the same way (see pep_dirtarget.c).
 *
 * Cleanup after a failure removes exactly the names in the export's ledger
 * (pep_ledger.c) from its staging directory, then the staging directory and the lock
 * file, and nothing else.  It therefore stays safe even if a later mode
 * relaxes the rule that the target must be empty.
 *
 * IDENTIFICATION
 *	  extension/src/output/local/pep_output.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/fd.h"

#include "pep_lockfile.h"
#include "pep_output.h"

/* Linux's atomic exchange of two names; glibc declares it with _GNU_SOURCE. */
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static bool
pep_same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Is this a name a complete export of this extension leaves in its directory? */
static bool
pep_is_export_file(const char *name)
{
	size_t len = strlen(name);

	return strcmp(name, PEP_SUCCESS_NAME) == 0 ||
		   (strncmp(name, "part-", 5) == 0 && len > 13 && strcmp(name + len - 8, ".parquet") == 0);
}

/*
 * Why a file (a lock file, or an entry of a directory to sweep or replace)
 * cannot be one this server's exports made, as the end of a sentence whose
 * subject is the file; NULL if it can be.  A second hard link means that
 * someone else can reach the file under another name, which may be theirs.
 */
const char *
pep_file_problem(const struct stat *st)
{
	if (S_ISLNK(st->st_mode))
		return "is a symbolic link";
	if (!S_ISREG(st->st_mode))
		return "is not a regular file";
	if (st->st_uid != geteuid())
		return "is owned by another user";
	if (st->st_nlink != 1)
		return "has other hard links";
	return NULL;
}

/* The same for a directory: a staging directory or a target to replace. */
const char *
pep_dir_problem(const struct stat *st)
{
	if (S_ISLNK(st->st_mode))
		return "is a symbolic link";
	if (!S_ISDIR(st->st_mode))
		return "is not a directory";
	if (st->st_uid != geteuid())
		return "is owned by another user";
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return "can be written by other users";
	return NULL;
}

/*
 * The names in the open directory dirfd, "." and ".." left out.  It reads a
 * new open file description of the same directory (openat "."), so dirfd's
 * offset is untouched.  Returns false with errno set if the directory could
 * not be read; the caller reports it (after closing what it holds).
 */
static bool
pep_list_dir(int dirfd, List **names)
{
	int fd = openat(dirfd, ".", PEP_OPEN_DIR);
	DIR *dir = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	*names = NIL;
	if (dir == NULL)
	{
		int save_errno = errno;

		if (fd >= 0)
			close(fd);
		errno = save_errno;
		return false;
	}
	errno = 0;
	while ((de = readdir(dir)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			*names = lappend(*names, pstrdup(de->d_name));
	if (errno != 0)
	{
		int save_errno = errno;

		closedir(dir);
		errno = save_errno;
		return false;
	}
	closedir(dir);
	return true;
}

/*
 * Open the directory NAME of the parent without following a link and check
 * that it is still the one fstatat described (st); -1 with errno set if
 * not, ESTALE for a different directory.
 */
static int
pep_open_checked(int parent_fd, const char *name, const struct stat *st)
{
	int fd = openat(parent_fd, name, PEP_OPEN_DIR);
	struct stat held;

	if (fd < 0)
		return -1;
	if (fstat(fd, &held) != 0 || !pep_same_file(&held, st))
	{
		close(fd);
		errno = ESTALE;
		return -1;
	}
	return fd;
}

/*
 * pep_open_checked, then pep_list_dir; ERROR if either fails.  Returns the
 * open directory, which the caller closes before it reports anything.
 */
static int
pep_open_and_list(int parent_fd, const char *name, const struct stat *st, const char *path,
				  List **names)
{
	int fd = pep_open_checked(parent_fd, name, st);

	if (fd < 0 && errno == ESTALE)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("directory \"%s\" changed while it was examined", path)));
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open directory \"%s\": %m", path)));
	if (!pep_list_dir(fd, names))
	{
		int save_errno = errno;

		close(fd);
		errno = save_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read directory \"%s\": %m", path)));
	}
	return fd;
}

/*
 * Remove the directory NAME of the parent, but only while the name still
 * refers to the directory whose identity is st.  Problems at elevel.
 */
static void
pep_remove_dir(int parent_fd, const char *name, const struct stat *st, const char *path,
			   int elevel)
{
	struct stat named;

	if (fstatat(parent_fd, name, &named, AT_SYMLINK_NOFOLLOW) != 0)
	{
		if (errno != ENOENT)
			ereport(elevel,
					(errcode_for_file_access(),
					 errmsg("could not access directory \"%s\": %m", path)));
		return;
	}
	if (!pep_same_file(&named, st))
	{
		ereport(elevel,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("left \"%s\" in place", path),
				 errdetail("The name no longer refers to the directory the export emptied.")));
		return;
	}
	if (unlinkat(parent_fd, name, AT_REMOVEDIR) != 0)
		ereport(elevel,
				(errcode_for_file_access(),
				 errmsg("could not remove directory \"%s\": %m", path)));
}

/* Why a sweep stopped: the entry's path and why it is not an export's. */
typedef struct PEPSweepStop
{
	char *path;		 /* the entry, or NULL while the sweep goes on */
	const char *why; /* as for pep_file_problem */
	int save_errno;	 /* errno for "cannot be examined" and failed removals */
} PEPSweepStop;

static void pep_sweep_folder(int fd, const char *path, int depth, bool remove, int *removed,
							 PEPSweepStop *stop);
static int pep_stop_detail(const PEPSweepStop *stop);

/*
 * Check that the target may receive an export: absent, or a directory that
 * is not a symbolic link and is empty or, with overwrite, holds a previous
 * complete export: only regular files of the server's OS user with the
 * names an export writes and no other hard link, _SUCCESS among them, and
 * partition folders holding such files (pep_sweep_folder), in a directory
 * of the server's that others cannot write.  Anything else anywhere in the
 * tree is refused here, naming it, before anything is moved.  Shared by the
 * guard and by the checks repeated under the lock and before publication.
 * Returns whether the target holds an export to replace, and its identity
 * in out->replaced_st.
 */
static bool
pep_check_target(PEPOutput *out)
{
	struct stat st;
	int fd;
	List *names;
	ListCell *lc;
	PEPSweepStop stop = { 0 };
	int nfiles = 0;
	bool success = false;

	if (fstatat(out->parent_fd, out->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
	{
		if (errno == ENOENT)
			return false;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not access directory \"%s\": %m", out->target)));
	}
	if (S_ISLNK(st.st_mode))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("directory \"%s\" is a symbolic link", out->target),
				 errhint("Give the path of the directory the link points to.")));
	if (!S_ISDIR(st.st_mode))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a directory", out->target)));

	fd = pep_open_and_list(out->parent_fd, out->name, &st, out->target, &names);
	if (names == NIL)
	{
		close(fd);
		return false;
	}
	if (!out->overwrite)
	{
		close(fd);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("directory \"%s\" is not empty", out->target),
				 errhint("Export into a new or an empty directory, or pass overwrite => true to replace a previous export.")));
	}
	foreach (lc, names)
		success |= strcmp(lfirst(lc), PEP_SUCCESS_NAME) == 0;
	pep_sweep_folder(fd, out->target, 0, false, &nfiles, &stop);
	close(fd);
	if (pep_dir_problem(&st) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("directory \"%s\" does not hold only a previous export", out->target),
				 errdetail("The directory %s.", pep_dir_problem(&st)),
				 errhint("Only a directory written by an earlier complete export can be overwritten.")));
	if (stop.path != NULL)
	{
		errno = stop.save_errno;
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("directory \"%s\" does not hold only a previous export", out->target),
				 pep_stop_detail(&stop),
				 errhint("Only a directory written by an earlier complete export can be overwritten.")));
	}
	if (!success)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("directory \"%s\" does not hold a complete export", out->target),
				 errdetail("It has no \"%s\" file.", PEP_SUCCESS_NAME),
				 errhint("Only a directory written by an earlier complete export can be overwritten.")));
	out->replaced_st = st;
	return true;
}

/* Does the raw path have a ".." component anywhere? */
static bool
pep_has_parent_component(const char *path)
{
	const char *p = path;

	while (*p)
	{
		size_t len = strcspn(p, "/");

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
	size_t len = strlen(dir);

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
	char tblspc[MAXPGPATH];
	DIR *dir;
	struct dirent *de;

	snprintf(tblspc, MAXPGPATH, "%s/pg_tblspc", DataDir);
	dir = opendir(tblspc);
	if (dir == NULL)
		return;
	while ((de = readdir(dir)) != NULL)
	{
		char link[MAXPGPATH];
		char location[PATH_MAX];

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
 * rejected directory can never be reached by any cleanup.  It opens the
 * parent once, as a transient file so that an error closes it; everything
 * later happens relative to that descriptor.
 */
void
pep_output_guard(PEPOutput *out, const char *directory, bool overwrite)
{
	char *last;
	char real_parent[PATH_MAX];
	char real_datadir[PATH_MAX];
	char real_target[PATH_MAX + NAME_MAX + 2];
	struct stat st;
	struct stat real_st;

	memset(out, 0, sizeof(PEPOutput));
	out->parent_fd = -1;
	out->lock_fd = -1;
	out->staging_fd = -1;
	out->overwrite = overwrite;

	if (directory[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("directory must not be empty")));

	/*
	 * The path reaches the server log, the progress view and clients in their
	 * own encodings.  In a SQL_ASCII database nothing has checked its bytes,
	 * so require what every other database already guarantees: text that
	 * converts to UTF-8.
	 */
	if (!pg_verify_mbstr(GetDatabaseEncoding() == PG_SQL_ASCII ? PG_UTF8 : GetDatabaseEncoding(),
						 directory, strlen(directory), true))
		ereport(ERROR,
				(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
				 errmsg("directory contains an invalid byte sequence for encoding \"%s\"",
						GetDatabaseEncoding() == PG_SQL_ASCII ? "UTF8" : GetDatabaseEncodingName()),
				 errhint("Give the directory as valid UTF-8 text.")));

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
	strlcpy(out->name, last, MAXPGPATH);

	/*
	 * The parent's own path is the caller's (links in it are followed, as a
	 * DBA expects); from here on it is only ever reached through this
	 * descriptor, so later changes to the path cannot redirect the export.
	 */
	out->parent_fd = OpenTransientFile(out->parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (out->parent_fd < 0)
	{
		if (errno == ENOTDIR)
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("\"%s\" is not a directory", out->parent)));
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not access parent directory \"%s\": %m", out->parent),
				 errhint("Create the parent directory first; an export creates only the last component of its path.")));
	}
	if (fstat(out->parent_fd, &st) != 0 || !S_ISDIR(st.st_mode))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a directory", out->parent)));

	/*
	 * Resolve links in the parent before comparing it with the data directory,
	 * and make sure the resolved path is the directory we hold.
	 */
	if (realpath(out->parent, real_parent) == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not resolve directory \"%s\": %m", out->parent)));
	if (stat(real_parent, &real_st) != 0 || !pep_same_file(&st, &real_st))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("directory \"%s\" changed while it was checked", out->parent)));
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

	if (faccessat(out->parent_fd, ".", W_OK | X_OK, AT_EACCESS) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write into directory \"%s\": %m", out->parent),
				 errhint("An export stages its files beside the target directory, so the server needs write access to the parent.")));

	(void) pep_check_target(out);

	if (snprintf(out->lock_name, MAXPGPATH, ".%s.pep-lock", last) >= MAXPGPATH ||
		snprintf(out->staging_name, MAXPGPATH, ".%s.pep-staging", last) >= MAXPGPATH ||
		snprintf(out->lock_path, MAXPGPATH, "%s/%s",
				 strcmp(out->parent, "/") == 0 ? "" : out->parent, out->lock_name) >= MAXPGPATH ||
		snprintf(out->staging, MAXPGPATH, "%s/%s",
				 strcmp(out->parent, "/") == 0 ? "" : out->parent, out->staging_name) >= MAXPGPATH)
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("directory path is too long")));
}

/* The hint of every refusal to touch something at a name the export uses. */
static int
pep_inspect_hint(PEPOutput *out, const char *path)
{
	return errhint("Inspect \"%s\" and remove it by hand if no export into \"%s\" is running; an export never uses what it cannot prove it made.",
				   path, out->target);
}

/*
 * Check, or with remove also remove, what a dead export left in the open
 * folder fd (path names it), or a complete export to replace:
 * part files, _SUCCESS at the top, and partition folders ("name=value", real
 * directories of the server's OS user that others cannot write, at most
 * PEP_MAX_PARTITION_LEVELS deep) with what they hold.  It stops at the
 * first entry no export of this server can have made.
 * Every descriptor it opens is closed before it returns.
 */
static void
pep_sweep_folder(int fd, const char *path, int depth, bool remove, int *removed,
				 PEPSweepStop *stop)
{
	List *names;
	ListCell *lc;

	if (!pep_list_dir(fd, &names))
	{
		stop->path = pstrdup(path);
		stop->why = "cannot be read";
		stop->save_errno = errno;
		return;
	}
	foreach (lc, names)
	{
		const char *name = lfirst(lc);
		char *entry = psprintf("%s/%s", path, name);
		struct stat st;
		bool folder;

		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		{
			stop->why = "cannot be examined";
			stop->save_errno = errno;
		}
		else if (S_ISDIR(st.st_mode))
		{
			if (depth >= PEP_MAX_PARTITION_LEVELS || name[0] == '.' || strchr(name, '=') == NULL)
				stop->why = "is not a regular file";
			else
				stop->why = pep_dir_problem(&st);
		}
		else if (!pep_is_export_file(name) ||
				 (depth > 0 && strcmp(name, PEP_SUCCESS_NAME) == 0))
			stop->why = "has a name that no export writes";
		else
			stop->why = pep_file_problem(&st);
		if (stop->why != NULL)
		{
			stop->path = entry;
			return;
		}

		folder = S_ISDIR(st.st_mode);
		if (folder)
		{
			int sub = pep_open_checked(fd, name, &st);

			if (sub < 0)
			{
				stop->path = entry;
				stop->why = "cannot be opened";
				stop->save_errno = errno;
				return;
			}
			pep_sweep_folder(sub, entry, depth + 1, remove, removed, stop);
			close(sub);
			if (stop->path != NULL)
				return;
		}
		if (!remove)
			continue;
		if (unlinkat(fd, name, folder ? AT_REMOVEDIR : 0) != 0)
		{
			stop->path = entry;
			stop->why = "could not be removed";
			stop->save_errno = errno;
			return;
		}
		if (!folder)
			(*removed)++;
	}
}

/*
 * The detail of a sweep's stop: the entry, why, and errno's text when it
 * has one; the caller sets errno to stop->save_errno before ereport, which
 * takes errno for %m as it starts.
 */
static int
pep_stop_detail(const PEPSweepStop *stop)
{
	if (stop->save_errno != 0)
		return errdetail("Its entry \"%s\" %s: %m.", stop->path, stop->why);
	return errdetail("Its entry \"%s\" %s.", stop->path, stop->why);
}

/*
 * Remove a dead export's staging directory, which the caller now owns by
 * holding its lock.  It is entered only if it is a real directory of the
 * server's OS user that no one else can write, and emptied only of what
 * such an export wrote: part files, _SUCCESS and partition folders
 * (pep_sweep_folder).  If anything else is there, nothing is touched and
 * the export is refused: the whole tree is checked before the first
 * removal.
 */
static void
pep_sweep_staging(PEPOutput *out)
{
	struct stat st;
	const char *why;
	PEPSweepStop stop = { 0 };
	int removed = 0;
	int fd;

	if (fstatat(out->parent_fd, out->staging_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
	{
		if (errno == ENOENT)
			return;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not access directory \"%s\": %m", out->staging)));
	}
	if ((why = pep_dir_problem(&st)) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot sweep staging directory \"%s\"", out->staging),
				 errdetail("It %s, so no export of this server left it.", why),
				 pep_inspect_hint(out, out->staging)));

	fd = pep_open_checked(out->parent_fd, out->staging_name, &st);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open directory \"%s\": %m", out->staging)));
	pep_sweep_folder(fd, out->staging, 0, false, &removed, &stop);
	if (stop.path == NULL)
		pep_sweep_folder(fd, out->staging, 0, true, &removed, &stop);
	close(fd);
	if (stop.path != NULL)
	{
		errno = stop.save_errno;
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot sweep staging directory \"%s\"", out->staging),
				 pep_stop_detail(&stop),
				 pep_inspect_hint(out, out->staging)));
	}
	pep_remove_dir(out->parent_fd, out->staging_name, &st, out->staging, ERROR);
	ereport(LOG,
			(errmsg("removed staging directory \"%s\" and its %d files, left by an export that did not finish",
					out->staging, removed)));
}

/* Another export holds the lock: report it. */
static void
pep_output_lock_busy(const PEPLockFile *lock)
{
	PEPOutput *out = lock->arg;

	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_IN_USE),
			 errmsg("another export into directory \"%s\" is in progress", out->target),
			 errdetail("Lock file \"%s\" is held by a running export.", out->lock_path)));
}

static int
pep_output_lock_hint(const PEPLockFile *lock)
{
	return pep_inspect_hint(lock->arg, lock->path);
}

/*
 * Take the lock that owns the target's staging area (pep_lock_file), re-check
 * the target now that no other export can change it, and sweep a dead
 * export's staging directory.
 */
void
pep_output_lock(PEPOutput *out)
{
	PEPLockFile lock = {
		.dirfd = out->parent_fd,
		.name = out->lock_name,
		.path = out->lock_path,
		.what = "lock file",
		.flags = O_CREAT,
		.transient = false,
		.busy = pep_output_lock_busy,
		.hint = pep_output_lock_hint,
		.arg = out,
	};
	struct stat held;

	out->lock_fd = pep_lock_file(&lock, &held);

	(void) pep_check_target(out);
	pep_sweep_staging(out);
}

/*
 * Make the staging directory and open it once: everything this export does
 * inside it goes through this descriptor, and its identity is what the
 * workers and publication check the name against.
 */
void
pep_output_create_staging(PEPOutput *out)
{
	int fd;
	struct stat st;

	Assert(out->lock_fd >= 0);
	if (mkdirat(out->parent_fd, out->staging_name, S_IRWXU) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", out->staging)));
	fd = openat(out->parent_fd, out->staging_name, PEP_OPEN_DIR);
	if (fd < 0 || fstat(fd, &st) != 0)
	{
		int save_errno = errno;

		if (fd >= 0)
			close(fd);
		errno = save_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open directory \"%s\": %m", out->staging)));
	}

	/*
	 * Someone else's directory swapped in between mkdirat and openat is not
	 * ours: it is neither used nor, by cleanup, removed.
	 */
	if (pep_dir_problem(&st) != NULL)
	{
		close(fd);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("staging directory \"%s\" was replaced during the export", out->staging)));
	}
	out->staging_st = st;
	out->staging_fd = fd;
}

/* Is the staging name still the directory this export made?  ERROR if not. */
static void
pep_check_staging_name(PEPOutput *out)
{
	struct stat named;

	if (fstatat(out->parent_fd, out->staging_name, &named, AT_SYMLINK_NOFOLLOW) != 0 ||
		!pep_same_file(&named, &out->staging_st))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("staging directory \"%s\" was replaced during the export", out->staging),
				 errdetail("The name no longer refers to the directory the export created; something with write access to \"%s\" changed it.",
						   out->parent)));
}

/* The path of a ledger entry below the staging directory, for messages. */
static char *
pep_ledger_path(PEPOutput *out, const PEPLedger *ledger, int entry)
{
	if (entry < 0)
		return pstrdup(out->staging);
	return psprintf("%s/%s", out->staging, pep_ledger_relpath(ledger, entry));
}

/*
 * After an overwrite's exchange, the staging name holds the replaced
 * export.  Remove its files and partition folders, but only from the
 * directory that was checked (pep_check_target) and only entries that pass
 * the same checks again (pep_sweep_folder); the first that does not is
 * left with a WARNING, and so is the rest then.  Only WARNINGs: the new
 * export is already published.
 */
static void
pep_remove_replaced(PEPOutput *out)
{
	int fd = pep_open_checked(out->parent_fd, out->staging_name, &out->replaced_st);
	PEPSweepStop stop = { 0 };
	int removed = 0;

	if (fd < 0)
	{
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not open directory \"%s\" to remove the replaced export: %m",
						out->staging)));
		return;
	}
	pep_sweep_folder(fd, out->staging, 0, true, &removed, &stop);
	close(fd);
	if (stop.path != NULL)
	{
		errno = stop.save_errno;
		ereport(WARNING,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("left the replaced export in \"%s\"", out->staging),
				 pep_stop_detail(&stop)));
		return;
	}
	pep_remove_dir(out->parent_fd, out->staging_name, &out->replaced_st, out->staging, WARNING);
}

/*
 * Write _SUCCESS, the export's manifest (pep_manifest.c), into the staging
 * directory open as staging_fd, and fsync it.  Called by the worker that
 * finished writing last, once every part is finished, so _SUCCESS exists
 * only beside a whole export; pep_output_seal fsyncs the directory after
 * it.  Like every other file, it is in the ledger before it exists, so a
 * failure from here on is undone by cleanup like any other.
 */
void
pep_output_write_success(int staging_fd, const char *staging, PEPLedger *ledger,
						 const char *manifest, Size len)
{
	char path[MAXPGPATH];
	int fd;
	int entry;
	Size done = 0;

	entry = pep_ledger_enter(ledger, PEP_LEDGER_SUCCESS, -1, NULL);
	snprintf(path, MAXPGPATH, "%s/%s", staging, PEP_SUCCESS_NAME);
	fd = openat(staging_fd, PEP_SUCCESS_NAME,
				O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, S_IRUSR | S_IWUSR);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", path)));
	pep_ledger_created(ledger, entry);
	while (done < len)
	{
		ssize_t n = write(fd, manifest + done, len - done);

		if (n <= 0)
		{
			int save_errno = n < 0 ? errno : ENOSPC;

			close(fd);
			errno = save_errno;
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not write file \"%s\": %m", path)));
		}
		done += (Size) n;
	}
	if (fsync(fd) != 0)
	{
		int save_errno = errno;

		close(fd);
		errno = save_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not fsync \"%s\": %m", path)));
	}
	close(fd);
}

/*
 * Seal the staging directory once every worker finished: its _SUCCESS is
 * written and fsynced (pep_output_write_success), so fsync every folder
 * and the directory itself, which hold the names of the parts and of
 * _SUCCESS.  Nothing is visible yet; a failure from here is undone by
 * cleanup like any other.
 */
void
pep_output_seal(PEPOutput *out, PEPLedger *ledger)
{
	int fd;
	bool success = false;

	pep_check_staging_name(out);
	for (int i = 0; i < ledger->nentries; i++)
		success |= !ledger->entries[i].dir && ledger->entries[i].created &&
				   ledger->entries[i].parent < 0 &&
				   strcmp(pep_ledger_name(ledger, i), PEP_SUCCESS_NAME) == 0;
	if (!success)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("export into \"%s\" finished without its \"%s\" manifest",
						out->target, PEP_SUCCESS_NAME)));

	/* Each partition folder holds the names of what was created in it. */
	for (int i = 0; i < ledger->nentries; i++)
	{
		if (!ledger->entries[i].dir || !ledger->entries[i].created)
			continue;
		fd = pep_ledger_open_folder(out->staging_fd, ledger, i);
		if (fd < 0 || fsync(fd) != 0)
		{
			int save_errno = errno;

			if (fd >= 0)
				close(fd);
			errno = save_errno;
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not fsync \"%s\": %m", pep_ledger_path(out, ledger, i))));
		}
		close(fd);
	}
	if (fsync(out->staging_fd) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not fsync \"%s\": %m", out->staging)));
}

/*
 * Publish the sealed staging directory with one rename onto the target.
 * The rename is the commit point of the export; after it, cleanup leaves
 * the target alone.  The caller holds interrupts (pep_export.c).  An ERROR
 * before the rename fails the export cleanly; after it, nothing here may
 * raise one, since the export is published and the caller reports success.
 * The one exception proves the rule: if the directory the rename moved is
 * not ours (someone swapped the staging name in between), our export was
 * not published, and the ERROR makes cleanup remove it through its own
 * descriptor.
 */
void
pep_output_publish(PEPOutput *out)
{
	bool replaced;
	struct stat named;

	/*
	 * One rename publishes everything.  A previous export being overwritten
	 * is swapped out in one exchange, so its parts stay readable until the
	 * new set is in place; it then sits in the staging directory, still
	 * owned by our lock, and is removed below (or by the next export's
	 * sweep, if we die first).  The names are checked just before, and the
	 * target just after: a swap in between that the kernel cannot refuse
	 * still never makes us touch anything but our own directory.
	 */
	replaced = pep_check_target(out);
	pep_check_staging_name(out);
	if (replaced)
	{
		if (renameat2(out->parent_fd, out->staging_name, out->parent_fd, out->name,
					  RENAME_EXCHANGE) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not exchange directory \"%s\" with \"%s\": %m",
							out->staging, out->target)));
	}
	else if (renameat(out->parent_fd, out->staging_name, out->parent_fd, out->name) != 0)
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
	if (fstatat(out->parent_fd, out->name, &named, AT_SYMLINK_NOFOLLOW) != 0 ||
		!pep_same_file(&named, &out->staging_st))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("staging directory \"%s\" was replaced during publication", out->staging),
				 errdetail("The directory renamed onto \"%s\" is not the one the export created.",
						   out->target)));
	out->published = true;

	/* The export is complete; a lost parent fsync only risks the rename itself. */
	if (fsync(out->parent_fd) != 0)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not fsync \"%s\": %m", out->parent)));

	if (replaced)
		pep_remove_replaced(out);
}

/* Give up the lock and the descriptors after a successful export, or in cleanup. */
void
pep_output_release(PEPOutput *out)
{
	if (out->staging_fd >= 0)
	{
		close(out->staging_fd);
		out->staging_fd = -1;
	}
	if (out->lock_fd >= 0)
	{
		struct stat held;
		struct stat named;

		/* Unlink while still holding the lock, so no one can lock a doomed file. */
		if (fstat(out->lock_fd, &held) == 0 &&
			fstatat(out->parent_fd, out->lock_name, &named, AT_SYMLINK_NOFOLLOW) == 0 &&
			pep_same_file(&held, &named))
			(void) unlinkat(out->parent_fd, out->lock_name, 0);
		close(out->lock_fd);
		out->lock_fd = -1;
	}
	if (out->parent_fd >= 0)
	{
		CloseTransientFile(out->parent_fd);
		out->parent_fd = -1;
	}
}

/*
 * Cleanup after a failure.  The workers are gone by now (the caller made
 * sure), so nothing can create a file behind our back.  This removes
 * exactly the ledger's names from the staging directory, through the
 * descriptor of the directory this export made, then that directory if its
 * name still refers to it, and the lock file; nothing else, so it stays
 * safe even if the target could hold other files.  A name is removed only
 * if fstatat shows a file an export of this server can have made; a name
 * that was entered but never created is silently skipped, so a WARNING
 * only ever names a file that existed.  It must not throw: it runs inside
 * error recovery, so problems are reported as WARNING.
 */
void
pep_output_remove(PEPOutput *out, PEPLedger *ledger)
{
	if (out->staging_fd >= 0 && !out->published)
	{
		int n = 0;

		if (ledger != NULL)
		{
			SpinLockAcquire(&ledger->mutex);
			n = ledger->nentries;
			SpinLockRelease(&ledger->mutex);
		}

		/*
		 * Backwards: whatever a folder holds was entered after the folder was
		 * created, so it is gone before the folder's turn comes.
		 */
		for (int i = n - 1; i >= 0; i--)
		{
			const PEPLedgerEntry *e = &ledger->entries[i];
			const char *name = pep_ledger_name(ledger, i);
			int dirfd = out->staging_fd;
			struct stat st;
			const char *why;

			if (e->dir && !e->created)
				continue;
			if (e->parent >= 0)
				dirfd = pep_ledger_open_folder(out->staging_fd, ledger, e->parent);
			if (dirfd < 0)
			{
				if (errno != ENOENT && e->created)
					ereport(WARNING,
							(errcode_for_file_access(),
							 errmsg("could not open directory \"%s\": %m",
									pep_ledger_path(out, ledger, e->parent))));
				continue;
			}
			if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			{
				if (errno != ENOENT && e->created)
					ereport(WARNING,
							(errcode_for_file_access(),
							 errmsg("could not access file \"%s\": %m",
									pep_ledger_path(out, ledger, i))));
			}
			else if ((why = e->dir ? pep_dir_problem(&st) : pep_file_problem(&st)) != NULL)
				ereport(WARNING,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("left \"%s\" in place", pep_ledger_path(out, ledger, i)),
						 errdetail("It %s.", why)));
			else if (unlinkat(dirfd, name, e->dir ? AT_REMOVEDIR : 0) != 0 && errno != ENOENT)
				ereport(WARNING,
						(errcode_for_file_access(),
						 errmsg("could not remove \"%s\": %m", pep_ledger_path(out, ledger, i))));
			if (dirfd != out->staging_fd)
				close(dirfd);
		}
		pep_remove_dir(out->parent_fd, out->staging_name, &out->staging_st, out->staging, WARNING);
	}
	pep_output_release(out);
}
