/*-------------------------------------------------------------------------
 *
 * pep_partition.c
 *	  partition_by: which columns make the folders, and their folder names.
 *
 * The leader checks partition_by against the source before anything is
 * touched (pep_partition_resolve): every name an exported column, none
 * twice, at least one column left for the files, and only types whose text
 * form a reader of Hive layouts turns back into the same value.  Workers
 * then turn each row's values into a folder path (pep_partition_append),
 * the way Hive's FileUtils.escapePathName and Spark's
 * ExternalCatalogUtils.escapePathName write them, so that DuckDB, Spark
 * and Trino read the tree as a partitioned table (DESIGN.md, "Hive-partitioned
 * output").
 *
 * Folder names are UTF-8 whatever the database encoding (DESIGN.md, "Names
 * are UTF-8"): the column name and the value's text are converted here,
 * once, before they are escaped, and every later user of the path (mkdirat,
 * an object key, the ledger) takes those bytes as they are.  In a SQL_ASCII
 * database, where nothing checked the text, bytes that are not UTF-8 are an
 * error before any folder is made.
 *
 * Text forms do not depend on DateStyle, TimeZone or the locale: dates and
 * timestamps are ISO, a timestamp with time zone is the instant in UTC
 * with a "Z", booleans are true and false.  Every other allowed type uses
 * its output function, whose text no setting changes.
 *
 * IDENTIFICATION
 *	  extension/src/partition/pep_partition.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "pep_partition.h"
#include "pep_shared.h"

/* The longest name one folder may have (NAME_MAX on Linux). */
#define PEP_SEGMENT_MAX 255

/* Is the column's type one whose folder text reads back as the same value? */
static bool
pep_partition_type_ok(const PEPColumn *col)
{
	switch (col->basetypid)
	{
		case BOOLOID:
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case NUMERICOID:
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
		case NAMEOID:
		case UUIDOID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return true;
		default:
			return type_is_enum(col->basetypid);
	}
}

/*
 * Check partition_by against the source's columns and fill columns with
 * their indexes, in folder order.  Returns the number of levels, 0 when
 * the export is not partitioned.  Errors name the column at fault.
 */
int
pep_partition_resolve(const PEPSource *src, const PEPOptions *opts, int *columns)
{
	Datum *names;
	bool *nulls;
	int n;

	if (opts->partition_by == NULL)
		return 0;
	if (ARR_NDIM(opts->partition_by) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("partition_by must be a one-dimensional array")));
	deconstruct_array(opts->partition_by, TEXTOID, -1, false, TYPALIGN_INT, &names, &nulls, &n);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("partition_by must name at least one column"),
				 errhint("Pass NULL for an export without partition folders.")));
	if (n > PEP_MAX_PARTITION_LEVELS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("partition_by names %d columns", n),
				 errdetail("An export writes at most %d levels of partition folders.",
						   PEP_MAX_PARTITION_LEVELS)));
	if (n >= src->ncolumns)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot partition by every column of the source"),
				 errdetail("The source has %d columns and partition_by names %d.", src->ncolumns, n),
				 errhint("Leave at least one column out of partition_by, for the files.")));

	for (int i = 0; i < n; i++)
	{
		char *name;
		const PEPColumn *col = NULL;

		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("partition_by must not contain NULL")));
		name = TextDatumGetCString(names[i]);
		for (int c = 0; c < src->ncolumns; c++)
			if (strcmp(src->columns[c].name, name) == 0)
			{
				columns[i] = c;
				col = &src->columns[c];
			}
		if (col == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("partition column \"%s\" is not a column of the source", name),
					 errhint("Name columns the source exports, spelled as they are (case matters).")));
		for (int j = 0; j < i; j++)
			if (columns[j] == columns[i])
				ereport(ERROR,
						(errcode(ERRCODE_DUPLICATE_COLUMN),
						 errmsg("partition column \"%s\" is named more than once", name)));
		if (!pep_partition_type_ok(col))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot partition by column \"%s\" of type %s", name, col->pgtype),
					 errdetail("Partition folders hold booleans, integers, numerics, text, enums, uuids, dates and timestamps; readers cannot turn other types' folder names back into the same values.")));
	}
	return n;
}

/*
 * The columns the files hold when the partition columns stay out of them:
 * columns minus those n.  Each keeps its index into the row (attidx), so
 * only the list shrinks.  Used by the leader and by every worker.
 */
PEPColumn *
pep_partition_file_columns(const PEPColumn *columns, int ncolumns, const int *partition, int n,
						   int *nfile)
{
	PEPColumn *file = palloc(sizeof(PEPColumn) * ncolumns);

	*nfile = 0;
	for (int c = 0; c < ncolumns; c++)
	{
		bool is_partition = false;

		for (int i = 0; i < n; i++)
			is_partition |= (partition[i] == c);
		if (!is_partition)
			file[(*nfile)++] = columns[c];
	}
	return file;
}

/*
 * Append s to buf as Hive escapes a path name: '%' and two upper-case hex
 * digits for control characters, DEL and " # % ' * / : = ? \ { [ ] ^;
 * every other byte, space and UTF-8 included, as it is.
 */
