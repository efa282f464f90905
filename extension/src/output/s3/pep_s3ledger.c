/*-------------------------------------------------------------------------
 *
 * pep_s3ledger.c
 *	  The ledger file of an object-store export: create, lock, detect a dead
 *	  record, write the caller's lines, remove.
 *
 * An object store has no rename and no directory to lock, so the local
 * protocol's flock-owned lock file (pep_output.c) moves into the data
 * directory: one file per target, named for the hash of its bucket and
 * prefix (never the endpoint, whose aliases cannot be told apart), which
 * the caller of an export holds locked for the export's whole life and into
 * which every step is recorded before it is taken.  See pep_s3ledger.h for
 * the format and DESIGN.md, "The ledger file", for who writes what.
 *
 * What rename(2) onto a non-empty directory gives a local export, that no
 * export runs inside another's prefix, an export gets from lock-manager
 * locks taken beside the file's: share on every ancestor prefix, exclusive
 * on its own, none waited for.  A dead record is swept only through the
 * foreign server it names, and one version 1.1 left under the name it gave
 * the file is moved onto the new name first.
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
 *	  extension/src/output/s3/pep_s3ledger.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "access/xlog.h"
#include "common/cryptohash.h"
#include "common/string.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/lock.h"
#include "utils/builtins.h"

#include "pep_lockfile.h"
#include "pep_output.h"
#include "pep_s3ledger.h"

#define PEP_SHA256_LEN 32
/* "SYSTEMID/INODE/BIRTH", three 64-bit numbers. */
#define PEP_S3LEDGER_OWNER_LEN 64
/* The record's first two lines are in its first so many bytes. */
#define PEP_S3LEDGER_HEAD_LEN 4096
/* The lock manager's field SQL's advisory locks set to 1 or 2 ("PE"). */
#define PEP_S3LEDGER_LOCK_FIELD4 0x5045

/* One lock of pep_s3ledger_lock_prefixes. */
typedef struct PEPS3LedgerLock
{
	LOCKTAG tag;   /* a prefix's tag (pep_s3ledger_tag) */
	LOCKMODE mode; /* ShareLock for an ancestor, ExclusiveLock for the target */
} PEPS3LedgerLock;

/*
 * SHA-256 of the strings, each with its terminating NUL, so that no two
 * lists of strings can run together into one input.
 */
static void
pep_s3ledger_digest(const PEPS3Target *target, const char *const *parts, int nparts,
					uint8 *digest)
{
	pg_cryptohash_ctx *ctx = pg_cryptohash_create(PG_SHA256);
	bool failed = ctx == NULL || pg_cryptohash_init(ctx) < 0;

	for (int i = 0; i < nparts && !failed; i++)
		failed = pg_cryptohash_update(ctx, (const uint8 *) parts[i], strlen(parts[i]) + 1) < 0;
	if (failed || pg_cryptohash_final(ctx, digest, PEP_SHA256_LEN) < 0)
		elog(ERROR, "could not compute the SHA-256 of target \"%s\": %s",
			 target->url, ctx == NULL ? "out of memory" : pg_cryptohash_error(ctx));
	pg_cryptohash_free(ctx);
}

/* "HEX.ledger" for a digest. */
static void
pep_s3ledger_file_name(const uint8 *digest, char *name, size_t size)
{
	char hex[PEP_SHA256_LEN * 2 + 1];

	hex[hex_encode((const char *) digest, PEP_SHA256_LEN, hex)] = '\0';
	snprintf(name, size, "%s.ledger", hex);
}

/*
 * What identifies a target's objects is its bucket and prefix; the endpoint
 * as written does not (DESIGN.md, "The ledger file"), so it is not hashed.
 * The digest of a prefix names its ledger file and keys its lock in the lock
 * manager.
 */
static void
pep_s3ledger_key(const PEPS3Target *target, const char *prefix, uint8 *digest)
{
	const char *parts[] = { target->bucket, prefix };

	pep_s3ledger_digest(target, parts, lengthof(parts), digest);
}

