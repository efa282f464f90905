/*-------------------------------------------------------------------------
 *
 * pep_jsonb.c
 *	  A jsonb value as the text jsonb's output function writes.
 *
 * Parquet has no binary JSON, so a jsonb column is written as its text.
 * jsonb_out was the largest single cost of a worker exporting a table with
 * one jsonb column among ten: about 30% of the worker's CPU (the benchmark
 * table's 10 million small documents, PostgreSQL 15).  Most of it was not
 * the formatting but its copies: before PostgreSQL 18, JsonbToCString
 * copies every key and string with pnstrdup (palloc, strnlen, memcpy) so
 * that escape_json can take a C string and scan it again, and the caller
 * then measures the whole text with strlen.  This file writes the same text
 * from the same iterator, escaping each string where it lies and counting
 * as it goes.
 *
 * The text must be exactly jsonb_out's, in every supported major version:
 * a reader compares it with what PostgreSQL shows.  The layout rules below
 * are JsonbToCString's without indentation (", " between items, ": " after
 * a key, a raw scalar without brackets), the escapes are escape_json's
 * (\b \f \n \r \t \" \\, any other byte below 0x20 as \u00XX in lower-case
 * hex, everything else as it is), and numbers are numeric_out's text
 * (pep_numtext.c).
 * The read-back tests compare every jsonb of their fixtures, escapes and
 * nesting included, with PostgreSQL's jsonb::text.
 *
 * IDENTIFICATION
 *	  extension/pep_jsonb.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/jsonb.h"
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

#include "pep_jsonb.h"
#include "pep_numtext.h"

/*
 * appendBinaryStringInfo, inline: most pieces are a few bytes (", ", a
 * bracket, a short string), and the call and its enlargeStringInfo call
 * cost more than the copy.  Keeps the terminating NUL's byte free.
 */
static inline void
pep_jsonb_append(StringInfo out, const char *bytes, int n)
{
	if (out->len + n >= out->maxlen)
		enlargeStringInfo(out, n);
	memcpy(out->data + out->len, bytes, n);
	out->len += n;
}

/* Append a JSON string literal of the len bytes at str, as escape_json does. */
static void
pep_jsonb_put_string(StringInfo out, const char *str, int len)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = str;
	const char *end = str + len;

	appendStringInfoCharMacro(out, '"');
	for (const char *p = str; p < end; p++)
	{
		unsigned char c = (unsigned char) *p;
		char		esc;

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		/* bytes that need no escape go in one copy */
		if (p > run)
			pep_jsonb_append(out, run, (int) (p - run));
		run = p + 1;
		switch (c)
		{
			case '\b':
				esc = 'b';
				break;
			case '\f':
				esc = 'f';
				break;
			case '\n':
				esc = 'n';
				break;
			case '\r':
				esc = 'r';
				break;
			case '\t':
				esc = 't';
				break;
			case '"':
			case '\\':
				esc = (char) c;
				break;
			default:
				{
					char		u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf]};

					pep_jsonb_append(out, u, sizeof(u));
					continue;
				}
		}
		appendStringInfoCharMacro(out, '\\');
		appendStringInfoCharMacro(out, esc);
	}
	if (end > run)
		pep_jsonb_append(out, run, (int) (end - run));
	appendStringInfoCharMacro(out, '"');
}

/* Append a scalar as jsonb_put_escaped_value does. */
static void
pep_jsonb_put_scalar(StringInfo out, const JsonbValue *v)
{
	switch (v->type)
	{
		case jbvNull:
			pep_jsonb_append(out, "null", 4);
			break;
		case jbvString:
			pep_jsonb_put_string(out, v->val.string.val, v->val.string.len);
			break;
		case jbvNumeric:
			pep_numeric_append(out, NumericGetDatum(v->val.numeric));
			break;
		case jbvBool:
			if (v->val.boolean)
				pep_jsonb_append(out, "true", 4);
			else
				pep_jsonb_append(out, "false", 5);
			break;
		default:
			elog(ERROR, "unknown jsonb scalar type: %d", (int) v->type);
	}
}

const char *
pep_jsonb_text(Datum value, Size *len)
{
	Jsonb	   *jb = DatumGetJsonbP(value);
	StringInfoData out;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken type;
	bool		first = true;
	bool		raw_scalar = false;

	initStringInfo(&out);
	enlargeStringInfo(&out, VARSIZE(jb));
	it = JsonbIteratorInit(&jb->root);
	while ((type = JsonbIteratorNext(&it, &v, false)) != WJB_DONE)
	{
		if (!first && type != WJB_END_ARRAY && type != WJB_END_OBJECT)
			pep_jsonb_append(&out, ", ", 2);
		/* a container's first item and a key's value follow no ", " */
		first = (type == WJB_BEGIN_ARRAY || type == WJB_BEGIN_OBJECT || type == WJB_KEY);
		switch (type)
		{
			case WJB_BEGIN_ARRAY:
				if (v.val.array.rawScalar)
					raw_scalar = true;
				else
					appendStringInfoCharMacro(&out, '[');
				break;
			case WJB_BEGIN_OBJECT:
				appendStringInfoCharMacro(&out, '{');
				break;
			case WJB_KEY:
				pep_jsonb_put_scalar(&out, &v);
				pep_jsonb_append(&out, ": ", 2);
				break;
			case WJB_VALUE:
			case WJB_ELEM:
				pep_jsonb_put_scalar(&out, &v);
				break;
			case WJB_END_ARRAY:
				if (!raw_scalar)
					appendStringInfoCharMacro(&out, ']');
				break;
			case WJB_END_OBJECT:
				appendStringInfoCharMacro(&out, '}');
				break;
			default:
				elog(ERROR, "unknown jsonb iterator token type: %d", (int) type);
		}
	}
	out.data[out.len] = '\0';
	*len = out.len;
	return out.data;
}
