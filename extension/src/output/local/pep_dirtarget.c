/*-------------------------------------------------------------------------
 *
 * pep_dirtarget.c
 *	  The output target for a server directory: both tables of pep_target.h.
 *
 * The protocol itself (guard, flock-owned staging, sweep, seal, rename,
 * cleanup by the ledger) is pep_output.c's; this file puts it behind the
 * interface and holds what a worker does with a directory.  The leader
 * hands its workers the staging directory in a DSM chunk of this target's
 * own (PEPDirShared): its path only finds it, its st_dev and st_ino say
 * which directory it must be.  Each worker opens it once and creates every
 * part and partition folder relative to that descriptor, never by name
 * (pep_dir_worker_open).  The worker that finishes writing last writes
 * _SUCCESS, the export's manifest, there (pep_dir_all_written).
 *
 * IDENTIFICATION
 *	  extension/src/output/local/pep_dirtarget.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/parallel.h"

#include "pep_manifest.h"
#include "pep_output.h"
#include "pep_partition.h"
#include "pep_sink.h"
#include "pep_target.h"

/*
 * Part bytes written between two writeback requests
 * (pep_dir_part_grew): about one row group of a typical table.
 */
#define PEP_WRITEBACK_AFTER (8 * 1024 * 1024)

/* What the workers need of the leader's staging directory. */
typedef struct PEPDirShared
{
	char staging[MAXPGPATH]; /* staging directory the parts go to */
	uint64 staging_dev;		 /* its st_dev, as the leader created it */
	uint64 staging_ino;		 /* and its st_ino: workers write only there */
} PEPDirShared;

/* The leader's side. */
typedef struct PEPDirTarget
{
	PEPTarget target; /* the interface; display is out.target */
	PEPOutput out;	  /* the output protocol's state */
} PEPDirTarget;

/* A worker's side. */
typedef struct PEPDirWorker
{
	PEPWorkerTarget target; /* the interface */
	PEPDirShared *dir;		/* the staging directory, in the DSM */
	int staging_fd;			/* it, held open for the worker's life */
	char staging_via[64];	/* /proc/self/fd/N: that directory by its fd */
	int folder_fd;			/* folder of the part being opened, or -1 */
	struct PEPSink *sink;	/* the writer, whose schema the manifest names */
} PEPDirWorker;

static PEPTarget *
pep_dir_guard(const char *directory, const PEPOptions *opts)
{
	PEPDirTarget *dt = palloc0(sizeof(PEPDirTarget));

	dt->target.methods = &pep_dir_target_methods;
	pep_output_guard(&dt->out, directory, opts->overwrite);
	dt->target.display = dt->out.target;
	return &dt->target;
}

static void
pep_dir_begin(PEPTarget *target)
{
	PEPDirTarget *dt = (PEPDirTarget *) target;

	pep_output_lock(&dt->out);
	pep_output_create_staging(&dt->out);
}

static void
pep_dir_estimate_shm(PEPTarget *target, ParallelContext *pcxt, int ledger_capacity,
					 int npartition)
{
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(PEPDirShared));
	shm_toc_estimate_keys(&pcxt->estimator, 1);
}

static void
pep_dir_initialize_shm(PEPTarget *target, ParallelContext *pcxt, PEPShared *shared,
					   int ledger_capacity, int npartition)
{
	PEPDirTarget *dt = (PEPDirTarget *) target;
	PEPDirShared *dir = shm_toc_allocate(pcxt->toc, sizeof(PEPDirShared));

	strlcpy(dir->staging, dt->out.staging, MAXPGPATH);
	dir->staging_dev = (uint64) dt->out.staging_st.st_dev;
	dir->staging_ino = (uint64) dt->out.staging_st.st_ino;
	shm_toc_insert(pcxt->toc, PARALLEL_KEY_PEP_DIRECTORY, dir);
}

static void
pep_dir_seal(PEPTarget *target, PEPLedger *ledger)
{
	pep_output_seal(&((PEPDirTarget *) target)->out, ledger);
}

static void
pep_dir_commit(PEPTarget *target, PEPShared *shared, ParallelContext *pcxt)
{
	PEPDirTarget *dt = (PEPDirTarget *) target;

	pep_output_publish(&dt->out);
	pep_output_release(&dt->out);
}

static void
pep_dir_cleanup(PEPTarget *target, PEPShared *shared, PEPLedger *ledger)
{
	pep_output_remove(&((PEPDirTarget *) target)->out, ledger);
}

