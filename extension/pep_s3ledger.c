/*-------------------------------------------------------------------------
 *
 * pep_s3ledger.c
 *	  The ledger file of an object-store export: create, lock, detect a dead
 *	  record, write the caller's lines, remove.
 *
 * An object store has no rename and no directory to lock, so the local
 * protocol's flock-owned lock file (pep_output.c) moves into the data
 * directory: one file per target, named for the target's hash, which the
 * caller of an export holds locked for the export's whole life and into
 * which every step is recorded before it is taken.  See pep_s3ledger.h for
 * the format and DESIGN.md, "The ledger file", for who writes what.
 *
 * The same hostile-directory rules as the local protocol apply, although
 * the data directory is the server's own: the directory must be a real
 * directory of the server's OS user that no one else can write, and the
 * file is opened without following a link and used only if it is a
 * regular file of the server's OS user with no other name
 * (pep_file_problem).  The file is opened as a transient file, so an ERROR
 * anywhere closes it at transaction abort, which drops the lock: a failed
 * export can never keep its target locked.
 *
 * A free lock proves the record's writer dead only on the server that wrote
 * it.  A copy of the data directory (a base backup, a standby, a restored
 * file-level copy) would see the record of an export still running on the
 * original with its lock free, and sweeping it would abort that export's
 * uploads.  So the directory's name begins with "pgsql_tmp", which
 * pg_basebackup skips, and each record names its owner: the system
 * identifier, shared by every copy, and the inode number and birth time of
 * the ledger file itself, which a copied file does not keep and which a
 * reboot does not change (a device number may).  A dead record of another
 * owner is refused, never swept.
 *
 * IDENTIFICATION
 *	  extension/pep_s3ledger.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "access/xlog.h"
#include "common/cryptohash.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/builtins.h"

#include "pep_output.h"
#include "pep_s3ledger.h"

#define PEP_SHA256_LEN 32
/* "SYSTEMID/INODE/BIRTH", three 64-bit numbers. */
#define PEP_S3LEDGER_OWNER_LEN	64
/* The record's first two lines are in its first so many bytes. */
#define PEP_S3LEDGER_HEAD_LEN	4096

/*
 * The file's name: hex SHA-256 of endpoint, bucket and prefix, each with its
 * terminating NUL, so that no two targets can run together into one input.
 */
static void
pep_s3ledger_name(const PEPS3Target *target, char *name, size_t size)
{
	pg_cryptohash_ctx *ctx = pg_cryptohash_create(PG_SHA256);
	uint8		digest[PEP_SHA256_LEN];
	char		hex[PEP_SHA256_LEN * 2 + 1];

	if (ctx == NULL ||
		pg_cryptohash_init(ctx) < 0 ||
		pg_cryptohash_update(ctx, (const uint8 *) target->endpoint, strlen(target->endpoint) + 1) < 0 ||
		pg_cryptohash_update(ctx, (const uint8 *) target->bucket, strlen(target->bucket) + 1) < 0 ||
		pg_cryptohash_update(ctx, (const uint8 *) target->prefix, strlen(target->prefix) + 1) < 0 ||
		pg_cryptohash_final(ctx, digest, sizeof(digest)) < 0)
		elog(ERROR, "could not compute the SHA-256 of target \"%s\": %s",
			 target->url, ctx == NULL ? "out of memory" : pg_cryptohash_error(ctx));
	pg_cryptohash_free(ctx);
	hex[hex_encode((const char *) digest, sizeof(digest), hex)] = '\0';
	snprintf(name, size, "%s.ledger", hex);
}

/*
 * Create the ledger directory if absent, then check that it is a real
 * directory of the server's OS user that no one else can write.
 */
static void
pep_s3ledger_check_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, S_IRWXU) != 0 && errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", dir)));
	if (lstat(dir, &st) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not access directory \"%s\": %m", dir)));
	if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
		(st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot use directory \"%s\" for export records", dir),
				 errdetail("It must be a directory of the server's operating system user that no other user can write, not a symbolic link."),
				 errhint("Remove it; the next export into object storage creates it.")));
}

/* Close the file and report an error about it with errno as it was. */
static void
pep_s3ledger_fail(PEPS3Ledger *ledger, const char *what)
{
	int			save_errno = errno;

	CloseTransientFile(ledger->fd);
	ledger->fd = -1;
	errno = save_errno;
	ereport(ERROR,
			(errcode_for_file_access(),
			 errmsg("could not %s ledger file \"%s\": %m", what, ledger->path)));
}

