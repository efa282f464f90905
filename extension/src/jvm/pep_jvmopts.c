/*-------------------------------------------------------------------------
 *
 * pep_jvmopts.c
 *	  Check hook of parallel_export_parquet.jvm_options.
 *
 * Every export worker passes these options to JNI_CreateJavaVM, in a
 * server process.  So the value is checked where it is set (SET, ALTER
 * SYSTEM, a configuration file reload) against an allow-list, and anything
 * not on it is refused, naming the option; the table "What
 * jvm_options allows" of docs/settings.md lists the same.  A deny-list did not hold (issue 42):
 * HotSpot has hundreds of flags, and among them some that crash a worker
 * and with it the cluster (-XX:AbortVMOnException), stop it beyond the
 * reach of cancel and statement_timeout (-XX:+PauseAtStartup), load any
 * shared library (-Dorg.xerial.snappy.lib.path and .lib.name) or write
 * files into the data directory (-Xlog:...:file=).  Allowed are:
 *
 *	- sizes of the heap, its generations, the stack, metaspace, direct
 *	  memory and the code cache;
 *	- one garbage collector, and flags that tune the collectors;
 *	- flags that choose or tune the JIT;
 *	- -Xlog to stdout or stderr, which a worker shares with the server log,
 *	  and -XX:+PrintCompilation, -Xcheck:jni, which print there too;
 *	- -Xshare:off and -Xshare:auto, for the class cache;
 *	- the attach options and -XX:-UsePerfData of the defaults;
 *	- a few system properties that neither load code nor write files.
 *
 * Two of the flags are HotSpot diagnostic flags (-XX:ArchiveRelocationMode,
 * -XX:+DebugNonSafepoints); pep_java.c unlocks diagnostic options around
 * each of them alone, so no other option can rely on an unlock, and
 * -XX:+UnlockDiagnosticVMOptions itself is refused.  Options that were
 * refused on the deny-list keep their reason in the detail (pep_refused).
 *
 * HotSpot refuses some bad values by returning an error, which the worker
 * reports, but for others it gives up half-way through its own start, and
 * before the worker learnt to catch that (pljava-glue/pep_jvm.c) a typo
 * such as "-Xmx192" aborted the worker and restarted the whole cluster.  So
 * values are checked too:
 *
 *	- sizes (-Xmx, -Xms, -Xmn, -Xss and their -XX: names) are a decimal
 *	  number with an optional unit k, m, g or t, as HotSpot reads them, at
 *	  least HotSpot's minimum: 2 MB of maximum heap ("Too small maximum
 *	  heap"; G1 fails its own start below 3 MB, so 4 MB is asked for), 1 MB
 *	  of initial or minimum heap unless 0 (HotSpot's "choose it yourself"),
 *	  136 kB of thread stack unless 0 (HotSpot's Linux x86-64 minimum);
 *	- the minimum heap is not above the initial heap, nor either above the
 *	  maximum heap, when both of a pair are given (HotSpot aborts its start
 *	  otherwise);
 *	- at most one garbage collector is selected;
 *	- other numeric flags take a decimal number, modes one of their words.
 *
 * The attach options (-XX:-DisableAttachMechanism) are allowed.  A worker
 * dies the crash way on SIGQUIT, which jcmd sends when it finds no attach
 * socket, whatever the options say; attach is what lets a diagnostic tool
 * reach a worker without that signal (docs/settings.md, "Attaching a JVM
 * tool to a worker"), and only a process of the server's own OS user can
 * use it.
 *
 * HotSpot's rule that the last of repeated options wins is followed.
 * Whatever the check cannot foresee still fails only the export: the worker
 * turns a JVM that gives up its start into an error (pep_jvm.c).
 *
 * IDENTIFICATION
 *	  extension/src/jvm/pep_jvmopts.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/guc.h"

#include "pep_jvm.h"
#include "pep_jvmopts.h"

#define PEP_KB UINT64CONST(1024)
#define PEP_MB (PEP_KB * 1024)

/* What a size option sets, for the minimums and the relations. */
typedef enum PEPSizeKind
{
	PEP_SIZE_MAX_HEAP,
	PEP_SIZE_INITIAL_HEAP,
	PEP_SIZE_MIN_HEAP,
	PEP_SIZE_NEW_GEN,
	PEP_SIZE_STACK,
	PEP_SIZE_STACK_KB, /* -XX:ThreadStackSize counts in kB */
	PEP_SIZE_OTHER
} PEPSizeKind;

