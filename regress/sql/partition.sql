-- regress/sql/partition.sql: partition_by, run by pg_prove (tools/test.sh).
-- Every refusal (unknown, duplicate or NULL column, every column, a type
-- whose folder name does not read back, too many partitions, a
-- value that would read back as NULL) by SQLSTATE and message, each with a
-- control that succeeds and each leaving nothing behind; then the folder
-- names themselves: Hive's escapes, the NULL folder, ISO dates and
-- timestamps whatever DateStyle and TimeZone say, _SUCCESS only at the
-- root, its manifest listing every part by its path, rows whose partition values' bytes are alike in a folder each;
-- overwrite of a partitioned or unpartitioned export, and its refusal
-- of a tree with a foreign file deep inside. The values inside the files are
-- read back by DuckDB and Spark (regress/readback, regress/matrix); the
-- object-store target by regress/t_s3_partition.sh.
\set topic partition
BEGIN;
SET LOCAL client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
\ir ../lib/helpers.psql

SELECT plan(52);

DROP EXTENSION IF EXISTS parallel_export_parquet CASCADE;
CREATE EXTENSION parallel_export_parquet;

-- The tree with part names reduced to "part", so counts per folder do not matter.
CREATE FUNCTION pg_temp.shape(dir text) RETURNS text[] LANGUAGE sql AS $$
    SELECT ARRAY(SELECT s FROM (SELECT DISTINCT regexp_replace(p, 'part-[0-9]{5}\.parquet$', 'part') AS s
                                FROM unnest(pg_temp.tree(dir)) AS p) AS d ORDER BY s COLLATE "C")
$$;

-- Names in outdir that an export of this file left beside its targets.
CREATE FUNCTION pg_temp.leftovers(base text) RETURNS text[] LANGUAGE sql AS $$
    SELECT ARRAY(SELECT f FROM pg_ls_dir(regexp_replace(base, '/[^/]*$', ''), true, false) AS f
                 WHERE f LIKE '.' || regexp_replace(base, '^.*/', '') || '%' ORDER BY 1)
$$;

CREATE TYPE part_mood AS ENUM ('calm', 'angry');
CREATE TYPE part_pair AS (a integer, b integer);
CREATE TABLE part_t AS
    SELECT g AS id, g % 3 AS k, (g % 2 = 0) AS flag, 'v' || g % 4 AS txt,
           g * 1.5 AS fl8, jsonb_build_object('g', g) AS js, ARRAY[g] AS arr,
           row(g, g)::part_pair AS pair, '\x00'::bytea AS raw
    FROM generate_series(1, 1000) AS g;

-- Refusals, each checked before anything is touched.
SELECT throws_ok(format($$SELECT parallel_export_parquet('part_t', %L, 1, partition_by => ARRAY['nope'])$$, :'base' || '-r'),
                 '42703', 'partition column "nope" is not a column of the source', 'an unknown column is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('part_t', %L, 1, partition_by => ARRAY['K'])$$, :'base' || '-r'),
                 '42703', 'partition column "K" is not a column of the source', 'names are case-sensitive');
SELECT throws_ok(format($$SELECT parallel_export_parquet('part_t', %L, 1, partition_by => ARRAY['k', 'flag', 'k'])$$, :'base' || '-r'),
                 '42701', 'partition column "k" is named more than once', 'a duplicate column is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('SELECT k, flag FROM part_t', %L, 1, partition_by => ARRAY['k', 'flag'])$$, :'base' || '-r'),
                 '22023', 'cannot partition by every column of the source', 'partitioning by every column is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('part_t', %L, 1, partition_by => ARRAY[]::text[])$$, :'base' || '-r'),
                 '22023', 'partition_by must name at least one column', 'an empty partition_by is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('part_t', %L, 1, partition_by => ARRAY['k', NULL])$$, :'base' || '-r'),
                 '22004', 'partition_by must not contain NULL', 'a NULL column name is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('SELECT id, fl8::float8 AS f FROM part_t', %L, 1, partition_by => ARRAY['f'])$$, :'base' || '-r'),
                 '0A000', 'cannot partition by column "f" of type double precision', 'a float column is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('part_t', %L, 1, partition_by => ARRAY['js'])$$, :'base' || '-r'),
                 '0A000', 'cannot partition by column "js" of type jsonb', 'a jsonb column is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('part_t', %L, 1, partition_by => ARRAY['arr'])$$, :'base' || '-r'),
                 '0A000', 'cannot partition by column "arr" of type integer[]', 'an array column is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('part_t', %L, 1, partition_by => ARRAY['pair'])$$, :'base' || '-r'),
                 '0A000', 'cannot partition by column "pair" of type part_pair', 'a composite column is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('part_t', %L, 1, partition_by => ARRAY['raw'])$$, :'base' || '-r'),
                 '0A000', 'cannot partition by column "raw" of type bytea', 'a bytea column is refused');
