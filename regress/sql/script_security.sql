-- regress/sql/script_security.sql: the extension's scripts cannot be taken
-- over by decoys, run by pg_prove (tools/test.sh).
--
-- Whoever may create objects in the schema an extension is installed into
-- (or in one early in a caller's search_path) can plant operators,
-- functions and types named like those the scripts use; one that matches
-- the arguments better than pg_catalog's would run, as whoever queries the
-- view.  Here every operator, function and type the scripts and the view
-- use has decoys in the target schema and in a schema first in
-- search_path, of the scripts' argument types and of 1.0's inexact ones,
-- each raising 'decoy called: ...' if it ever runs.  Two checks each time:
-- nothing the extension's objects depend on is a decoy (pg_depend), and an
-- export whose query source reads the progress view while the export runs
-- (so the view has a row, its own) succeeds.  The control: version 1.0,
-- which compared oid <> integer and divided numeric / bigint, fails both.
\set topic script_security
BEGIN;
SET LOCAL client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
\ir ../lib/helpers.psql

SELECT plan(16);

DROP EXTENSION IF EXISTS parallel_export_parquet CASCADE;
CREATE SCHEMA pep_target;
CREATE SCHEMA pep_early;

-- Decoys in schema s: operators, functions and domains, each raising.
CREATE FUNCTION pg_temp.plant_decoys(s text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    d record;
    n integer := 0;
BEGIN
    FOR d IN SELECT * FROM (VALUES
            ('<>', 'oid', 'integer', 'boolean'), ('<>', 'oid', 'oid', 'boolean'),
            ('=', 'bigint', 'integer', 'boolean'), ('=', 'bigint', 'bigint', 'boolean'),
            ('=', 'integer', 'integer', 'boolean'),
            ('>', 'bigint', 'integer', 'boolean'), ('>', 'bigint', 'bigint', 'boolean'),
            ('/', 'numeric', 'bigint', 'numeric'), ('/', 'numeric', 'numeric', 'numeric'),
            ('-', 'timestamptz', 'timestamptz', 'interval'),
            ('+', 'integer', 'integer', 'integer'), ('~~', 'text', 'text', 'boolean'))
            AS v(op, l, r, res) LOOP
        n := n + 1;
        EXECUTE format('CREATE FUNCTION %I.decoy_op_%s(%s, %s) RETURNS %s LANGUAGE plpgsql AS %L',
                       s, n, d.l, d.r, d.res,
                       format('BEGIN RAISE EXCEPTION %L; END',
                              format('decoy called: operator %s.%s(%s, %s)', s, d.op, d.l, d.r)));
        EXECUTE format('CREATE OPERATOR %I.%s (FUNCTION = %I.decoy_op_%s, LEFTARG = %s, RIGHTARG = %s)',
                       s, d.op, s, n, d.l, d.r);
    END LOOP;
    FOR d IN SELECT * FROM (VALUES
            ('round', 'numeric, integer', 'numeric'), ('round', 'numeric, bigint', 'numeric'),
            ('now', '', 'timestamptz'), ('substr', 'text, integer', 'text'),
            ('split_part', 'text, text, integer', 'text'), ('strpos', 'text, text', 'integer'),
            ('parallel_export_parquet_progress_targets', '', 'record'))
            AS v(fn, args, res) LOOP
        CONTINUE WHEN s = 'pep_target' AND d.fn LIKE 'parallel_export_parquet%';
        EXECUTE format('CREATE FUNCTION %I.%I(%s) RETURNS %s LANGUAGE plpgsql AS %L',
                       s, d.fn, d.args, d.res,
                       format('BEGIN RAISE EXCEPTION %L; END',
                              format('decoy called: function %s.%s(%s)', s, d.fn, d.args)));
    END LOOP;
    EXECUTE format('CREATE FUNCTION %I.decoy_type() RETURNS boolean LANGUAGE plpgsql AS %L', s,
                   format('BEGIN RAISE EXCEPTION %L; END', format('decoy called: a type in %s', s)));
    FOR d IN SELECT * FROM unnest(ARRAY['numeric', 'int4', 'int8', 'oid', 'text', 'regclass',
                                        'interval', 'timestamptz', 'record', 'jsonb']) AS t(typ) LOOP
        CONTINUE WHEN d.typ = 'record';
        EXECUTE format('CREATE DOMAIN %I.%I AS pg_catalog.%I CHECK (%I.decoy_type())',
                       s, d.typ, d.typ, s);
    END LOOP;
END
$$;
SELECT pg_temp.plant_decoys('pep_target');
SELECT pg_temp.plant_decoys('pep_early');
SET LOCAL search_path = pep_early, public;

-- Operators, functions and types outside pg_catalog that the extension's
-- view and functions depend on, other than the extension's own.
CREATE FUNCTION pg_temp.foreign_dependencies() RETURNS text[] LANGUAGE sql AS $$
    SELECT coalesce(array_agg(DISTINCT pg_catalog.pg_describe_object(d.refclassid, d.refobjid, 0)
                              ORDER BY pg_catalog.pg_describe_object(d.refclassid, d.refobjid, 0)),
                    '{}')
    FROM pg_catalog.pg_depend AS d
    JOIN pg_catalog.pg_depend AS member
      ON member.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass
     AND member.refobjid = (SELECT oid FROM pg_catalog.pg_extension
                            WHERE extname = 'parallel_export_parquet')
     AND member.deptype = 'e'
    LEFT JOIN pg_catalog.pg_rewrite AS r
      ON d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND r.oid = d.objid
    WHERE ((d.classid = member.classid AND d.objid = member.objid)
           OR (member.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND r.ev_class = member.objid))
      AND d.refclassid IN ('pg_catalog.pg_operator'::pg_catalog.regclass,
                           'pg_catalog.pg_proc'::pg_catalog.regclass,
                           'pg_catalog.pg_type'::pg_catalog.regclass)
      AND (pg_catalog.pg_identify_object(d.refclassid, d.refobjid, 0)).schema
          OPERATOR(pg_catalog.<>) 'pg_catalog'
      AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend AS own
                      WHERE own.classid = d.refclassid AND own.objid = d.refobjid
                        AND own.deptype = 'e')
$$;

-- Export, as its query source, the caller's own row of the progress view,
-- checked for the directory and the source; 1 when the view is right.
CREATE FUNCTION pg_temp.export_reading_view(dir text) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
    -- the statistics snapshot must be taken inside the export, not before
    PERFORM pg_catalog.pg_stat_clear_snapshot();
    RETURN pep_target.parallel_export_parquet(
        pg_catalog.format('SELECT p.pid FROM pep_target.parallel_export_parquet_progress AS p '
                          'WHERE p.pid OPERATOR(pg_catalog.=) pg_catalog.pg_backend_pid() '
                          'AND p.directory OPERATOR(pg_catalog.=) %L '
                          'AND pg_catalog.starts_with(p.source, %L) '
                          'AND p.source_relation IS NULL AND p.fraction_done IS NULL '
                          'AND p.phase OPERATOR(pg_catalog.=) %L', dir, 'SELECT p.pid', 'writing'),
        dir, 1);
END
$$;

CREATE TABLE pep_target.secured (id integer, v numeric);
INSERT INTO pep_target.secured SELECT g, g / 7.0 FROM generate_series(1, 1000) AS g;

-- The control: 1.0 depends on decoys, and one runs when the view has a row.
SELECT lives_ok($$CREATE EXTENSION parallel_export_parquet VERSION '1.0' SCHEMA pep_target$$,
                'control: 1.0 installs into a schema full of decoys');
SELECT is(pg_temp.foreign_dependencies(),
          ARRAY['operator pep_target./(numeric,bigint)', 'operator pep_target.<>(oid,integer)'],
          'control: 1.0''s view depends on the decoys for oid <> integer and numeric / bigint');
SELECT throws_ok(format($$SELECT pep_target.parallel_export_parquet(
                              'SELECT source_relation FROM pep_target.parallel_export_parquet_progress', %L, 1)$$,
                        :'base' || '-control'),
                 'P0001', 'decoy called: operator pep_target.<>(oid, integer)',
                 'control: querying 1.0''s view while an export runs calls the decoy');

-- Updated to 1.1 among the decoys.
SELECT lives_ok($$ALTER EXTENSION parallel_export_parquet UPDATE TO '1.1'$$,
                'ALTER EXTENSION ... UPDATE TO ''1.1'' runs among the decoys');
SELECT is(pg_temp.foreign_dependencies(), '{}',
          'after the update nothing the extension uses is a decoy');
SELECT is(pg_temp.export_reading_view(:'base' || '-updated'), 1::bigint,
          'after the update the view, read during an export, calls no decoy and is right');
SELECT is(pep_target.parallel_export_parquet('pep_target.secured', :'base' || '-updated-table', 2),
          1000::bigint, 'after the update a table exports');

-- Updated on to 1.2 among the decoys.
SELECT lives_ok($$ALTER EXTENSION parallel_export_parquet UPDATE TO '1.2'$$,
                'ALTER EXTENSION ... UPDATE TO ''1.2'' runs among the decoys');
SELECT is(pg_temp.foreign_dependencies(), '{}',
          'after the update to 1.2 nothing the extension uses is a decoy');

-- Installed as 1.2 among the decoys.
DROP EXTENSION parallel_export_parquet;
SELECT lives_ok($$CREATE EXTENSION parallel_export_parquet SCHEMA pep_target$$,
                'CREATE EXTENSION installs 1.2 into a schema full of decoys');
SELECT is((SELECT extversion FROM pg_extension WHERE extname = 'parallel_export_parquet'), '1.2',
          'the default version is 1.2');
SELECT is(pg_temp.foreign_dependencies(), '{}', 'nothing the fresh 1.2 uses is a decoy');
SELECT is(pg_temp.export_reading_view(:'base' || '-fresh'), 1::bigint,
          'the fresh view, read during an export, calls no decoy and is right');
SELECT is(pep_target.parallel_export_parquet('pep_target.secured'::pg_catalog.regclass,
                                             :'base' || '-fresh-regclass', 2),
          1000::bigint, 'a regclass source exports among the decoys');
SELECT is(pep_target.parallel_export_parquet('SELECT id, v FROM pep_target.secured WHERE id OPERATOR(pg_catalog.>) 0',
                                             :'base' || '-fresh-query', 2),
          1000::bigint, 'a query source exports among the decoys');
SELECT lives_ok('SELECT * FROM pep_target.parallel_export_parquet_progress',
                'the view is queried among the decoys');

SELECT * FROM finish();
ROLLBACK;
