-- regress/sql/s3server.sql: foreign servers and user mappings of
-- parallel_export_parquet_s3 and the s3_server argument, run by pg_prove
-- (tools/test.sh). Options are checked where they are set (CREATE and
-- ALTER), with PostgreSQL's SQLSTATEs and a detail or hint; keys go in user
-- mappings only and never appear in a message. An export naming a server
-- needs USAGE on it and a user mapping for its role or PUBLIC; a server's
-- buckets option and object_store_targets' host entries restrict where it
-- may write. Every refusal has a control that passes every check of the
-- s3:// front and reaches the launch of the workers (:'passed'), where
-- max_parallel_workers = 0 stops it before anything is written. Roles are
-- regress_*, created in this transaction and gone with its rollback.
\set topic s3server
BEGIN;
SET LOCAL client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
\ir ../lib/helpers.psql

SELECT plan(61);

DROP EXTENSION IF EXISTS parallel_export_parquet CASCADE;
CREATE EXTENSION parallel_export_parquet;
CREATE TABLE s3s (id integer);
INSERT INTO s3s VALUES (1);

-- A target that passes every check of the s3:// front gets as far as
-- launching the export's workers, which no worker slot makes fail at once.
SET LOCAL max_parallel_workers = 0;
\set passed '53000 could not start any parallel export worker'
\set secret 'pepSECRETmarker9f3Kq'

