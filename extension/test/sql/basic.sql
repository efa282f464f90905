-- extension/test/sql/basic.sql: a basic export, by `make installcheck`.
--
-- A table by name and as a regclass, a view, a query and an empty table are
-- exported; each call returns its row count, parallel_export_parquet_last()
-- summarizes it, and the directory holds the parts and _SUCCESS.  The
-- number of parts varies with how the scan splits between workers, so it is
-- compared with the summary, not printed.
\set topic basic
-- pg_regress runs psql in extension/, reading this file from standard input
\set ECHO none
\i test/sql/setup.psql

CREATE TABLE basic_t (id integer, v text, d date, n numeric(10,2), f float8,
                      b boolean, ts timestamptz, arr integer[]);
INSERT INTO basic_t
SELECT g, 'v' || g, date '2024-01-01' + g % 366, g / 100.0, g * 0.5, g % 2 = 0,
       timestamptz '2024-01-01 00:00+00' + g * interval '1 minute',
       ARRAY[g, g + 1]
FROM generate_series(1, 10000) AS g;
CREATE VIEW basic_v AS SELECT id, v FROM basic_t WHERE id <= 100;
CREATE TABLE basic_empty (id integer);

-- A table by name.
SELECT parallel_export_parquet('basic_t', :'base' || '_table', 2);
SELECT source, rows, workers BETWEEN 1 AND 2 AS workers_ok, bytes > 0 AS has_bytes,
       directory = :'base' || '_table' AS directory_ok
FROM parallel_export_parquet_last();
SELECT pg_temp.export_problem(:'base' || '_table', parts) FROM parallel_export_parquet_last();

-- The same table as a regclass.
SELECT parallel_export_parquet('basic_t'::regclass, :'base' || '_regclass', 2);
SELECT pg_temp.export_problem(:'base' || '_regclass', parts) FROM parallel_export_parquet_last();

-- A view and a query.
SELECT parallel_export_parquet('basic_v', :'base' || '_view', 1);
SELECT source, rows, parts FROM parallel_export_parquet_last();
SELECT pg_temp.export_problem(:'base' || '_view', 1);
SELECT parallel_export_parquet('SELECT id, arr FROM basic_t WHERE id % 10 = 0',
                               :'base' || '_query', 2);
SELECT source, rows FROM parallel_export_parquet_last();
SELECT pg_temp.export_problem(:'base' || '_query', parts) FROM parallel_export_parquet_last();

-- No rows: one part with the schema.
SELECT parallel_export_parquet('basic_empty', :'base' || '_empty', 1);
SELECT rows, parts FROM parallel_export_parquet_last();
SELECT pg_temp.export_problem(:'base' || '_empty', 1);

SELECT count(pg_temp.remove_export(:'base' || suffix)) AS removed
FROM unnest(ARRAY['_table', '_regclass', '_view', '_query', '_empty']) AS suffix;
