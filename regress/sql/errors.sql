-- regress/sql/errors.sql: every bad input gets a clear error and writes
-- nothing, run by pg_prove (tools/test.sh). The directory guard's own cases
-- (relative, non-empty, a file, missing parent) are in guard.sql and the
-- options' in options.sql; here: NULL arguments, bad sources and queries,
-- protected directories, a JVM that cannot be found or started (refused
-- before anything is created), a worker out of memory, no worker slots,
-- dates and timestamps Parquet cannot hold. Each error is checked by
-- SQLSTATE and message, and after each the session still works.
\set topic errors
BEGIN;
SET LOCAL client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
\ir ../lib/helpers.psql

SELECT plan(43);

DROP EXTENSION IF EXISTS parallel_export_parquet CASCADE;
CREATE EXTENSION parallel_export_parquet;

CREATE TABLE err_t AS SELECT g AS id, repeat(md5(g::text), 30) AS wide FROM generate_series(1, 20000) AS g;
CREATE TABLE err_log (n integer);
CREATE FUNCTION err_writes() RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    INSERT INTO err_log VALUES (1);
    RETURN 1;
END
$$;

-- Arguments
SELECT throws_ok(format($$SELECT parallel_export_parquet(NULL::text, %L, 1)$$, :'base' || '-x'),
                 '22004', 'source must not be null', 'a NULL source is refused');
SELECT throws_ok($$SELECT parallel_export_parquet('err_t', NULL, 1)$$,
                 '22004', 'directory must not be null', 'a NULL directory is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('   ', %L, 1)$$, :'base' || '-x'),
                 '22023', 'source must not be empty', 'an empty source is refused');

-- Sources and queries
SELECT throws_ok(format($$SELECT parallel_export_parquet('no_such_table', %L, 1)$$, :'base' || '-x'),
                 '42P01', 'relation "no_such_table" does not exist', 'a missing relation is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('SELECT FROM WHERE', %L, 1)$$, :'base' || '-x'),
                 '42601', NULL, 'a query with a syntax error is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('SELECT 1; SELECT 2', %L, 1)$$, :'base' || '-x'),
                 '22023', 'source query must be a single statement', 'two statements are refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('INSERT INTO err_log VALUES (1) RETURNING n', %L, 1)$$, :'base' || '-x'),
                 '42809', 'source query must be a SELECT, VALUES, TABLE or WITH query', 'INSERT ... RETURNING is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('WITH w AS (INSERT INTO err_log VALUES (1) RETURNING n) SELECT * FROM w', %L, 1)$$, :'base' || '-x'),
                 '0A000', 'source query must not modify data', 'a data-modifying WITH is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('SELECT * FROM err_t FOR UPDATE', %L, 1)$$, :'base' || '-x'),
                 '0A000', 'source query must not lock rows', 'FOR UPDATE is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('SELECT 1 AS a, 2 AS a', %L, 1)$$, :'base' || '-x'),
                 '42701', 'column name "a" appears more than once in the source query',
                 'duplicate column names are refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('SELECT err_writes()', %L, 1)$$, :'base' || '-x'),
                 '25000', NULL, 'a function that writes fails in parallel mode');
SELECT is((SELECT count(*) FROM err_log), 0::bigint, 'and wrote nothing');
SELECT throws_ok(format($$SELECT parallel_export_parquet('pg_class_oid_index', %L, 1)$$, :'base' || '-x'),
                 '42809', '"pg_class_oid_index" is an index', 'an index is not a source');
SELECT throws_ok(format($$SELECT parallel_export_parquet('pg_toast.pg_toast_1255', %L, 1)$$, :'base' || '-x'),
                 '42809', 'cannot export "pg_toast_1255"', 'a TOAST table is not a source');
SELECT is(pg_temp.listing(:'base' || '-x'), NULL, 'no refused source created the directory');

-- Protected directories
SELECT throws_ok(format($$SELECT parallel_export_parquet('err_t', %L, 1)$$, current_setting('data_directory') || '/pep_out'),
                 '42501', 'cannot export into the data directory or a directory containing it',
                 'a directory inside the data directory is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('err_t', %L, 1)$$, :'base' || '/../x'),
                 '22023', 'directory must not contain ".." components', 'a path with .. is refused');
SELECT pg_temp.sh(format('mkdir -p %1$s && chmod 555 %1$s', pg_temp.q(:'base' || '-ro'))) \g /dev/null
SELECT throws_ok(format($$SELECT parallel_export_parquet('err_t', %L, 1)$$, :'base' || '-ro/out'),
                 '42501', format('could not write into directory "%s": Permission denied', :'base' || '-ro'),
                 'a parent the server cannot write is refused');