/* Who writes a record into the held file: see the file header. */
static void
pep_s3ledger_owner(PEPS3Ledger *ledger, char *owner)
{
	struct statx stx;

	if (statx(ledger->fd, "", AT_EMPTY_PATH, STATX_INO | STATX_BTIME, &stx) != 0)
		pep_s3ledger_fail(ledger, "stat");
	snprintf(owner, PEP_S3LEDGER_OWNER_LEN, UINT64_FORMAT "/" UINT64_FORMAT "/" INT64_FORMAT,
			 GetSystemIdentifier(), (uint64) stx.stx_ino,
			 (stx.stx_mask & STATX_BTIME) ? (int64) stx.stx_btime.tv_sec : INT64CONST(0));
}

/*
 * The held file has a dead record: refuse it if its owner line names
 * another owner.  Every record begins with both lines in one write, so one
 * without a whole owner line was cut short before any step; the record's
 * parser judges it.
 */
static void
pep_s3ledger_check_owner(PEPS3Ledger *ledger)
{
	char		head[PEP_S3LEDGER_HEAD_LEN + 1];
	char		mine[PEP_S3LEDGER_OWNER_LEN];
	ssize_t		n = pread(ledger->fd, head, PEP_S3LEDGER_HEAD_LEN, 0);
	char	   *line;
	char	   *end;

	if (n < 0)
		pep_s3ledger_fail(ledger, "read");
	head[n] = '\0';
	if ((line = strchr(head, '\n')) == NULL ||
		strncmp(++line, PEP_S3_RECORD(OWNER) " ", sizeof(PEP_S3_RECORD(OWNER))) != 0 ||
		(end = strchr(line, '\n')) == NULL)
		return;
	*end = '\0';
	line += sizeof(PEP_S3_RECORD(OWNER));
	pep_s3ledger_owner(ledger, mine);
	if (strcmp(line, mine) == 0)
		return;
	CloseTransientFile(ledger->fd);
	ledger->fd = -1;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("ledger file \"%s\" holds the record of another server", ledger->path),
			 errdetail("It records an export into \"%s\" by owner %s; this server's file would be owner %s (system identifier/inode/birth time). A base backup or a file-level copy of a data directory carries the records of the exports that were running there, which may still be running.",
					   ledger->url, line, mine),
			 errhint("Sweep the target on the server that wrote the record. If that server is gone for good, remove the file and abort the uploads it lists by hand.")));
}

bool
pep_s3ledger_open(PEPS3Ledger *ledger, const PEPS3Target *target, bool create)
{
	char		dir[MAXPGPATH];
	char		name[PEP_SHA256_LEN * 2 + 16];

	memset(ledger, 0, sizeof(PEPS3Ledger));
	ledger->fd = -1;
	strlcpy(ledger->url, target->url, sizeof(ledger->url));
	snprintf(dir, sizeof(dir), "%s/%s", DataDir, PEP_S3LEDGER_DIR);
	pep_s3ledger_name(target, name, sizeof(name));
	snprintf(ledger->path, sizeof(ledger->path), "%s/%s", dir, name);
	pep_s3ledger_check_dir(dir);

	for (;;)
	{
		struct stat held;
		struct stat named;
		const char *why;

		ledger->fd = OpenTransientFilePerm(ledger->path,
										   O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC |
										   (create ? O_CREAT : 0),
										   S_IRUSR | S_IWUSR);
		if (ledger->fd < 0)
		{
			if (!create && errno == ENOENT)
				return false;
			if (errno == ELOOP)
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("cannot use ledger file \"%s\"", ledger->path),
						 errdetail("It is a symbolic link.")));
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not open ledger file \"%s\": %m", ledger->path)));
		}
		if (fstat(ledger->fd, &held) != 0)
			pep_s3ledger_fail(ledger, "stat");
		if ((why = pep_file_problem(&held)) != NULL)
		{
			CloseTransientFile(ledger->fd);
			ledger->fd = -1;
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("cannot use ledger file \"%s\"", ledger->path),
					 errdetail("It %s.", why)));
		}
		if (flock(ledger->fd, LOCK_EX | LOCK_NB) != 0)
		{
			if (errno != EWOULDBLOCK)
				pep_s3ledger_fail(ledger, "lock");
			CloseTransientFile(ledger->fd);
			ledger->fd = -1;
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_IN_USE),
					 errmsg("another export into \"%s\" is running", ledger->url),
					 errdetail("Ledger file \"%s\" is locked by the backend that runs it.",
							   ledger->path)));
		}

		/*
		 * The previous owner may have removed the file between our open and
		 * our flock: then we hold a lock no one else can see.  Keep it only
		 * if the name still refers to the file we locked.
		 */
		if (lstat(ledger->path, &named) == 0 && named.st_dev == held.st_dev &&
			named.st_ino == held.st_ino)
		{
			ledger->dead = held.st_size > 0;
			if (ledger->dead)
				pep_s3ledger_check_owner(ledger);
			return true;
		}
		CloseTransientFile(ledger->fd);
		ledger->fd = -1;
		if (!create)
			return false;
	}
}

