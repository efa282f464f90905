-- tools/order_guard/cases.sql: what tools/order_guard.sh must report in SQL
-- (each line marked ORDER_GUARD_FINDS) and must not (every other line).
-- Never run; the lexer reads it.

-- The caller's (an apostrophe in a comment opens no literal) constant keys.
SELECT array_agg(x ORDER BY 1) FROM t;  -- ORDER_GUARD_FINDS
SELECT string_agg(t, ',' ORDER BY 2 DESC) FROM t;  -- ORDER_GUARD_FINDS
SELECT string_agg(t, ')' ORDER BY 1 NULLS FIRST) FROM t;  -- ORDER_GUARD_FINDS
SELECT json_agg(x ORDER BY x, 3) FROM t;  -- ORDER_GUARD_FINDS
SELECT jsonb_agg(x ORDER BY 1::int) FROM t;  -- ORDER_GUARD_FINDS
SELECT xmlagg(x ORDER BY -1) FROM t;  -- ORDER_GUARD_FINDS
SELECT row_number() OVER (PARTITION BY a ORDER BY 10) FROM t;  -- ORDER_GUARD_FINDS
SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY 1) FROM t;  -- ORDER_GUARD_FINDS
SELECT (SELECT array_agg(x ORDER BY 1) FROM u) FROM t;  -- ORDER_GUARD_FINDS
SELECT array_agg(x
                 ORDER
                 BY
                 1)  -- ORDER_GUARD_FINDS
FROM t;

-- regress/sql/upgrade.sql before 5270f05, which failed on PostgreSQL 17.
CREATE FUNCTION pg_temp.surface() RETURNS text[] LANGUAGE sql AS $$
    SELECT array_agg(format('%s %s', pg_describe_object(d.classid, d.objid, 0),
                            coalesce((SELECT relacl::text FROM pg_class WHERE oid = d.objid
                                      AND d.classid = 'pg_class'::regclass),
                                     (SELECT proacl::text FROM pg_proc WHERE oid = d.objid
                                      AND d.classid = 'pg_proc'::regclass)))
                     ORDER BY 1)  -- ORDER_GUARD_FINDS
           || pg_get_viewdef(to_regclass('parallel_export_parquet_progress'))
    FROM pg_depend AS d JOIN pg_extension AS e ON d.refobjid = e.oid
    WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
      AND e.extname = 'parallel_export_parquet'
$$;

-- SQL in literals and in bodies of other tags is read as SQL.
DO $body$
BEGIN
    EXECUTE 'SELECT array_agg(x ORDER BY 1) FROM t';  -- ORDER_GUARD_FINDS
    PERFORM format($q$SELECT string_agg(s, E'\'' ORDER BY 1) FROM %I$q$, 't');  -- ORDER_GUARD_FINDS
END
$body$;
SELECT is(pg_temp.f(), ARRAY['a'], 'the caller''s list' || (SELECT array_agg(x ORDER BY 1) FROM t)::text);  -- ORDER_GUARD_FINDS

-- Fine: a query's own ORDER BY names output columns, and keys that are
-- expressions sort by them.
SELECT a, b FROM t ORDER BY 1;
SELECT a, b FROM t ORDER BY a, 2 DESC;
SELECT ARRAY(SELECT f FROM pg_ls_dir('.') AS f ORDER BY 1);
SELECT (SELECT a FROM t ORDER BY 1 LIMIT 1), array_agg(x ORDER BY x) FROM t;
SELECT ((SELECT a FROM t) UNION (SELECT b FROM u) ORDER BY 1);
SELECT array_agg(x ORDER BY 1 + x), array_agg(x ORDER BY x1), array_agg(x ORDER BY "1") FROM t;
SELECT 'array_agg(x ORDER BY 1' || ')';
SELECT format('SELECT a FROM t ORDER BY 1'), "odd ( name" FROM t ORDER BY 1;
-- array_agg(x ORDER BY 1) in a comment
/* array_agg(x ORDER BY 1) in a block comment */
\set v 'array_agg(y'
SELECT :'v', count(*) FROM t ORDER BY 1;
