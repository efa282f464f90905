/*-------------------------------------------------------------------------
 *
 * pep_jvmopts.c
 *	  Check hook of parallel_export_parquet.jvm_options.
 *
 * Every export worker passes these options to JNI_CreateJavaVM.  HotSpot
 * refuses some bad options by returning an error, which the worker reports,
 * but for others it gives up half-way through its own start, and before
 * the worker learnt to catch that (pljava-glue/pep_jvm.c) a typo such as
 * "-Xmx192" aborted the worker and restarted the whole cluster.  So the
 * value is checked where it is set (SET, ALTER SYSTEM, a configuration
 * file reload), and a mistake is reported there, naming the option and
 * what is wrong with it:
 *
 *	- every option starts with "-";
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
 *	- options the extension controls or that end a worker some other way
 *	  than with an error are refused, each with its reason (pep_refused).
 *
 * The attach options (-XX:-DisableAttachMechanism) are allowed.  A worker
 * dies the crash way on SIGQUIT, which jcmd sends when it finds no attach
 * socket, whatever the options say; attach is what lets a diagnostic tool
 * reach a worker without that signal (docs/settings.md, "Attaching a JVM
 * tool to a worker").
 *
 * HotSpot's rule that the last of repeated options wins is followed.
 * Whatever the check cannot foresee still fails only the export: the worker
 * turns a JVM that gives up its start into an error (pep_jvm.c).
 *
 * IDENTIFICATION
 *	  extension/pep_jvmopts.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/guc.h"

#include "pep_jvm.h"
#include "pep_jvmopts.h"

#define PEP_KB	UINT64CONST(1024)
#define PEP_MB	(PEP_KB * 1024)

/* What a size option sets, for the minimums and the relations. */
typedef enum PEPSizeKind
{
	PEP_SIZE_MAX_HEAP,
	PEP_SIZE_INITIAL_HEAP,
	PEP_SIZE_MIN_HEAP,
	PEP_SIZE_NEW_GEN,
	PEP_SIZE_STACK,
	PEP_SIZE_STACK_KB,			/* -XX:ThreadStackSize counts in kB */
	PEP_SIZE_OTHER
} PEPSizeKind;

static const struct
{
	const char *prefix;
	PEPSizeKind kind;
}			pep_sizes[] =
{
	{"-Xmx", PEP_SIZE_MAX_HEAP},
	{"-XX:MaxHeapSize=", PEP_SIZE_MAX_HEAP},
	{"-Xms", PEP_SIZE_INITIAL_HEAP},
	{"-XX:InitialHeapSize=", PEP_SIZE_INITIAL_HEAP},
	{"-XX:MinHeapSize=", PEP_SIZE_MIN_HEAP},
	{"-Xmn", PEP_SIZE_NEW_GEN},
	{"-XX:NewSize=", PEP_SIZE_OTHER},
	{"-XX:MaxNewSize=", PEP_SIZE_OTHER},
	{"-Xss", PEP_SIZE_STACK},
	{"-XX:ThreadStackSize=", PEP_SIZE_STACK_KB},
	{"-XX:MetaspaceSize=", PEP_SIZE_OTHER},
	{"-XX:MaxMetaspaceSize=", PEP_SIZE_OTHER},
	{"-XX:MaxDirectMemorySize=", PEP_SIZE_OTHER},
	{"-XX:ReservedCodeCacheSize=", PEP_SIZE_OTHER},
};

/*
 * Options refused whatever follows the prefix, and why.  The reasons are
 * errdetail sentences completing "The option \"%s\" ...".
 */
static const struct
{
	const char *prefix;
	const char *reason;
}			pep_refused[] =
{
	{"-XX:-ReduceSignalUsage", "would undo -Xrs, which keeps the JVM off PostgreSQL's signals"},
	{"-Djava.class.path=", "would replace the extension's jar, which the extension sets"},
	{"-XX:+ExitOnOutOfMemoryError", "would end the worker where an exhausted heap must fail the export with an error"},
	{"-XX:+CrashOnOutOfMemoryError", "would crash the worker where an exhausted heap must fail the export with an error"},
	{"-XX:OnOutOfMemoryError=", "would run a shell command from inside a server process"},
	{"-XX:OnError=", "would run a shell command from inside a server process"},
	{"-XX:+ShowMessageBoxOnError", "would make a failing worker wait for a keypress forever"},
	{"-XX:Flags=", "would read more options from a file this check cannot see"},
	{"-XX:VMOptionsFile=", "would read more options from a file this check cannot see"},
	{"-agentlib:", "would load native agent code into a server process"},
	{"-agentpath:", "would load native agent code into a server process"},
	{"-javaagent:", "would load an instrumentation agent into every worker"},
	{"-Xrun", "would load native agent code into a server process"},
	{"-Xdebug", "would wait for a debugger"},
};

/*
 * Parse a HotSpot size: decimal digits, then at most one of k, m, g, t in
 * either case.  Stores the bytes in *bytes; false if the text is no size or
 * the size does not fit in 64 bits.
 */
static bool
pep_parse_size(const char *text, uint64 *bytes)
{
	uint64		value = 0;
	uint64		unit = 1;
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
	uint64		bytes;
	uint64		minimum;
	bool		zero_ok;

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
static const char *const pep_collectors[] =
{
	"-XX:+UseSerialGC",
	"-XX:+UseParallelGC",
	"-XX:+UseG1GC",
	"-XX:+UseZGC",
	"-XX:+UseShenandoahGC",
	"-XX:+UseEpsilonGC",
};

/* Check one option; false, with the detail set, if it is refused. */
static bool
pep_check_option(const char *option, const char **collector,
				 uint64 *max_heap, uint64 *initial_heap, uint64 *min_heap)
{
	if (option[0] != '-')
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
	}
	for (int i = 0; i < lengthof(pep_sizes); i++)
	{
		if (strncmp(option, pep_sizes[i].prefix, strlen(pep_sizes[i].prefix)) == 0)
			return pep_check_size(option, pep_sizes[i].prefix, pep_sizes[i].kind,
								  max_heap, initial_heap, min_heap);
	}
	return true;
}

bool
pep_check_jvm_options(char **newval, void **extra, GucSource source)
{
	List	   *split;
	ListCell   *lc;
	int			count = 0;
	uint64		max_heap = 0;
	uint64		initial_heap = 0;
	uint64		min_heap = 0;
	const char *collector = NULL;
	bool		ok = true;

	if (*newval == NULL)
		return true;

	split = pep_jvm_split_options(*newval);
	foreach(lc, split)
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
