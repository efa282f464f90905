-- regress/sql/privileges.sql: who may export what, run by pg_prove
-- (tools/test.sh). EXECUTE is revoked from PUBLIC; a caller needs the
-- privileges of pg_write_server_files (or superuser), SELECT on what it
-- reads and USAGE on its schema; a query runs with the caller's rights, so
-- row-level security applies; the settings that decide what a worker loads
-- are superuser-only. Each refused call writes nothing. Roles are
-- regress_*, created in this transaction and gone with its rollback.
\set topic privileges
BEGIN;
SET LOCAL client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
\ir ../lib/helpers.psql

SELECT plan(30);

DROP EXTENSION IF EXISTS parallel_export_parquet CASCADE;
CREATE EXTENSION parallel_export_parquet;

CREATE TABLE priv_t AS SELECT g AS id, 'owner ' || (g % 2) AS owner FROM generate_series(1, 1000) AS g;
CREATE TABLE priv_cols (a integer, b integer);
INSERT INTO priv_cols VALUES (1, 2);
CREATE VIEW priv_v AS SELECT * FROM priv_t;

CREATE ROLE regress_pep_nobody;
CREATE ROLE regress_pep_reader;      -- SELECT, EXECUTE, no file privilege
CREATE ROLE regress_pep_filer;       -- file privilege, EXECUTE, no SELECT
CREATE ROLE regress_pep_both;        -- everything an export needs
GRANT SELECT ON priv_t, priv_v TO regress_pep_reader, regress_pep_both;
GRANT SELECT (a, b) ON priv_cols TO regress_pep_both;
GRANT pg_write_server_files TO regress_pep_filer, regress_pep_both;
GRANT EXECUTE ON FUNCTION parallel_export_parquet(text, text, integer, text, integer, bigint, bigint, bigint,
                                                  integer, boolean, boolean, text, text[], boolean, text,
                                                  text, text, text[], boolean, text, jsonb),
                          parallel_export_parquet(regclass, text, integer, text, integer, bigint, bigint, bigint,
                                                  integer, boolean, boolean, text, text[], boolean, text,
                                                  text, text, text[], boolean, text, jsonb)
      TO regress_pep_reader, regress_pep_filer, regress_pep_both;

-- EXECUTE
SELECT ok(NOT has_function_privilege('regress_pep_nobody',
          'parallel_export_parquet(text, text, integer, text, integer, bigint, bigint, bigint, integer, boolean, boolean, text, text[], boolean, text,
                                                  text, text, text[], boolean, text, jsonb)',
          'EXECUTE'), 'PUBLIC may not execute the text form');
SELECT ok(NOT has_function_privilege('regress_pep_nobody',
          'parallel_export_parquet(regclass, text, integer, text, integer, bigint, bigint, bigint, integer, boolean, boolean, text, text[], boolean, text,
                                                  text, text, text[], boolean, text, jsonb)',
          'EXECUTE'), 'PUBLIC may not execute the regclass form');
SET LOCAL ROLE regress_pep_nobody;
SELECT throws_ok(format($$SELECT parallel_export_parquet('priv_t', %L, 1)$$, :'base' || '-nobody'),
                 '42501', NULL, 'a role without EXECUTE cannot call it');
RESET ROLE;

-- The file privilege
SET LOCAL ROLE regress_pep_reader;
SELECT throws_ok(format($$SELECT parallel_export_parquet('priv_t', %L, 1)$$, :'base' || '-reader'),
                 '42501', 'permission denied to export to a server directory',
                 'SELECT without pg_write_server_files is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('SELECT 1', %L, 1)$$, :'base' || '-reader'),
                 '42501', 'permission denied to export to a server directory',
                 'a query without pg_write_server_files is refused');
RESET ROLE;
SELECT is(pg_temp.listing(:'base' || '-reader'), NULL, 'the refused reader wrote nothing');

-- SELECT on the source
SET LOCAL ROLE regress_pep_filer;
SELECT throws_ok(format($$SELECT parallel_export_parquet('priv_t', %L, 1)$$, :'base' || '-filer'),
                 '42501', 'permission denied for table priv_t',
                 'a table without SELECT is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('priv_t'::regclass, %L, 1)$$, :'base' || '-filer'),
                 '42501', 'permission denied for table priv_t',
                 'the regclass form checks SELECT too');
SELECT throws_ok(format($$SELECT parallel_export_parquet('priv_v', %L, 1)$$, :'base' || '-filer'),
                 '42501', 'permission denied for view priv_v',
                 'a view without SELECT is refused');
SELECT throws_ok(format($$SELECT parallel_export_parquet('SELECT id FROM priv_t', %L, 1)$$, :'base' || '-filer'),
                 '42501', 'permission denied for table priv_t',
                 'a query reading a table without SELECT is refused');
