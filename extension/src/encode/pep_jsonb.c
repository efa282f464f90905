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
 * then measures the whole text with strlen.  This file writes the same text,
 * escaping each string where it lies and counting as it goes.  It walks the
 * stored containers itself (the layout utils/jsonb.h defines, the same in
 * every version) rather than through JsonbIteratorNext, which allocates a
 * frame per container and fills a JsonbValue per token: the walk cut a
 * 2-worker export of the benchmark table by a tenth of its CPU
 * (bench/results/jsonb.md).
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
 *	  extension/src/encode/pep_jsonb.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "miscadmin.h"
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
		char esc;

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
				char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf] };

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

static void pep_jsonb_put_container(StringInfo out, const JsonbContainer *jc);

/*
 * Append the child whose JEntry is entry and whose bytes are the len at
 * offset from base, as JsonbToCString does: a string escaped, a number as
 * numeric_out, a container recursively.  Numbers and containers start at
 * the next int-aligned offset, as fillJsonbValue reads them.
 */
static void
pep_jsonb_put_child(StringInfo out, JEntry entry, const char *base, uint32 offset, uint32 len)
{
	switch (entry & JENTRY_TYPEMASK)
	{
		case JENTRY_ISSTRING:
			pep_jsonb_put_string(out, base + offset, (int) len);
			break;
		case JENTRY_ISNUMERIC:
			pep_numeric_append(out, PointerGetDatum(base + INTALIGN(offset)));
			break;
		case JENTRY_ISBOOL_FALSE:
			pep_jsonb_append(out, "false", 5);
			break;
		case JENTRY_ISBOOL_TRUE:
			pep_jsonb_append(out, "true", 4);
			break;
		case JENTRY_ISNULL:
			pep_jsonb_append(out, "null", 4);
			break;
		case JENTRY_ISCONTAINER:
			pep_jsonb_put_container(out, (const JsonbContainer *) (base + INTALIGN(offset)));
			break;
		default:
			elog(ERROR, "unknown jsonb entry type: 0x%08x", entry & JENTRY_TYPEMASK);
	}
}

/*
 * Append an object or array.  An object's children are its keys, in the
 * order they are stored (the order jsonb_out prints), then its values in
 * the same order, so a key and its value are read with two cursors: the
 * values' starts after the last key.  Each child's JEntry holds its length,
 * or every JB_OFFSET_STRIDE-th its end offset (JBE_ADVANCE_OFFSET reads
 * both).  The root of a raw scalar is a one-element array without brackets.
 */
static void
pep_jsonb_put_container(StringInfo out, const JsonbContainer *jc)
{
	uint32 count = jc->header & JB_CMASK;

	check_stack_depth();
	if (jc->header & JB_FOBJECT)
	{
		const char *base = (const char *) &jc->children[count * 2];
		uint32 key_end = 0;
		uint32 value_end = 0;

		for (uint32 i = 0; i < count; i++)
			JBE_ADVANCE_OFFSET(value_end, jc->children[i]);
		appendStringInfoCharMacro(out, '{');
		for (uint32 i = 0; i < count; i++)
		{
			uint32 key_start = key_end;
			uint32 value_start = value_end;

			JBE_ADVANCE_OFFSET(key_end, jc->children[i]);
			JBE_ADVANCE_OFFSET(value_end, jc->children[count + i]);
			if (i > 0)
				pep_jsonb_append(out, ", ", 2);
			pep_jsonb_put_string(out, base + key_start, (int) (key_end - key_start));
			pep_jsonb_append(out, ": ", 2);
			pep_jsonb_put_child(out, jc->children[count + i], base, value_start,
								value_end - value_start);
		}
		appendStringInfoCharMacro(out, '}');
	}
	else
	{
		const char *base = (const char *) &jc->children[count];
		bool brackets = (jc->header & JB_FSCALAR) == 0;
		uint32 end = 0;

		if (brackets)
			appendStringInfoCharMacro(out, '[');
		for (uint32 i = 0; i < count; i++)
		{
			uint32 start = end;

			JBE_ADVANCE_OFFSET(end, jc->children[i]);
			if (i > 0)
				pep_jsonb_append(out, ", ", 2);
			pep_jsonb_put_child(out, jc->children[i], base, start, end - start);
		}
		if (brackets)
			appendStringInfoCharMacro(out, ']');
	}
}

/*
 * The text of a jsonb datum.  A document stored in line with a 1-byte header
 * (all of the benchmark table's) is copied to aligned memory here, because
 * the walk reads the container's fields as uint32.  DatumGetJsonbP copied it
 * too, in detoast_attr, but with rep movsq: gcc expands a memcpy whose size
 * it can bound (a short varlena holds at most 126 bytes) into that
 * instruction, whose start-up took most of the copy's time here, 2% of a
 * worker's CPU (bench/results/jsonb.md).  The empty asm hides that bound, so
 * the copy is a call to the C library's memcpy.  A compressed or out-of-line
 * document is detoasted as before, and one with a 4-byte header is read
 * where it lies.
 */
const char *
pep_jsonb_text(Datum value, Size *len)
{
	struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value));
	const JsonbContainer *root;
	StringInfoData out;

	if (VARATT_IS_SHORT(v))
	{
		Size size = VARSIZE_SHORT(v) - VARHDRSZ_SHORT;
		JsonbContainer *copy;

		__asm__(""
				: "+r"(size));
		copy = palloc(size);

		memcpy(copy, VARDATA_SHORT(v), size);
		root = copy;
	}
	else
		root = &((const Jsonb *) v)->root;
	initStringInfo(&out);
	enlargeStringInfo(&out, VARSIZE_ANY(v));
	pep_jsonb_put_container(&out, root);
	out.data[out.len] = '\0';
	*len = out.len;
	return out.data;
}
