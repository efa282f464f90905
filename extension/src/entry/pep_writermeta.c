/*-------------------------------------------------------------------------
 *
 * pep_writermeta.c
 *	  The options field_ids and kv_metadata, checked in the leader.
 *
 * Both say what every part's metadata carries besides the data: field_ids
 * the Parquet field id of each field of the schema (what Iceberg and other
 * table formats resolve columns by), kv_metadata extra pairs for the
 * footer's key-value metadata.  Each is checked here, before the target is
 * touched or a worker started, and becomes one line of the writer's
 * options (OptionNames.FIELD_IDS, OptionNames.KV_METADATA):
 *
 *	- field_ids: one id per numbered field of the Parquet schema, in its
 *	  pre-order (what BatchSink's FieldIds walks), -1 for none.  The numbered
 *	  fields are each column, then its nested fields: a composite's members,
 *	  an array's element ("element"), an interval's months, days and
 *	  microseconds.  A LIST's repeated "list" group gets none, as in DuckDB
 *	  and pg_parquet, whose 'auto' numbering (0, 1, 2, ... in that order)
 *	  this one matches.
 *	- kv_metadata: key:value pairs, each side hex-encoded UTF-8, separated
 *	  by commas, so that no text of the user's can break the line format.
 *
 * IDENTIFICATION
 *	  extension/src/entry/pep_writermeta.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "pep_contract.h"
#include "pep_writermeta.h"

/*
 * Keys kv_metadata may not set: the ones this writer writes itself, and
 * ones readers interpret, where a user's value would change how a part is
 * read (GeoParquet, Arrow, pandas, parquet-avro, Iceberg, parquet-java's
 * writer model).  Prefixes refuse every key they start.
 */
static const char *const pep_reserved_keys[] = {
	"geo", "ARROW:schema", "pandas", "parquet.avro.schema", "avro.schema",
	"writer.model.name", "iceberg.schema"
};
static const char *const pep_reserved_prefixes[] = {
	"parallel_export_parquet.", "org.apache.spark."
};

/* The interval group's fields, as IntervalValueWriter names them. */
static const char *const pep_interval_fields[] = { "months", "days", "microseconds" };

/* One numbered field of the schema: its dotted path and the id given it. */
typedef struct PEPField
{
	char *path;
	int64 id; /* -1: none */
} PEPField;

typedef struct PEPFields
{
	PEPField *items;
	int n;
	int size;
} PEPFields;

static void
pep_fields_add(PEPFields *fields, char *path)
{
	if (fields->n == fields->size)
	{
		fields->size = fields->size == 0 ? 16 : fields->size * 2;
		fields->items = fields->items == NULL
							? palloc(sizeof(PEPField) * fields->size)
							: repalloc(fields->items, sizeof(PEPField) * fields->size);
	}
	fields->items[fields->n].path = path;
	fields->items[fields->n].id = -1;
	fields->n++;
}

/* The node and its nested fields, in the pre-order FieldIds numbers them. */
static void
pep_fields_walk(PEPFields *fields, const PEPNode *node, char *path)
{
	pep_fields_add(fields, path);
	for (int i = 0; i < node->nchildren; i++)
		pep_fields_walk(fields, node->children[i], psprintf("%s.%s", path, node->children[i]->name));
	if (node->kind == PEP_KIND_INTERVAL)
		for (int i = 0; i < lengthof(pep_interval_fields); i++)
			pep_fields_add(fields, psprintf("%s.%s", path, pep_interval_fields[i]));
}

static void
pep_field_ids_invalid(const char *value)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value for option \"%s\": %s", "field_ids", value),
			 errhint("Valid values are auto and a JSON object of field names to integer ids.")));
}

/* The id of a field_ids entry: a JSON integer from 0 to 2147483647. */
static int64
pep_field_id(const char *path, const JsonbValue *value)
{
	char *text;
	char *end;
	int64 id;

	if (value->type != jbvNumeric)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid field id for \"%s\" in option \"%s\"", path, "field_ids"),
				 errdetail("A field id is a JSON number, not %s.", JsonbTypeName((JsonbValue *) value))));
	text = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(value->val.numeric)));
	errno = 0;
	id = strtoll(text, &end, 10);
	if (*end != '\0' || errno != 0 || id < 0 || id > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid field id for \"%s\" in option \"%s\"", path, "field_ids"),
				 errdetail("A field id is an integer from 0 to %d, not %s.", PG_INT32_MAX, text)));
	return id;
}

