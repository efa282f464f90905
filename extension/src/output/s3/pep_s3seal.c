/*-------------------------------------------------------------------------
 *
 * pep_s3seal.c
 *	  The server's manifest key: what seals an object-store export's
 *	  _SUCCESS, so that an overwrite deletes only what this server wrote.
 *
 * DESIGN.md, "Overwrite: whose manifest".  Anyone who can write under a
 * prefix can write a _SUCCESS naming any object as a part, and an
 * overwrite deletes what the manifest it replaces names.  So worker 0 seals
 * each manifest with an HMAC-SHA256 (org.parallelexport.parquet.s3.
 * S3ManifestSeal) keyed by 32 random bytes only this server holds, and an
 * overwrite acts only on a manifest whose seal verifies.  The key lives in
 * $PGDATA/parallel_export_parquet_manifest.key, mode 0600: it goes with
 * the data directory (a base backup, a copy, pg_upgrade's link or copy), so
 * a server made from this one can overwrite this one's exports, and no
 * other server can.
 *
 * The caller's backend reads it, creating it on first use, and puts it in
 * the export's DSM as hex for worker 0, beside the settings' secret; it is
 * never logged nor shown.  Creation is atomic: the key is written and
 * fsynced under a name of this process's own, then linked to the final
 * name, which fails if another backend created it first (then its key is
 * the one read).  So two first exports never seal with different keys.
 *
 * IDENTIFICATION
 *	  extension/src/output/s3/pep_s3seal.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "miscadmin.h"
#include "storage/fd.h"

#include "pep_s3export.h"

#define PEP_S3_KEY_FILE "parallel_export_parquet_manifest.key"

/* Write a fresh key under a name of this process's, then link it into place. */
static void
pep_s3seal_create(const char *path)
{
	uint8 key[PEP_S3_MANIFEST_KEY_BYTES];
	char *tmp = psprintf("%s.%d.tmp", path, MyProcPid);
	int fd;

	if (!pg_strong_random(key, sizeof(key)))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not generate a random manifest key")));
	/* A file of this name is a dead process's: PIDs are unique among live ones. */
	(void) unlink(tmp);
	fd = OpenTransientFilePerm(tmp, O_WRONLY | O_CREAT | O_EXCL | PG_BINARY, S_IRUSR | S_IWUSR);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", tmp)));
	errno = 0;
	if (write(fd, key, sizeof(key)) != sizeof(key) || pg_fsync(fd) != 0)
	{
		int save_errno = errno ? errno : ENOSPC;

		CloseTransientFile(fd);
		(void) unlink(tmp);
		errno = save_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", tmp)));
	}
	explicit_bzero(key, sizeof(key));
	CloseTransientFile(fd);
	if (link(tmp, path) != 0 && errno != EEXIST)
	{
		int save_errno = errno;

		(void) unlink(tmp);
		errno = save_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not link file \"%s\" to \"%s\": %m", tmp, path)));
	}
	(void) unlink(tmp);
	fsync_fname(DataDir, true);
	pfree(tmp);
}

/*
 * The manifest key as 2 * PEP_S3_MANIFEST_KEY_BYTES hex digits and a NUL,
 * into hex; created on first use.
 */
void
pep_s3_manifest_key(char *hex)
{
	char path[MAXPGPATH];
	uint8 key[PEP_S3_MANIFEST_KEY_BYTES];
	struct stat st;
	int fd;
	ssize_t got;

	snprintf(path, sizeof(path), "%s/%s", DataDir, PEP_S3_KEY_FILE);
	fd = OpenTransientFile(path, O_RDONLY | O_NOFOLLOW | PG_BINARY);
	if (fd < 0 && errno == ENOENT)
	{
		pep_s3seal_create(path);
		fd = OpenTransientFile(path, O_RDONLY | O_NOFOLLOW | PG_BINARY);
	}
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", path)));
	if (fstat(fd, &st) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not stat file \"%s\": %m", path)));
	got = read(fd, key, sizeof(key));
	if (got < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read file \"%s\": %m", path)));
	if (!S_ISREG(st.st_mode) || st.st_size != (off_t) sizeof(key) || got != (ssize_t) sizeof(key))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("manifest key file \"%s\" is corrupt", path),
				 errdetail("It must be a regular file of exactly %d bytes.",
						   PEP_S3_MANIFEST_KEY_BYTES),
				 errhint("Restore it from a backup of the data directory, or remove it: a new key is then made, and no export sealed with the old one can be overwritten.")));
	CloseTransientFile(fd);
	for (int i = 0; i < PEP_S3_MANIFEST_KEY_BYTES; i++)
		snprintf(hex + 2 * i, 3, "%02x", key[i]);
	explicit_bzero(key, sizeof(key));
}