-- "SQLSTATE message" of the error sql raises, then " / detail" and
-- " / hint" if it has them.
CREATE FUNCTION pg_temp.err(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    st text;
    msg text;
    det text;
    hint text;
BEGIN
    EXECUTE sql;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL,
                            hint = PG_EXCEPTION_HINT;
    RETURN st || ' ' || msg || coalesce(' / ' || nullif(det, ''), '') || coalesce(' / ' || nullif(hint, ''), '');
END
$$;

-- The error of an export of s3s into target through server, without detail and hint.
CREATE FUNCTION pg_temp.export_err(target text, server text) RETURNS text LANGUAGE sql AS $$
    SELECT split_part(pg_temp.err(format('SELECT parallel_export_parquet(%L, %L, 1, s3_server => %L)',
                                         's3s', target, server)), ' / ', 1)
$$;

-- Server options.
SELECT lives_ok($$CREATE SERVER regress_minio FOREIGN DATA WRAPPER parallel_export_parquet_s3
                  OPTIONS (endpoint 'http://minio.example:9000', region 'us-east-1', path_style 'on',
                           checksum 'WHEN_REQUIRED', buckets 'lake, other')$$,
                'control: a server with every option is created');
SELECT throws_ok($$CREATE SERVER regress_bad FOREIGN DATA WRAPPER parallel_export_parquet_s3 OPTIONS (endpont 'http://x')$$,
                 'HV00D', 'invalid option "endpont"', 'an unknown server option is refused');
SELECT is(pg_temp.err($$CREATE SERVER regress_bad FOREIGN DATA WRAPPER parallel_export_parquet_s3 OPTIONS (endpont 'http://x')$$),
          'HV00D invalid option "endpont" / Valid options for a server are endpoint, region, path_style, checksum and buckets.',
          'its hint lists the valid ones');
SELECT is(pg_temp.err(format($$CREATE SERVER regress_bad FOREIGN DATA WRAPPER parallel_export_parquet_s3 OPTIONS (secret_access_key %L)$$, :'secret')),
          'HV00D invalid option "secret_access_key" / Keys belong in a user mapping, whose options only its user and superusers can read. / Valid options for a server are endpoint, region, path_style, checksum and buckets.',
          'a key on a server, where every role can read it, is refused');
SELECT is(pg_temp.err($$CREATE SERVER regress_bad FOREIGN DATA WRAPPER parallel_export_parquet_s3 OPTIONS (endpoint 'ftp://host')$$),
          '22023 invalid value for option "endpoint": ''ftp://host'' / An endpoint is an http:// or https:// URL.',
          'an endpoint that is not http or https is refused');
SELECT is(pg_temp.err($$CREATE SERVER regress_bad FOREIGN DATA WRAPPER parallel_export_parquet_s3 OPTIONS (endpoint 'https://key:secret@host')$$),
          '22023 invalid value for option "endpoint": ''https://key:secret@host'' / An endpoint must not carry credentials; give them in a user mapping.',
          'an endpoint with credentials is refused');
SELECT throws_ok($$CREATE SERVER regress_bad FOREIGN DATA WRAPPER parallel_export_parquet_s3 OPTIONS (endpoint 'http://host:0')$$,
                 '22023', NULL, 'an endpoint with port 0 is refused');
SELECT throws_ok($$CREATE SERVER regress_bad FOREIGN DATA WRAPPER parallel_export_parquet_s3 OPTIONS (endpoint 'http://host/?a=b')$$,
                 '22023', NULL, 'an endpoint with a query is refused');
SELECT throws_ok($$CREATE SERVER regress_bad FOREIGN DATA WRAPPER parallel_export_parquet_s3 OPTIONS (endpoint 'http://')$$,
                 '22023', NULL, 'an endpoint without a host is refused');
SELECT throws_ok($$CREATE SERVER regress_bad FOREIGN DATA WRAPPER parallel_export_parquet_s3 OPTIONS (endpoint ' http://host')$$,
                 '22023', NULL, 'an endpoint with a leading blank is refused');
SELECT lives_ok($$CREATE SERVER regress_v6 FOREIGN DATA WRAPPER parallel_export_parquet_s3 OPTIONS (endpoint 'HTTPS://[::1]:9443/s3')$$,
                'control: an IPv6 endpoint with a path is accepted');
SELECT throws_ok($$CREATE SERVER regress_bad FOREIGN DATA WRAPPER parallel_export_parquet_s3 OPTIONS (region 'us east 1')$$,
                 '22023', 'invalid value for option "region": ''us east 1''', 'a region with blanks is refused');
SELECT throws_ok($$CREATE SERVER regress_bad FOREIGN DATA WRAPPER parallel_export_parquet_s3 OPTIONS (region E'us\neast')$$,
                 '22023', NULL, 'a region with a newline, which would add a settings line, is refused');
SELECT is(pg_temp.err($$CREATE SERVER regress_bad FOREIGN DATA WRAPPER parallel_export_parquet_s3 OPTIONS (path_style 'maybe')$$),
          '22023 invalid value for option "path_style": ''maybe'' / Valid values are true, false and auto.',
          'a path_style that is no boolean is refused');
SELECT lives_ok($$CREATE SERVER regress_auto FOREIGN DATA WRAPPER parallel_export_parquet_s3 OPTIONS (path_style 'auto', checksum 'when_supported')$$,
                'control: path_style auto and checksum when_supported are accepted');
SELECT is(pg_temp.err($$CREATE SERVER regress_bad FOREIGN DATA WRAPPER parallel_export_parquet_s3 OPTIONS (checksum 'always')$$),
          '22023 invalid value for option "checksum": ''always'' / Valid values are when_required and when_supported.',
          'an unknown checksum mode is refused');
SELECT is(pg_temp.err($$CREATE SERVER regress_bad FOREIGN DATA WRAPPER parallel_export_parquet_s3 OPTIONS (buckets 'lake, Other')$$),
          '22023 invalid value for option "buckets": ''lake, Other'' / The bucket "Other" is not valid. A bucket name consists of lower-case letters, digits, dots and hyphens.',
          'an invalid bucket in buckets is refused');
SELECT throws_ok($$CREATE SERVER regress_bad FOREIGN DATA WRAPPER parallel_export_parquet_s3 OPTIONS (buckets 'lake,,other')$$,
                 '22023', NULL, 'an empty entry in buckets is refused');
SELECT throws_ok($$ALTER SERVER regress_minio OPTIONS (SET endpoint 'minio.example:9000')$$,
                 '22023', NULL, 'ALTER SERVER checks the new value');
SELECT lives_ok($$ALTER SERVER regress_minio OPTIONS (SET region 'eu-central-1')$$, 'control: a valid ALTER SERVER');
SELECT is(ARRAY(SELECT srvname::text FROM pg_foreign_server WHERE srvname LIKE 'regress_%' ORDER BY 1),
          ARRAY['regress_auto', 'regress_minio', 'regress_v6'], 'no refused server was created');

-- The wrapper itself and foreign tables take nothing.
SELECT throws_ok($$ALTER FOREIGN DATA WRAPPER parallel_export_parquet_s3 OPTIONS (endpoint 'http://x')$$,
                 'HV00D', 'invalid option "endpoint"', 'options on the wrapper are refused');
SELECT throws_ok($$CREATE FOREIGN TABLE regress_ft (a integer) SERVER regress_minio$$,
                 '42809', 'foreign-data wrapper "parallel_export_parquet_s3" has no foreign tables',
                 'a foreign table is refused');

-- User mapping options: keys, never shown.
SELECT throws_ok($$CREATE USER MAPPING FOR CURRENT_USER SERVER regress_minio OPTIONS (endpoint 'http://x')$$,
                 'HV00D', 'invalid option "endpoint"', 'a server option on a user mapping is refused');
SELECT is(pg_temp.err($$CREATE USER MAPPING FOR CURRENT_USER SERVER regress_minio OPTIONS (password 'x')$$),
          'HV00D invalid option "password" / Valid options for a user mapping are access_key_id, secret_access_key and session_token.',
          'an unknown user mapping option is refused, with the valid ones');
SELECT throws_ok($$CREATE USER MAPPING FOR CURRENT_USER SERVER regress_minio OPTIONS (access_key_id 'AKID')$$,
                 '22023', 'options "access_key_id" and "secret_access_key" must be given together',
                 'an access key without its secret is refused');
SELECT throws_ok(format($$CREATE USER MAPPING FOR CURRENT_USER SERVER regress_minio OPTIONS (secret_access_key %L)$$, :'secret'),
                 '22023', 'options "access_key_id" and "secret_access_key" must be given together',
                 'a secret without its access key is refused');
SELECT throws_ok($$CREATE USER MAPPING FOR CURRENT_USER SERVER regress_minio OPTIONS (session_token 'tok')$$,
                 '22023', 'option "session_token" needs options "access_key_id" and "secret_access_key"',
                 'a session token without keys is refused');
SELECT is(pg_temp.err(format($$CREATE USER MAPPING FOR CURRENT_USER SERVER regress_minio OPTIONS (access_key_id 'AKID', secret_access_key %L)$$,
                             :'secret' || ' x')),
          '22023 invalid value for option "secret_access_key" / The value is printable ASCII without blanks.',
          'a malformed secret is refused without showing it');
SELECT is(pg_temp.err(format($$CREATE USER MAPPING FOR CURRENT_USER SERVER regress_minio OPTIONS (access_key_id 'AKID', secret_access_key %L)$$,
                             repeat(:'secret', 13))),
          '22023 invalid value for option "secret_access_key" / The value is 1 to 256 characters long.',
          'a secret too long is refused without showing it');
SELECT is(pg_temp.err(format($$CREATE USER MAPPING FOR CURRENT_USER SERVER regress_minio OPTIONS (access_key_id E'AK\nID', secret_access_key %L)$$,
                             :'secret')),
          '22023 invalid value for option "access_key_id" / The value is printable ASCII without blanks.',
          'an access key with a newline is refused without showing it');
SELECT lives_ok(format($$CREATE USER MAPPING FOR CURRENT_USER SERVER regress_minio OPTIONS (access_key_id 'AKID', secret_access_key %L, session_token 'tok/en+=')$$,
                       :'secret'),
                'control: a user mapping with both keys and a token is created');
SELECT throws_ok($$ALTER USER MAPPING FOR CURRENT_USER SERVER regress_minio OPTIONS (DROP secret_access_key)$$,
                 '22023', 'options "access_key_id" and "secret_access_key" must be given together',
                 'ALTER USER MAPPING checks what the mapping would have');
SELECT lives_ok($$ALTER USER MAPPING FOR CURRENT_USER SERVER regress_minio OPTIONS (DROP session_token)$$,
                'control: a valid ALTER USER MAPPING');
SELECT lives_ok($$CREATE USER MAPPING FOR CURRENT_USER SERVER regress_auto$$,
                'control: a user mapping without keys (the SDK chain gives them) is created');

-- s3_server at export time.
SELECT throws_ok($$SELECT parallel_export_parquet('s3s', 's3://lake/x', 1, s3_server => 'regress_nonesuch')$$,
                 '42704', 'server "regress_nonesuch" does not exist', 'an unknown server is refused');
CREATE FOREIGN DATA WRAPPER regress_other_fdw;
CREATE SERVER regress_other FOREIGN DATA WRAPPER regress_other_fdw;
SELECT is(pg_temp.err($$SELECT parallel_export_parquet('s3s', 's3://lake/x', 1, s3_server => 'regress_other')$$),
          '42809 server "regress_other" is not an object storage server / Its foreign-data wrapper is "regress_other_fdw"; s3_server needs one of "parallel_export_parquet_s3".',
          'a server of another wrapper is refused');
SELECT is(pg_temp.export_err('s3://lake/x', 'regress_minio'), :'passed', 'control: the superuser passes with the server');

CREATE ROLE regress_s3s_user;
CREATE ROLE regress_s3s_other;
GRANT pg_write_server_files TO regress_s3s_user, regress_s3s_other;
GRANT SELECT ON s3s TO regress_s3s_user, regress_s3s_other;
-- Every signature of the function, whatever arguments later versions add.
DO $$
DECLARE
    f regprocedure;
BEGIN
    FOR f IN SELECT oid FROM pg_proc WHERE proname = 'parallel_export_parquet' LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO regress_s3s_user, regress_s3s_other', f);
    END LOOP;
END
$$;

SET LOCAL ROLE regress_s3s_user;
SELECT throws_ok($$SELECT parallel_export_parquet('s3s', 's3://lake/x', 1, s3_server => 'regress_minio')$$,
                 '42501', 'permission denied for foreign server regress_minio', 'without USAGE on the server, refused');
SELECT is(pg_temp.export_err('s3://lake/x', NULL), :'passed', 'control: the role passes without a server');
RESET ROLE;
GRANT USAGE ON FOREIGN SERVER regress_minio TO regress_s3s_user, regress_s3s_other;
SET LOCAL ROLE regress_s3s_user;
SELECT is(pg_temp.err($$SELECT parallel_export_parquet('s3s', 's3://lake/x', 1, s3_server => 'regress_minio')$$),
          '42704 user mapping for "regress_s3s_user" does not exist for server "regress_minio" / Create one with CREATE USER MAPPING FOR CURRENT_USER SERVER regress_minio, with the keys as options, or without options to take them from the AWS SDK''s default chain.',
          'with USAGE but no user mapping, refused');
RESET ROLE;
CREATE USER MAPPING FOR PUBLIC SERVER regress_minio;
SET LOCAL ROLE regress_s3s_user;
SELECT is(pg_temp.export_err('s3://lake/x', 'regress_minio'), :'passed', 'control: a PUBLIC user mapping serves');
RESET ROLE;
DROP USER MAPPING FOR PUBLIC SERVER regress_minio;

-- A role's own mapping: its keys are its own to see.
SET LOCAL ROLE regress_s3s_user;
SELECT lives_ok(format($$CREATE USER MAPPING FOR CURRENT_USER SERVER regress_minio OPTIONS (access_key_id 'AKUSER', secret_access_key %L)$$,
                       :'secret'),
                'a role with USAGE creates its own user mapping');
SELECT is(pg_temp.export_err('s3://lake/x', 'regress_minio'), :'passed', 'control: its own user mapping serves');
SELECT is((SELECT umoptions FROM pg_user_mappings WHERE srvname = 'regress_minio' AND usename = 'regress_s3s_user'),
          ARRAY['access_key_id=AKUSER', 'secret_access_key=' || :'secret'], 'the role sees its own keys');
RESET ROLE;
SET LOCAL ROLE regress_s3s_other;
SELECT is((SELECT count(*) FROM pg_user_mappings WHERE srvname = 'regress_minio' AND usename = 'regress_s3s_user'),
          1::bigint, 'premise: another role sees that the mapping exists');
SELECT is((SELECT umoptions FROM pg_user_mappings WHERE srvname = 'regress_minio' AND usename = 'regress_s3s_user'),
          NULL, 'but not its keys');
SELECT throws_ok($$SELECT umoptions FROM pg_catalog.pg_user_mapping$$, '42501', NULL,
                 'nor through the catalog');
SELECT throws_ok($$SELECT parallel_export_parquet('s3s', 's3://lake/x', 1, s3_server => 'regress_minio')$$,
                 '42704', 'user mapping for "regress_s3s_other" does not exist for server "regress_minio"',
                 'nor use them: another role''s mapping does not serve it');
RESET ROLE;
SELECT is((SELECT umoptions FROM pg_user_mappings WHERE srvname = 'regress_minio' AND usename = 'regress_s3s_user'),
          ARRAY['access_key_id=AKUSER', 'secret_access_key=' || :'secret'], 'control: a superuser sees them');

-- A server's buckets.
SET LOCAL ROLE regress_s3s_user;
SELECT is(pg_temp.err($$SELECT parallel_export_parquet('s3s', 's3://elsewhere/x', 1, s3_server => 'regress_minio')$$),
          '42501 server "regress_minio" may not be used for bucket "elsewhere" / The server''s option "buckets" is "lake, other".',
          'a bucket the server does not list is refused');
SELECT is(pg_temp.export_err('s3://other/x', 'regress_minio'), :'passed', 'control: another listed bucket passes');
RESET ROLE;

-- object_store_targets' host entries match the server's endpoint.
SET LOCAL parallel_export_parquet.object_store_targets = 'minio.example/lake';
SELECT is(pg_temp.export_err('s3://lake/x', 'regress_minio'), :'passed', 'host/bucket allows the bucket on that host');
SELECT is(pg_temp.export_err('s3://other/x', 'regress_minio'), '42501 object storage target "s3://other/x/" is not allowed',
          'but no other bucket');
SET LOCAL parallel_export_parquet.object_store_targets = 'MINIO.Example:9000/*';
SELECT is(pg_temp.export_err('s3://other/x', 'regress_minio'), :'passed', 'host:port/* allows every bucket there, in any case');
SET LOCAL parallel_export_parquet.object_store_targets = 'minio.example:9001/*, elsewhere.example/lake';
SELECT is(pg_temp.err($$SELECT parallel_export_parquet('s3s', 's3://lake/x', 1, s3_server => 'regress_minio')$$),
          '42501 object storage target "s3://lake/x/" is not allowed / The configuration parameter "parallel_export_parquet.object_store_targets" lists neither the bucket "lake" nor it on the endpoint host "minio.example". / A superuser can allow the target by adding "minio.example/lake" to "parallel_export_parquet.object_store_targets".',
          'another port or another host does not');
SELECT lives_ok($$CREATE SERVER regress_aws FOREIGN DATA WRAPPER parallel_export_parquet_s3 OPTIONS (endpoint 'https://s3.eu-central-1.amazonaws.com', region 'eu-central-1')$$,
                'a server with an https endpoint without a port');
CREATE USER MAPPING FOR CURRENT_USER SERVER regress_aws;
SET LOCAL parallel_export_parquet.object_store_targets = 's3.eu-central-1.amazonaws.com:443/lake';
SELECT is(pg_temp.export_err('s3://lake/x', 'regress_aws'), :'passed', 'an https endpoint has port 443');
SET LOCAL parallel_export_parquet.object_store_targets = 's3.eu-central-1.amazonaws.com:80/lake';
SELECT is(pg_temp.export_err('s3://lake/x', 'regress_aws'), '42501 object storage target "s3://lake/x/" is not allowed',
          'and not 80');

-- No message an export raises after reading the keys shows them.
SET LOCAL parallel_export_parquet.object_store_targets = 'nothing-here';
SET LOCAL ROLE regress_s3s_user;
SELECT is(pg_temp.err($$SELECT parallel_export_parquet('s3s', 's3://lake/x', 1, s3_server => 'regress_minio')$$)
          LIKE '%' || :'secret' || '%', false, 'the refusal by object_store_targets shows no key');
SELECT is(strpos(pg_temp.err($$SELECT parallel_export_parquet('s3s', 's3://lake/x', 1, s3_server => 'regress_minio')$$),
                 'AKUSER'), 0, 'nor the access key');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
