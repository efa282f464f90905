/*-------------------------------------------------------------------------
 *
 * pep_source.c
 *	  Resolve what an export reads.
 *
 * A source is a relation name or a query.  A plain table (or a populated
 * materialized view) is read by a shared parallel heap scan in the workers,
 * and a partitioned table by scanning its leaf partitions one after
 * another; both skip the executor, so this file checks SELECT privilege
 * itself.  Everything whose rows the heap alone cannot give (views, foreign
 * tables, tables with row-level security or inheritance children,
 * temporary tables, whose buffers workers cannot see, and queries) becomes
 * a query that the leader plans here and later runs; the executor then
 * checks privileges and applies row-level security as for any SELECT.
 *
 * A source needs what SELECT * FROM it would need, USAGE on its schema
 * included: a name is looked up with that check (as COPY does), and a
 * regclass, which may arrive as a bare OID that no lookup has checked, is
 * checked here.  An error in a query source's text points into that text,
 * not into the statement that called the export.
 *
 * IDENTIFICATION
 *	  extension/src/caller/pep_source.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_statistic.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "optimizer/plancat.h"
#include "parser/parsetree.h"
#include "parser/parser.h"
#include "rewrite/rewriteHandler.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/syscache.h"

#include "storage/bufmgr.h"

#include "pep_shared.h"
#include "pep_source.h"

/*
 * Is the text a query rather than a relation name?  A query starts with a
 * keyword that begins one; anything else with white space, parentheses or
 * a semicolon outside double quotes cannot be a (qualified) name either, so
 * it is parsed as a statement too, and a statement that is not a query gets
 * the error that says so instead of "invalid name syntax".
 */
static bool
pep_text_is_query(const char *text)
{
	static const char *const keywords[] = { "select", "with", "values", "table" };
	const char *p = text;
	const char *end = text + strlen(text);
	bool quoted = false;

	/* Surrounding white space never makes a name a query. */
	while (end > text && isspace((unsigned char) end[-1]))
		end--;
	for (;;)
	{
		while (*p && isspace((unsigned char) *p))
			p++;
		if (p[0] == '-' && p[1] == '-')
		{
			while (*p && *p != '\n')
				p++;
		}
		else if (p[0] == '/' && p[1] == '*')
		{
			const char *comment_end = strstr(p + 2, "*/");

			p = comment_end ? comment_end + 2 : p + strlen(p);
		}
		else
			break;
	}
	if (*p == '(')
		return true;
	for (int i = 0; i < lengthof(keywords); i++)
	{
		size_t len = strlen(keywords[i]);

		if (pg_strncasecmp(p, keywords[i], len) == 0 &&
			!isalnum((unsigned char) p[len]) && p[len] != '_' && p[len] != '$')
			return true;
	}
	for (; p < end; p++)
	{
		if (*p == '"')
			quoted = !quoted;
		else if (!quoted && (isspace((unsigned char) *p) || *p == '(' || *p == ';'))
			return true;
	}
	return false;
}

/*
 * Do the planner's statistics say that at least half of a column's values
 * differ?  parquet-java then tries a dictionary for the first page only to
 * give it up, which cost about 8% of a worker's time on such columns, and a
 * dictionary would not have made the file smaller anyway.
 */
static bool
pep_mostly_distinct(Relation rel, AttrNumber attnum, bool inherited)
{
	HeapTuple tup = SearchSysCache3(STATRELATTINH,
									ObjectIdGetDatum(RelationGetRelid(rel)),
									Int16GetDatum(attnum),
									BoolGetDatum(inherited));
	double reltuples = rel->rd_rel->reltuples;
	double fraction;
	float4 stadistinct;

	if (!HeapTupleIsValid(tup))
		return false;
	stadistinct = ((Form_pg_statistic) GETSTRUCT(tup))->stadistinct;
	ReleaseSysCache(tup);

	/* Negative: minus the fraction of rows; positive: a count of values. */
	if (stadistinct < 0)
		fraction = -stadistinct;
	else if (reltuples > 0)
		fraction = stadistinct / reltuples;
	else
		return false;
	return fraction >= 0.5;
}