SELECT throws_ok($$SELECT parallel_export_parquet('part_t', 's3://pep-bucket/part', 1, partition_by => ARRAY['nope'])$$,
                 '42703', 'partition column "nope" is not a column of the source',
                 'partition_by into object storage is checked as for a directory');
SET LOCAL parallel_export_parquet.object_store_targets = '';
SELECT throws_ok($$SELECT parallel_export_parquet('part_t', 's3://pep-bucket/part', 1, partition_by => ARRAY['k'])$$,
                 '42501', 'object storage target "s3://pep-bucket/part/" is not allowed',
                 'control: partition_by into object storage is accepted, and goes on to the target''s checks');
RESET parallel_export_parquet.object_store_targets;
SELECT is(pg_temp.listing(:'base' || '-r'), NULL, 'no refused export created its directory');
SELECT is(pg_temp.leftovers(:'base'), '{}'::text[], 'and none left a lock or staging directory');

-- Control for the refusals: the same table, partitioned by columns it may be.
SELECT is(parallel_export_parquet('part_t', :'base' || '-ok', 2, partition_by => ARRAY['k', 'flag']),
          1000::bigint, 'control: partitioning by an integer and a boolean works');
SELECT is(pg_temp.shape(:'base' || '-ok'),
          ARRAY['_SUCCESS', 'k=0/', 'k=0/flag=false/', 'k=0/flag=false/part', 'k=0/flag=true/', 'k=0/flag=true/part',
                'k=1/', 'k=1/flag=false/', 'k=1/flag=false/part', 'k=1/flag=true/', 'k=1/flag=true/part',
                'k=2/', 'k=2/flag=false/', 'k=2/flag=false/part', 'k=2/flag=true/', 'k=2/flag=true/part'],
          'two levels of folders, parts only in the leaves, _SUCCESS only at the root');
SELECT is(pg_temp.manifest_problem(:'base' || '-ok', 1000), NULL,
          'its _SUCCESS manifest lists every part by its path under the root, with its folders, rows and bytes');

-- The partition limit: a superuser's setting, checked as folders are made.
SET LOCAL parallel_export_parquet.max_partitions = 3;
SELECT throws_ok(format($$SELECT parallel_export_parquet('part_t', %L, 2, partition_by => ARRAY['txt'])$$, :'base' || '-lim'),
                 '54000', 'export would write more than 3 partitions', 'more partitions than the limit fail the export');
SELECT is(pg_temp.listing(:'base' || '-lim'), NULL, 'and leave no directory');
SELECT is(pg_temp.leftovers(:'base'), '{}'::text[], 'and no staging directory or lock');
SET LOCAL parallel_export_parquet.max_partitions = 4;
SELECT is(parallel_export_parquet('part_t', :'base' || '-lim', 2, partition_by => ARRAY['txt']), 1000::bigint,
          'control: the same export within the limit works');
RESET parallel_export_parquet.max_partitions;
CREATE ROLE regress_part_user;
SET LOCAL ROLE regress_part_user;
SELECT throws_ok($$SET parallel_export_parquet.max_partitions = 100000$$, '42501', NULL,
                 'only a superuser may change the partition limit');
SELECT lives_ok($$SET parallel_export_parquet.partition_writers = 8$$,
                'control: anyone may change the writer limit of their own exports');
RESET ROLE;

-- Values that would read back as NULL fail the export mid-way and leave nothing.
CREATE TABLE part_marker AS SELECT g AS id, CASE WHEN g = 900 THEN '__HIVE_DEFAULT_PARTITION__' ELSE 'v' || g % 5 END AS txt
    FROM generate_series(1, 1000) AS g;
