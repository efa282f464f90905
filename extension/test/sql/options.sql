-- extension/test/sql/options.sql: the export options, by `make installcheck`.
--
-- Every option with a valid value exports; NULL means an option's default;
-- every codec works; overwrite replaces a previous export.  A bad value is
-- refused with an error that names the option and lists the valid values,
-- before anything is created.
\set topic options
-- pg_regress runs psql in extension/, reading this file from standard input
\set ECHO none
\i test/sql/setup.psql

CREATE TABLE options_t (id integer, v text, n numeric);
INSERT INTO options_t SELECT g, 'v' || (g % 10), round(g / 7.0, 4) FROM generate_series(1, 1000) AS g;

-- Every option at once.
SELECT parallel_export_parquet('options_t', :'base' || '_all', 1,
                               compression => 'zstd', compression_level => 3,
                               row_group_rows => 100, row_group_bytes => 1048576,
                               file_size_bytes => 1000000, page_size => 8192,
                               dictionary => false, statistics => false,
                               parquet_version => 'v2', bloom_filter_columns => ARRAY['id'],
                               overwrite => false, unconstrained_numeric => 'decimal(20,4)');
SELECT pg_temp.export_problem(:'base' || '_all', 1);

-- NULL for every option.
SELECT parallel_export_parquet('options_t', :'base' || '_nulls', NULL,
                               compression => NULL, compression_level => NULL,
                               row_group_rows => NULL, row_group_bytes => NULL,
                               file_size_bytes => NULL, page_size => NULL,
                               dictionary => NULL, statistics => NULL,
                               parquet_version => NULL, bloom_filter_columns => NULL,
                               overwrite => NULL, unconstrained_numeric => NULL);
SELECT pg_temp.export_problem(:'base' || '_nulls', parts) FROM parallel_export_parquet_last();

-- Every codec, any case.
SELECT codec, parallel_export_parquet('options_t', :'base' || '_' || codec, 1,
                                      compression => upper(codec))
FROM unnest(ARRAY['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4_raw', 'brotli']) AS codec
ORDER BY codec;
SELECT codec, pg_temp.export_problem(:'base' || '_' || codec, 1)
FROM unnest(ARRAY['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4_raw', 'brotli']) AS codec
ORDER BY codec;

-- overwrite replaces a complete export; without it the directory is refused.
SELECT pg_temp.error_of(format('SELECT parallel_export_parquet(%L, %L, 1)',
                               'SELECT 1 AS one', :'base' || '_all'), :'base', :'outdir');
SELECT parallel_export_parquet('SELECT 1 AS one', :'base' || '_all', 1, overwrite => true);
SELECT pg_temp.export_problem(:'base' || '_all', 1);

-- Bad values.
SELECT parallel_export_parquet('options_t', :'base' || '_bad', 1, compression => 'lzo');
SELECT parallel_export_parquet('options_t', :'base' || '_bad', 1, compression_level => 3);
SELECT parallel_export_parquet('options_t', :'base' || '_bad', 1, compression => 'zstd',
                               compression_level => 23);
SELECT parallel_export_parquet('options_t', :'base' || '_bad', 1, compression => 'gzip',
                               compression_level => 0);
SELECT parallel_export_parquet('options_t', :'base' || '_bad', 1, compression => 'brotli',
                               compression_level => 12);
SELECT parallel_export_parquet('options_t', :'base' || '_bad', 1, compression => 'brotli',
                               compression_level => -1);
SELECT parallel_export_parquet('options_t', :'base' || '_bad', 0);
SELECT parallel_export_parquet('options_t', :'base' || '_bad', 1, row_group_rows => 0);
SELECT parallel_export_parquet('options_t', :'base' || '_bad', 1, row_group_bytes => 1024);
SELECT parallel_export_parquet('options_t', :'base' || '_bad', 1, file_size_bytes => -1);
SELECT parallel_export_parquet('options_t', :'base' || '_bad', 1, page_size => 100);
SELECT parallel_export_parquet('options_t', :'base' || '_bad', 1, parquet_version => 'v3');
SELECT parallel_export_parquet('options_t', :'base' || '_bad', 1,
                               unconstrained_numeric => 'decimal(40,2)');
SELECT parallel_export_parquet('options_t', :'base' || '_bad', 1,
                               unconstrained_numeric => 'decimal');
SELECT parallel_export_parquet('options_t', :'base' || '_bad', 1,
                               bloom_filter_columns => ARRAY['nosuch']);
SELECT parallel_export_parquet('options_t', :'base' || '_bad', 1,
                               bloom_filter_columns => ARRAY[NULL]);

SELECT count(pg_temp.remove_export(:'base' || suffix)) AS removed
FROM unnest(ARRAY['_all', '_nulls', '_uncompressed', '_snappy', '_gzip', '_zstd',
                  '_lz4_raw', '_brotli']) AS suffix;
SELECT pg_temp.leftovers(:'base', :'outdir');
