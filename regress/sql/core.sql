-- regress/sql/core.sql: parallel_export_parquet's core behaviour, run by
-- pg_prove (tools/test.sh): the extension installs with both signatures; an
-- export returns its row count and leaves part files and a _SUCCESS manifest
-- listing exactly them with their rows (adding up to the count) and bytes;
-- a query streamed to W workers gives W parts; zero rows give exactly one part;
-- the starve_worker test hook leaves the worker it names no block of a table;
-- every kind of source (table by name or regclass, qualified and quoted
-- names, view, matview, partitioned and foreign table, SELECT / WITH /
-- VALUES / TABLE queries); the caller's uncommitted rows are exported; the
-- calling backend never maps a JVM.
--
-- Everything runs in one transaction that is rolled back; only the export
-- directories under :outdir stay (tools/test.sh removes the cluster).
-- Row contents and Parquet types are checked by regress/readback.
\set topic core
BEGIN;
SET LOCAL client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
\ir ../lib/helpers.psql

SELECT plan(68);

-- Installation and signatures
DROP EXTENSION IF EXISTS parallel_export_parquet CASCADE;
SELECT lives_ok('CREATE EXTENSION parallel_export_parquet', 'extension installs');
SELECT has_function('parallel_export_parquet', ARRAY['text', 'text', 'integer', 'text', 'integer', 'bigint', 'bigint', 'bigint', 'integer', 'boolean', 'boolean', 'text', 'text[]', 'boolean', 'text', 'text', 'text', 'text[]', 'boolean', 'text', 'jsonb'],
                    'parallel_export_parquet(text, text, integer, options...) exists');
SELECT has_function('parallel_export_parquet', ARRAY['regclass', 'text', 'integer', 'text', 'integer', 'bigint', 'bigint', 'bigint', 'integer', 'boolean', 'boolean', 'text', 'text[]', 'boolean', 'text', 'text', 'text', 'text[]', 'boolean', 'text', 'jsonb'],
                    'parallel_export_parquet(regclass, text, integer, options...) exists');
SELECT function_returns('parallel_export_parquet', ARRAY['text', 'text', 'integer', 'text', 'integer', 'bigint', 'bigint', 'bigint', 'integer', 'boolean', 'boolean', 'text', 'text[]', 'boolean', 'text', 'text', 'text', 'text[]', 'boolean', 'text', 'jsonb'], 'bigint',
                        'text overload returns bigint');
SELECT function_returns('parallel_export_parquet', ARRAY['regclass', 'text', 'integer', 'text', 'integer', 'bigint', 'bigint', 'bigint', 'integer', 'boolean', 'boolean', 'text', 'text[]', 'boolean', 'text', 'text', 'text', 'text[]', 'boolean', 'text', 'jsonb'], 'bigint',
                        'regclass overload returns bigint');
SELECT matches(pg_get_function_arguments('parallel_export_parquet(text, text, integer, text, integer, bigint, bigint, bigint, integer, boolean, boolean, text, text[], boolean, text, text, text, text[], boolean, text, jsonb)'::regprocedure),
               'workers integer DEFAULT NULL', 'text overload: workers defaults to NULL');
SELECT matches(pg_get_function_arguments('parallel_export_parquet(regclass, text, integer, text, integer, bigint, bigint, bigint, integer, boolean, boolean, text, text[], boolean, text, text, text, text[], boolean, text, jsonb)'::regprocedure),
               'workers integer DEFAULT NULL', 'regclass overload: workers defaults to NULL');

-- A table of more than 1000 blocks, so a parallel heap scan has work to share.
CREATE TABLE core_big (id bigint, filler text);
INSERT INTO core_big SELECT g, repeat('x', 200) FROM generate_series(1, 45000) AS g;
SELECT cmp_ok(pg_relation_size('core_big') / 8192, '>=', 1000::bigint, 'core_big has at least 1000 blocks');

SELECT is(parallel_export_parquet('core_big', :'base' || '-w1', 1), 45000::bigint,
          'table, 1 worker: returns the row count');
SELECT is(pg_temp.layout_problem(:'base' || '-w1', 1, 1), NULL,
          'table, 1 worker: exactly one part, its _SUCCESS manifest, nothing else');