SELECT pg_temp.sh(format('ln -s %s %s', pg_temp.q(:'base' || '-ro'), pg_temp.q(:'base' || '-link'))) \g /dev/null
SELECT throws_ok(format($$SELECT parallel_export_parquet('err_t', %L, 1)$$, :'base' || '-link'),
                 '22023', format('directory "%s" is a symbolic link', :'base' || '-link'),
                 'a symbolic link as the last component is refused');

-- The JVM: what a worker's start needs is checked before the export
-- creates anything. The target's parent gets a modification time in 2001;
-- a lock file or staging directory created and removed again would move it
-- to now. Premise: an export that fails in its worker, after its staging
-- exists, leaves nothing but does move it.
SELECT pg_temp.sh(format('mkdir %1$s && touch -d @978307200 %1$s', pg_temp.q(:'base' || '-jvm')))
\g /dev/null
CREATE FUNCTION pg_temp.touched(dir text) RETURNS text LANGUAGE sql AS $$
    SELECT CASE WHEN (pg_stat_file(dir)).modification <> '2001-01-01 00:00:00+00'
                     OR pg_temp.listing(dir) <> '{}'
           THEN format('modified at %s, holds %s', (pg_stat_file(dir)).modification, pg_temp.listing(dir))
           END
$$;
SET LOCAL parallel_export_parquet.fault_injection = 'open_error:0';
SELECT throws_ok(format($$SELECT parallel_export_parquet('err_t', %L, 1)$$, :'base' || '-jvm/out'),
                 'XX000', NULL, 'premise: an export failing in its worker fails');
RESET parallel_export_parquet.fault_injection;
SELECT ok(pg_temp.listing(:'base' || '-jvm') = '{}' AND pg_temp.touched(:'base' || '-jvm') IS NOT NULL,
          'premise: it left nothing, but moved the parent''s modification time');
SELECT pg_temp.sh(format('touch -d @978307200 %s', pg_temp.q(:'base' || '-jvm'))) \g /dev/null

SET LOCAL parallel_export_parquet.libjvm_path = '/nonexistent/libjvm.so';
SELECT throws_ok(format($$SELECT parallel_export_parquet('err_t', %L, 1)$$, :'base' || '-jvm/out'),
                 '58P01', 'could not access java virtual machine library "/nonexistent/libjvm.so": No such file or directory',
                 'a missing libjvm is a clear error');
SELECT is(pg_temp.touched(:'base' || '-jvm'), NULL, 'and nothing was created');
SELECT pg_temp.sh(format('touch %1$s && chmod 000 %1$s', pg_temp.q(:'base' || '-libjvm.so'))) \g /dev/null
SELECT set_config('parallel_export_parquet.libjvm_path', :'base' || '-libjvm.so', true) \g /dev/null
SELECT throws_ok(format($$SELECT parallel_export_parquet('err_t', %L, 1)$$, :'base' || '-jvm/out'),
                 '42501', format('could not access java virtual machine library "%s": Permission denied', :'base' || '-libjvm.so'),
                 'a libjvm the server cannot read is a clear error');
SELECT is(pg_temp.touched(:'base' || '-jvm'), NULL, 'and nothing was created');
SELECT set_config('parallel_export_parquet.libjvm_path', :'outdir', true) \g /dev/null
SELECT throws_ok(format($$SELECT parallel_export_parquet('err_t', %L, 1)$$, :'base' || '-jvm/out'),
                 '42809', format('java virtual machine library "%s" is not a file', :'outdir'),
                 'a directory as libjvm is a clear error');
SELECT is(pg_temp.touched(:'base' || '-jvm'), NULL, 'and nothing was created');
RESET parallel_export_parquet.libjvm_path;
SELECT set_config('parallel_export_parquet.jvm_options', '-Xmx' || repeat('0', 2100) || '512m', true) \g /dev/null
SELECT throws_ok(format($$SELECT parallel_export_parquet('err_t', %L, 1)$$, :'base' || '-jvm/out'),
                 '54000', 'value of "parallel_export_parquet.jvm_options" is too long',
                 'JVM options too long for a worker are a clear error');
SELECT is(pg_temp.touched(:'base' || '-jvm'), NULL, 'and nothing was created');
RESET parallel_export_parquet.jvm_options;
SELECT is(parallel_export_parquet('err_t', :'base' || '-jvm/out', 1), 20000::bigint,
          'control: with the settings back, the same export succeeds');

SET LOCAL parallel_export_parquet.jvm_options = '-Xmx8m -XX:+UseSerialGC -XX:-UsePerfData -XX:+DisableAttachMechanism';
SELECT throws_ok(format($$SELECT parallel_export_parquet('err_t', %L, 1, row_group_rows => 1000000, row_group_bytes => 1000000000, dictionary => false)$$,
                        :'base' || '-oom'),
                 '53200', NULL, 'a worker out of Java heap is an out-of-memory error');