/* Write one whole line and fsync it; ERROR on failure. */
static void
pep_s3ledger_write(PEPS3Ledger *ledger, const char *line, size_t len)
{
	ssize_t		written;

	Assert(ledger->fd >= 0);
	errno = 0;
	written = write(ledger->fd, line, len);
	if (written != (ssize_t) len)
	{
		if (errno == 0)
			errno = ENOSPC;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write to ledger file \"%s\": %m", ledger->path)));
	}
	if (pg_fsync(ledger->fd) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not fsync ledger file \"%s\": %m", ledger->path)));
}

/* Append s with the characters that would break the line format escaped. */
static void
pep_s3ledger_escape(StringInfo buf, const char *s)
{
	for (; *s; s++)
	{
		switch (*s)
		{
			case '\\':
				appendStringInfoString(buf, "\\\\");
				break;
			case '\t':
				appendStringInfoString(buf, "\\t");
				break;
			case '\r':
				appendStringInfoString(buf, "\\r");
				break;
			case '\n':
				appendStringInfoString(buf, "\\n");
				break;
			default:
				appendStringInfoChar(buf, *s);
				break;
		}
	}
}

void
pep_s3ledger_begin(PEPS3Ledger *ledger, const PEPS3Target *target)
{
	StringInfoData line;
	time_t		now = time(NULL);
	struct tm	tm;
	char		started[32];
	char		owner[PEP_S3LEDGER_OWNER_LEN];

	/* The target's checks refuse control characters; the format relies on it. */
	if (strpbrk(target->url, "\t\r\n") != NULL)
		elog(ERROR, "target \"%s\" has a control character", target->url);
	if (gmtime_r(&now, &tm) == NULL ||
		strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		elog(ERROR, "could not format the current time");

	/* Names in the record are UTF-8, like every line a worker appends. */
	initStringInfo(&line);
	appendStringInfo(&line, "%s\t%s\t%s\t", PEP_S3_RECORD(EXPORT), started,
					 pg_server_to_any(target->url, strlen(target->url), PG_UTF8));
	pep_s3ledger_escape(&line, pg_server_to_any(target->server, strlen(target->server), PG_UTF8));
	pep_s3ledger_owner(ledger, owner);
	appendStringInfo(&line, "\t%s\n%s %s\n", PEP_S3_RECORD(UTF8), PEP_S3_RECORD(OWNER), owner);

	if (ftruncate(ledger->fd, 0) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not truncate ledger file \"%s\": %m", ledger->path)));
	pep_s3ledger_write(ledger, line.data, line.len);
	ledger->dead = false;
	pfree(line.data);
}

void
pep_s3ledger_append(PEPS3Ledger *ledger, const char *line)
{
	char	   *whole = psprintf("%s\n", line);

	Assert(strpbrk(line, "\r\n") == NULL);
	pep_s3ledger_write(ledger, whole, strlen(whole));
	pfree(whole);
}

/*
 * Before names were UTF-8 (version 1.1), the first line held the target in
 * the database encoding; gettext's names for the encodings are Java's too.
 * A SQL_ASCII database's targets were checked to be UTF-8.
 */
const char *
pep_s3ledger_old_charset(void)
{
	int			encoding = GetDatabaseEncoding();

	if (encoding == PG_SQL_ASCII)
		return "UTF-8";
	for (int i = 0; pg_enc2gettext_tbl[i].name != NULL; i++)
		if (pg_enc2gettext_tbl[i].encoding == encoding)
			return pg_enc2gettext_tbl[i].name;
	return GetDatabaseEncodingName();
}

const char *
pep_s3ledger_path(const PEPS3Ledger *ledger)
{
	return ledger->path;
}

void
pep_s3ledger_remove(PEPS3Ledger *ledger)
{
	struct stat held;
	struct stat named;

	if (ledger->fd < 0)
		return;
	if (fstat(ledger->fd, &held) != 0)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not stat ledger file \"%s\": %m", ledger->path)));
	else if (lstat(ledger->path, &named) == 0 && named.st_dev == held.st_dev &&
			 named.st_ino == held.st_ino && unlink(ledger->path) != 0)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove ledger file \"%s\": %m", ledger->path)));
	pep_s3ledger_release(ledger);
}

void
pep_s3ledger_release(PEPS3Ledger *ledger)
{
	if (ledger->fd < 0)
		return;
	CloseTransientFile(ledger->fd);
	ledger->fd = -1;
}