SELECT is(parallel_export_parquet('core_big', :'base' || '-w2', 2), 45000::bigint,
          'table, 2 workers: returns the row count');
SELECT is(pg_temp.layout_problem(:'base' || '-w2', 1, 2), NULL,
          'table, 2 workers: one or two parts, their _SUCCESS manifest, nothing else');
SELECT is(parallel_export_parquet('core_big', :'base' || '-w4', 4), 45000::bigint,
          'table, 4 workers: returns the row count');
SELECT is(pg_temp.layout_problem(:'base' || '-w4', 1, 4), NULL,
          'table, 4 workers: one to four parts, their _SUCCESS manifest, nothing else');
SELECT is(pg_temp.manifest_problem(:'base' || '-w' || w, 45000), NULL,
          format('table, %s workers: the manifest''s parts'' rows add up to the row count', w))
FROM unnest(ARRAY[1, 2, 4]) AS w;

-- The starve_worker test hook (tools/split_audit.sh): the worker it names
-- begins its share of a table's scan after the others have finished theirs,
-- so it gets no block. Worker 0's open_error strikes only if worker 0 has
-- rows: starved, it has none, and worker 1 writes the one part; the control
-- starves worker 1, and worker 0's fault strikes.
SET LOCAL parallel_export_parquet.fault_injection = 'open_error:0';
SET LOCAL parallel_export_parquet.starve_worker = 0;
SELECT is(parallel_export_parquet('core_big', :'base' || '-starve0', 2), 45000::bigint,
          'starve_worker = 0: worker 0 gets no block, so its open_error never strikes');
SELECT is(pg_temp.layout_problem(:'base' || '-starve0', 1, 1), NULL,
          'starve_worker = 0: the other worker wrote the one part');
SET LOCAL parallel_export_parquet.starve_worker = 1;
SELECT throws_like(format($$SELECT parallel_export_parquet('core_big', %L, 2)$$, :'base' || '-starve1'),
                   'injected fault while opening part%',
                   'control: starve_worker = 1 leaves the table to worker 0, whose open_error strikes');
RESET parallel_export_parquet.starve_worker;
RESET parallel_export_parquet.fault_injection;
SELECT is(parallel_export_parquet('core_big', :'base' || '-wdefault'), 45000::bigint,
          'table, workers omitted: returns the row count');
SELECT is(pg_temp.layout_problem(:'base' || '-wdefault', 1, 32), NULL,
          'table, workers omitted: a complete export');
SELECT is(parallel_export_parquet('core_big', :'base' || '-wnull', NULL), 45000::bigint,
          'table, workers NULL: returns the row count');

-- regclass overload
SELECT is(parallel_export_parquet('core_big'::regclass, :'base' || '-regclass', 2), 45000::bigint,
          'regclass overload returns the row count');
SELECT is(pg_temp.layout_problem(:'base' || '-regclass', 1, 2), NULL,
          'regclass overload: a complete export');

-- Zero rows: exactly one part, with the schema.
CREATE TABLE core_empty (a integer, b text, c numeric(12,2), d timestamptz);
SELECT is(parallel_export_parquet('core_empty', :'base' || '-empty', 4), 0::bigint,
          'empty table: returns 0');
SELECT is(pg_temp.layout_problem(:'base' || '-empty', 1, 1), NULL,
          'empty table, 4 workers: exactly one part and _SUCCESS');
SELECT is(parallel_export_parquet('SELECT * FROM core_big WHERE id < 0', :'base' || '-emptyq', 2), 0::bigint,
          'query with no rows: returns 0');
SELECT is(pg_temp.layout_problem(:'base' || '-emptyq', 1, 1), NULL,
          'query with no rows: exactly one part and _SUCCESS');

-- An existing empty directory is used.
SELECT pg_temp.sh('mkdir ' || pg_temp.q(:'base' || '-existing')) \g /dev/null
SELECT is(parallel_export_parquet('core_big', :'base' || '-existing', 2), 45000::bigint,
          'existing empty directory: returns the row count');
SELECT is(pg_temp.layout_problem(:'base' || '-existing', 1, 2), NULL,
          'existing empty directory: a complete export');

