/*-------------------------------------------------------------------------
 *
 * pep_s3ledger.h
 *	  The ledger file of an object-store export: exclusion, and a record
 *	  that survives a crash.
 *
 * One file per target, $PGDATA/pgsql_tmp_parallel_export_parquet/HASH.ledger,
 * HASH the hex SHA-256 of the target's bucket and prefix, each with its
 * terminating NUL (DESIGN.md, "The ledger file"): not of the endpoint, whose
 * spellings and aliases cannot all be told apart, so every spelling of one
 * store's target meets at one file.  An export also holds lock-manager locks
 * that keep exports into nested prefixes (s3://b/x and s3://b/x/y) apart.  pg_basebackup and pg_rewind skip every name that
 * begins with "pgsql_tmp", so a base backup or a standby made from it never
 * carries the records of this server's running exports.  The caller of an
 * export (or of the sweep function) holds an exclusive flock on it from
 * before the first worker starts until the outcome is settled; the kernel
 * drops the lock when the process dies,
 * whatever the death.  So a file whose lock can be taken and that has
 * content is a dead export's record, and one whose lock is held belongs to
 * a live export and is never read.
 *
 * The record is text, one line per step, each fsynced before the step it
 * records.  The caller writes the first two lines, in one write,
 *
 *		export<TAB>STARTED<TAB>URL<TAB>SERVER<TAB>utf8
 *		owner SYSTEMID/INODE/BIRTH
 *
 * (STARTED in UTC, "YYYY-MM-DDTHH:MM:SSZ"; URL the target as messages show
 * it; SERVER the foreign server's name, "" for the SDK's chain, with
 * backslash, tab, carriage return and newline written as \\ \t \r \n; never
 * a secret; the owner line names who wrote the record: the cluster's system
 * identifier, and the ledger file's inode number and birth time in seconds,
 * 0 where the file system keeps none), and later "committed".  The whole
 * record is UTF-8, which the last field of the first line says: a record
 * written before (version 1.1) has four fields and URL and SERVER in the
 * database encoding, and is still read (pep_s3ledger_old_charset).  Workers
 * append, through the file's path, "key K", "upload K ID", "complete K",
 * "previous MANIFEST", "success EXPORTID" and "superseded K"
 * (org.parallelexport.parquet.s3.S3Ledger, which also reads a record back).
 *
 * A copy of the data directory made by other means (rsync, a file system
 * snapshot restored elsewhere) carries the files, but not their inode
 * numbers and birth times, so on the copy a record names another owner.
 * Such a record may belong to an export that is still running where it was
 * written; it is never swept here (pep_s3ledger_open refuses it).
 *
 * IDENTIFICATION
 *	  extension/include/pep_s3ledger.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_S3LEDGER_H
#define PEP_S3LEDGER_H

#include "pep_contract.h"
#include "pep_s3target.h"

/* The directory of every target's ledger file, in the data directory. */
#define PEP_S3LEDGER_DIR "pgsql_tmp_parallel_export_parquet"

/* The line the caller appends once _SUCCESS is in place. */
#define PEP_S3LEDGER_COMMITTED PEP_S3_RECORD(COMMITTED)

typedef struct PEPS3Ledger
{
	int fd;										/* the open ledger file, locked; -1 if none */
	int nlocks;									/* lock-manager locks held (an export's), in locks */
	struct PEPS3LedgerLock *locks;				/* palloc'd: its ancestors', then its own */
	bool dead;									/* it held a dead export's record when locked */
	char path[MAXPGPATH];						/* its absolute path, for workers and messages */
	char url[sizeof(((PEPS3Target *) 0)->url)]; /* the target, for messages */
} PEPS3Ledger;

/*
 * Open the target's ledger file and take its exclusive flock without
 * waiting.  With create (an export), also take, without waiting, a share
 * lock on each ancestor prefix and an exclusive lock on the target's own in
 * the lock manager; an export into an ancestor or a descendant prefix
 * holding a conflicting one raises ERRCODE_OBJECT_IN_USE.  A dead record
 * version 1.1 left under its own name for the file (the endpoint as written
 * hashed in) is moved onto the file's name and is then the file's dead
 * record; with create false, the file is then created to take it.  The directory is created (mode 0700) if absent and must be a
 * real directory of the server's OS user that others cannot write; the
 * file is created with O_CREAT | O_NOFOLLOW, mode 0600, when create is
 * true, and must be a regular file of the server's OS user with no other
 * name.  A lock held by another process raises ERRCODE_OBJECT_IN_USE,
 * "another export into "URL" is running".  Returns false, holding nothing,
 * only when create is false and there is no file.  On return
 * ledger->dead tells whether the file had content: the record of an export
 * whose caller died.  A record whose owner line names another owner (a
 * copy's), or another foreign server than target's ("" for the SDK's
 * chain), raises ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE and is left alone.
 * The file stays open (and locked) until pep_s3ledger_remove or
 * pep_s3ledger_release, or until the transaction aborts, which closes it.
 */
extern bool pep_s3ledger_open(PEPS3Ledger *ledger, const PEPS3Target *target, bool create);

/*
 * Start this export's record: empty the file and write its first two lines,
 * with the current time as the start and this server as the owner, then
 * fsync.  Call it once no dead record is left in the file: right after
 * pep_s3ledger_open when ledger->dead is false, or once that record has been
 * swept.  Workers append only after it.
 */
extern void pep_s3ledger_begin(PEPS3Ledger *ledger, const PEPS3Target *target);

/*
 * Append one line of the caller's (PEP_S3LEDGER_COMMITTED) and fsync it
 * before returning, so the step it records may follow.  ERROR on failure.
 */
extern void pep_s3ledger_append(PEPS3Ledger *ledger, const char *line);

/*
 * The Java name of the charset a record without the "utf8" field was
 * written in: the database encoding's.
 */
extern const char *pep_s3ledger_old_charset(void);

/* The file's absolute path: workers open it by this path to append. */
extern const char *pep_s3ledger_path(const PEPS3Ledger *ledger);

/*
 * Remove the file, still holding its lock so no one can lock a doomed
 * file, then release it.  Only the file this ledger locked is unlinked: if
 * the name now refers to another file, it is left alone.  It never raises
 * an ERROR (it runs in cleanup too): problems are WARNINGs, and a file
 * left behind is swept later like a dead record.
 */
extern void pep_s3ledger_remove(PEPS3Ledger *ledger);

/*
 * Release the locks (the file's and the lock manager's) and keep the file:
 * after a failure that could not undo everything, the record stays for the
 * next export or the sweep function.
 * Safe to call when nothing is held.
 */
extern void pep_s3ledger_release(PEPS3Ledger *ledger);

#endif /* PEP_S3LEDGER_H */
