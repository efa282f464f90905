-- regress/sql/guard.sql: the directory guard of parallel_export_parquet, run
-- by pg_prove (tools/test.sh). Refused: a relative path, a non-empty
-- directory (hidden files and subdirectories count), a regular file, a path
-- whose parent is missing, an unknown source, a statement that is not a
-- query. A refused call creates nothing and leaves what was there as it was.
--
-- Each refusal is checked for its exact SQLSTATE (pg_temp.fails_with in
-- regress/lib/helpers.psql).
\set topic guard
BEGIN;
SET LOCAL client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
\ir ../lib/helpers.psql

SELECT plan(29);

DROP EXTENSION IF EXISTS parallel_export_parquet CASCADE;
CREATE EXTENSION parallel_export_parquet;

CREATE TABLE guard_t (id integer, v text);
INSERT INTO guard_t SELECT g, 'v' || g FROM generate_series(1, 1000) AS g;

-- The fixtures, all below :base.
SELECT pg_temp.sh(format('mkdir -p %1$s/nonempty %1$s/hidden %1$s/withsubdir/sub'
                         ' && printf sentinel > %1$s/nonempty/keep.txt'
                         ' && printf hidden > %1$s/hidden/.keep'
                         ' && printf afile > %1$s/afile',
                         pg_temp.q(:'base'))) \g /dev/null
SELECT is(pg_temp.listing(:'base'), ARRAY['afile', 'hidden', 'nonempty', 'withsubdir'],
          'fixtures are in place');

-- Relative paths
SELECT pg_temp.fails_with($$SELECT parallel_export_parquet('guard_t', 'pep_relative_probe', 1)$$,
                          ARRAY['22023'], 'relative path is refused');
SELECT pg_temp.fails_with($$SELECT parallel_export_parquet('guard_t', './pep_relative_probe_dot', 1)$$,
                          ARRAY['22023'], 'relative path starting with ./ is refused');
SELECT pg_temp.fails_with($$SELECT parallel_export_parquet('guard_t'::regclass, 'pep_relative_probe_rc', 1)$$,
                          ARRAY['22023'], 'relative path is refused by the regclass overload');
SELECT pg_temp.fails_with($$SELECT parallel_export_parquet('guard_t', '', 1)$$,
                          ARRAY['22023'], 'empty path is refused');
SELECT is(ARRAY(SELECT f FROM pg_ls_dir('.') AS f WHERE f LIKE 'pep_relative_probe%'), '{}'::text[],
          'refused relative paths created nothing in the data directory');

-- Non-empty directories
SELECT pg_temp.fails_with(format('SELECT parallel_export_parquet(%L, %L, 2)', 'guard_t', :'base' || '/nonempty'),
                          ARRAY['55000'], 'non-empty directory is refused');
SELECT is(pg_temp.listing(:'base' || '/nonempty'), ARRAY['keep.txt'], 'non-empty directory: listing untouched');
SELECT is(pg_read_file(:'base' || '/nonempty/keep.txt'), 'sentinel', 'non-empty directory: file content untouched');
SELECT pg_temp.fails_with(format('SELECT parallel_export_parquet(%L::regclass, %L, 2)', 'guard_t', :'base' || '/nonempty'),
                          ARRAY['55000'], 'non-empty directory is refused by the regclass overload');
SELECT pg_temp.fails_with(format('SELECT parallel_export_parquet(%L, %L, 2)', 'guard_t', :'base' || '/hidden'),
                          ARRAY['55000'], 'directory holding only a hidden file is refused');
SELECT is(pg_temp.listing(:'base' || '/hidden'), ARRAY['.keep'], 'hidden-file directory: listing untouched');
SELECT pg_temp.fails_with(format('SELECT parallel_export_parquet(%L, %L, 2)', 'guard_t', :'base' || '/withsubdir'),
                          ARRAY['55000'], 'directory holding only an empty subdirectory is refused');
SELECT is(pg_temp.listing(:'base' || '/withsubdir'), ARRAY['sub'], 'subdirectory case: listing untouched');
SELECT is(pg_temp.listing(:'base' || '/withsubdir/sub'), '{}'::text[], 'subdirectory case: subdirectory untouched');

-- A finished export is a non-empty directory too.
SELECT is(parallel_export_parquet('guard_t', :'base' || '/done', 2), 1000::bigint, 'a first export succeeds');
CREATE TEMP TABLE guard_done AS
    SELECT f, (pg_stat_file(:'base' || '/done/' || f)).size FROM pg_ls_dir(:'base' || '/done') AS f;
SELECT pg_temp.fails_with(format('SELECT parallel_export_parquet(%L, %L, 2)', 'guard_t', :'base' || '/done'),
                          ARRAY['55000'], 'a second export into the same directory is refused');
SELECT set_eq(format('SELECT f, (pg_stat_file(%L || f)).size FROM pg_ls_dir(%L) AS f',
                     :'base' || '/done/', :'base' || '/done'),
              'SELECT f, size FROM guard_done',
              'the first export is untouched (same files, same sizes)');

-- A regular file
SELECT pg_temp.fails_with(format('SELECT parallel_export_parquet(%L, %L, 2)', 'guard_t', :'base' || '/afile'),
                          ARRAY['42809'], 'a path that is a regular file is refused');
SELECT is(pg_read_file(:'base' || '/afile'), 'afile', 'the regular file is untouched');

-- Missing parent
SELECT pg_temp.fails_with(format('SELECT parallel_export_parquet(%L, %L, 2)', 'guard_t', :'base' || '/nope/child'),
                          ARRAY['58P01'], 'a path whose parent is missing is refused');
SELECT is((pg_stat_file(:'base' || '/nope', true)).size, NULL, 'the missing parent was not created');

-- Bad sources: nothing is published (the directory itself may have been made).
SELECT pg_temp.fails_with(format('SELECT parallel_export_parquet(%L, %L, 2)', 'guard_no_such_table', :'base' || '-nosuch'),
                          ARRAY['42P01'], 'an unknown relation is refused');
SELECT ok(pg_temp.nparts(:'base' || '-nosuch') = 0
          AND (pg_stat_file(:'base' || '-nosuch/_SUCCESS', true)).size IS NULL,
          'an unknown relation publishes nothing');
SELECT pg_temp.fails_with(format('SELECT parallel_export_parquet(%L, %L, 2)', 'SELECT FROM WHERE', :'base' || '-syntax'),
                          ARRAY['42601'], 'a query with a syntax error is refused');
SELECT ok(pg_temp.nparts(:'base' || '-syntax') = 0
          AND (pg_stat_file(:'base' || '-syntax/_SUCCESS', true)).size IS NULL,
          'a query with a syntax error publishes nothing');
SELECT pg_temp.fails_with(format('SELECT parallel_export_parquet(%L, %L, 2)', 'DELETE FROM guard_t', :'base' || '-delete'),
                          ARRAY['42809'], 'a DELETE statement is not a source');
SELECT pg_temp.sqlstate_of(format('SELECT parallel_export_parquet(%L, %L, 2)',
                                  'WITH d AS (DELETE FROM guard_t RETURNING *) SELECT * FROM d',
                                  :'base' || '-modcte')) \g /dev/null
SELECT is(count(*), 1000::bigint, 'neither a DELETE source nor a data-modifying WITH removed rows') FROM guard_t;

-- Refused calls made nothing next to the fixtures.
SELECT is(pg_temp.listing(:'base'), ARRAY['afile', 'done', 'hidden', 'nonempty', 'withsubdir'],
          'nothing but the first export was created below the fixtures directory');

SELECT * FROM finish();
ROLLBACK;