static const struct
{
	const char *prefix;
	PEPSizeKind kind;
} pep_sizes[] = {
	{ "-Xmx", PEP_SIZE_MAX_HEAP },
	{ "-XX:MaxHeapSize=", PEP_SIZE_MAX_HEAP },
	{ "-Xms", PEP_SIZE_INITIAL_HEAP },
	{ "-XX:InitialHeapSize=", PEP_SIZE_INITIAL_HEAP },
	{ "-XX:MinHeapSize=", PEP_SIZE_MIN_HEAP },
	{ "-Xmn", PEP_SIZE_NEW_GEN },
	{ "-XX:NewSize=", PEP_SIZE_OTHER },
	{ "-XX:MaxNewSize=", PEP_SIZE_OTHER },
	{ "-Xss", PEP_SIZE_STACK },
	{ "-XX:ThreadStackSize=", PEP_SIZE_STACK_KB },
	{ "-XX:MetaspaceSize=", PEP_SIZE_OTHER },
	{ "-XX:MaxMetaspaceSize=", PEP_SIZE_OTHER },
	{ "-XX:MaxDirectMemorySize=", PEP_SIZE_OTHER },
	{ "-XX:ReservedCodeCacheSize=", PEP_SIZE_OTHER },
	{ "-XX:CompressedClassSpaceSize=", PEP_SIZE_OTHER },
	{ "-XX:G1HeapRegionSize=", PEP_SIZE_OTHER },
	{ "-XX:MaxRAM=", PEP_SIZE_OTHER },
};

/*
 * Options refused whatever follows the prefix, with the reason.  None of
 * them is on the allow-list below; they are listed for a detail that says
 * why, because each was asked for or tried (issue 42).  The reasons are
 * errdetail sentences completing "The option \"%s\" ...".
 */
static const struct
{
	const char *prefix;
	const char *reason;
} pep_refused[] = {
	{ "-XX:-ReduceSignalUsage", "would undo -Xrs, which keeps the JVM off PostgreSQL's signals" },
	{ "-Djava.class.path=", "would replace the extension's jar, which the extension sets" },
	{ "-XX:+ExitOnOutOfMemoryError", "would end the worker where an exhausted heap must fail the export with an error" },
	{ "-XX:+CrashOnOutOfMemoryError", "would crash the worker where an exhausted heap must fail the export with an error" },
	{ "-XX:OnOutOfMemoryError=", "would run a shell command from inside a server process" },
	{ "-XX:OnError=", "would run a shell command from inside a server process" },
	{ "-XX:+ShowMessageBoxOnError", "would make a failing worker wait for a keypress forever" },
	{ "-XX:Flags=", "would read more options from a file this check cannot see" },
	{ "-XX:VMOptionsFile=", "would read more options from a file this check cannot see" },
	{ "@", "would read more options from a file this check cannot see" },
	{ "-XX:+UnlockDiagnosticVMOptions", "would unlock HotSpot's diagnostic options, some of which crash or stop a worker; the extension unlocks them only around the ones it sets" },
	{ "-XX:+UnlockExperimentalVMOptions", "would unlock HotSpot's experimental options" },
	{ "-agentlib:", "would load native agent code into a server process" },
	{ "-agentpath:", "would load native agent code into a server process" },
	{ "-javaagent:", "would load an instrumentation agent into every worker" },
	{ "-Xrun", "would load native agent code into a server process" },
	{ "-Xbootclasspath", "would load classes the extension did not install" },
	{ "--patch-module", "would load classes the extension did not install" },
	{ "-Xdebug", "would wait for a debugger" },
	{ "-Xloggc:", "would write a file; log the collector with -Xlog:gc to stdout, which reaches the server log" },
	{ "-XX:+UsePerfData", "would write a file per worker (hsperfdata)" },
};

