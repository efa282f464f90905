-- regress/sql/options.sql: the named options of parallel_export_parquet, run
-- by pg_prove (tools/test.sh). Every bad value is refused before anything is
-- written, with an error that lists the valid values; overwrite replaces a
-- previous complete export (one of 1.1 too, whose _SUCCESS is empty) and
-- nothing else; file_size_bytes splits parts
-- (0: never);
-- unconstrained_numeric takes text, double or decimal(P,S) spelled out;
-- the progress view and the summary function report an export. What each
-- option does to the Parquet files is checked by regress/readback's
-- OptionsTest, with DuckDB.
\set topic options
BEGIN;
SET LOCAL client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
\ir ../lib/helpers.psql

SELECT plan(57);

DROP EXTENSION IF EXISTS parallel_export_parquet CASCADE;
CREATE EXTENSION parallel_export_parquet;

CREATE TABLE opt_t AS SELECT g AS id, md5(g::text) AS v FROM generate_series(1, 20000) AS g;

-- Bad values: each refused with 22023 and a hint, nothing created.
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 1, compression => 'lzo')$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "compression": ''lzo''',
                 'an unknown codec is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 1, compression => 'snappy', compression_level => 3)$$, :'base' || '-bad'),
                 '22023', 'option "compression_level" is not valid for compression snappy',
                 'a level for a codec without levels is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 1, compression => 'gzip', compression_level => 10)$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "compression_level": 10',
                 'a gzip level above 9 is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 1, compression => 'zstd', compression_level => 0)$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "compression_level": 0',
                 'a zstd level of 0 is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 1, compression => 'brotli', compression_level => 12)$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "compression_level": 12',
                 'a brotli level above 11 is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 1, compression => 'brotli', compression_level => -1)$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "compression_level": -1',
                 'a negative brotli level is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 1, row_group_rows => 0)$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "row_group_rows": 0',
                 'row_group_rows of 0 is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 1, row_group_bytes => 100)$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "row_group_bytes": 100',
                 'a row_group_bytes below 64 kB is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 1, file_size_bytes => -1)$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "file_size_bytes": -1',
                 'a negative file_size_bytes is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 1, page_size => 10)$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "page_size": 10',
                 'a tiny page_size is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 1, parquet_version => 'v3')$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "parquet_version": ''v3''',
                 'an unknown Parquet version is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 1, bloom_filter_columns => '{nope}')$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "bloom_filter_columns": nope',
                 'a bloom filter on a column the source lacks is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 0)$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "workers": 0', 'workers 0 is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, -3)$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "workers": -3', 'negative workers are refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 100000)$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "workers": 100000', 'absurd workers are refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 1, unconstrained_numeric => 'float')$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "unconstrained_numeric": ''float''',
                 'an unknown numeric mapping is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 1, unconstrained_numeric => 'decimal')$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "unconstrained_numeric": ''decimal''',
                 'a DECIMAL mapping without precision and scale is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 1, unconstrained_numeric => 'decimal(39,2)')$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "unconstrained_numeric": ''decimal(39,2)''',
                 'a DECIMAL wider than 38 digits is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 1, unconstrained_numeric => 'decimal(10,11)')$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "unconstrained_numeric": ''decimal(10,11)''',
                 'a DECIMAL scale above its precision is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 1, unconstrained_numeric => 'decimal(10,2)x')$$, :'base' || '-bad'),
                 '22023', 'invalid value for option "unconstrained_numeric": ''decimal(10,2)x''',
                 'trailing text after a DECIMAL mapping is refused');
SELECT is(pg_temp.listing(:'base' || '-bad'), NULL, 'refused options created nothing');

-- Option names are case-insensitive in their values.
SELECT is(parallel_export_parquet('opt_t', :'base' || '-upper', 1, compression => 'ZSTD', parquet_version => 'V2',
                                  unconstrained_numeric => ' Decimal( 38 , 9 ) '),
          20000::bigint, 'option values are case-insensitive');

-- brotli, with its whole level range (0 and 11 are its ends; what the parts
-- hold is checked by readback's OptionsTest).
SELECT is(parallel_export_parquet('opt_t', :'base' || '-brotli0', 2, compression => 'Brotli', compression_level => 0),
          20000::bigint, 'brotli at level 0 exports every row');
SELECT is(parallel_export_parquet('opt_t', :'base' || '-brotli11', 1, compression => 'brotli', compression_level => 11),
          20000::bigint, 'brotli at level 11 exports every row');
SELECT is(pg_temp.layout_problem(:'base' || '-brotli11', 1, 1000), NULL, 'a brotli export is a complete export');

-- file_size_bytes: one worker, many parts, dense names.
SELECT is(parallel_export_parquet('opt_t', :'base' || '-split', 1, file_size_bytes => 100000, row_group_rows => 2048),
          20000::bigint, 'file_size_bytes export returns every row');
SELECT ok(pg_temp.nparts(:'base' || '-split') >= 3, 'file_size_bytes gave several parts from one worker');
SELECT is(pg_temp.layout_problem(:'base' || '-split', 3, 1000), NULL, 'split export is a complete, densely numbered export');
-- file_size_bytes => 0 is no limit, not a limit of 0 bytes (which would end a
-- part after every batch): the same rows and row groups as the split above
-- stay in one part.
SELECT is(parallel_export_parquet('opt_t', :'base' || '-unsplit', 1, file_size_bytes => 0, row_group_rows => 2048),
          20000::bigint, 'file_size_bytes => 0 export returns every row');
SELECT is(pg_temp.nparts(:'base' || '-unsplit'), 1, 'file_size_bytes => 0 wrote one part');

-- overwrite. Every export here has one worker, so each part's rows, and so
-- its bytes, are the same in every run: with two, how the heap scan splits
-- the rows decides what part-00000 holds. The export to replace has several
-- parts (file_size_bytes), so the replacement must take away more than the
-- name it reuses; its part is compared with a fresh export of the same query.
SELECT is(parallel_export_parquet('opt_t', :'base' || '-over', 1, file_size_bytes => 100000, row_group_rows => 2048),
          20000::bigint, 'first export for overwrite');
SELECT cmp_ok(pg_temp.nparts(:'base' || '-over'), '>=', 2, 'premise: the export to replace has several parts');
SELECT md5(pg_read_binary_file(:'base' || '-over/part-00000.parquet')) AS old_md5 \gset
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 1)$$, :'base' || '-over'),
                 '55000', format('directory "%s" is not empty', :'base' || '-over'),
                 'without overwrite a previous export is not replaced');