-- Names: qualified, quoted, folded, resolved through search_path.
CREATE SCHEMA "Core Schema";
CREATE TABLE "Core Schema"."Mixed Case" (id integer, "Odd Column" text);
INSERT INTO "Core Schema"."Mixed Case" SELECT g, 'v' || g FROM generate_series(1, 10) AS g;
CREATE SCHEMA core_s;
CREATE TABLE core_s.core_dup (id integer);
INSERT INTO core_s.core_dup SELECT generate_series(1, 5);
CREATE TABLE public.core_dup (id integer);
INSERT INTO public.core_dup SELECT generate_series(1, 3);

SELECT is(parallel_export_parquet('"Core Schema"."Mixed Case"', :'base' || '-quoted', 2), 10::bigint,
          'quoted qualified name');
SELECT is(pg_temp.layout_problem(:'base' || '-quoted', 1, 2), NULL, 'quoted qualified name: a complete export');
SELECT is(parallel_export_parquet('"Core Schema"."Mixed Case"'::regclass, :'base' || '-quotedrc', 1), 10::bigint,
          'quoted qualified name as regclass');
SELECT is(parallel_export_parquet('public.core_dup', :'base' || '-qualified', 1), 3::bigint,
          'schema-qualified name');
SELECT is(parallel_export_parquet('CORE_BIG', :'base' || '-folded', 1), 45000::bigint,
          'unquoted name is folded to lower case');
SET LOCAL search_path = core_s, public;
SELECT is(parallel_export_parquet('core_dup', :'base' || '-searchpath', 1), 5::bigint,
          'unqualified name resolves through search_path');
SELECT is(parallel_export_parquet('core_dup'::regclass, :'base' || '-searchpathrc', 1), 5::bigint,
          'regclass resolves through search_path');
SET LOCAL search_path = public;

-- Other relation kinds
CREATE VIEW core_v AS SELECT id, filler FROM core_big WHERE id % 10 = 0;
SELECT is(parallel_export_parquet('core_v', :'base' || '-view', 2), 4500::bigint, 'view');
SELECT is(pg_temp.layout_problem(:'base' || '-view', 1, 2), NULL, 'view: a complete export');

CREATE MATERIALIZED VIEW core_mv AS SELECT id FROM core_big WHERE id <= 1234;
SELECT is(parallel_export_parquet('core_mv', :'base' || '-matview', 2), 1234::bigint, 'materialized view');
SELECT is(pg_temp.layout_problem(:'base' || '-matview', 1, 2), NULL, 'materialized view: a complete export');

CREATE TABLE core_p (id integer, k text) PARTITION BY RANGE (id);
CREATE TABLE core_p1 PARTITION OF core_p FOR VALUES FROM (0) TO (100);
CREATE TABLE core_p2 PARTITION OF core_p FOR VALUES FROM (100) TO (1000);
CREATE TABLE core_p3 PARTITION OF core_p DEFAULT;
INSERT INTO core_p SELECT g, 'k' || g FROM generate_series(0, 2999) AS g;
SELECT is(parallel_export_parquet('core_p', :'base' || '-partitioned', 3), 3000::bigint, 'partitioned table');
SELECT is(pg_temp.layout_problem(:'base' || '-partitioned', 1, 3), NULL, 'partitioned table: a complete export');
SELECT is(parallel_export_parquet('core_p'::regclass, :'base' || '-partitionedrc', 2), 3000::bigint,
          'partitioned table as regclass');
SELECT is(parallel_export_parquet('core_p2', :'base' || '-leaf', 1), 900::bigint, 'one leaf partition');

CREATE EXTENSION IF NOT EXISTS file_fdw;
CREATE SERVER core_files FOREIGN DATA WRAPPER file_fdw;
CREATE FOREIGN TABLE core_ft (n integer) SERVER core_files OPTIONS (program 'seq 1 50');
SELECT is(parallel_export_parquet('core_ft', :'base' || '-foreign', 2), 50::bigint, 'foreign table');
SELECT is(pg_temp.layout_problem(:'base' || '-foreign', 1, 2), NULL, 'foreign table: a complete export');

-- Query forms
SELECT is(parallel_export_parquet('SELECT id FROM core_big WHERE id <= 100', :'base' || '-select', 2), 100::bigint,
          'SELECT query');
