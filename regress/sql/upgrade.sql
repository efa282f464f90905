-- regress/sql/upgrade.sql: versions 1.0 and 1.1 upgrade to 1.2 in place,
-- run by pg_prove (tools/test.sh). A database that installed the released
-- 1.0 (then one that installed 1.1) exports, runs ALTER EXTENSION
-- parallel_export_parquet UPDATE, and exports again; what the update leaves
-- (members, view text, privileges) is exactly what CREATE EXTENSION of 1.2
-- creates. The library's hint to run ALTER EXTENSION ... UPDATE has a path
-- to follow.
\set topic upgrade
BEGIN;
SET LOCAL client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
\ir ../lib/helpers.psql

SELECT plan(20);

DROP EXTENSION IF EXISTS parallel_export_parquet CASCADE;
CREATE TABLE upg_t AS SELECT g AS id, md5(g::text) AS s FROM generate_series(1, 5000) AS g;

-- The extension's members with their privileges, sorted by that text (the
-- order of pg_depend's rows differs between an update and a fresh install),
-- and the view's text.
CREATE FUNCTION pg_temp.surface() RETURNS text[] LANGUAGE sql AS $$
    SELECT array_agg(m.member ORDER BY m.member)
           || pg_get_viewdef(to_regclass('parallel_export_parquet_progress'))
    FROM (SELECT format('%s %s', pg_describe_object(d.classid, d.objid, 0),
                        coalesce((SELECT relacl::text FROM pg_class WHERE oid = d.objid
                                  AND d.classid = 'pg_class'::regclass),
                                 (SELECT proacl::text FROM pg_proc WHERE oid = d.objid
                                  AND d.classid = 'pg_proc'::regclass))) AS member
          FROM pg_depend AS d JOIN pg_extension AS e ON d.refobjid = e.oid
          WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
            AND e.extname = 'parallel_export_parquet') AS m
$$;

-- The library's hint for SQL definitions older than itself says to run
-- ALTER EXTENSION ... UPDATE: there must be a path from every older version.
SELECT is(ARRAY(SELECT source || '->' || path FROM pg_extension_update_paths('parallel_export_parquet')
                WHERE target = '1.2' AND path IS NOT NULL ORDER BY source),
          ARRAY['1.0->1.0--1.1--1.2', '1.1->1.1--1.2'], 'every older version has an update path to 1.2');

CREATE EXTENSION parallel_export_parquet VERSION '1.0';
SELECT is((SELECT extversion FROM pg_extension WHERE extname = 'parallel_export_parquet'), '1.0',
          'premise: 1.0 is installed');
SELECT is(parallel_export_parquet('upg_t', :'base' || '-v10', 2), 5000::bigint, '1.0 exports');
SELECT is(pg_temp.layout_problem(:'base' || '-v10', 1, 2), NULL, '1.0''s export is complete');
SELECT is((parallel_export_parquet_last()).rows, 5000::bigint, '1.0''s summary function reads the summary');

SELECT lives_ok('ALTER EXTENSION parallel_export_parquet UPDATE', 'ALTER EXTENSION ... UPDATE runs');
SELECT is((SELECT extversion FROM pg_extension WHERE extname = 'parallel_export_parquet'), '1.2',
          'the update reaches 1.2');
SELECT is(parallel_export_parquet('upg_t', :'base' || '-v11', 2), 5000::bigint, 'the updated extension exports');
SELECT is(pg_temp.layout_problem(:'base' || '-v11', 1, 2), NULL, 'its export is complete');
SELECT is((parallel_export_parquet_last()).compatibility, 'none', 'the updated summary names the reader profile');
SELECT is(parallel_export_parquet('SELECT * FROM upg_t', :'base' || '-v11-query', 2), 5000::bigint,
          'and a query source');
SELECT is(parallel_export_parquet('upg_t', :'base' || '-v10-12-ids', 2, field_ids => 'auto',
                                  kv_metadata => '{"k": "v"}'), 5000::bigint,
          'the updated extension takes 1.2''s field_ids and kv_metadata');
SELECT surface AS updated FROM pg_temp.surface() AS surface \gset

-- The same from the released 1.1.
DROP EXTENSION parallel_export_parquet;
CREATE EXTENSION parallel_export_parquet VERSION '1.1';
SELECT is((SELECT extversion FROM pg_extension WHERE extname = 'parallel_export_parquet'), '1.1',
          'premise: 1.1 is installed');
SELECT is(parallel_export_parquet('upg_t', :'base' || '-v11-only', 2, compatibility => 'spark'), 5000::bigint,
          '1.1 exports');
SELECT lives_ok('ALTER EXTENSION parallel_export_parquet UPDATE', 'ALTER EXTENSION ... UPDATE from 1.1 runs');
SELECT is((SELECT extversion FROM pg_extension WHERE extname = 'parallel_export_parquet'), '1.2',
          'the update from 1.1 reaches 1.2');
SELECT is(pg_temp.surface(), :'updated'::text[],
          'updated from 1.1 or from 1.0, the extension has the same members, privileges and view');

DROP EXTENSION parallel_export_parquet;
CREATE EXTENSION parallel_export_parquet;
SELECT is((SELECT extversion FROM pg_extension WHERE extname = 'parallel_export_parquet'), '1.2',
          'CREATE EXTENSION installs 1.2');
SELECT is(pg_temp.surface(), :'updated'::text[],
          'the updated extension has the members, privileges and view of a fresh 1.2');
SELECT is(parallel_export_parquet('upg_t', :'base' || '-fresh', 2), 5000::bigint, 'a fresh 1.2 exports');

SELECT * FROM finish();
ROLLBACK;