static void
pep_escape(StringInfo buf, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (const unsigned char *p = (const unsigned char *) s; *p; p++)
	{
		if (*p < 0x20 || *p == 0x7F || strchr("\"#%'*/:=?\\{[]^", *p) != NULL)
		{
			appendStringInfoChar(buf, '%');
			appendStringInfoChar(buf, hex[*p >> 4]);
			appendStringInfoChar(buf, hex[*p & 0xF]);
		}
		else
			appendStringInfoChar(buf, (char) *p);
	}
}

/*
 * s, text in the database encoding, in UTF-8: a value of column, or with
 * column NULL the name of a column.  The error leaves a name that is not
 * UTF-8 out: a client's encoding could not take it.
 */
static char *
pep_partition_utf8(const char *s, const char *column)
{
	if (GetDatabaseEncoding() == PG_SQL_ASCII &&
		!pg_verify_mbstr(PG_UTF8, s, strlen(s), true))
		ereport(ERROR,
				(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
				 column ? errmsg("a value of partition column \"%s\" is not valid UTF-8", column) : errmsg("the name of a partition column is not valid UTF-8"),
				 errdetail("The database encoding is SQL_ASCII, which does not check text; folder names and object keys are UTF-8."),
				 errhint("Store the text as UTF-8, or partition by another column.")));
	return pg_server_to_any(s, strlen(s), PG_UTF8);
}

char *
pep_name_for_message(const char *utf8)
{
	return pg_any_to_server(utf8, strlen(utf8), PG_UTF8);
}

void
pep_partition_level_init(PEPPartitionLevel *level, const PEPColumn *column)
{
	StringInfoData prefix;
	Oid outfn;
	bool varlena;

	level->column = column;
	initStringInfo(&prefix);
	pep_escape(&prefix, pep_partition_utf8(column->name, NULL));
	appendStringInfoChar(&prefix, '=');
	level->prefix = prefix.data;
	getTypeOutputInfo(column->typid, &outfn, &varlena);
	fmgr_info(outfn, &level->outfn);
}

/* The value's folder text; see the file header. */
static char *
pep_partition_text(const PEPPartitionLevel *level, Datum value)
{
	char buf[MAXDATELEN + 2];
	struct pg_tm tm;
	fsec_t fsec;

	switch (level->column->basetypid)
	{
		case BOOLOID:
			return pstrdup(DatumGetBool(value) ? "true" : "false");
		case DATEOID:
			if (DATE_NOT_FINITE(DatumGetDateADT(value)))
				EncodeSpecialDate(DatumGetDateADT(value), buf);
			else
			{
				j2date(DatumGetDateADT(value) + POSTGRES_EPOCH_JDATE,
					   &tm.tm_year, &tm.tm_mon, &tm.tm_mday);
				EncodeDateOnly(&tm, USE_ISO_DATES, buf);
			}
			return pstrdup(buf);
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			if (TIMESTAMP_NOT_FINITE(DatumGetTimestamp(value)))
				EncodeSpecialTimestamp(DatumGetTimestamp(value), buf);
			else
			{
				/* Without a time zone to convert to, timestamp2tm gives UTC's fields. */
				if (timestamp2tm(DatumGetTimestamp(value), NULL, &tm, &fsec, NULL, NULL) != 0)
					ereport(ERROR,
							(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
							 errmsg("timestamp out of range")));
				EncodeDateTime(&tm, fsec, false, 0, NULL, USE_ISO_DATES, buf);
				if (level->column->basetypid == TIMESTAMPTZOID)
					strlcat(buf, "Z", sizeof(buf));
			}
			return pstrdup(buf);
		default:
			return OutputFunctionCall((FmgrInfo *) &level->outfn, value);
	}
}

/*
 * Append the folder of one level, "name=value", to path (after a '/' if
 * path is not empty).  A value that would read back as NULL (empty, or
 * Hive's NULL marker) or that makes the name too long for a folder is an
 * error naming the column.
 */
void
pep_partition_append(StringInfo path, const PEPPartitionLevel *level, Datum value, bool isnull)
{
	int start = path->len;
	const char *name = level->column->name;

	if (path->len > 0)
	{
		appendStringInfoChar(path, '/');
		start++;
	}
	appendStringInfoString(path, level->prefix);
	if (isnull)
		appendStringInfoString(path, PEP_NULL_PARTITION);
	else
	{
		char *text = pep_partition_text(level, value);

		if (text[0] == '\0')
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("partition column \"%s\" holds an empty string", name),
					 errdetail("Hive, Spark and DuckDB read an empty partition value as NULL.")));
		if (strcmp(text, PEP_NULL_PARTITION) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("partition column \"%s\" holds the value \"%s\"", name, PEP_NULL_PARTITION),
					 errdetail("Readers of Hive layouts take a folder of that name for NULL.")));
		pep_escape(path, pep_partition_utf8(text, name));
		pfree(text);
	}
	if (path->len - start > PEP_SEGMENT_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("partition folder name for column \"%s\" is too long", name),
				 errdetail("The escaped name takes %d bytes; a folder name may take %d.",
						   path->len - start, PEP_SEGMENT_MAX)));
}