SELECT is(pg_temp.layout_problem(:'base' || '-select', 1, 2), NULL, 'SELECT query: a complete export');
SELECT is(parallel_export_parquet('WITH x AS (SELECT id FROM core_big WHERE id <= 50) SELECT * FROM x',
                                  :'base' || '-with', 2), 50::bigint, 'WITH query');
SELECT is(parallel_export_parquet($$VALUES (1, 'a'), (2, 'b'), (3, NULL)$$, :'base' || '-values', 2), 3::bigint,
          'VALUES query');
SELECT is(pg_temp.layout_problem(:'base' || '-values', 1, 2), NULL, 'VALUES query: a complete export');
SELECT is(parallel_export_parquet('TABLE core_mv', :'base' || '-tableq', 2), 1234::bigint, 'TABLE query');
SELECT is(parallel_export_parquet('select 1 AS one', :'base' || '-lower', 1), 1::bigint,
          'lower-case select');
-- How a table's heap scan shares its blocks depends on when each worker
-- runs, so no number of its parts above one is certain (t_progress.sh shows
-- the scan shared, with one worker held by a fault). A query's rows are
-- dealt by the caller round-robin in 64 kB chunks (pep_stream.c): 100000
-- integers are dozens of chunks, so each of the 4 workers launched writes
-- exactly one part.
SELECT is(parallel_export_parquet('SELECT g FROM generate_series(1, 100000) AS g', :'base' || '-big-query', 4),
          100000::bigint, 'query streamed to 4 workers: returns the row count');
SELECT is((parallel_export_parquet_last()).workers, 4, 'premise: the query was streamed to 4 workers');
SELECT is(pg_temp.layout_problem(:'base' || '-big-query', 4, 4), NULL,
          'query streamed to 4 workers: one part per worker, a complete export');

-- The caller's own uncommitted changes are what gets exported.
INSERT INTO core_big SELECT g, 'new' FROM generate_series(45001, 45123) AS g;
DELETE FROM core_big WHERE id <= 23;
UPDATE core_big SET filler = 'updated' WHERE id BETWEEN 100 AND 199;
SELECT is(parallel_export_parquet('core_big', :'base' || '-txn1', 4), 45100::bigint,
          'own inserts, deletes and updates in this transaction are exported');
SELECT is(parallel_export_parquet('SELECT * FROM core_big', :'base' || '-txn1q', 2), 45100::bigint,
          'same, through a query');
SAVEPOINT s1;
INSERT INTO core_big SELECT g, 'rolled back' FROM generate_series(50001, 50077) AS g;
ROLLBACK TO SAVEPOINT s1;
SELECT is(parallel_export_parquet('core_big', :'base' || '-txn2', 4), 45100::bigint,
          'rows of a rolled-back subtransaction are not exported');
SAVEPOINT s2;
INSERT INTO core_big SELECT g, 'released' FROM generate_series(60001, 60011) AS g;
RELEASE SAVEPOINT s2;
SELECT is(parallel_export_parquet('core_big', :'base' || '-txn3', 4), 45111::bigint,
          'rows of a released subtransaction are exported');
SAVEPOINT s3;
INSERT INTO core_big SELECT g, 'open' FROM generate_series(70001, 70005) AS g;
SELECT is(parallel_export_parquet('core_big', :'base' || '-txn4', 2), 45116::bigint,
          'export inside an open subtransaction sees its rows');
RELEASE SAVEPOINT s3;
SELECT is(pg_temp.layout_problem(:'base' || '-txn4', 1, 2), NULL, 'export inside a subtransaction: a complete export');
CREATE TABLE core_new AS SELECT g AS id FROM generate_series(1, 777) AS g;
SELECT is(parallel_export_parquet('core_new', :'base' || '-newtable', 2), 777::bigint,
          'table created in this transaction');
TRUNCATE core_new;
SELECT is(parallel_export_parquet('core_new', :'base' || '-truncated', 2), 0::bigint,
          'table truncated in this transaction');

-- Design invariant: the calling backend never loads a JVM.
SELECT doesnt_match(pg_read_file('/proc/' || pg_backend_pid() || '/maps'), 'libjvm',
              'the calling backend has no JVM mapped');

-- Still usable after all that.
SELECT is(count(*), 45116::bigint, 'session and table still usable') FROM core_big;

SELECT * FROM finish();
ROLLBACK;