SELECT throws_ok(format($$SELECT parallel_export_parquet('part_marker', %L, 2, partition_by => ARRAY['txt'])$$, :'base' || '-mark'),
                 '22023', 'partition column "txt" holds the value "__HIVE_DEFAULT_PARTITION__"',
                 'a real value equal to the NULL marker is refused');
SELECT is(pg_temp.listing(:'base' || '-mark'), NULL, 'and the export left no directory');
SELECT is(pg_temp.leftovers(:'base'), '{}'::text[], 'and no staging directory, folder or lock');
SELECT throws_ok(format($$SELECT parallel_export_parquet('SELECT id, CASE WHEN id = 7 THEN '''' ELSE ''x'' END AS t FROM part_t', %L, 1, partition_by => ARRAY['t'])$$, :'base' || '-empty'),
                 '22023', 'partition column "t" holds an empty string', 'an empty string is refused');
SELECT is(parallel_export_parquet('SELECT id, CASE WHEN id = 7 THEN NULL ELSE ''x'' END AS t FROM part_t', :'base' || '-null', 1,
                                  partition_by => ARRAY['t']), 1000::bigint, 'control: NULL itself is written');
SELECT is(pg_temp.shape(:'base' || '-null'),
          ARRAY['_SUCCESS', 't=__HIVE_DEFAULT_PARTITION__/', 't=__HIVE_DEFAULT_PARTITION__/part', 't=x/', 't=x/part'],
          'into the __HIVE_DEFAULT_PARTITION__ folder');

-- Folder names: Hive's escapes, and text forms that no setting changes.
SET LOCAL DateStyle = 'SQL, DMY';
SET LOCAL TimeZone = 'Asia/Tokyo';
SELECT is(parallel_export_parquet(
    $q$SELECT n, v FROM (VALUES (1, 'a/b'), (2, 'x=y'), (3, '50%'), (4, 'with space'), (5, 'été'),
                              (6, E'tab\there'), (7, '#:?*[]^{}\"'''), (8, 'plain')) AS s(n, v)$q$,
    :'base' || '-esc', 2, partition_by => ARRAY['v']), 8::bigint, 'values needing escapes export');
SELECT is(ARRAY(SELECT p FROM unnest(pg_temp.tree(:'base' || '-esc')) AS p WHERE p LIKE '%/' ORDER BY p COLLATE "C"),
          ARRAY['v=%23%3A%3F%2A%5B%5D%5E%7B}%5C%22%27/', 'v=50%25/', 'v=a%2Fb/', 'v=plain/',
                'v=tab%09here/', 'v=with space/', 'v=x%3Dy/', 'v=été/'],
          'folder names are escaped as Hive escapes them');
SELECT is(parallel_export_parquet(
    $q$SELECT 1 AS n, date '2026-11-30' AS d, timestamp '2026-11-30 12:34:56.789' AS ts,
              timestamptz '2026-11-30 12:34:56+01' AS tz, 'calm'::part_mood AS m,
              'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS u, 12.50::numeric AS num, -7::bigint AS b$q$,
    :'base' || '-time', 1, partition_by => ARRAY['d', 'ts', 'tz', 'm', 'u', 'num', 'b']), 1::bigint,
    'dates, timestamps, enums, uuids, numerics and integers export');
SELECT is((pg_temp.tree(:'base' || '-time'))[8],
          'd=2026-11-30/ts=2026-11-30 12%3A34%3A56.789/tz=2026-11-30 11%3A34%3A56Z/m=calm/'
          || 'u=a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11/num=12.50/b=-7/',
          'in ISO form, the instant in UTC, whatever DateStyle and TimeZone are');

-- A worker finds a row's folder by its partition values' bytes (pep_route.c): each value
-- goes in with a null flag and its length, so values that would run together, or a NULL
-- beside an equal text, keep their own folders; so do numerics equal but for their scale.
SELECT is(parallel_export_parquet(
    $q$SELECT n, a, b FROM (VALUES (1, 'a', 'vbc'), (2, 'av', 'bc'), (3, NULL, '0'), (4, '0', NULL),
                                 (5, 'a', 'vbc')) AS s(n, a, b)$q$,
    :'base' || '-key', 1, partition_by => ARRAY['a', 'b']), 5::bigint, 'rows whose key bytes would run together export');
