-- regress/sql/sources.sql: sources whose rows the heap alone does not give,
-- run by pg_prove (tools/test.sh). A temporary table (its buffers are the
-- caller's alone), a table with inheritance children (SELECT * includes
-- them), a table whose values live in TOAST, and an unpopulated
-- materialized view (refused like a SELECT would be). Each export must
-- return exactly what SELECT * returns.
\set topic sources
BEGIN;
SET LOCAL client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
\ir ../lib/helpers.psql

SELECT plan(10);

DROP EXTENSION IF EXISTS parallel_export_parquet CASCADE;
CREATE EXTENSION parallel_export_parquet;

-- A temporary table, with values large enough to be stored out of line.
CREATE TEMP TABLE src_temp AS
SELECT g AS id, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 200) AS i) AS big
FROM generate_series(1, 300) AS g;
SELECT ok(EXISTS (SELECT FROM pg_class c JOIN pg_class t ON t.oid = c.reltoastrelid
                  WHERE c.oid = 'src_temp'::regclass AND pg_relation_size(t.oid) > 0),
          'premise: the temporary table keeps values in TOAST');
SELECT is(parallel_export_parquet('src_temp', :'base' || '-temp', 2), 300::bigint,
          'a temporary table is exported through the caller');
SELECT is(pg_temp.layout_problem(:'base' || '-temp', 1, 2), NULL, 'temporary table: a complete export');

-- Inheritance: the parent's rows and its children's.
CREATE TABLE src_parent (id integer, v text);
CREATE TABLE src_child (extra integer) INHERITS (src_parent);
INSERT INTO src_parent SELECT g, 'p' FROM generate_series(1, 100) AS g;
INSERT INTO src_child SELECT g, 'c', g FROM generate_series(101, 150) AS g;
SELECT is(parallel_export_parquet('src_parent', :'base' || '-inherit', 2), 150::bigint,
          'a parent exports its children''s rows, as SELECT * does');
SELECT is(parallel_export_parquet('SELECT * FROM ONLY src_parent', :'base' || '-only', 1), 100::bigint,
          'ONLY in a query exports the parent''s own rows');

-- TOASTed values of a regular table, read by the workers themselves.
CREATE TABLE src_toast AS SELECT g AS id, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 200) AS i) AS big
FROM generate_series(1, 300) AS g;
SELECT is(parallel_export_parquet('src_toast', :'base' || '-toast', 2), 300::bigint,
          'a table whose values are in TOAST is exported by the workers');
SELECT is((pg_temp.layout_problem(:'base' || '-toast', 1, 2)), NULL, 'TOAST: a complete export');

-- An unpopulated materialized view is refused as SELECT refuses it.
CREATE MATERIALIZED VIEW src_mv AS SELECT 1 AS x WITH NO DATA;
SELECT throws_ok(format($$SELECT parallel_export_parquet('src_mv', %L, 1)$$, :'base' || '-mv'),
                 '55000', 'materialized view "src_mv" has not been populated',
                 'an unpopulated materialized view is refused');
SELECT is(pg_temp.listing(:'base' || '-mv'), NULL, 'and nothing is written');

-- A sequence is not a source.
CREATE SEQUENCE src_seq;
SELECT throws_ok(format($$SELECT parallel_export_parquet('src_seq', %L, 1)$$, :'base' || '-seq'),
                 '42809', 'cannot export "src_seq"', 'a sequence is refused');

SELECT * FROM finish();
ROLLBACK;