/*
 * What may follow "-XX:" for an option on the allow-list.  BOOL flags take
 * "+" or "-"; NUMBER flags "=" and a decimal number, with a fraction for
 * the percentages; MODE flags "=" and one of the words in modes.  All are
 * product flags of HotSpot (JDK 17 to 25) that size, choose or tune the
 * collector or the JIT, or make HotSpot print to stdout, which a worker
 * shares with the server log; none reads or writes a file or loads code.
 * Those marked diagnostic are HotSpot diagnostic flags the extension vouches
 * for: pep_java.c unlocks diagnostic options around each of them alone.
 */
typedef enum PEPFlagForm
{
	PEP_FLAG_BOOL,
	PEP_FLAG_NUMBER,
	PEP_FLAG_MODE,
} PEPFlagForm;

/* The modes of -XX:CompilationMode= (HotSpot's compilerDefinitions.cpp). */
static const char *const pep_compilation_modes[] = {
	"default", "quick-only", "high-only", "high-only-quick-internal", NULL
};

static const struct
{
	const char *name;
	PEPFlagForm form;
	bool diagnostic;
	const char *const *modes;
} pep_flags[] = {
	/* the collector and its sizing and tuning (sizes: pep_sizes) */
	{ "UseAdaptiveSizePolicy", PEP_FLAG_BOOL },
	{ "UseStringDeduplication", PEP_FLAG_BOOL },
	{ "DisableExplicitGC", PEP_FLAG_BOOL },
	{ "ExplicitGCInvokesConcurrent", PEP_FLAG_BOOL },
	{ "AlwaysPreTouch", PEP_FLAG_BOOL },
	{ "UseTransparentHugePages", PEP_FLAG_BOOL },
	{ "UseLargePages", PEP_FLAG_BOOL },
	{ "UseNUMA", PEP_FLAG_BOOL },
	{ "UseCompressedOops", PEP_FLAG_BOOL },
	{ "UseCompressedClassPointers", PEP_FLAG_BOOL },
	{ "UseTLAB", PEP_FLAG_BOOL },
	{ "ResizeTLAB", PEP_FLAG_BOOL },
	{ "ClassUnloading", PEP_FLAG_BOOL },
	{ "ParallelRefProcEnabled", PEP_FLAG_BOOL },
	{ "UseDynamicNumberOfGCThreads", PEP_FLAG_BOOL },
	{ "ZGenerational", PEP_FLAG_BOOL },
	{ "ZUncommit", PEP_FLAG_BOOL },
	{ "ParallelGCThreads", PEP_FLAG_NUMBER },
	{ "ConcGCThreads", PEP_FLAG_NUMBER },
	{ "MaxGCPauseMillis", PEP_FLAG_NUMBER },
	{ "GCTimeRatio", PEP_FLAG_NUMBER },
	{ "NewRatio", PEP_FLAG_NUMBER },
	{ "SurvivorRatio", PEP_FLAG_NUMBER },
	{ "MaxTenuringThreshold", PEP_FLAG_NUMBER },
	{ "InitialTenuringThreshold", PEP_FLAG_NUMBER },
	{ "MinHeapFreeRatio", PEP_FLAG_NUMBER },
	{ "MaxHeapFreeRatio", PEP_FLAG_NUMBER },
	{ "MaxRAMPercentage", PEP_FLAG_NUMBER },
	{ "InitialRAMPercentage", PEP_FLAG_NUMBER },
	{ "MinRAMPercentage", PEP_FLAG_NUMBER },
	{ "G1ReservePercent", PEP_FLAG_NUMBER },
	{ "InitiatingHeapOccupancyPercent", PEP_FLAG_NUMBER },
	{ "SoftRefLRUPolicyMSPerMB", PEP_FLAG_NUMBER },
	{ "ActiveProcessorCount", PEP_FLAG_NUMBER },
	/* the JIT */
	{ "TieredCompilation", PEP_FLAG_BOOL },
	{ "UseCompiler", PEP_FLAG_BOOL },
	{ "BackgroundCompilation", PEP_FLAG_BOOL },
	{ "UseOnStackReplacement", PEP_FLAG_BOOL },
	{ "UseBimorphicInlining", PEP_FLAG_BOOL },
	{ "Inline", PEP_FLAG_BOOL },
	{ "DoEscapeAnalysis", PEP_FLAG_BOOL },
	{ "EliminateAllocations", PEP_FLAG_BOOL },
	{ "UseSuperWord", PEP_FLAG_BOOL },
	{ "OptimizeStringConcat", PEP_FLAG_BOOL },
	{ "SegmentedCodeCache", PEP_FLAG_BOOL },
	{ "UseCodeCacheFlushing", PEP_FLAG_BOOL },
	{ "PreserveFramePointer", PEP_FLAG_BOOL },
	{ "PrintCompilation", PEP_FLAG_BOOL },
	{ "DebugNonSafepoints", PEP_FLAG_BOOL, true },
	{ "TieredStopAtLevel", PEP_FLAG_NUMBER },
	{ "CICompilerCount", PEP_FLAG_NUMBER },
	{ "CompileThreshold", PEP_FLAG_NUMBER },
	{ "OnStackReplacePercentage", PEP_FLAG_NUMBER },
	{ "Tier3InvocationThreshold", PEP_FLAG_NUMBER },
	{ "Tier3MinInvocationThreshold", PEP_FLAG_NUMBER },
	{ "Tier3CompileThreshold", PEP_FLAG_NUMBER },
	{ "Tier3BackEdgeThreshold", PEP_FLAG_NUMBER },
	{ "Tier4InvocationThreshold", PEP_FLAG_NUMBER },
	{ "Tier4MinInvocationThreshold", PEP_FLAG_NUMBER },
	{ "Tier4CompileThreshold", PEP_FLAG_NUMBER },
	{ "Tier4BackEdgeThreshold", PEP_FLAG_NUMBER },
	{ "MaxInlineSize", PEP_FLAG_NUMBER },
	{ "FreqInlineSize", PEP_FLAG_NUMBER },
	{ "InlineSmallCode", PEP_FLAG_NUMBER },
	{ "MaxInlineLevel", PEP_FLAG_NUMBER },
	{ "MaxRecursiveInlineLevel", PEP_FLAG_NUMBER },
	{ "LoopUnrollLimit", PEP_FLAG_NUMBER },
	{ "CompilationMode", PEP_FLAG_MODE, false, pep_compilation_modes },
	/* the class cache (pep_java.c maps it at its own address) */
	{ "ArchiveRelocationMode", PEP_FLAG_NUMBER, true },
	/* what the extension's defaults and the diagnosis in docs/settings.md needs */
	{ "UsePerfData", PEP_FLAG_BOOL }, /* "+" refused above */
	{ "DisableAttachMechanism", PEP_FLAG_BOOL },
	{ "StartAttachListener", PEP_FLAG_BOOL },
};

