/*-------------------------------------------------------------------------
 *
 * pep_guc.c
 *	  The extension's settings.
 *
 * Every setting that decides what a worker loads or runs (the JVM library,
 * its options, the fault-injection test hook) is superuser-only: a role
 * that may export must not be able to make a worker load another library,
 * jar or agent.  object_store_targets is superuser-only too: it is the
 * superuser's limit on where in object storage exports may write.
 * jvm_options and object_store_targets are checked where they are set as
 * well (pep_jvmopts.c, pep_s3allow.c), so that a typo fails the SET, not
 * every export.
 * Parallel workers receive the leader's values through PostgreSQL's own GUC
 * state serialization.
 *
 * IDENTIFICATION
 *	  extension/src/entry/pep_guc.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "postmaster/bgworker_internals.h"
#include "utils/guc.h"

#include "pep_fault.h"
#include "pep_guc.h"
#include "pep_jvmopts.h"
#include "pep_s3front.h"

#ifndef PEP_DEFAULT_LIBJVM
#error "PEP_DEFAULT_LIBJVM must be set by the build"
#endif

char *pep_libjvm_path = NULL;
char *pep_jvm_options = NULL;
char *pep_fault_injection = NULL;
int pep_starve_worker = -1;
bool pep_log_exports = true;
int pep_max_partitions = 20000;
int pep_partition_writers = 512;
int pep_partition_memory = 256 * 1024;

void
pep_define_gucs(void)
{
	DefineCustomStringVariable("parallel_export_parquet.libjvm_path",
							   "Path of the libjvm.so that export workers load.",
							   "Defaults to the JDK the extension was built with.",
							   &pep_libjvm_path,
							   PEP_DEFAULT_LIBJVM,
							   PGC_SUSET,
							   0,
							   NULL, NULL, NULL);

	/*
	 * The Tier4 invocation and compile thresholds are ten times HotSpot's
	 * (the two others follow below): C2 then compiles only
	 * what runs per value, not what runs per page or row group (page
	 * headers, statistics, thrift), which took a worker 0.85 to 1.4 s of C2
	 * compiler time per export whatever its size; with them 0.35 to 0.65 s,
	 * and the per-value code runs no slower (bench/README.md).  The
	 * back-edge threshold, which makes C2 compile a running loop on stack
	 * (OSR), is out of reach, and a method with loops is compiled whole
	 * after 3000 calls instead of 6000: the part writer's hot loops run a
	 * slice of 128 rows per call, so C2 compiled each of them on stack at
	 * about 3100 calls, used that code for a few slices, and compiled the
	 * whole method soon after (HotSpot does once a method's OSR code is of a
	 * higher tier than its own): two compiles where one serves, and a
	 * fourth of C2's time.  Now each is compiled once, about when its OSR
	 * code came before (bench/results/jit.md).  -XX:-UseBimorphicInlining:
	 * parquet-java's per-value methods are shared by every column of a kind,
	 * so a call site in them sees one column's values writer, then another's
	 * (a dictionary, a plain writer after a fallback): C2 inlined both,
	 * trapped when a third appeared, and compiled the method again, bigger
	 * each time (the binary one three times per worker, the last compile
	 * 0.74 s).  Without bimorphic inlining such a site stays a virtual call:
	 * a 3M-row table of text, arrays, jsonb and numerics took 13% less CPU
	 * and C2 half its time, the benchmark tables the same CPU as before, a
	 * 12M-row table of arrays 2.4% less; into an object store the first
	 * 9.6% less, the benchmark table 2.2% more (bench/results/jit.md).
	 * -Xmn16m: a worker's live heap stays near 25 MB and what it allocates
	 * dies young, so a 13 MB eden serves as well as the 100 MB one HotSpot
	 * sizes from the machine's memory, and each worker no longer faults in
	 * the big one page by page (24000 page faults fewer per worker, at about 4 us
	 * each on this machine; bench/results/cpu.md).  -Xms64m: what outlives
	 * that eden for a row group (parquet-java's dictionary writers, new in
	 * every row group) is promoted, and SerialGC collects the old
	 * generation only when it is full; HotSpot sizes it from the machine's
	 * memory (368 MB on 24 GB), so a worker kept every row group's dead
	 * dictionaries until it held all of it: 424 MB of anonymous memory for
	 * a part of 391 row groups of dictionary-friendly rows, where a full
	 * collection finds 12 to 20 MB live.  Starting at 64 MB, the old
	 * generation is collected when it fills and grows only with what is
	 * live: 110 MB, for 0.5 s more collection time in a 3.5-minute export
	 * (bench/results/scale.md).  The part writer collects it sooner still,
	 * between row groups, once it holds 8 MB more than the last full
	 * collection left (parquet-writer's HeapBound.java): otherwise a long
	 * export touches all 64 MB and peaks above a short one, and JDK 23 and
	 * later expand the old generation up to -Xmx instead of collecting it.
	 */
	DefineCustomStringVariable("parallel_export_parquet.jvm_options",
							   "Options of the Java virtual machine each export worker starts.",
							   "White-space separated, from the allow-list in docs/settings.md; -Xrs and -XX:-UsePerfData are always added.",
							   &pep_jvm_options,
							   "-Xmx512m -Xms64m -Xmn16m -Xss2m -XX:+UseSerialGC -XX:-UsePerfData -XX:+DisableAttachMechanism "
							   "-XX:Tier4InvocationThreshold=50000 -XX:Tier4MinInvocationThreshold=3000 "
							   "-XX:Tier4CompileThreshold=150000 -XX:Tier4BackEdgeThreshold=100000000 "
							   "-XX:-UseBimorphicInlining",
							   PGC_SUSET,
							   0,
							   pep_check_jvm_options, NULL, NULL);

	DefineCustomStringVariable("parallel_export_parquet.fault_injection",
							   "Test hook: make an export fail at a chosen point.",
							   "Form: point[:worker[:batches]] or pause:phase. Empty disables it.",
							   &pep_fault_injection,
							   "",
							   PGC_SUSET,
							   GUC_NOT_IN_SAMPLE,
							   pep_fault_check_hook, NULL, NULL);

	DefineCustomIntVariable("parallel_export_parquet.starve_worker",
							"Test hook: one worker begins its share of a table's scan after every other worker has finished its own.",
							"That worker gets no block of the table, as a worker starved of CPU might; -1 disables it.",
							&pep_starve_worker,
							-1, -1, MAX_PARALLEL_WORKER_LIMIT,
							PGC_SUSET,
							GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("parallel_export_parquet.log_exports",
							 "Logs one line for every finished export.",
							 "The line names the source, directory, rows, parts, bytes, workers and seconds.",
							 &pep_log_exports,
							 true,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomStringVariable("parallel_export_parquet.object_store_targets",
							   "Object storage targets that exports may write to.",
							   "\"*\" allows all, an empty string none; otherwise a comma-separated list of bucket, host/bucket and host/* entries.",
							   &pep_object_store_targets,
							   "*",
							   PGC_SUSET,
							   0,
							   pep_s3_check_targets, NULL, NULL);

	/*
	 * The partition limit protects the server's disk and the ledger's shared
	 * memory, so only a superuser may raise it; the writer count and budget
	 * only shape one export's own workers.
	 */
	DefineCustomIntVariable("parallel_export_parquet.max_partitions",
							"Most partition folders one export may write.",
							"An export with partition_by that meets more distinct values fails.",
							&pep_max_partitions,
							20000, 1, 1000000,
							PGC_SUSET,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("parallel_export_parquet.partition_writers",
							"Most parts a worker of a partitioned export keeps open at once.",
							"When a worker needs one more, it finishes the least recently written part.",
							&pep_partition_writers,
							512, 1, 4096,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("parallel_export_parquet.partition_memory",
							"Memory the open parts of a partitioned export's worker may buffer together.",
							"Past it, the part buffering the most writes a row group early.",
							&pep_partition_memory,
							256 * 1024, 1024, INT_MAX / 1024,
							PGC_USERSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	MarkGUCPrefixReserved("parallel_export_parquet");
}