SELECT is(parallel_export_parquet('SELECT * FROM opt_t WHERE id <= 5000', :'base' || '-over', 1, overwrite => true),
          5000::bigint, 'overwrite replaces a previous complete export');
SELECT is(pg_temp.layout_problem(:'base' || '-over', 1, 1), NULL, 'the replacement is a complete export of its own');
SELECT is(parallel_export_parquet('SELECT * FROM opt_t WHERE id <= 5000', :'base' || '-over-ref', 1),
          5000::bigint, 'the same query exported afresh, to compare with');
SELECT md5(pg_read_binary_file(:'base' || '-over-ref/part-00000.parquet')) AS ref_md5 \gset
SELECT isnt(:'ref_md5'::text, :'old_md5', 'premise: the replaced part-00000 differs from the new export''s');
SELECT is(md5(pg_read_binary_file(:'base' || '-over/part-00000.parquet')), :'ref_md5'::text,
          'the part is the new one, byte for byte');
SELECT is(pg_temp.listing(:'outdir')::text LIKE '%.pep-staging%', false, 'no staging directory is left after overwrite');
SELECT is(pg_temp.manifest_problem(:'base' || '-over', 5000), NULL,
          'the replacement''s manifest lists its own part, not the replaced ones');

-- An export of 1.1, whose _SUCCESS is empty, is overwritten as one with a manifest is.
SELECT is(parallel_export_parquet('opt_t', :'base' || '-old', 1, file_size_bytes => 100000, row_group_rows => 2048),
          20000::bigint, 'an export to make one of 1.1');
SELECT pg_temp.sh(format(': > %s/_SUCCESS', pg_temp.q(:'base' || '-old'))) \g /dev/null
SELECT is((pg_stat_file(:'base' || '-old/_SUCCESS')).size, 0::bigint, 'premise: its _SUCCESS is empty, as 1.1 wrote it');
SELECT is(parallel_export_parquet('SELECT * FROM opt_t WHERE id <= 5000', :'base' || '-old', 1, overwrite => true),
          5000::bigint, 'overwrite replaces an export of 1.1');
SELECT is(pg_temp.layout_problem(:'base' || '-old', 1, 1), NULL, 'with a complete export of its own and its manifest');

SELECT pg_temp.sh(format('mkdir %1$s && printf x > %1$s/notes.txt && touch %1$s/_SUCCESS', pg_temp.q(:'base' || '-foreign'))) \g /dev/null
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 1, overwrite => true)$$, :'base' || '-foreign'),
                 '55000', format('directory "%s" does not hold only a previous export', :'base' || '-foreign'),
                 'overwrite refuses a directory with foreign files');
SELECT is(pg_temp.listing(:'base' || '-foreign'), ARRAY['_SUCCESS', 'notes.txt'], 'the foreign directory is untouched');

SELECT pg_temp.sh(format('mkdir %1$s && touch %1$s/part-00000.parquet', pg_temp.q(:'base' || '-unfinished'))) \g /dev/null
SELECT throws_ok(format($$SELECT parallel_export_parquet('opt_t', %L, 1, overwrite => true)$$, :'base' || '-unfinished'),
                 '55000', format('directory "%s" does not hold a complete export', :'base' || '-unfinished'),
                 'overwrite refuses a directory without _SUCCESS');
SELECT is(parallel_export_parquet('opt_t', :'base' || '-empty-over', 1, overwrite => true), 20000::bigint,
          'overwrite into an absent directory is a plain export');

-- The summary of the last export, and the LOG line's setting.
SELECT is((parallel_export_parquet_last()).rows, 20000::bigint, 'summary: rows');
SELECT is((parallel_export_parquet_last()).directory, :'base' || '-empty-over', 'summary: directory');
SELECT is((parallel_export_parquet_last()).parts, 1, 'summary: parts');
SELECT ok((parallel_export_parquet_last()).bytes > 0, 'summary: bytes');
SELECT is((parallel_export_parquet_last()).workers, 1, 'summary: workers');
SELECT is(current_setting('parallel_export_parquet.log_exports'), 'on', 'exports are logged by default');

-- Progress: the view exists, is readable by everyone, and shows no export when none runs.
SELECT has_view('parallel_export_parquet_progress', 'the progress view exists');
SELECT ok(has_table_privilege('public', 'parallel_export_parquet_progress', 'SELECT'), 'everyone may read the progress view');
SELECT is((SELECT count(*) FROM parallel_export_parquet_progress), 0::bigint, 'no export in progress now');

SELECT * FROM finish();
ROLLBACK;