/*
 * Options allowed as they are: the JIT's modes, the class cache off or
 * optional (-Xshare:on would only turn an unusable cache into a failed
 * start), JNI checks (they print to stdout), and -Xrs, which is always
 * added anyway.
 */
static const char *const pep_exact[] = {
	"-Xrs",
	"-Xcheck:jni",
	"-Xint",
	"-Xcomp",
	"-Xmixed",
	"-Xbatch",
	"-Xshare:off",
	"-Xshare:auto",
};

/*
 * System properties allowed, each with a value of letters, digits, ".", "_"
 * and "-": which IP stack the object store's client uses.  No other:
 * properties such as java.library.path, org.xerial.snappy.lib.path and
 * .lib.name, brotli4j.library.path, jna.*, java.io.tmpdir or
 * java.system.class.loader load code or choose where files are written,
 * and what the object store's client needs otherwise is a foreign server's
 * option (docs/object-storage.md, "Object storage: target, endpoint and
 * keys").
 */
static const char *const pep_properties[] = {
	"java.net.preferIPv4Stack",
	"java.net.preferIPv6Addresses",
};

/* The detail and hint of an option that is not on the allow-list. */
static bool
pep_not_allowed(const char *option, const char *why)
{
	GUC_check_errdetail("The option \"%s\" is not one the extension allows%s.", option, why);
	GUC_check_errhint("The options allowed are listed in docs/settings.md, \"What jvm_options allows\".");
	return false;
}

/* Is text a decimal number, with a fraction if fraction? */
static bool
pep_is_number(const char *text, bool fraction)
{
	const char *p = text;

	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	if (fraction && *p == '.' && p[1] >= '0' && p[1] <= '9')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	return *p == '\0';
}