/* Gives each field the id the JSON object names it with. */
static void
pep_field_ids_explicit(PEPFields *fields, const char *spec)
{
	Jsonb *json = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(spec)));
	JsonbIterator *it;
	JsonbValue v;
	JsonbIteratorToken token;
	char *key = NULL;

	if (!JB_ROOT_IS_OBJECT(json) || JB_ROOT_IS_SCALAR(json))
		pep_field_ids_invalid(quote_literal_cstr(spec));
	it = JsonbIteratorInit(&json->root);
	while ((token = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		int found = -1;
		int64 id;

		if (token == WJB_KEY)
		{
			key = pnstrdup(v.val.string.val, v.val.string.len);
			continue;
		}
		if (token != WJB_VALUE)
			continue;
		for (int i = 0; i < fields->n; i++)
			if (strcmp(fields->items[i].path, key) == 0)
			{
				if (found >= 0)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("field name \"%s\" in option \"%s\" is ambiguous", key, "field_ids"),
							 errdetail("Two fields of the export have the path \"%s\".", key)));
				found = i;
			}
		if (found < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"%s\" names a field the export does not write", "field_ids"),
					 errdetail("No column or nested field of the export is named \"%s\".", key),
					 errhint("Name a column, a composite's field as column.field, an array's element as column.element.")));
		id = pep_field_id(key, &v);
		for (int i = 0; i < fields->n; i++)
			if (fields->items[i].id == id)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("option \"%s\" gives field id " INT64_FORMAT " twice", "field_ids", id),
						 errdetail("Fields \"%s\" and \"%s\" both have field id " INT64_FORMAT ".",
								   fields->items[i].path, key, id)));
		fields->items[found].id = id;
	}
}

char *
pep_field_ids_line(const char *spec, const PEPSource *src)
{
	PEPFields fields = { 0 };
	StringInfoData buf;

	for (int c = 0; c < src->ncolumns; c++)
	{
		const PEPColumn *col = &src->columns[c];

		pep_fields_walk(&fields,
						pep_resolve_tree(col->name, col->typid, col->typmod, col->ndims, &src->types),
						pstrdup(col->name));
	}
	if (pg_strcasecmp(spec, "auto") == 0)
		for (int i = 0; i < fields.n; i++)
			fields.items[i].id = i;
	else
		pep_field_ids_explicit(&fields, spec);

	initStringInfo(&buf);
	appendStringInfoString(&buf, PEP_OPTION(FIELD_IDS) "=");
	for (int i = 0; i < fields.n; i++)
		appendStringInfo(&buf, "%s" INT64_FORMAT, i > 0 ? "," : "", fields.items[i].id);
	appendStringInfoChar(&buf, '\n');
	return buf.data;
}

static void
pep_append_hex(StringInfo buf, const char *text, int len)
{
	enlargeStringInfo(buf, 2 * len + 1);
	buf->len += hex_encode(text, len, buf->data + buf->len);
	buf->data[buf->len] = '\0';
}

static void
pep_kv_key_check(const char *key)
{
	for (int i = 0; i < lengthof(pep_reserved_keys); i++)
		if (strcmp(key, pep_reserved_keys[i]) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("key \"%s\" of option \"%s\" is reserved", key, "kv_metadata"),
					 errdetail("Readers or this writer give the key \"%s\" a meaning of their own.", key)));
	for (int i = 0; i < lengthof(pep_reserved_prefixes); i++)
		if (strncmp(key, pep_reserved_prefixes[i], strlen(pep_reserved_prefixes[i])) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("key \"%s\" of option \"%s\" is reserved", key, "kv_metadata"),
					 errdetail("Keys starting with \"%s\" are written by this writer or read by Spark.",
							   pep_reserved_prefixes[i])));
}

char *
pep_kv_metadata_line(Jsonb *json)
{
	JsonbIterator *it;
	JsonbValue v;
	JsonbIteratorToken token;
	StringInfoData buf;
	char *key = NULL;
	bool first = true;

	if (!JB_ROOT_IS_OBJECT(json) || JB_ROOT_IS_SCALAR(json))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for option \"%s\": %s", "kv_metadata",
						JsonbToCString(NULL, &json->root, VARSIZE(json))),
				 errhint("Give a JSON object of string keys and string values.")));

	initStringInfo(&buf);
	appendStringInfoString(&buf, PEP_OPTION(KV_METADATA) "=");
	it = JsonbIteratorInit(&json->root);
	while ((token = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (token == WJB_KEY)
		{
			key = pnstrdup(v.val.string.val, v.val.string.len);
			pep_kv_key_check(key);
			if (!first)
				appendStringInfoChar(&buf, ',');
			first = false;
			pep_append_hex(&buf, v.val.string.val, v.val.string.len);
			appendStringInfoChar(&buf, ':');
			continue;
		}
		if (token != WJB_VALUE)
			continue;
		if (v.type != jbvString)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid value for key \"%s\" of option \"%s\"", key, "kv_metadata"),
					 errdetail("Key-value metadata values are JSON strings, not %s.", JsonbTypeName(&v))));
		pep_append_hex(&buf, v.val.string.val, v.val.string.len);
	}
	appendStringInfoChar(&buf, '\n');
	return buf.data;
}