/* Columns of a relation's row type, dropped columns skipped. */
static void
pep_columns_from_rel(PEPSource *src, Relation rel)
{
	TupleDesc desc = RelationGetDescr(rel);
	bool inherited = rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE;

	src->columns = palloc0(sizeof(PEPColumn) * Max(desc->natts, 1));
	src->ncolumns = 0;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		PEPColumn *col;

		if (att->attisdropped)
			continue;
		col = &src->columns[src->ncolumns++];
		pep_resolve_column(col, i, NameStr(att->attname), att->atttypid, att->atttypmod,
						   att->attndims, &src->types);
		/* Group columns have several leaves; their dictionaries stay as they are. */
		if (col->kind != PEP_KIND_LIST && col->kind != PEP_KIND_STRUCT &&
			col->kind != PEP_KIND_INTERVAL)
			col->mostly_distinct = pep_mostly_distinct(rel, att->attnum, inherited);
	}
}

/*
 * The declared array dimensions of a query's output column: those of the
 * table column it selects as it is, through views too; 0 (one dimension)
 * for anything computed.  Views do not record dimensions of their own.
 */
static int
pep_origin_ndims(const TargetEntry *tle)
{
	Oid relid = tle->resorigtbl;
	AttrNumber attnum = tle->resorigcol;

	/* a view of a view of ...: each step is one stored query */
	for (int depth = 0; depth < 100 && OidIsValid(relid) && attnum > 0; depth++)
	{
		HeapTuple tup;
		int ndims;

		if (get_rel_relkind(relid) == RELKIND_VIEW)
		{
			Relation view = relation_open(relid, AccessShareLock);
			Query *viewquery = get_view_query(view);
			TargetEntry *inner = get_tle_by_resno(viewquery->targetList, attnum);

			relid = inner != NULL ? inner->resorigtbl : InvalidOid;
			attnum = inner != NULL ? inner->resorigcol : 0;
			relation_close(view, NoLock);
			continue;
		}
		tup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(relid), Int16GetDatum(attnum));
		if (!HeapTupleIsValid(tup))
			return 0;
		ndims = ((Form_pg_attribute) GETSTRUCT(tup))->attndims;
		ReleaseSysCache(tup);
		return ndims;
	}
	return 0;
}

/*
 * Error context while a source query is parsed and planned, as SPI's: an
 * error position becomes a position in the source's text, shown with it;
 * any other error says that it arose in the source query.
 */
static void
pep_query_error_callback(void *arg)
{
	const char *query = (const char *) arg;
	int position = geterrposition();

	if (position > 0)
	{
		errposition(0);
		internalerrposition(position);
		internalerrquery(query);
	}
	else
		errcontext("source query \"%s\"", query);
}

/*
 * Plan a query source.  Only a single statement that returns rows and
 * writes nothing is accepted; the leader runs it in parallel mode, where
 * PostgreSQL itself refuses anything that would write.
 */
