/*
 * regress/lib/cachestat.c: how many of a file's pages the page cache holds,
 * and how many of them are dirty or being written back, for harnesses that
 * check when an export's bytes reach the disk (regress/t_writeback.sh).
 *
 * It asks the kernel through cachestat(2) (Linux 6.5 and later), which
 * counts the pages without reading the file or touching its cache.  The
 * system call is called by number: the C library and kernel headers of
 * older distributions do not declare it.
 *
 * Usage: cachestat FILE   prints "cached dirty writeback" in bytes; exits
 * 2 if the kernel has no cachestat, 1 on any other error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The same number on every architecture (the unified system call table). */
#define PEP_NR_CACHESTAT 451

/* The kernel's struct cachestat_range and struct cachestat (linux/mman.h). */
struct pep_cachestat_range
{
	uint64_t	off;
	uint64_t	len;			/* 0: to the end of the file */
};

struct pep_cachestat
{
	uint64_t	nr_cache;
	uint64_t	nr_dirty;
	uint64_t	nr_writeback;
	uint64_t	nr_evicted;
	uint64_t	nr_recently_evicted;
};

int
main(int argc, char **argv)
{
	struct pep_cachestat_range range = {0, 0};
	struct pep_cachestat stat;
	long		page = sysconf(_SC_PAGESIZE);
	int			fd;

	if (argc != 2)
	{
		fprintf(stderr, "usage: cachestat FILE\n");
		return 1;
	}
	fd = open(argv[1], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
	{
		fprintf(stderr, "cachestat: could not open \"%s\": %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (syscall(PEP_NR_CACHESTAT, fd, &range, &stat, 0) != 0)
	{
		int			err = errno;

		fprintf(stderr, "cachestat: \"%s\": %s\n", argv[1], strerror(err));
		return err == ENOSYS ? 2 : 1;
	}
	printf("%llu %llu %llu\n",
		   (unsigned long long) (stat.nr_cache * page),
		   (unsigned long long) (stat.nr_dirty * page),
		   (unsigned long long) (stat.nr_writeback * page));
	return 0;
}
