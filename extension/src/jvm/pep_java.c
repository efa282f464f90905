/*-------------------------------------------------------------------------
 *
 * pep_java.c
 *	  The extension's JVM: what a worker starts, checked before anything exists.
 *
 * Everything a worker's JVM start depends on is decided here, in the
 * leader, from the installation and the settings: the jar, the class
 * cache made for it at install time by tools/train-cache.sh (it cuts a
 * worker's start-up by most of the class loading; a stale one is harmless,
 * the JVM ignores it), which is an AOT cache on JDK 25 and later and an
 * AppCDS archive before, snappy-java's and brotli4j's native libraries
 * unpacked at install time, the libjvm of
 * parallel_export_parquet.libjvm_path and the options of
 * parallel_export_parquet.jvm_options.  The JVM bridge (pep_jvm_check)
 * then checks the result, so that a missing jar, an unreadable libjvm or
 * options that cannot fit fail the call before it takes a lock, creates a
 * file or shared memory (DESIGN.md, "The JVM in a worker").  The export and
 * the sweep call pep_java_prepare first and hand its result to their
 * workers in the DSM; a worker starts its JVM from it with pep_jvm_start.
 *
 * The JIT is chosen here too, from the size of a worker's share of the
 * export as the planner estimates it.  HotSpot's tiered JIT spends a fixed
 * amount of CPU compiling the hot paths with C2, which pays back only over
 * many values: below PEP_C1_ONLY_VALUES values (rows times columns) per
 * worker, C1's code, quicker to make but slower per value, costs less in
 * all, and the workers get -XX:TieredStopAtLevel=1 (bench/results/startup.md,
 * "C1 only for small exports").  The threshold sits at half the measured
 * crossover, because the two mistakes are not alike: C2 where C1 would have
 * done costs at most C2's fixed compilation, C1 where C2 would have paid
 * costs a share of every value, and an estimate can be far too low.  The
 * user's own choice of tiers in jvm_options always wins: the flag is then
 * left out, and it comes before the user's options anyway, so that of
 * repeated options the user's, later, win.
 *
 * HotSpot's diagnostic options are unlocked only around the diagnostic
 * flags the extension sets or vouches for, each alone, and locked again
 * after them; -XX:-UsePerfData is always added, so that no worker writes a
 * performance data file (issue 42; pep_jvmopts.c has the allow-list).
 *
 * IDENTIFICATION
 *	  extension/src/jvm/pep_java.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>

#include "lib/stringinfo.h"
#include "miscadmin.h"

#include "pep_extension.h"
#include "pep_guc.h"
#include "pep_java.h"
#include "pep_jvmopts.h"

/*
 * Values per worker, estimated, below which the worker's JIT is C1 only:
 * the crossover measured on the benchmark tables (about 10 million), halved.
 */
#define PEP_C1_ONLY_VALUES (5.0 * 1000 * 1000)

/*
 * Options that choose which JIT tiers run.  Entries ending in "=" match
 * whatever value follows.
 */
static const char *const pep_jit_options[] = {
	"-XX:TieredStopAtLevel=",
	"-XX:+TieredCompilation",
	"-XX:-TieredCompilation",
	"-XX:CompilationMode=",
	"-XX:+UseCompiler",
	"-XX:-UseCompiler",
	"-Xint",
	"-Xcomp",
	"-Xmixed",
};

/* Does jvm_options choose the JIT's tiers itself? */
static bool
pep_user_chose_jit(const char *user_options)
{
	List *split = pep_jvm_split_options(user_options);
	ListCell *lc;
	bool chose = false;

	foreach (lc, split)
	{
		const char *tok = lfirst(lc);

		for (int i = 0; i < lengthof(pep_jit_options) && !chose; i++)
		{
			const char *option = pep_jit_options[i];
			size_t len = strlen(option);

			chose = option[len - 1] == '=' ? strncmp(tok, option, len) == 0 : strcmp(tok, option) == 0;
		}
		if (chose)
			break;
	}
	list_free_deep(split);
	return chose;
}

/*
 * Append jvm_options, which its check hook held to the allow-list
 * (pep_jvmopts.c), unlocking HotSpot's diagnostic options around each
 * allowed diagnostic flag alone and locking them again after it: an unlock
 * left on would let every later option use any diagnostic flag, and some
 * crash or stop a worker (issue 42).
 */
