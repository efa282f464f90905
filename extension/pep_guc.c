/*-------------------------------------------------------------------------
 *
 * pep_guc.c
 *	  The extension's settings.
 *
 * Every setting that decides what a worker loads or runs (the JVM library,
 * its options, the fault-injection test hook) is superuser-only: a role
 * that may export must not be able to make a worker load another library,
 * jar or agent.  jvm_options is checked where it is set as well
 * (pep_jvmopts.c), so that a typo fails the SET, not every export.
 * Parallel workers receive the leader's values through PostgreSQL's own GUC
 * state serialization.
 *
 * IDENTIFICATION
 *	  extension/pep_guc.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/guc.h"

#include "pep_fault.h"
#include "pep_guc.h"
#include "pep_jvmopts.h"

#ifndef PEP_DEFAULT_LIBJVM
#error "PEP_DEFAULT_LIBJVM must be set by the build"
#endif

char	   *pep_libjvm_path = NULL;
char	   *pep_jvm_options = NULL;
char	   *pep_fault_injection = NULL;
bool		pep_log_exports = true;

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

	DefineCustomStringVariable("parallel_export_parquet.jvm_options",
							   "Options of the Java virtual machine each export worker starts.",
							   "White-space separated; -Xrs is always added.",
							   &pep_jvm_options,
							   "-Xmx512m -Xss2m -XX:+UseSerialGC -XX:-UsePerfData -XX:+DisableAttachMechanism",
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

	DefineCustomBoolVariable("parallel_export_parquet.log_exports",
							 "Logs one line for every finished export.",
							 "The line names the source, directory, rows, parts, bytes, workers and seconds.",
							 &pep_log_exports,
							 true,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	MarkGUCPrefixReserved("parallel_export_parquet");
}