static void
pep_plan_query(PEPSource *src)
{
	ErrorContextCallback errcallback;
	List *raw;
	RawStmt *stmt;
	List *queries;
	Query *query;
	TupleDesc desc;
	ListCell *tlc;

	errcallback.callback = pep_query_error_callback;
	errcallback.arg = src->query;
	errcallback.previous = error_context_stack;
	error_context_stack = &errcallback;

	raw = pg_parse_query(src->query);
	if (list_length(raw) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("source query must be a single statement")));
	stmt = linitial_node(RawStmt, raw);
	if (!IsA(stmt->stmt, SelectStmt) || ((SelectStmt *) stmt->stmt)->intoClause != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("source query must be a SELECT, VALUES, TABLE or WITH query")));

	queries = pg_analyze_and_rewrite_fixedparams(stmt, src->query, NULL, 0, NULL);
	if (list_length(queries) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("source query must rewrite to a single query")));
	query = linitial_node(Query, queries);
	if (query->commandType != CMD_SELECT || query->utilityStmt != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("source query must be a SELECT, VALUES, TABLE or WITH query")));
	if (query->hasModifyingCTE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("source query must not modify data"),
				 errdetail("The query has a data-modifying WITH clause.")));
	if (query->rowMarks != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("source query must not lock rows"),
				 errdetail("FOR UPDATE, FOR SHARE and their variants are not supported.")));

	/* Planned without CURSOR_OPT_PARALLEL_OK: the leader runs it in parallel mode. */
	src->plan = pg_plan_query(query, src->query, 0, NULL);
	src->rows = src->plan->planTree->plan_rows;
	error_context_stack = errcallback.previous;

	desc = ExecCleanTypeFromTL(src->plan->planTree->targetlist);
	src->columns = palloc0(sizeof(PEPColumn) * Max(desc->natts, 1));
	src->ncolumns = desc->natts;
	tlc = list_head(query->targetList);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		TargetEntry *tle;

		/* the query's visible entries are the plan's result columns, in order */
		while (lfirst_node(TargetEntry, tlc)->resjunk)
			tlc = lnext(query->targetList, tlc);
		tle = lfirst_node(TargetEntry, tlc);
		tlc = lnext(query->targetList, tlc);

		for (int j = 0; j < i; j++)
			if (strcmp(NameStr(att->attname), src->columns[j].name) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_DUPLICATE_COLUMN),
						 errmsg("column name \"%s\" appears more than once in the source query",
								NameStr(att->attname)),
						 errhint("Give the columns distinct names with AS.")));
		pep_resolve_column(&src->columns[i], i, NameStr(att->attname),
						   att->atttypid, att->atttypmod, pep_origin_ndims(tle), &src->types);
	}
	if (src->ncolumns == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot export a source without columns")));
}

/* SELECT privilege on the whole relation, or on every column. */
static void
pep_check_select(Relation rel)
{
	Oid relid = RelationGetRelid(rel);
	Oid userid = GetUserId();

	if (pg_class_aclcheck(relid, userid, ACL_SELECT) == ACLCHECK_OK)
		return;
	if (pg_attribute_aclcheck_all(relid, userid, ACL_SELECT, ACLMASK_ALL) == ACLCHECK_OK)
		return;
	aclcheck_error(ACLCHECK_NO_PRIV, get_relkind_objtype(rel->rd_rel->relkind),
				   RelationGetRelationName(rel));
}

/*
 * USAGE on the relation's schema, which looking its name up requires.  A
 * regclass given as an OID was never looked up, and a relation read by
 * the workers' heap scans is never named in a query either.
 */
static void
pep_check_schema_usage(Relation rel)
{
	Oid nsp = RelationGetNamespace(rel);
#if PG_VERSION_NUM >= 160000
	AclResult result = object_aclcheck(NamespaceRelationId, nsp, GetUserId(), ACL_USAGE);
#else
	AclResult result = pg_namespace_aclcheck(nsp, GetUserId(), ACL_USAGE);
#endif

	if (result != ACLCHECK_OK)
		aclcheck_error(result, OBJECT_SCHEMA, get_namespace_name(nsp));
}

/* Can a worker read this relation's rows straight from its heap? */
static bool
pep_heap_readable(Relation rel)
{
	return (rel->rd_rel->relkind == RELKIND_RELATION ||
			rel->rd_rel->relkind == RELKIND_MATVIEW) &&
		   rel->rd_rel->relpersistence != RELPERSISTENCE_TEMP;
}