/* The name version 1.1 gave the file: the endpoint as written hashed too. */
static void
pep_s3ledger_old_name(const PEPS3Target *target, char *name, size_t size)
{
	const char *parts[] = { target->endpoint, target->bucket, target->prefix };
	uint8 digest[PEP_SHA256_LEN];

	pep_s3ledger_digest(target, parts, lengthof(parts), digest);
	pep_s3ledger_file_name(digest, name, size);
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
	int save_errno = errno;

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
	char head[PEP_S3LEDGER_HEAD_LEN + 1];
	char mine[PEP_S3LEDGER_OWNER_LEN];
	ssize_t n = pread(ledger->fd, head, PEP_S3LEDGER_HEAD_LEN, 0);
	char *line;
	char *end;

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

/*
 * The lock manager's tag of a prefix of the target's bucket: server-wide
 * (database 0, as the ledger directory is), keyed by the first 64 bits of
 * the prefix's digest, with a fourth field that SQL's advisory lock
 * functions never use (they use 1 and 2), so no pg_advisory_lock call can
 * take or wait for it.  pg_locks shows it as an advisory lock of database 0.
 */
static void
pep_s3ledger_tag(LOCKTAG *tag, const uint8 *digest)
{
	uint32 high;
	uint32 low;

	memcpy(&high, digest, sizeof(high));
	memcpy(&low, digest + sizeof(high), sizeof(low));
	SET_LOCKTAG_ADVISORY(*tag, InvalidOid, high, low, PEP_S3LEDGER_LOCK_FIELD4);
}

/* Take one lock of ledger->locks without waiting; false if another backend holds a conflicting one. */
static bool
pep_s3ledger_lock_one(PEPS3Ledger *ledger, const uint8 *digest, LOCKMODE mode)
{
	PEPS3LedgerLock *lock = &ledger->locks[ledger->nlocks];

	pep_s3ledger_tag(&lock->tag, digest);
	lock->mode = mode;
	if (LockAcquire(&lock->tag, mode, false, true) == LOCKACQUIRE_NOT_AVAIL)
		return false;
	ledger->nlocks++;
	return true;
}

/*
 * Exclude exports into nested prefixes (DESIGN.md, "The ledger file"): a
 * share lock on each ancestor of the prefix (the bucket's root and every
 * shorter prefix ending in '/'), then an exclusive lock on the prefix
 * itself, none waited for.  An export into an ancestor holds the
 * ancestor's exclusive lock, and one into a descendant a share lock on
 * this prefix; siblings share their common ancestors.  Nothing waits, so
 * nothing can deadlock: of two exports that meet, at least one is refused.
 * Transaction-level locks: an ERROR releases them at abort, and the kernel's
 * flock and these locks both end with the process.
 */
static void
pep_s3ledger_lock_prefixes(PEPS3Ledger *ledger, const PEPS3Target *target, const uint8 *own)
{
	size_t len = strlen(target->prefix);
	int nancestors = 0;
	char *ancestor = palloc(len + 1);
	uint8 digest[PEP_SHA256_LEN];

	for (size_t i = 0; i < len; i++)
		nancestors += target->prefix[i] == '/';
	ledger->locks = palloc(sizeof(PEPS3LedgerLock) * (nancestors + 1));
	ledger->nlocks = 0;

	for (size_t end = 0; end < len; end++)
	{
		/* The ancestors end at 0 (the root) and after each '/' but the last. */
		if (end > 0 && target->prefix[end - 1] != '/')
			continue;
		memcpy(ancestor, target->prefix, end);
		ancestor[end] = '\0';
		pep_s3ledger_key(target, ancestor, digest);
		if (!pep_s3ledger_lock_one(ledger, digest, ShareLock))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_IN_USE),
					 errmsg("cannot export into \"%s\" while an export into \"s3://%s/%s\" is running",
							target->url, target->bucket, ancestor),
					 errdetail("The target is under that export's prefix, whose keys that export owns until it ends."),
					 errhint("Wait for that export to end, or export into a prefix outside it.")));
	}
	pfree(ancestor);
	if (!pep_s3ledger_lock_one(ledger, own, ExclusiveLock))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("cannot export into \"%s\" while an export into a prefix under it is running",
						target->url),
				 errdetail("An export owns every key under its prefix until it ends, so exports into nested prefixes on one server run one at a time."),
				 errhint("Wait for that export to end, or export into a prefix outside it.")));
}

/* Release what pep_s3ledger_lock_prefixes took, last first. */
static void
pep_s3ledger_unlock_prefixes(PEPS3Ledger *ledger)
{
	while (ledger->nlocks > 0)
	{
		PEPS3LedgerLock *lock = &ledger->locks[--ledger->nlocks];

		LockRelease(&lock->tag, lock->mode, false);
	}
}

/*
 * The record's first line's fourth field, the foreign server as written
 * (escaped), into server, and whether the line ends in the "utf8" field
 * (then the server's name is UTF-8, else in the database encoding, as
 * version 1.1 wrote it), told apart as S3Record.parse does: five fields, the
 * last "utf8"; false when the first line is not whole, which the record's
 * parser judges.
 */