/* Find the allowed flag of name; -1 if none. */
static int
pep_find_flag(const char *name, size_t len)
{
	for (int i = 0; i < lengthof(pep_flags); i++)
	{
		if (strlen(pep_flags[i].name) == len && strncmp(name, pep_flags[i].name, len) == 0)
			return i;
	}
	return -1;
}

/* Check an -XX: option that is neither a size nor a collector. */
static bool
pep_check_flag(const char *option)
{
	const char *rest = option + strlen("-XX:");
	const char *eq;
	int i;

	if (rest[0] == '+' || rest[0] == '-')
	{
		i = pep_find_flag(rest + 1, strlen(rest + 1));
		if (i < 0 || pep_flags[i].form != PEP_FLAG_BOOL)
			return pep_not_allowed(option, "");
		return true;
	}
	eq = strchr(rest, '=');
	if (eq == NULL || (i = pep_find_flag(rest, eq - rest)) < 0 ||
		pep_flags[i].form == PEP_FLAG_BOOL)
		return pep_not_allowed(option, "");
	if (pep_flags[i].form == PEP_FLAG_NUMBER)
	{
		if (!pep_is_number(eq + 1, true))
		{
			GUC_check_errdetail("The option \"%s\" does not give a number: \"%s\" is not a decimal number.",
								option, eq + 1);
			return false;
		}
		return true;
	}
	for (const char *const *mode = pep_flags[i].modes; *mode != NULL; mode++)
	{
		if (strcmp(eq + 1, *mode) == 0)
			return true;
	}
	GUC_check_errdetail("The option \"%s\" does not name a mode of \"%.*s\".",
						option, (int) (eq - rest), rest);
	return false;
}

/*
 * Check an -Xlog option: -Xlog[:what[:output[:decorators]]], with the
 * output stdout or stderr (#0, #1), or left out, which is stdout: a
 * worker's stdout and stderr are the server log's.  Any other output is a
 * file HotSpot would create, so is refused, as are the file options (a
 * fourth field), quotes and the forms that are no logging (help, async).
 */
static bool
pep_check_xlog(const char *option)
{
	const char *fields[3] = { "", "", "" };
	size_t lens[3] = { 0, 0, 0 };
	int n = 0;
	const char *names = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+*=,";

	if (option[5] == '\0')
		return true;
	if (option[5] != ':')
		return pep_not_allowed(option, "");
	for (const char *p = option + 5; *p == ':'; p += lens[n++])
	{
		if (n == lengthof(fields))
			return pep_not_allowed(option, ": -Xlog takes at most a selection, an output and decorators; output options are for files");
		fields[n] = ++p;
		lens[n] = strcspn(p, ":");
	}
	if (!(lens[1] == 0 ||
		  (lens[1] == 6 && (strncmp(fields[1], "stdout", 6) == 0 ||
							strncmp(fields[1], "stderr", 6) == 0)) ||
		  (lens[1] == 2 && (strncmp(fields[1], "#0", 2) == 0 ||
							strncmp(fields[1], "#1", 2) == 0))))
		return pep_not_allowed(option, ": -Xlog writes only to stdout or stderr, which reach the server log, never to a file");
	if (strspn(fields[0], names) < lens[0] || strspn(fields[2], names) < lens[2] ||
		memchr(fields[2], '=', lens[2]) != NULL)
		return pep_not_allowed(option, ": -Xlog takes tag and level names, stdout or stderr, and decorators");
	if ((lens[0] == 4 && strncmp(fields[0], "help", 4) == 0) ||
		(lens[0] == 5 && strncmp(fields[0], "async", 5) == 0))
		return pep_not_allowed(option, "");
	return true;
}

