-- regress/sql/compatibility.sql: the compatibility option of
-- parallel_export_parquet, run by pg_prove (tools/test.sh). 'none' (the
-- default, and what NULL means) keeps the faithful encodings; 'spark' is the
-- reader profile for Apache Spark; any other value is refused before anything
-- is written, with an error whose hint lists the accepted values. The choice
-- shows in parallel_export_parquet_last(). What each profile does to the
-- Parquet files is checked by regress/readback's CompatibilityTest (DuckDB)
-- and by the reader matrix (regress/matrix, every reader).
\set topic compatibility
BEGIN;
SET LOCAL client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
\ir ../lib/helpers.psql

SELECT plan(14);

DROP EXTENSION IF EXISTS parallel_export_parquet CASCADE;
CREATE EXTENSION parallel_export_parquet;

CREATE TABLE compat_t (id integer, u uuid, t time, tz timetz, ua uuid[]);
INSERT INTO compat_t
SELECT g, md5(g::text)::uuid, '12:34:56'::time, '12:34:56+02'::timetz, ARRAY[md5(g::text)::uuid]
FROM generate_series(1, 100) AS g;

-- The hint of the error sql raises, or NULL if it raises none.
CREATE FUNCTION pg_temp.hint_of(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    hint text;
BEGIN
    EXECUTE sql;
    RETURN NULL;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS hint = PG_EXCEPTION_HINT;
    RETURN hint;
END
$$;

-- Both export functions take the option at position 16, default 'none'.
SELECT is(ARRAY(SELECT format('%s %s', p.proargnames[17], pg_get_function_arg_default(p.oid, 17))
                FROM pg_proc AS p
                WHERE p.proname = 'parallel_export_parquet' ORDER BY p.oid),
          ARRAY['compatibility ''none''::text', 'compatibility ''none''::text'],
          'both export functions take compatibility at position 16, default ''none''');

-- Bad values: refused with 22023 and the accepted values, nothing created.
SELECT throws_ok(format($$SELECT parallel_export_parquet('compat_t', %L, 1, compatibility => 'hive')$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "compatibility": ''hive''',
                 'an unknown reader profile is refused');
SELECT is(pg_temp.hint_of(format($$SELECT parallel_export_parquet('compat_t', %L, 1, compatibility => 'hive')$$, :'base' || '-bad')),
          'Valid values are none and spark.', 'the refusal lists the accepted values');
SELECT throws_ok(format($$SELECT parallel_export_parquet('compat_t', %L, 1, compatibility => '')$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "compatibility": ''''',
                 'an empty reader profile is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('compat_t', %L, 1, compatibility => 'spark ')$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "compatibility": ''spark ''',
                 'a profile name with trailing space is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('compat_t'::regclass, %L, 1, compatibility => 'pandas')$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "compatibility": ''pandas''',
                 'the regclass variant refuses it too');
SELECT is(pg_temp.listing(:'base' || '-bad'), NULL, 'refused profiles created nothing');

-- Accepted values, and what the summary says.
SELECT is(parallel_export_parquet('compat_t', :'base' || '-default', 1), 100::bigint, 'the default exports');
SELECT is((parallel_export_parquet_last()).compatibility, 'none', 'summary: the default is none');
SELECT is(parallel_export_parquet('SELECT * FROM compat_t', :'base' || '-spark', 1, compatibility => 'Spark'),
          100::bigint, 'spark, in any case, exports a query');
SELECT is((parallel_export_parquet_last()).compatibility, 'spark', 'summary: spark');
SELECT is(pg_temp.layout_problem(:'base' || '-spark', 1, 1), NULL, 'the spark export is complete');
SELECT is(parallel_export_parquet('compat_t'::regclass, :'base' || '-null', 2, compatibility => NULL),
          100::bigint, 'NULL exports a relation');
SELECT is((parallel_export_parquet_last()).compatibility, 'none', 'summary: NULL means none');

SELECT * FROM finish();
ROLLBACK;