/*
 * Open the staging directory the leader created and keep it open for the
 * worker's life.  The path only finds it: it must be the very directory the
 * leader made (st_dev and st_ino in PEPDirShared), so a parent that others
 * can write cannot redirect the parts by swapping the name.  Java then
 * creates each part as /proc/self/fd/N/part-K.parquet: the kernel resolves
 * that link to the open directory itself, not to any name, so a part lands
 * in this directory even if its name is swapped for a link later, and the
 * last component is created with O_CREAT | O_EXCL (CREATE_NEW) and
 * O_NOFOLLOW.  This keeps the Java side a plain path-based OutputFile, and
 * the directory's own bytes never cross into the JVM.  It costs one path
 * lookup per part, not per write: measured, creating and removing a file
 * through /proc/self/fd/N took 0.10 to 0.15 ms, the same as by its path,
 * within the noise.
 */
static PEPWorkerTarget *
pep_dir_worker_open(PEPShared *shared, shm_toc *toc)
{
	PEPDirWorker *dw = palloc0(sizeof(PEPDirWorker));
	const char *staging;
	int fd;
	struct stat st;
	struct stat via;

	dw->target.methods = &pep_dir_worker_methods;
	dw->dir = shm_toc_lookup(toc, PARALLEL_KEY_PEP_DIRECTORY, false);
	dw->folder_fd = -1;
	staging = dw->dir->staging;
	fd = open(staging, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open directory \"%s\": %m", staging)));
	dw->staging_fd = fd;
	if (fstat(fd, &st) != 0 ||
		(uint64) st.st_dev != dw->dir->staging_dev || (uint64) st.st_ino != dw->dir->staging_ino)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("staging directory \"%s\" was replaced during the export", staging),
				 errdetail("It is no longer the directory the exporting backend created.")));
	snprintf(dw->staging_via, sizeof(dw->staging_via), "/proc/self/fd/%d", fd);
	if (stat(dw->staging_via, &via) != 0 || via.st_dev != st.st_dev || via.st_ino != st.st_ino)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("could not reach staging directory \"%s\" through \"%s\"",
						staging, dw->staging_via),
				 errhint("An export needs the proc file system mounted at /proc.")));
	return &dw->target;
}

static void
pep_dir_worker_attach(PEPWorkerTarget *wt, struct PEPSink *sink)
{
	((PEPDirWorker *) wt)->sink = sink;
}

/*
 * Every part of the export is finished: write _SUCCESS, the manifest of
 * them all (pep_manifest.c), into the staging directory and fsync it,
 * before the leader seals and renames the directory (DESIGN.md, "Output
 * protocol").
 */
static void
pep_dir_all_written(PEPWorkerTarget *wt, PEPLedger *ledger)
{
	PEPDirWorker *dw = (PEPDirWorker *) wt;
	Size len;
	char *manifest = pep_manifest_local(pep_sink_object(dw->sink), ledger, &len);

	pep_output_write_success(dw->staging_fd, dw->dir->staging, ledger, manifest, len);
}

/*
 * Make the folder of ledger entry entry, called name, in the folder of
 * parent_entry, unless another worker made it first.  Only the worker
 * whose mkdirat succeeds marks it created and counts it.
 */
static bool
pep_dir_enter_folder(PEPWorkerTarget *wt, PEPLedger *ledger, const char *path,
					 const char *name, int parent_entry, int entry, bool leaf)
{
	PEPDirWorker *dw = (PEPDirWorker *) wt;
	int parent_fd = pep_ledger_open_folder(dw->staging_fd, ledger, parent_entry);
	int save_errno;

	if (parent_fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open partition folder of \"%s/%s\": %m",
						dw->dir->staging, path)));
	if (mkdirat(parent_fd, name, S_IRWXU) == 0)
	{
		close(parent_fd);
		pep_ledger_created(ledger, entry);
		return true;
	}
	save_errno = errno;
	close(parent_fd);
	errno = save_errno;
	/* Another worker made it; pep_ledger_open_folder checks it before use. */
	if (save_errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s/%s\": %m",
						dw->dir->staging, path)));
	return false;
}

/*
 * A part in the staging directory, or in its partition folder, reached
 * from the staging descriptor without following links and held open only
 * until Java has created the file in it (pep_dir_part_opened).
 */
