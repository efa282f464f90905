/*-------------------------------------------------------------------------
 *
 * pep_options.c
 *	  The named options of parallel_export_parquet, checked before any work.
 *
 * Every option is checked here, in the leader, before the directory is
 * touched or a worker started, and a bad value is an error that lists the
 * valid ones.  A NULL option means its default, as OptionDefaults defines
 * it.  The checked options become the key=value lines the Java writer
 * parses (SinkOptions), with the keys OptionNames defines, plus what the
 * C side itself acts on: the worker count, file_size_bytes and overwrite.
 *
 * IDENTIFICATION
 *	  extension/src/entry/pep_options.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "postmaster/bgworker_internals.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/formatting.h"

#include "pep_contract.h"
#include "pep_extension.h"
#include "pep_options.h"
#include "pep_s3target.h"
#include "pep_writermeta.h"

static const char *const pep_codecs[] = { "uncompressed", "snappy", "gzip", "zstd", "lz4_raw", "brotli" };

/* compatibility's values, indexed by PEPCompatibility */
static const char *const pep_compat_names[] = { "none", "spark" };

static void
pep_invalid(const char *option, const char *value, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value for option \"%s\": %s", option, value),
			 errhint("%s", hint)));
}

static int64
pep_int_option(FunctionCallInfo fcinfo, int argno, const char *option, bool is_int4,
			   int64 dflt, int64 min, int64 max)
{
	int64 value;

	if (PG_ARGISNULL(argno))
		return dflt;
	value = is_int4 ? (int64) PG_GETARG_INT32(argno) : PG_GETARG_INT64(argno);
	if (value < min || value > max)
		pep_invalid(option, psprintf(INT64_FORMAT, value),
					psprintf("Valid values are from " INT64_FORMAT " to " INT64_FORMAT ".", min, max));
	return value;
}

static bool
pep_bool_option(FunctionCallInfo fcinfo, int argno, bool dflt)
{
	return PG_ARGISNULL(argno) ? dflt : PG_GETARG_BOOL(argno);
}

/*
 * unconstrained_numeric: 'text', 'double' or 'decimal(P,S)', any case and
 * spacing.  A DECIMAL needs its precision and scale spelled out: a default
 * scale would decide silently which values fit.
 */
static void
pep_parse_numeric_as(const char *text, PEPTypeChoices *types)
{
	char *value = asc_tolower(text, strlen(text));
	int precision;
	int scale;
	int end = -1;
	const char *hint = "Valid values are text, double and decimal(P,S) with P from 1 to 38 and S from 0 to P.";

	if (strcmp(value, "text") == 0)
		types->numeric_as = PEP_NUMERIC_TEXT;
	else if (strcmp(value, "double") == 0)
		types->numeric_as = PEP_NUMERIC_DOUBLE;
	else if (sscanf(value, " decimal ( %d , %d ) %n", &precision, &scale, &end) == 2 &&
			 end == (int) strlen(value))
	{
		if (precision < 1 || precision > 38 || scale < 0 || scale > precision)
			pep_invalid("unconstrained_numeric", quote_literal_cstr(text), hint);
		types->numeric_as = PEP_NUMERIC_DECIMAL;
		types->numeric_precision = precision;
		types->numeric_scale = scale;
	}
	else
		pep_invalid("unconstrained_numeric", quote_literal_cstr(text), hint);
}

/*
 * compatibility: a reader profile, any case.  'none' keeps the faithful
 * encodings; see pep_types.c for what each profile changes.
 */
static int
pep_parse_compatibility(const char *text)
{
	char *value = asc_tolower(text, strlen(text));

	for (int i = 0; i < lengthof(pep_compat_names); i++)
		if (strcmp(value, pep_compat_names[i]) == 0)
			return i;
	pep_invalid("compatibility", quote_literal_cstr(text), "Valid values are none and spark.");
	return PEP_COMPAT_NONE; /* keep compiler quiet */
}

const char *
pep_compatibility_name(int compatibility)
{
	Assert(compatibility >= 0 && compatibility < lengthof(pep_compat_names));
	return pep_compat_names[compatibility];
}

