-- extension/test/sql/errors.sql: refused calls, by `make installcheck`.
--
-- Each refusal is an error that says what is wrong and leaves nothing
-- behind in the export area.  A call whose message names a directory of
-- this run is run through pg_temp.error_of, which shows its SQLSTATE and
-- the message with that directory as <base>.
\set topic errors
-- pg_regress runs psql in extension/, reading this file from standard input
\set ECHO none
\i test/sql/setup.psql

CREATE TABLE errors_t (id integer, v text);
INSERT INTO errors_t SELECT g, 'v' || g FROM generate_series(1, 100) AS g;

-- Arguments.
SELECT parallel_export_parquet(NULL::text, :'base' || '_x', 1);
SELECT parallel_export_parquet('errors_t', NULL, 1);
SELECT parallel_export_parquet('', :'base' || '_x', 1);

-- The directory.
SELECT parallel_export_parquet('errors_t', '', 1);
SELECT parallel_export_parquet('errors_t', 'relative/dir', 1);
SELECT parallel_export_parquet('errors_t', '/tmp/../tmp/pep_regress_dotdot', 1);
SELECT parallel_export_parquet('errors_t', '/', 1);
SELECT parallel_export_parquet('errors_t', '/nonexistent-pep-regress/dir', 1);
SELECT pg_temp.error_of(format('SELECT parallel_export_parquet(%L, %L, 1)', 'errors_t',
                               current_setting('data_directory') || '/pep_regress'),
                        current_setting('data_directory'), :'outdir');
-- A directory that holds something else; a regular file (its _SUCCESS)
-- where the directory or its parent should be.
SELECT parallel_export_parquet('errors_t', :'base' || '_dir', 1);
SELECT pg_temp.error_of(format('SELECT parallel_export_parquet(%L, %L, 1)', 'errors_t', dir),
                        :'base', :'outdir')
FROM unnest(ARRAY[:'base' || '_dir', :'base' || '_dir/_SUCCESS',
                  :'base' || '_dir/_SUCCESS/sub']) AS dir
ORDER BY dir;

-- The source.
SELECT parallel_export_parquet('errors_nosuch', :'base' || '_x', 1);
SELECT parallel_export_parquet('DELETE FROM errors_t', :'base' || '_x', 1);
SELECT parallel_export_parquet('SELECT 1; SELECT 2', :'base' || '_x', 1);
SELECT parallel_export_parquet('SELECT * FROM errors_t FOR UPDATE', :'base' || '_x', 1);
SELECT parallel_export_parquet('SELEC 1', :'base' || '_x', 1);
SELECT parallel_export_parquet('SELECT 1 AS a, 2 AS a', :'base' || '_x', 1);
SELECT parallel_export_parquet('SELECT', :'base' || '_x', 1);
CREATE INDEX errors_t_id ON errors_t (id);
SELECT parallel_export_parquet('errors_t_id', :'base' || '_x', 1);

-- What a worker's JVM needs, checked before anything is created.
SET parallel_export_parquet.libjvm_path = '/nonexistent-pep-regress/libjvm.so';
SELECT parallel_export_parquet('errors_t', :'base' || '_jvm', 1);
RESET parallel_export_parquet.libjvm_path;
SELECT set_config('parallel_export_parquet.jvm_options', '-Xmx' || repeat('0', 2100) || '512m', false)
       IS NOT NULL AS set;
SELECT parallel_export_parquet('errors_t', :'base' || '_jvm', 1);
RESET parallel_export_parquet.jvm_options;

-- The caller's rights.
CREATE ROLE regress_pep_nopriv;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO regress_pep_nopriv;
GRANT SELECT ON errors_t TO regress_pep_nopriv;
SET ROLE regress_pep_nopriv;
SELECT parallel_export_parquet('errors_t', :'base' || '_x', 1);
RESET ROLE;
REVOKE ALL ON errors_t FROM regress_pep_nopriv;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA public FROM regress_pep_nopriv;
DROP ROLE regress_pep_nopriv;

SELECT count(pg_temp.remove_export(:'base' || '_dir')) AS removed;
SELECT pg_temp.leftovers(:'base', :'outdir');