static void
pep_dir_name_part(PEPWorkerTarget *wt, PEPLedger *ledger, int entry, int folder,
				  const char *folder_path, char **path, char **display)
{
	PEPDirWorker *dw = (PEPDirWorker *) wt;
	const char *name = pep_ledger_name(ledger, entry);

	if (folder < 0)
	{
		*display = psprintf("%s/%s", dw->dir->staging, name);
		*path = psprintf("%s/%s", dw->staging_via, name);
		return;
	}
	*display = psprintf("%s/%s/%s", dw->dir->staging, pep_name_for_message(folder_path), name);
	dw->folder_fd = pep_ledger_open_folder(dw->staging_fd, ledger, folder);
	if (dw->folder_fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open directory \"%s/%s\": %m",
						dw->dir->staging, pep_name_for_message(folder_path))));
	*path = psprintf("/proc/self/fd/%d/%s", dw->folder_fd, name);
}

static void
pep_dir_part_opened(PEPWorkerTarget *wt)
{
	PEPDirWorker *dw = (PEPDirWorker *) wt;

	if (dw->folder_fd >= 0)
		close(dw->folder_fd);
	dw->folder_fd = -1;
}

/*
 * Ask the kernel to start writing the current part's dirty pages to disk,
 * without waiting for them, as PostgreSQL's own *_flush_after settings do.
 * Otherwise a part's bytes stay in the page cache until the fsync that
 * closes it (DESIGN.md, "Output protocol"), and a worker then waits for
 * all of them at once, with its CPU idle: about a second for the 800 MB of
 * a 10-million-row export on a disk that writes 750 MB/s.  Started as the
 * part grows, the writing overlaps the encoding and the fsync finds little
 * left.
 *
 * The bytes the previous request covered have been on their way to disk for
 * a whole interval since: the worker waits for any still in flight and
 * drops them from the page cache, as PostgreSQL's bulk writes keep to a ring
 * of buffers.  An export then holds about two intervals of its part in the
 * cache, not the whole output, so a large export does not push the
 * server's cached data out; it runs at the same speed as before
 * (bench/results/writeback.md).
 *
 * The part is reached as Java created it, from the staging descriptor and
 * without following a link.  Only hints: a failure here changes nothing,
 * and the fsync at close reports any write that failed.
 */
static void
pep_dir_part_grew(PEPWorkerTarget *wt, PEPLedger *ledger, PEPOpenPart *part, int folder,
				  uint64 bytes_open)
{
	uint64 previous = part->written_back;

	if (bytes_open < previous + PEP_WRITEBACK_AFTER)
		return;
	/* counted as asked even if it fails, so a failure is not retried every batch */
	part->written_back = bytes_open;
#ifdef HAVE_SYNC_FILE_RANGE
	{
		PEPDirWorker *dw = (PEPDirWorker *) wt;
		int folder_fd = pep_ledger_open_folder(dw->staging_fd, ledger, folder);
		int fd;

		if (folder_fd < 0)
			return;
		fd = openat(folder_fd, pep_ledger_name(ledger, part->entry),
					O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		close(folder_fd);
		if (fd < 0)
			return;
#ifdef USE_POSIX_FADVISE
		if (previous > 0 &&
			sync_file_range(fd, 0, (off_t) previous,
							SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
								SYNC_FILE_RANGE_WAIT_AFTER) == 0)
			(void) posix_fadvise(fd, 0, (off_t) previous, POSIX_FADV_DONTNEED);
#endif
		(void) sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
		close(fd);
	}
#endif
}

const PEPTargetMethods pep_dir_target_methods = {
	.kind = PEP_TARGET_DIRECTORY,
	.workers_stay = false,
	.guard = pep_dir_guard,
	.begin = pep_dir_begin,
	.estimate_shm = pep_dir_estimate_shm,
	.initialize_shm = pep_dir_initialize_shm,
	.seal = pep_dir_seal,
	.commit = pep_dir_commit,
	.cleanup = pep_dir_cleanup,
};

const PEPWorkerTargetMethods pep_dir_worker_methods = {
	.parts_hold_memory = false,
	.open = pep_dir_worker_open,
	.attach = pep_dir_worker_attach,
	.enter_folder = pep_dir_enter_folder,
	.name_part = pep_dir_name_part,
	.part_opened = pep_dir_part_opened,
	.part_grew = pep_dir_part_grew,
	.all_written = pep_dir_all_written,
};