void
pep_options_parse(FunctionCallInfo fcinfo, PEPOptions *opts)
{
	/*
	 * A database still on version 1.0's SQL definitions passes the arguments
	 * 1.0 had, and gets the defaults of those added since (each is read only
	 * when passed); one whose definitions match no version of this library
	 * is told to update.
	 */
	if (PG_NARGS() < PEP_NARGS_1_0 || PG_NARGS() > PEP_NARGS)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the SQL definition of parallel_export_parquet does not match its library"),
				 errdetail("The function was called with %d arguments; the library expects %d to %d.",
						   PG_NARGS(), PEP_NARGS_1_0, PEP_NARGS),
				 errhint("Run ALTER EXTENSION parallel_export_parquet UPDATE, or drop and create the extension again.")));

	memset(opts, 0, sizeof(PEPOptions));

	opts->workers = (int) pep_int_option(fcinfo, PEP_ARG_WORKERS, "workers", true,
										 0, 1, MAX_PARALLEL_WORKER_LIMIT);

	opts->compression = PEP_DEFAULT(COMPRESSION);
	if (!PG_ARGISNULL(PEP_ARG_COMPRESSION))
	{
		char *value = TextDatumGetCString(PG_GETARG_DATUM(PEP_ARG_COMPRESSION));
		bool known = false;

		value = asc_tolower(value, strlen(value));
		for (int i = 0; i < lengthof(pep_codecs); i++)
			if (strcmp(value, pep_codecs[i]) == 0)
				known = true;
		if (!known)
			pep_invalid("compression", quote_literal_cstr(value),
						"Valid values are uncompressed, snappy, gzip, zstd, lz4_raw and brotli.");
		opts->compression = value;
	}

	opts->compression_level = -1;
	if (!PG_ARGISNULL(PEP_ARG_COMPRESSION_LEVEL))
	{
		if (strcmp(opts->compression, "gzip") == 0)
			opts->compression_level = (int) pep_int_option(fcinfo, PEP_ARG_COMPRESSION_LEVEL,
														   "compression_level", true, -1, 1, 9);
		else if (strcmp(opts->compression, "zstd") == 0)
			opts->compression_level = (int) pep_int_option(fcinfo, PEP_ARG_COMPRESSION_LEVEL,
														   "compression_level", true, -1, 1, 22);
		else if (strcmp(opts->compression, "brotli") == 0)
			opts->compression_level = (int) pep_int_option(fcinfo, PEP_ARG_COMPRESSION_LEVEL,
														   "compression_level", true, -1, 0, 11);
		else
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"%s\" is not valid for compression %s",
							"compression_level", opts->compression),
					 errhint("Only gzip (levels 1 to 9), zstd (levels 1 to 22) and brotli (levels 0 to 11) take a level.")));
	}

	opts->row_group_rows = pep_int_option(fcinfo, PEP_ARG_ROW_GROUP_ROWS, "row_group_rows", false,
										  PEP_DEFAULT(ROW_GROUP_ROWS), 1, PG_INT32_MAX);
	opts->row_group_bytes = pep_int_option(fcinfo, PEP_ARG_ROW_GROUP_BYTES, "row_group_bytes", false,
										   PEP_DEFAULT(ROW_GROUP_BYTES), 64 * 1024, PG_INT32_MAX);
	/* 0: no limit, one part per worker (or per folder) */
	opts->file_size_bytes = pep_int_option(fcinfo, PEP_ARG_FILE_SIZE_BYTES, "file_size_bytes", false,
										   PEP_DEFAULT(FILE_SIZE_BYTES), 0, PG_INT64_MAX);
	opts->page_size = pep_int_option(fcinfo, PEP_ARG_PAGE_SIZE, "page_size", true,
									 PEP_DEFAULT(PAGE_SIZE), 1024, 256 * 1024 * 1024);
	if (PG_ARGISNULL(PEP_ARG_DICTIONARY))
		opts->dictionary = PEP_DICTIONARY_AUTO;
	else
		opts->dictionary = PG_GETARG_BOOL(PEP_ARG_DICTIONARY) ? PEP_DICTIONARY_ON : PEP_DICTIONARY_OFF;
	opts->statistics = pep_bool_option(fcinfo, PEP_ARG_STATISTICS, PEP_DEFAULT(STATISTICS) != 0);

	opts->parquet_version = PEP_DEFAULT(WRITER_VERSION);
	if (!PG_ARGISNULL(PEP_ARG_PARQUET_VERSION))
	{
		char *value = TextDatumGetCString(PG_GETARG_DATUM(PEP_ARG_PARQUET_VERSION));

		value = asc_tolower(value, strlen(value));
		if (strcmp(value, "v1") != 0 && strcmp(value, "v2") != 0)
			pep_invalid("parquet_version", quote_literal_cstr(value), "Valid values are v1 and v2.");
		opts->parquet_version = value;
	}

	if (!PG_ARGISNULL(PEP_ARG_BLOOM_FILTER_COLUMNS))
		opts->bloom_filter_columns = PG_GETARG_ARRAYTYPE_P(PEP_ARG_BLOOM_FILTER_COLUMNS);
	opts->overwrite = pep_bool_option(fcinfo, PEP_ARG_OVERWRITE, false);

	if (PG_NARGS() > PEP_ARG_PARTITION_BY && !PG_ARGISNULL(PEP_ARG_PARTITION_BY))
		opts->partition_by = PG_GETARG_ARRAYTYPE_P(PEP_ARG_PARTITION_BY);
	if (PG_NARGS() > PEP_ARG_WRITE_PARTITION_COLUMNS)
		opts->write_partition_columns = pep_bool_option(fcinfo, PEP_ARG_WRITE_PARTITION_COLUMNS,
														false);

	opts->types.numeric_as = PEP_NUMERIC_TEXT;
	if (!PG_ARGISNULL(PEP_ARG_UNCONSTRAINED_NUMERIC))
		pep_parse_numeric_as(TextDatumGetCString(PG_GETARG_DATUM(PEP_ARG_UNCONSTRAINED_NUMERIC)),
							 &opts->types);

	if (PG_NARGS() > PEP_ARG_S3_SERVER && !PG_ARGISNULL(PEP_ARG_S3_SERVER))
	{
		opts->s3_server = TextDatumGetCString(PG_GETARG_DATUM(PEP_ARG_S3_SERVER));
		if (!pep_s3_is_target(TextDatumGetCString(PG_GETARG_DATUM(1))))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"%s\" is valid only for an object storage target", "s3_server"),
					 errhint("Give the directory as s3://bucket/prefix, or leave out s3_server.")));
	}

	opts->types.compatibility = pep_parse_compatibility(PEP_DEFAULT(COMPATIBILITY));
	if (PG_NARGS() > PEP_ARG_COMPATIBILITY && !PG_ARGISNULL(PEP_ARG_COMPATIBILITY))
		opts->types.compatibility =
			pep_parse_compatibility(TextDatumGetCString(PG_GETARG_DATUM(PEP_ARG_COMPATIBILITY)));

	/* field_ids names columns, so it is checked with them (pep_options_writer_text) */
	if (PG_NARGS() > PEP_ARG_FIELD_IDS && !PG_ARGISNULL(PEP_ARG_FIELD_IDS))
		opts->field_ids = TextDatumGetCString(PG_GETARG_DATUM(PEP_ARG_FIELD_IDS));
	if (PG_NARGS() > PEP_ARG_KV_METADATA && !PG_ARGISNULL(PEP_ARG_KV_METADATA))
	{
		opts->kv_metadata = PG_GETARG_JSONB_P(PEP_ARG_KV_METADATA);
		(void) pep_kv_metadata_line(opts->kv_metadata);
	}
}