/* Check a -D option: an allowed property, with a plain value. */
static bool
pep_check_property(const char *option)
{
	const char *name = option + strlen("-D");
	const char *eq = strchr(name, '=');

	for (int i = 0; eq != NULL && i < lengthof(pep_properties); i++)
	{
		if (strlen(pep_properties[i]) == (size_t) (eq - name) &&
			strncmp(name, pep_properties[i], eq - name) == 0)
		{
			if (eq[1] == '\0' ||
				eq[1 + strspn(eq + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")] != '\0')
				return pep_not_allowed(option, ": its value may hold only letters, digits, \".\", \"_\" and \"-\"");
			return true;
		}
	}
	return pep_not_allowed(option, ": of the system properties only a few that neither load code nor write files are");
}

/*
 * Parse a HotSpot size: decimal digits, then at most one of k, m, g, t in
 * either case.  Stores the bytes in *bytes; false if the text is no size or
 * the size does not fit in 64 bits.
 */
static bool
pep_parse_size(const char *text, uint64 *bytes)
{
	uint64 value = 0;
	uint64 unit = 1;
	const char *p = text;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++)
	{
		if (value > (PG_UINT64_MAX - (uint64) (*p - '0')) / 10)
			return false;
		value = value * 10 + (uint64) (*p - '0');
	}
	switch (*p)
	{
		case '\0':
			break;
		case 'k':
		case 'K':
			unit = PEP_KB;
			break;
		case 'm':
		case 'M':
			unit = PEP_MB;
			break;
		case 'g':
		case 'G':
			unit = PEP_MB * 1024;
			break;
		case 't':
		case 'T':
			unit = PEP_MB * 1024 * 1024;
			break;
		default:
			return false;
	}
	if (*p != '\0' && p[1] != '\0')
		return false;
	if (value > PG_UINT64_MAX / unit)
		return false;
	*bytes = value * unit;
	return true;
}

/* The smallest size HotSpot takes for a kind; 0 if it has none. */
static uint64
pep_size_minimum(PEPSizeKind kind, bool *zero_ok)
{
	*zero_ok = false;
	switch (kind)
	{
		case PEP_SIZE_MAX_HEAP:
			return 4 * PEP_MB;
		case PEP_SIZE_INITIAL_HEAP:
		case PEP_SIZE_MIN_HEAP:
			*zero_ok = true;
			return PEP_MB;
		case PEP_SIZE_NEW_GEN:
			return 1;
		case PEP_SIZE_STACK:
		case PEP_SIZE_STACK_KB:
			*zero_ok = true;
			return 136 * PEP_KB;
		case PEP_SIZE_OTHER:
			break;
	}
	return 0;
}

/*
 * Check one size option; on success records the heap sizes it sets.  The
 * unit-less case gets its own hint: HotSpot reads it in bytes, which is
 * rarely what was meant.
 */
static bool
pep_check_size(const char *option, const char *prefix, PEPSizeKind kind,
			   uint64 *max_heap, uint64 *initial_heap, uint64 *min_heap)
{
	const char *text = option + strlen(prefix);
	uint64 bytes;
	uint64 minimum;
	bool zero_ok;

	if (!pep_parse_size(text, &bytes))
	{
		GUC_check_errdetail("The option \"%s\" does not give a size: \"%s\" is not a decimal number with an optional unit k, m, g or t.",
							option, text);
		return false;
	}
	if (kind == PEP_SIZE_STACK_KB)
	{
		if (bytes > PG_UINT64_MAX / PEP_KB)
			bytes = PG_UINT64_MAX;
		else
			bytes *= PEP_KB;
	}
	minimum = pep_size_minimum(kind, &zero_ok);
	if (bytes < minimum && !(bytes == 0 && zero_ok))
	{
		GUC_check_errdetail("The option \"%s\" is below the Java virtual machine's minimum of " UINT64_FORMAT " kB%s.",
							option, minimum / PEP_KB,
							zero_ok ? " (or 0 for its default)" : "");
		if (kind != PEP_SIZE_STACK_KB && text[strlen(text) - 1] >= '0' &&
			text[strlen(text) - 1] <= '9')
			GUC_check_errhint("A size without a unit is in bytes; add k, m or g, as in \"%s%sm\".",
							  prefix, text);
		return false;
	}
	if (kind == PEP_SIZE_MAX_HEAP)
		*max_heap = bytes;
	else if (kind == PEP_SIZE_INITIAL_HEAP)
		*initial_heap = bytes;
	else if (kind == PEP_SIZE_MIN_HEAP)
		*min_heap = bytes;
	return true;
}

/*
 * The collectors HotSpot can be told to use.  It aborts its start when two
 * are selected, easily done by appending one to the default options.
 */
static const char *const pep_collectors[] = {
	"-XX:+UseSerialGC",
	"-XX:+UseParallelGC",
	"-XX:+UseG1GC",
	"-XX:+UseZGC",
	"-XX:+UseShenandoahGC",
};

/* Check one option; false, with the detail set, if it is refused. */
static bool
pep_check_option(const char *option, const char **collector,
				 uint64 *max_heap, uint64 *initial_heap, uint64 *min_heap)
{
	if (option[0] != '-' && option[0] != '@')
	{
		GUC_check_errdetail("\"%s\" is not a Java virtual machine option: options start with \"-\".",
							option);
		return false;
	}
	for (int i = 0; i < lengthof(pep_refused); i++)
	{
		if (strncmp(option, pep_refused[i].prefix, strlen(pep_refused[i].prefix)) == 0)
		{
			GUC_check_errdetail("The option \"%s\" %s.", option, pep_refused[i].reason);
			return false;
		}
	}
	for (int i = 0; i < lengthof(pep_collectors); i++)
	{
		if (strcmp(option, pep_collectors[i]) != 0)
			continue;
		if (*collector != NULL && strcmp(*collector, option) != 0)
		{
			GUC_check_errdetail("The options \"%s\" and \"%s\" select two garbage collectors.",
								*collector, option);
			GUC_check_errhint("Remove one of them; the default options select \"%s\".",
							  "-XX:+UseSerialGC");
			return false;
		}
		*collector = pep_collectors[i];
		return true;
	}
	for (int i = 0; i < lengthof(pep_sizes); i++)
	{
		if (strncmp(option, pep_sizes[i].prefix, strlen(pep_sizes[i].prefix)) == 0)
			return pep_check_size(option, pep_sizes[i].prefix, pep_sizes[i].kind,
								  max_heap, initial_heap, min_heap);
	}
	for (int i = 0; i < lengthof(pep_exact); i++)
	{
		if (strcmp(option, pep_exact[i]) == 0)
			return true;
	}
	if (strncmp(option, "-XX:", 4) == 0)
		return pep_check_flag(option);
	if (strncmp(option, "-Xlog", 5) == 0)
		return pep_check_xlog(option);
	if (strncmp(option, "-D", 2) == 0)
		return pep_check_property(option);
	return pep_not_allowed(option, "");
}

bool
pep_jvm_option_is_diagnostic(const char *option)
{
	const char *rest;
	size_t len;
	int i;

	if (strncmp(option, "-XX:", 4) != 0)
		return false;
	rest = option + 4;
	if (rest[0] == '+' || rest[0] == '-')
		rest++;
	len = strcspn(rest, "=");
	i = pep_find_flag(rest, len);
	return i >= 0 && pep_flags[i].diagnostic;
}

bool
pep_check_jvm_options(char **newval, void **extra, GucSource source)
{
	List *split;
	ListCell *lc;
	int count = 0;
	uint64 max_heap = 0;
	uint64 initial_heap = 0;
	uint64 min_heap = 0;
	const char *collector = NULL;
	bool ok = true;

	if (*newval == NULL)
		return true;

	split = pep_jvm_split_options(*newval);
	foreach (lc, split)
	{
		if (++count > PEP_JVM_MAX_USER_OPTIONS)
		{
			GUC_check_errdetail("At most %d options may be given.", PEP_JVM_MAX_USER_OPTIONS);
			ok = false;
		}
		else
			ok = pep_check_option(lfirst(lc), &collector, &max_heap, &initial_heap, &min_heap);
		if (!ok)
			break;
	}
	list_free_deep(split);
	if (!ok)
		return false;

	if (max_heap != 0 && initial_heap > max_heap)
	{
		GUC_check_errdetail("The initial heap size (-Xms) is larger than the maximum heap size (-Xmx).");
		return false;
	}
	if (max_heap != 0 && min_heap > max_heap)
	{
		GUC_check_errdetail("The minimum heap size (-XX:MinHeapSize) is larger than the maximum heap size (-Xmx).");
		return false;
	}
	if (initial_heap != 0 && min_heap > initial_heap)
	{
		GUC_check_errdetail("The minimum heap size (-XX:MinHeapSize) is larger than the initial heap size (-Xms).");
		return false;
	}
	return true;
}