static bool
pep_s3ledger_record_server(PEPS3Ledger *ledger, StringInfo server, bool *utf8)
{
	char head[PEP_S3LEDGER_HEAD_LEN + 1];
	ssize_t n = pread(ledger->fd, head, PEP_S3LEDGER_HEAD_LEN, 0);
	char *field = head;
	char *newline;
	size_t len;
	int tabs = 0;

	if (n < 0)
		pep_s3ledger_fail(ledger, "read");
	head[n] = '\0';
	if ((newline = strchr(head, '\n')) == NULL)
		return false;
	for (const char *c = head; c < newline; c++)
		tabs += *c == '\t';
	*utf8 = tabs == 4 && newline - head >= (ptrdiff_t) sizeof(PEP_S3_RECORD(UTF8)) &&
			strncmp(newline - sizeof(PEP_S3_RECORD(UTF8)), "\t" PEP_S3_RECORD(UTF8),
					sizeof(PEP_S3_RECORD(UTF8))) == 0;
	for (int i = 0; i < 3; i++)
		if ((field = strpbrk(field, "\t\n")) == NULL || *field++ != '\t')
			return false;
	len = strcspn(field, "\t\n");
	appendBinaryStringInfo(server, field, (int) len);
	return true;
}

/*
 * The held file has a dead record: refuse it unless this call names the
 * foreign server the record names ("" for the SDK's chain).  Ledger files
 * are keyed on bucket and prefix alone, so a dead record may have been
 * written through another endpoint, an alias of this one or another store;
 * its uploads can be aborted only where they were made, and a sweep through
 * another endpoint would find nothing there and remove the record.  The
 * names are compared in the record's encoding: UTF-8, or the database
 * encoding for a record of version 1.1.
 */
static void
pep_s3ledger_check_server(PEPS3Ledger *ledger, const PEPS3Target *target)
{
	StringInfoData recorded;
	StringInfoData mine;
	bool utf8 = false;
	const char *chain = "the AWS SDK's default chain";
	const char *shown;

	initStringInfo(&recorded);
	initStringInfo(&mine);
	if (!pep_s3ledger_record_server(ledger, &recorded, &utf8))
	{
		pfree(recorded.data);
		pfree(mine.data);
		return;
	}
	pep_s3ledger_escape(&mine, utf8 ? pg_server_to_any(target->server, strlen(target->server), PG_UTF8) : target->server);
	if (strcmp(recorded.data, mine.data) == 0)
	{
		pfree(recorded.data);
		pfree(mine.data);
		return;
	}
	resetStringInfo(&mine);
	pep_s3ledger_escape(&mine, target->server);
	CloseTransientFile(ledger->fd);
	ledger->fd = -1;
	/* Messages are in the database encoding; a name it cannot hold is left out. */
	shown = recorded.data;
	if (utf8 && GetDatabaseEncoding() != PG_UTF8 && GetDatabaseEncoding() != PG_SQL_ASCII &&
		!pg_is_ascii(recorded.data))
		shown = NULL;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("the unfinished export into \"%s\" was made through another foreign server",
					ledger->url),
			 errdetail("Ledger file \"%s\" records an export through %s, and this call names %s. Its uploads can be undone only through the endpoint that made them.",
					   ledger->path,
					   recorded.len == 0 ? chain : shown != NULL ? psprintf("server \"%s\"", shown)
																 : "another server",
					   mine.len > 0 ? psprintf("server \"%s\"", mine.data) : chain),
			 recorded.len == 0 ? errhint("Call parallel_export_parquet_sweep('%s') first.", ledger->url) : shown != NULL ? errhint("Call parallel_export_parquet_sweep('%s', s3_server => '%s') first.", ledger->url, shown)
																														 : errhint("Call parallel_export_parquet_sweep('%s', s3_server => ...) with the server the record names first.", ledger->url)));
}

/* Another export holds the ledger file: report it. */
static void
pep_s3ledger_busy(const PEPLockFile *lock)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_IN_USE),
			 errmsg("another export into \"%s\" is running", (const char *) lock->arg),
			 errdetail("Ledger file \"%s\" is locked by the backend that runs it.", lock->path)));
}

/*
 * Open path as a transient file and take its exclusive flock without
 * waiting (pep_lock_file); the fd, or -1 when create is false and there is
 * no file (or it was removed before it was locked).  held is filled in.
 */
static int
pep_s3ledger_lock_file(const char *path, const char *url, bool create, struct stat *held)
{
	PEPLockFile lock = {
		.dirfd = AT_FDCWD,
		.name = path,
		.path = path,
		.what = "ledger file",
		.flags = O_APPEND | (create ? O_CREAT : 0),
		.transient = true,
		.busy = pep_s3ledger_busy,
		.hint = NULL,
		.arg = unconstify(char *, url),
	};

	return pep_lock_file(&lock, held);
}