RESET parallel_export_parquet.jvm_options;
SELECT is(pg_temp.listing(:'base' || '-oom'), NULL, 'the out-of-memory export left nothing');

-- No worker slots
SET LOCAL max_parallel_workers = 0;
SELECT throws_ok(format($$SELECT parallel_export_parquet('err_t', %L, 2)$$, :'base' || '-noslots'),
                 '53000', 'could not start any parallel export worker', 'no worker slots is a clear error, not a hang');
RESET max_parallel_workers;
SELECT is(pg_temp.listing(:'base' || '-noslots'), NULL, 'the export without workers left nothing');

-- Dates and timestamps Parquet cannot hold. A worker stores them without a
-- branch per value and tests each row once (pep_batch.c); the error is the
-- one of the row's first failing column, in column order, after rows that
-- were fine (among them NULL uuids, whose Datum points nowhere).
CREATE FUNCTION pg_temp.error_of(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    state text;
    message text;
    detail text;
    hint text;
BEGIN
    EXECUTE sql;
    RETURN NULL;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT,
                            detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
    RETURN concat_ws(' | ', state, message, NULLIF(detail, ''), NULLIF(hint, ''));
END
$$;
CREATE FUNCTION pg_temp.export_error(source text, dir text) RETURNS text LANGUAGE sql AS $$
    SELECT pg_temp.error_of(format('SELECT parallel_export_parquet(%L, %L, 1)', source, dir))
$$;
-- What pep_put_fixed raises for an infinite date or timestamp (what) in column.
CREATE FUNCTION pg_temp.infinite(what text, col text) RETURNS text LANGUAGE sql AS $$
    SELECT format('22008 | cannot export an infinite %s in column "%s" | Parquet dates, timestamps'
                  ' and intervals have no infinite values. | Filter the rows out or replace the value'
                  ' in a query source.', what, col)
$$;
CREATE TABLE err_dates (id integer, d date, ts timestamp, tstz timestamptz, u uuid);
INSERT INTO err_dates
SELECT g, CASE WHEN g % 7 <> 0 THEN date '2024-02-29' + g END,
       CASE WHEN g % 5 <> 0 THEN timestamp '2024-02-29 12:00' + g * interval '1 minute' END,
       CASE WHEN g % 3 <> 0 THEN timestamptz '1969-12-31 23:59:59+00' - g * interval '1 day' END,
       CASE WHEN g % 2 <> 0 THEN md5(g::text)::uuid END
FROM generate_series(1, 5000) AS g;
INSERT INTO err_dates (id, d) VALUES (5001, 'infinity');
SELECT is(pg_temp.export_error('err_dates', :'base' || '-dates'),
          pg_temp.infinite('date', 'd'),
          'an infinite date after 5000 rows is refused with its column, detail and hint');
SELECT is(pg_temp.export_error(format('SELECT %L::%s AS %s', v, t, col), :'base' || '-dates'),
          pg_temp.infinite(what, col), format('%s %s is refused', v, t))
FROM (VALUES ('-infinity', 'date', 'date', 'd'), ('infinity', 'timestamp', 'timestamp', 'ts'),
             ('-infinity', 'timestamptz', 'timestamp', 'tstz')) AS c(v, t, what, col);
-- 294247-01-10 04:00:54.775807 UTC is 2^63 - 1 microseconds after 1970-01-01
-- (the offset is spelled out: the session's time zone must not move it)
SELECT is(pg_temp.export_error('SELECT ''294247-01-10 04:00:54.775808''::timestamp AS late', :'base' || '-dates'),
          '22008 | timestamp out of range for Parquet in column "late"',
          'a timestamp past Parquet''s last microsecond is refused');
SELECT is(parallel_export_parquet('SELECT ''294247-01-10 04:00:54.775807+00''::timestamptz AS last',
                                  :'base' || '-last', 1), 1::bigint,
          'and Parquet''s last microsecond is exported');
SELECT is(pg_temp.export_error('SELECT 1 AS id, ''infinity''::timestamp AS ts, ''infinity''::date AS d', :'base' || '-dates'),
          pg_temp.infinite('timestamp', 'ts'),
          'a row with two values to refuse fails on the first column');
SELECT is(pg_temp.listing(:'base' || '-dates'), NULL, 'the refused exports left nothing');

-- After all of that, exports still work.
SELECT is(parallel_export_parquet('err_t', :'base' || '-after', 2), 20000::bigint, 'the next export succeeds');

SELECT * FROM finish();
ROLLBACK;
