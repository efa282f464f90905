-- regress/sql/visibility.sql: who sees an export's source and target
-- afterwards, run by pg_prove (tools/test.sh). parallel_export_parquet_last()
-- keeps one summary per session, and a session may run as several roles
-- (a pooler's SET ROLE per request, SET SESSION AUTHORIZATION). The summary
-- follows pg_stat_activity's rule for its query column, keyed on the role
-- whose privileges the export used (current_user during the call): only
-- roles with that role's privileges (itself, its INHERIT members,
-- superusers) and members of pg_read_all_stats see it; any other role gets
-- NULL, as when the session has exported nothing. Roles are regress_*,
-- created in this transaction and gone with its rollback.
\set topic visibility
BEGIN;
SET LOCAL client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
\ir ../lib/helpers.psql

SELECT plan(22);

DROP EXTENSION IF EXISTS parallel_export_parquet CASCADE;
CREATE EXTENSION parallel_export_parquet;

CREATE TABLE vis_t AS SELECT g AS id, 'code ' || g AS code FROM generate_series(1, 100) AS g;

CREATE ROLE regress_pep_vis_a;
CREATE ROLE regress_pep_vis_b;
CREATE ROLE regress_pep_vis_member;              -- inherits regress_pep_vis_a's privileges
CREATE ROLE regress_pep_vis_noinherit NOINHERIT; -- may SET ROLE to it, has none of its privileges
CREATE ROLE regress_pep_vis_stats;
GRANT regress_pep_vis_a TO regress_pep_vis_member, regress_pep_vis_noinherit;
GRANT pg_read_all_stats TO regress_pep_vis_stats;
GRANT SELECT ON vis_t TO regress_pep_vis_a, regress_pep_vis_b;
GRANT pg_write_server_files TO regress_pep_vis_a, regress_pep_vis_b;
-- Whatever the export function's signature, both forms.
SELECT format('GRANT EXECUTE ON FUNCTION %s TO regress_pep_vis_a, regress_pep_vis_b', p.oid::regprocedure)
FROM pg_proc AS p
WHERE p.proname = 'parallel_export_parquet' \gexec

-- The secret is a literal of the source text, which the summary shows.
\set secret 'vis-secret-4f1c'
SELECT format('SELECT id FROM vis_t WHERE code <> %L', :'secret') AS source \gset

-- Role A's export, and A reading its own summary (the control).
SET LOCAL ROLE regress_pep_vis_a;
SELECT is(parallel_export_parquet(:'source', :'base' || '-a', 1), 100::bigint,
          'premise: role A exports a query whose text holds a secret');
SELECT ok(strpos((parallel_export_parquet_last()).source, :'secret') > 0,
          'control: A sees its own summary, the secret included');
SELECT is((parallel_export_parquet_last()).directory, :'base' || '-a', 'control: and its directory');

-- Another role of the same session.
RESET ROLE;
SET LOCAL ROLE regress_pep_vis_b;
SELECT ok(parallel_export_parquet_last() IS NULL, 'after RESET ROLE; SET ROLE B, B sees nothing of it');
SELECT is((SELECT count(*) FROM parallel_export_parquet_last() WHERE source IS NOT NULL OR rows IS NOT NULL),
          0::bigint, 'not its source, nor its row count');
RESET ROLE;
SET LOCAL SESSION AUTHORIZATION regress_pep_vis_b;
SELECT ok(parallel_export_parquet_last() IS NULL, 'after SET SESSION AUTHORIZATION B, B sees nothing of it');
RESET SESSION AUTHORIZATION;

-- A again, whichever way the session becomes A.
SET LOCAL ROLE regress_pep_vis_a;
SELECT is((parallel_export_parquet_last()).source, :'source', 'A again sees its summary after B');
RESET ROLE;
SET LOCAL SESSION AUTHORIZATION regress_pep_vis_a;
SELECT is((parallel_export_parquet_last()).source, :'source', 'and as session authorization A');
RESET SESSION AUTHORIZATION;

-- The roles pg_stat_activity would show A's query to.
SELECT is((parallel_export_parquet_last()).source, :'source', 'a superuser sees it');
SET LOCAL ROLE regress_pep_vis_member;
SELECT is((parallel_export_parquet_last()).source, :'source', 'a member inheriting A''s privileges sees it');
RESET ROLE;
SET LOCAL ROLE regress_pep_vis_stats;
SELECT is((parallel_export_parquet_last()).source, :'source', 'a member of pg_read_all_stats sees it');
RESET ROLE;
SET LOCAL ROLE regress_pep_vis_noinherit;
SELECT ok(parallel_export_parquet_last() IS NULL, 'a NOINHERIT member of A sees nothing of it');
SET LOCAL ROLE regress_pep_vis_a;
SELECT is((parallel_export_parquet_last()).source, :'source', 'until it sets the role A');
RESET ROLE;

-- B's own export replaces the summary: B sees it, A does not.
SET LOCAL ROLE regress_pep_vis_b;
SELECT is(parallel_export_parquet('vis_t', :'base' || '-b', 1), 100::bigint, 'B exports');
SELECT is((parallel_export_parquet_last()).directory, :'base' || '-b', 'B sees its own summary');
RESET ROLE;
SET LOCAL ROLE regress_pep_vis_a;
SELECT ok(parallel_export_parquet_last() IS NULL, 'A sees nothing of B''s');
RESET ROLE;

-- The role whose privileges the export used is the one that ran it: a
-- SECURITY DEFINER function owned by A exports as A for B.
CREATE FUNCTION vis_export_as_a(dir text) RETURNS text LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
BEGIN
    PERFORM parallel_export_parquet(format('SELECT id FROM vis_t WHERE code <> %L', 'vis-secret-4f1c'), dir, 1);
    RETURN (parallel_export_parquet_last()).source;
END
$$;
ALTER FUNCTION vis_export_as_a(text) OWNER TO regress_pep_vis_a;
SET LOCAL ROLE regress_pep_vis_b;
SELECT is(vis_export_as_a(:'base' || '-definer'), :'source',
          'premise: a SECURITY DEFINER function of A exports for B and reads the summary as A');
SELECT ok(parallel_export_parquet_last() IS NULL, 'B, its caller, sees nothing of it');
RESET ROLE;
SET LOCAL ROLE regress_pep_vis_a;
SELECT is((parallel_export_parquet_last()).directory, :'base' || '-definer', 'A sees it');
RESET ROLE;

-- A refused call leaves the summary as it was.
SET LOCAL ROLE regress_pep_vis_b;
SELECT throws_ok(format($$SELECT parallel_export_parquet('vis_t', %L, 1)$$, :'base' || '-definer'),
                 '55000', NULL, 'premise: B''s export into A''s directory is refused');
RESET ROLE;
SET LOCAL ROLE regress_pep_vis_a;
SELECT is((parallel_export_parquet_last()).directory, :'base' || '-definer', 'A still sees its summary');
RESET ROLE;
SELECT is(pg_temp.layout_problem(:'base' || '-definer', 1, 1), NULL, 'the exports are complete');

SELECT * FROM finish();
ROLLBACK;