/*
 * A record version 1.1 of the extension left under the name it gave the
 * file (the endpoint as written hashed in) is moved onto the held file's
 * name, holding both locks, so that it is swept like any dead record.  A
 * 1.1 backend still exporting into the target holds that lock: refused as
 * a running export.  Only the name this call's endpoint spelling gives is
 * found; a record under another spelling is found by a call through the
 * server that wrote it.  Called with the held file empty.
 */
static void
pep_s3ledger_adopt(PEPS3Ledger *ledger, const PEPS3Target *target, const char *dir)
{
	char name[PEP_SHA256_LEN * 2 + 16];
	char old[MAXPGPATH];
	struct stat held;
	int fd;

	pep_s3ledger_old_name(target, name, sizeof(name));
	snprintf(old, sizeof(old), "%s/%s", dir, name);
	if ((fd = pep_s3ledger_lock_file(old, ledger->url, false, &held)) < 0)
		return;
	if (held.st_size == 0)
	{
		if (unlink(old) != 0)
			ereport(WARNING,
					(errcode_for_file_access(),
					 errmsg("could not remove ledger file \"%s\": %m", old)));
		CloseTransientFile(fd);
		return;
	}
	if (rename(old, ledger->path) != 0)
	{
		int save_errno = errno;

		CloseTransientFile(fd);
		errno = save_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not rename ledger file \"%s\" to \"%s\": %m", old, ledger->path)));
	}
	fsync_fname(dir, true);
	CloseTransientFile(ledger->fd);
	ledger->fd = fd;
	ledger->dead = true;
	ereport(LOG,
			(errmsg("ledger file \"%s\" of an unfinished export into \"%s\" by an earlier version is now \"%s\"",
					old, ledger->url, ledger->path)));
}

bool
pep_s3ledger_open(PEPS3Ledger *ledger, const PEPS3Target *target, bool create)
{
	bool exporting = create;
	char dir[MAXPGPATH];
	char name[PEP_SHA256_LEN * 2 + 16];
	char old[MAXPGPATH];
	uint8 digest[PEP_SHA256_LEN];
	struct stat st;
	struct stat held;

	memset(ledger, 0, sizeof(PEPS3Ledger));
	ledger->fd = -1;
	strlcpy(ledger->url, target->url, sizeof(ledger->url));
	snprintf(dir, sizeof(dir), "%s/%s", DataDir, PEP_S3LEDGER_DIR);
	pep_s3ledger_key(target, target->prefix, digest);
	pep_s3ledger_file_name(digest, name, sizeof(name));
	snprintf(ledger->path, sizeof(ledger->path), "%s/%s", dir, name);
	pep_s3ledger_check_dir(dir);

	/* A sweep creates the file when only a record under the old name is there. */
	pep_s3ledger_old_name(target, name, sizeof(name));
	snprintf(old, sizeof(old), "%s/%s", dir, name);
	if (!create && lstat(ledger->path, &st) != 0 && errno == ENOENT && lstat(old, &st) == 0)
		create = true;

	ledger->fd = pep_s3ledger_lock_file(ledger->path, ledger->url, create, &held);
	if (ledger->fd < 0)
		return false;
	if (exporting)
		pep_s3ledger_lock_prefixes(ledger, target, digest);
	ledger->dead = held.st_size > 0;
	if (!ledger->dead)
		pep_s3ledger_adopt(ledger, target, dir);
	if (ledger->dead)
	{
		pep_s3ledger_check_owner(ledger);
		pep_s3ledger_check_server(ledger, target);
	}
	return true;
}

/* Write one whole line and fsync it; ERROR on failure. */
static void
pep_s3ledger_write(PEPS3Ledger *ledger, const char *line, size_t len)
{
	ssize_t written;

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

void
pep_s3ledger_begin(PEPS3Ledger *ledger, const PEPS3Target *target)
{
	StringInfoData line;
	time_t now = time(NULL);
	struct tm tm;
	char started[32];
	char owner[PEP_S3LEDGER_OWNER_LEN];

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
	char *whole = psprintf("%s\n", line);

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
	int encoding = GetDatabaseEncoding();

	if (encoding == PG_SQL_ASCII)
		return "UTF-8";
#if PG_VERSION_NUM >= 170000
	/* Since PostgreSQL 17 the table is indexed by encoding, NULL for none. */
	if (pg_enc2gettext_tbl[encoding] != NULL)
		return pg_enc2gettext_tbl[encoding];
#else
	for (int i = 0; pg_enc2gettext_tbl[i].name != NULL; i++)
		if (pg_enc2gettext_tbl[i].encoding == encoding)
			return pg_enc2gettext_tbl[i].name;
#endif
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
	{
		pep_s3ledger_release(ledger);
		return;
	}
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
	pep_s3ledger_unlock_prefixes(ledger);
	if (ledger->fd < 0)
		return;
	CloseTransientFile(ledger->fd);
	ledger->fd = -1;
}