static void
pep_append_user_options(StringInfo options, const char *user_options)
{
	List *split = pep_jvm_split_options(user_options);
	ListCell *lc;

	foreach (lc, split)
	{
		const char *tok = lfirst(lc);

		if (pep_jvm_option_is_diagnostic(tok))
			appendStringInfo(options,
							 "-XX:+UnlockDiagnosticVMOptions %s -XX:-UnlockDiagnosticVMOptions ",
							 tok);
		else
			appendStringInfo(options, "%s ", tok);
	}
	list_free_deep(split);
}

void
pep_java_prepare(PEPJvmConfig *config, double values_per_worker)
{
	char share[MAXPGPATH];
	char *jar;
	char *cache;
	char *snappy;
	char *brotli;
	StringInfoData options;
	struct stat st;

	get_share_path(my_exec_path, share);
	jar = psprintf("%s/extension/%s.jar", share, PEP_EXTENSION_NAME);
	/* tools/train-cache.sh installs one of the two. */
	cache = psprintf("%s/extension/%s.aot", share, PEP_EXTENSION_NAME);
	if (stat(cache, &st) != 0)
		cache = psprintf("%s/extension/%s.jsa", share, PEP_EXTENSION_NAME);
	snappy = psprintf("%s/extension/%s-snappyjava.so", share, PEP_EXTENSION_NAME);
	brotli = psprintf("%s/extension/%s-brotli.so", share, PEP_EXTENSION_NAME);
	initStringInfo(&options);
	/*
	 * The cache is mapped at the address it was made for: HotSpot's
	 * default since JDK 20, also this Debian JDK 17's, maps it elsewhere and
	 * rewrites every pointer in it and in the JDK's own archive (about 55 MB
	 * here) before the first class loads: about 40 of the 100 ms of CPU
	 * that creating a worker's JVM took, and those pages became private to
	 * the worker (bench/results/startup.md).  It costs address-space
	 * randomization for this one read-mostly region; jvm_options may put
	 * -XX:ArchiveRelocationMode=1 back.  Where the address is taken, HotSpot
	 * still maps the archive elsewhere.
	 *
	 * JDK 25 maps an AOT cache given as -XX:SharedArchiveFile just as it
	 * maps one given as -XX:AOTCache, but only the former lets a later
	 * -Xshare:off in jvm_options turn it off (with -XX:AOTCache the JVM
	 * refuses to start).  -Xshare:auto: a cache this JVM or the options
	 * cannot use is skipped with a warning in the server log, and the worker
	 * runs without it.
	 */
	if (stat(cache, &st) == 0)
		appendStringInfo(&options,
						 "-Xshare:auto -XX:SharedArchiveFile=%s "
						 "-XX:+UnlockDiagnosticVMOptions -XX:ArchiveRelocationMode=0 "
						 "-XX:-UnlockDiagnosticVMOptions ",
						 cache);
	/* Without it snappy-java leaves a copy of itself in /tmp per worker. */
	if (stat(snappy, &st) == 0)
		appendStringInfo(&options,
						 "-Dorg.xerial.snappy.lib.path=%s/extension "
						 "-Dorg.xerial.snappy.lib.name=%s-snappyjava.so ",
						 share, PEP_EXTENSION_NAME);
	/* Nor brotli4j, at a worker's first brotli page. */
	if (stat(brotli, &st) == 0)
		appendStringInfo(&options, "-Dbrotli4j.library.path=%s ", brotli);
	/* JDK 22 and later warn in the server log at every native codec load without it. */
	appendStringInfoString(&options, "--enable-native-access=ALL-UNNAMED ");
	/* No hsperfdata file per worker; jvm_options cannot turn it back on. */
	appendStringInfoString(&options, "-XX:-UsePerfData ");
	/* C1 only for a small share (see the header), before the user's options. */
	if (values_per_worker >= 0 && values_per_worker < PEP_C1_ONLY_VALUES &&
		!pep_user_chose_jit(pep_jvm_options))
		appendStringInfoString(&options, "-XX:TieredStopAtLevel=1 ");
	pep_append_user_options(&options, pep_jvm_options);

	pep_jvm_check(config, pep_libjvm_path, jar, options.data);
}