SELECT is(pg_temp.shape(:'base' || '-key'),
          ARRAY['_SUCCESS', 'a=0/', 'a=0/b=__HIVE_DEFAULT_PARTITION__/', 'a=0/b=__HIVE_DEFAULT_PARTITION__/part',
                'a=__HIVE_DEFAULT_PARTITION__/', 'a=__HIVE_DEFAULT_PARTITION__/b=0/', 'a=__HIVE_DEFAULT_PARTITION__/b=0/part',
                'a=a/', 'a=a/b=vbc/', 'a=a/b=vbc/part', 'a=av/', 'a=av/b=bc/', 'a=av/b=bc/part'],
          'into a folder each');
SELECT is(parallel_export_parquet($q$SELECT n, v FROM (VALUES (1, 1.0), (2, 1.00), (3, 1.0)) AS s(n, v)$q$,
                                  :'base' || '-scale', 1, partition_by => ARRAY['v']), 3::bigint,
          'numerics equal but for their scale export');
SELECT is(pg_temp.shape(:'base' || '-scale'), ARRAY['_SUCCESS', 'v=1.0/', 'v=1.0/part', 'v=1.00/', 'v=1.00/part'],
          'into a folder each, named as the value prints');

-- Overwrite: a partitioned export replaces a partitioned or an unpartitioned one, and the other way.
SELECT is(parallel_export_parquet('part_t', :'base' || '-ow', 2, partition_by => ARRAY['k', 'flag']), 1000::bigint,
          'overwrite: a first, partitioned export');
SELECT is(parallel_export_parquet('SELECT * FROM part_t WHERE k = 1', :'base' || '-ow', 1, overwrite => true,
                                  partition_by => ARRAY['flag']), 334::bigint,
          'overwrite: a partitioned export replaces it');
SELECT is(pg_temp.shape(:'base' || '-ow'), ARRAY['_SUCCESS', 'flag=false/', 'flag=false/part', 'flag=true/', 'flag=true/part'],
          'overwrite: only the new tree is there, the old folders are gone');
SELECT is(parallel_export_parquet('part_t', :'base' || '-ow', 1, overwrite => true), 1000::bigint,
          'overwrite: an unpartitioned export replaces a partitioned one');
SELECT is(pg_temp.shape(:'base' || '-ow'), ARRAY['_SUCCESS', 'part'], 'overwrite: no folder is left');
SELECT is(parallel_export_parquet('part_t', :'base' || '-ow', 2, overwrite => true, partition_by => ARRAY['k']),
          1000::bigint, 'overwrite: a partitioned export replaces an unpartitioned one');
SELECT is(pg_temp.shape(:'base' || '-ow'), ARRAY['_SUCCESS', 'k=0/', 'k=0/part', 'k=1/', 'k=1/part', 'k=2/', 'k=2/part'],
          'overwrite: folders only, the old parts are gone');
SELECT is(pg_temp.manifest_problem(:'base' || '-ow', 1000), NULL, 'overwrite: the manifest lists the new parts only');
SELECT pg_temp.sh(format('printf x > %s/k=1/notes.txt', pg_temp.q(:'base' || '-ow'))) \g /dev/null
SELECT pg_temp.tree(:'base' || '-ow') AS ow_before \gset
SELECT throws_ok(format($$SELECT parallel_export_parquet('part_t', %L, 2, overwrite => true, partition_by => ARRAY['k'])$$, :'base' || '-ow'),
                 '55000', format('directory "%s" does not hold only a previous export', :'base' || '-ow'),
                 'overwrite refuses a tree with a foreign file in a partition folder');
SELECT is(pg_temp.tree(:'base' || '-ow')::text, :'ow_before', 'and moves nothing');
SELECT is(pg_temp.leftovers(:'base'), '{}'::text[], 'and leaves no staging directory or lock');

-- No rows: nothing to put in a folder; _SUCCESS alone, as Spark writes.
SELECT is(parallel_export_parquet('SELECT * FROM part_t WHERE false', :'base' || '-zero', 2, partition_by => ARRAY['k']),
          0::bigint, 'an export without rows succeeds');
SELECT is(pg_temp.tree(:'base' || '-zero'), ARRAY['_SUCCESS'], 'and writes only _SUCCESS');
SELECT is(pg_temp.manifest_problem(:'base' || '-zero', 0), NULL, 'a manifest of no parts and no rows');

SELECT * FROM finish();
ROLLBACK;