PEPSource *
pep_source_from_relid(Oid relid, const PEPTypeChoices *types)
{
	PEPSource *src = palloc0(sizeof(PEPSource));
	Relation rel;
	char relkind;
	bool heap = true;

	/*
	 * An index is refused here, not by table_open(): its message for one
	 * changed after PostgreSQL 15 (18 says "cannot open relation"), and
	 * this keeps the same error on every version.
	 */
	relkind = get_rel_relkind(relid);
	if (relkind == RELKIND_INDEX || relkind == RELKIND_PARTITIONED_INDEX)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is an index", get_rel_name(relid))));
	rel = table_open(relid, AccessShareLock);
	relkind = rel->rd_rel->relkind;
	src->types = *types;

	src->display = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
											  RelationGetRelationName(rel));
	pep_check_schema_usage(rel);
	src->parallel_workers = -1;

	if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE &&
		relkind != RELKIND_VIEW && relkind != RELKIND_MATVIEW &&
		relkind != RELKIND_FOREIGN_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot export \"%s\"", RelationGetRelationName(rel)),
				 errdetail("Only tables, views, materialized views, partitioned tables and foreign tables can be exported.")));

	if (relkind == RELKIND_MATVIEW && !RelationIsPopulated(rel))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("materialized view \"%s\" has not been populated",
						RelationGetRelationName(rel)),
				 errhint("Use the REFRESH MATERIALIZED VIEW command.")));

	if (relkind == RELKIND_VIEW || relkind == RELKIND_FOREIGN_TABLE ||
		rel->rd_rel->relpersistence == RELPERSISTENCE_TEMP ||
		check_enable_rls(relid, InvalidOid, false) == RLS_ENABLED)
		heap = false;
	else if (relkind == RELKIND_RELATION || relkind == RELKIND_MATVIEW)
	{
		if (has_subclass(relid))
			heap = false;
		else
			src->leaves = list_make1_oid(relid);
	}
	else
	{
		/* A partitioned table: its leaves, locked like a SELECT would. */
		List *all = find_all_inheritors(relid, AccessShareLock, NULL);
		ListCell *lc;

		foreach (lc, all)
		{
			Oid child = lfirst_oid(lc);
			Relation crel;

			if (get_rel_relkind(child) == RELKIND_PARTITIONED_TABLE)
				continue;
			crel = table_open(child, NoLock);
			if (!pep_heap_readable(crel))
				heap = false;
			table_close(crel, NoLock);
			src->leaves = lappend_oid(src->leaves, child);
		}
		if (src->leaves == NIL || list_length(src->leaves) > PEP_MAX_LEAVES)
			heap = false;
	}

	if (heap)
	{
		ListCell *lc;

		pep_check_select(rel);
		src->relid = relid;
		src->parallel_workers = RelationGetParallelWorkers(rel, -1);
		foreach (lc, src->leaves)
		{
			Relation leaf = table_open(lfirst_oid(lc), NoLock);
			BlockNumber pages;
			double tuples;
			double allvisfrac;

			src->pages += RelationGetNumberOfBlocks(leaf);
			/* The planner's estimate of SELECT * FROM leaf: statistics scaled to today's size. */
			estimate_rel_size(leaf, NULL, &pages, &tuples, &allvisfrac);
			src->rows += tuples;
			table_close(leaf, NoLock);
		}
		pep_columns_from_rel(src, rel);
		if (src->ncolumns == 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot export a source without columns")));
	}
	else
	{
		src->leaves = NIL;
		src->query = psprintf("SELECT * FROM %s", src->display);
		pep_plan_query(src);
	}

	/* Keep the lock until the end of the transaction, like a SELECT. */
	table_close(rel, NoLock);
	return src;
}

PEPSource *
pep_source_from_text(const char *text, const PEPTypeChoices *types)
{
	PEPSource *src;
	List *names;
	Oid relid;

	if (text[strspn(text, " \t\r\n")] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("source must not be empty"),
				 errhint("Give a table, view or query.")));

	if (pep_text_is_query(text))
	{
		src = palloc0(sizeof(PEPSource));
		src->display = pstrdup(text);
		src->parallel_workers = -1;
		src->query = pstrdup(text);
		src->types = *types;
		pep_plan_query(src);
		return src;
	}

#if PG_VERSION_NUM >= 160000
	names = stringToQualifiedNameList(text, NULL);
#else
	names = stringToQualifiedNameList(text);
#endif
	relid = RangeVarGetRelid(makeRangeVarFromNameList(names), AccessShareLock, false);
	return pep_source_from_relid(relid, types);
}