RESET ROLE;
SELECT is(pg_temp.listing(:'base' || '-filer'), NULL, 'the refused filer wrote nothing');

-- Everything granted
SET LOCAL ROLE regress_pep_both;
SELECT is(parallel_export_parquet('priv_t', :'base' || '-both', 2), 1000::bigint, 'a role with both privileges exports a table');
SELECT is(parallel_export_parquet('priv_v', :'base' || '-both-view', 1), 1000::bigint, 'and a view');
SELECT is(parallel_export_parquet('priv_cols', :'base' || '-both-cols', 1), 1::bigint,
          'SELECT on every column is enough for a table');
RESET ROLE;
SELECT is(pg_temp.layout_problem(:'base' || '-both', 1, 2), NULL, 'its export is complete');

-- Row-level security applies to the caller's rows
ALTER TABLE priv_t ENABLE ROW LEVEL SECURITY;
CREATE POLICY priv_t_owner ON priv_t FOR SELECT TO regress_pep_both USING (owner = 'owner 1');
SET LOCAL ROLE regress_pep_both;
SELECT is(parallel_export_parquet('priv_t', :'base' || '-rls', 2), 500::bigint,
          'row-level security limits a table export to the visible rows');
SELECT is(parallel_export_parquet('SELECT * FROM priv_t', :'base' || '-rls-query', 2), 500::bigint,
          'and a query export');
RESET ROLE;
SELECT is(parallel_export_parquet('priv_t', :'base' || '-rls-owner', 2), 1000::bigint,
          'the owner, exempt from the policy, exports every row');

-- USAGE on the source's schema, which COPY needs to look a name up: needed
-- by name and by regclass alike, even one given as a bare OID that no
-- lookup checked.
CREATE SCHEMA priv_s;
CREATE TABLE priv_s.t AS SELECT g AS id FROM generate_series(1, 10) AS g;
CREATE VIEW priv_s.v AS SELECT * FROM priv_s.t;
GRANT SELECT ON priv_s.t, priv_s.v TO regress_pep_both;
SELECT 'priv_s.t'::regclass::oid AS priv_s_t, 'priv_s.v'::regclass::oid AS priv_s_v \gset
SET LOCAL ROLE regress_pep_both;
SELECT throws_ok(format($$SELECT parallel_export_parquet('priv_s.t', %L, 1)$$, :'base' || '-schema'),
                 '42501', 'permission denied for schema priv_s',
                 'a table by name needs USAGE on its schema');
SELECT throws_ok(format($$SELECT parallel_export_parquet(%s::regclass, %L, 1)$$, :priv_s_t, :'base' || '-schema'),
                 '42501', 'permission denied for schema priv_s',
                 'a table by OID needs USAGE on its schema too');
SELECT throws_ok(format($$SELECT parallel_export_parquet(%s::regclass, %L, 1)$$, :priv_s_v, :'base' || '-schema'),
                 '42501', 'permission denied for schema priv_s',
                 'and a view by OID');
RESET ROLE;
SELECT is(pg_temp.listing(:'base' || '-schema'), NULL, 'the refused exports wrote nothing');
GRANT USAGE ON SCHEMA priv_s TO regress_pep_both;
SET LOCAL ROLE regress_pep_both;
SELECT is(parallel_export_parquet(:priv_s_t::regclass, :'base' || '-schema-oid', 1), 10::bigint,
          'with USAGE the table exports by OID');
SELECT is(parallel_export_parquet('priv_s.t', :'base' || '-schema-name', 1), 10::bigint,
          'and by name');
RESET ROLE;

-- Superuser-only settings
SET LOCAL ROLE regress_pep_both;
SELECT throws_ok($$SET parallel_export_parquet.libjvm_path = '/tmp/evil.so'$$, '42501', NULL,
                 'libjvm_path is superuser-only');
SELECT throws_ok($$SET parallel_export_parquet.jvm_options = '-javaagent:/tmp/evil.jar'$$, '42501', NULL,
                 'jvm_options is superuser-only');
SELECT throws_ok($$SET parallel_export_parquet.jvm_options = '-Xmx64m'$$, '42501', NULL,
                 'jvm_options is superuser-only for a value on its allow-list too');
SELECT throws_ok($$SET parallel_export_parquet.fault_injection = 'hang'$$, '42501', NULL,
                 'fault_injection is superuser-only');
SELECT throws_ok($$SET parallel_export_parquet.starve_worker = 1$$, '42501', NULL,
                 'starve_worker is superuser-only');
SELECT throws_ok($$SET parallel_export_parquet.log_exports = off$$, '42501', NULL,
                 'log_exports is superuser-only');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