/*
 * The options as BatchSink's key=value lines.  Bloom filter columns are
 * given by position, so that no column name needs quoting; a name that is
 * not an exported column is an error here.
 */
char *
pep_options_writer_text(const PEPOptions *opts, const PEPSource *src)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, PEP_OPTION(CREATED_BY_EXTENSION) "=%s %s\n", PEP_EXTENSION_NAME, PEP_VERSION);
	appendStringInfo(&buf, PEP_OPTION(COMPRESSION) "=%s\n", opts->compression);
	if (opts->compression_level >= 0)
		appendStringInfo(&buf, PEP_OPTION(COMPRESSION_LEVEL) "=%d\n", opts->compression_level);
	appendStringInfo(&buf, PEP_OPTION(ROW_GROUP_ROWS) "=" INT64_FORMAT "\n", opts->row_group_rows);
	appendStringInfo(&buf, PEP_OPTION(ROW_GROUP_BYTES) "=" INT64_FORMAT "\n", opts->row_group_bytes);
	appendStringInfo(&buf, PEP_OPTION(PAGE_SIZE) "=" INT64_FORMAT "\n", opts->page_size);
	appendStringInfo(&buf, PEP_OPTION(DICTIONARY) "=%s\n", opts->dictionary == PEP_DICTIONARY_OFF ? "false" : "true");
	if (opts->dictionary == PEP_DICTIONARY_AUTO)
	{
		bool first = true;

		appendStringInfoString(&buf, PEP_OPTION(DICTIONARY_OFF_COLUMNS) "=");
		for (int c = 0; c < src->ncolumns; c++)
			if (src->columns[c].mostly_distinct)
			{
				appendStringInfo(&buf, "%s%d", first ? "" : ",", c);
				first = false;
			}
		appendStringInfoChar(&buf, '\n');
	}
	appendStringInfo(&buf, PEP_OPTION(STATISTICS) "=%s\n", opts->statistics ? "true" : "false");
	appendStringInfo(&buf, PEP_OPTION(WRITER_VERSION) "=%s\n", opts->parquet_version);
	appendStringInfo(&buf, PEP_OPTION(COMPATIBILITY) "=%s\n",
					 pep_compatibility_name(opts->types.compatibility));

	if (opts->bloom_filter_columns != NULL)
	{
		Datum *names;
		bool *nulls;
		int n;

		deconstruct_array(opts->bloom_filter_columns, TEXTOID, -1, false, TYPALIGN_INT,
						  &names, &nulls, &n);
		appendStringInfoString(&buf, PEP_OPTION(BLOOM_FILTER_COLUMNS) "=");
		for (int i = 0; i < n; i++)
		{
			char *name;
			int found = -1;

			if (nulls[i])
				pep_invalid("bloom_filter_columns", "NULL", "Name exported columns.");
			name = TextDatumGetCString(names[i]);
			for (int c = 0; c < src->ncolumns; c++)
				if (strcmp(src->columns[c].name, name) == 0)
					found = c;
			if (found < 0)
				pep_invalid("bloom_filter_columns", quote_identifier(name),
							"Name columns the source exports.");
			appendStringInfo(&buf, "%s%d", i > 0 ? "," : "", found);
		}
		appendStringInfoChar(&buf, '\n');
	}
	if (opts->field_ids != NULL)
		appendStringInfoString(&buf, pep_field_ids_line(opts->field_ids, src));
	if (opts->kv_metadata != NULL)
		appendStringInfoString(&buf, pep_kv_metadata_line(opts->kv_metadata));
	return buf.data;
}
