-- regress/sql/s3target.sql: an s3:// target's syntax and the superuser's
-- parallel_export_parquet.object_store_targets, run by pg_prove
-- (tools/test.sh). Every refused target is refused with 22023 (syntax) or
-- 42501 (the setting) and a detail saying why; every rule has a control
-- that passes every check of the s3:// front and reaches the launch of the
-- workers (:'passed'), where max_parallel_workers = 0 stops it before
-- anything is written. Foreign servers and user mappings are in
-- s3server.sql.
\set topic s3target
BEGIN;
SET LOCAL client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
\ir ../lib/helpers.psql

SELECT plan(68);

DROP EXTENSION IF EXISTS parallel_export_parquet CASCADE;
CREATE EXTENSION parallel_export_parquet;
CREATE TABLE s3t (id integer);
INSERT INTO s3t VALUES (1);

-- A target that passes every check of the s3:// front gets as far as
-- launching the export's workers, which no worker slot makes fail at once.
SET LOCAL max_parallel_workers = 0;
\set passed '53000 could not start any parallel export worker'

-- "SQLSTATE message" of the error sql raises, then " / detail" if it has one.
CREATE FUNCTION pg_temp.err(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    st text;
    msg text;
    det text;
BEGIN
    EXECUTE sql;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
    RETURN st || ' ' || msg || coalesce(' / ' || nullif(det, ''), '');
END
$$;

-- The error of an export of s3t into target, without its detail.
CREATE FUNCTION pg_temp.export_err(target text) RETURNS text LANGUAGE sql AS $$
    SELECT split_part(pg_temp.err(format('SELECT parallel_export_parquet(%L, %L, 1)', 's3t', target)),
                      ' / ', 1)
$$;

-- The detail of a refused target, or what was raised instead.
CREATE FUNCTION pg_temp.refusal(target text) RETURNS text LANGUAGE sql AS $$
    SELECT CASE WHEN e LIKE '22023 invalid object storage target %' THEN substr(e, strpos(e, ' / ') + 3)
                ELSE 'not refused as invalid: ' || e END
    FROM pg_temp.err(format('SELECT parallel_export_parquet(%L, %L, 1)', 's3t', target)) AS e
$$;

-- Bucket names: S3's rules for general purpose buckets.
SELECT is(pg_temp.refusal('s3://ab/x'), 'A bucket name is 3 to 63 characters long.', 'a 2-character bucket is refused');
SELECT is(pg_temp.export_err('s3://abc/x'), :'passed', 'control: a 3-character bucket passes');
SELECT is(pg_temp.refusal('s3://' || repeat('a', 64) || '/x'), 'A bucket name is 3 to 63 characters long.',
          'a 64-character bucket is refused');
SELECT is(pg_temp.export_err('s3://' || repeat('a', 63) || '/x'), :'passed', 'control: a 63-character bucket passes');
SELECT is(pg_temp.refusal('s3:///x'), 'A bucket name is 3 to 63 characters long.', 'an empty bucket is refused');
SELECT is(pg_temp.refusal('s3://My-Bucket/x'), 'A bucket name consists of lower-case letters, digits, dots and hyphens.',
          'upper case is refused');
SELECT is(pg_temp.refusal('s3://my_bucket/x'), 'A bucket name consists of lower-case letters, digits, dots and hyphens.',
          'an underscore is refused');
SELECT is(pg_temp.refusal('s3://my bucket/x'), 'A bucket name consists of lower-case letters, digits, dots and hyphens.',
          'a blank is refused');
SELECT is(pg_temp.refusal('s3://-bucket/x'), 'A bucket name begins and ends with a letter or a digit.',
          'a leading hyphen is refused');
SELECT is(pg_temp.refusal('s3://bucket./x'), 'A bucket name begins and ends with a letter or a digit.',
          'a trailing dot is refused');
SELECT is(pg_temp.refusal('s3://my..bucket/x'), 'A bucket name has no two adjacent dots.', 'two adjacent dots are refused');
SELECT is(pg_temp.export_err('s3://my.bucket-1.example/x'), :'passed', 'control: dots and hyphens inside pass');
SELECT is(pg_temp.refusal('s3://192.168.1.20/x'), 'A bucket name is not formatted as an IP address.',
          'an IP-shaped bucket is refused');
SELECT is(pg_temp.export_err('s3://192.168.1/x'), :'passed', 'control: three numbers with dots are no IP address');
SELECT is(pg_temp.export_err('s3://192.168.1.2a/x'), :'passed', 'control: nor four with a letter');
SELECT is(pg_temp.refusal('s3://xn--bucket/x'), 'Bucket names beginning with "xn--" are reserved.',
          'a reserved prefix is refused');
SELECT is(pg_temp.refusal('s3://bucket-s3alias/x'), 'Bucket names ending in "-s3alias" are reserved.',
          'a reserved suffix is refused');

-- Key prefixes: UTF-8 without control characters or empty, . and .. segments.
SELECT is(pg_temp.refusal('s3://bucket//x'), 'The key prefix contains an empty segment (a leading "/" or "//").',
          'a leading / in the prefix is refused');
SELECT is(pg_temp.refusal('s3://bucket/a//b'), 'The key prefix contains an empty segment (a leading "/" or "//").',
          'an empty segment is refused');
SELECT is(pg_temp.refusal('s3://bucket/a//'), 'The key prefix contains an empty segment (a leading "/" or "//").',
          'two trailing slashes are refused');
SELECT is(pg_temp.refusal('s3://bucket/a/./b'), 'The key prefix contains a "." or ".." segment.', 'a . segment is refused');
SELECT is(pg_temp.refusal('s3://bucket/a/..'), 'The key prefix contains a "." or ".." segment.', 'a .. segment is refused');
SELECT is(pg_temp.export_err('s3://bucket/a/.b/..c/.../b.'), :'passed', 'control: dots within segments pass');
SELECT is(pg_temp.refusal(E's3://bucket/a\tb'), 'The key prefix contains a control character.', 'a tab is refused');
SELECT is(pg_temp.refusal(E's3://bucket/a\nb'), 'The key prefix contains a control character.', 'a newline is refused');
SELECT is(pg_temp.refusal('s3://bucket/a' || chr(127)), 'The key prefix contains a control character.', 'DEL is refused');
SELECT is(pg_temp.refusal('s3://bucket/a' || chr(133) || 'b'), 'The key prefix contains a control character.',
          'a C1 control character (U+0085) is refused');
SELECT is(pg_temp.export_err('s3://bucket/données/été ' || chr(8364) || '/a b+c=d'), :'passed',
          'control: letters beyond ASCII, blanks and punctuation pass');

-- Length: the prefix, a "/" and the longest part name (31 bytes) fit 1,024 bytes.
SELECT is(pg_temp.export_err('s3://bucket/' || repeat('a', 992)), :'passed', 'control: a 992-byte prefix passes');
SELECT is(pg_temp.refusal('s3://bucket/' || repeat('a', 993)),
          'The key prefix is 993 bytes in UTF-8; an export''s object keys must fit 1024 bytes, so the prefix may have at most 992.',
          'a 993-byte prefix is refused');
SELECT is(pg_temp.export_err('s3://bucket/' || repeat('é', 496)), :'passed', 'control: 496 two-byte letters pass');
SELECT is(pg_temp.refusal('s3://bucket/' || repeat('é', 496) || 'a'),
          'The key prefix is 993 bytes in UTF-8; an export''s object keys must fit 1024 bytes, so the prefix may have at most 992.',
          'the bound counts bytes, not characters: 497 characters are refused');

-- Normalisation, seen in the URL a refusal names: one trailing "/".
SET LOCAL parallel_export_parquet.object_store_targets = '';
SELECT is(pg_temp.export_err('s3://bucket/a/b'), '42501 object storage target "s3://bucket/a/b/" is not allowed',
          'a prefix gets a trailing /');
SELECT is(pg_temp.export_err('s3://bucket/a/b/'), '42501 object storage target "s3://bucket/a/b/" is not allowed',
          'a prefix with a trailing / keeps one');
SELECT is(pg_temp.export_err('s3://bucket'), '42501 object storage target "s3://bucket/" is not allowed',
          'the bucket root without a /');
SELECT is(pg_temp.export_err('s3://bucket/'), '42501 object storage target "s3://bucket/" is not allowed',
          'the bucket root with a /');

-- object_store_targets: the forms it accepts ...
RESET parallel_export_parquet.object_store_targets;
SELECT is(current_setting('parallel_export_parquet.object_store_targets'), '*', 'the default is *');
SELECT lives_ok($$SET LOCAL parallel_export_parquet.object_store_targets = ''$$, 'an empty string is accepted');
SELECT lives_ok($$SET LOCAL parallel_export_parquet.object_store_targets = 'lake'$$, 'a bucket is accepted');
SELECT lives_ok($$SET LOCAL parallel_export_parquet.object_store_targets = ' lake ,other.bucket,third '$$,
                'a list with blanks is accepted');
SELECT lives_ok($$SET LOCAL parallel_export_parquet.object_store_targets = 'minio.example:9000/lake, s3.example/*'$$,
                'host:port/bucket and host/* are accepted');
SELECT lives_ok($$SET LOCAL parallel_export_parquet.object_store_targets = '[::1]:9000/lake, 127.0.0.1/lake'$$,
                'IP address hosts are accepted');

-- ... and those it refuses, keeping the value it had.
SELECT throws_ok($$SET LOCAL parallel_export_parquet.object_store_targets = 'lake,,other'$$, '22023',
                 'invalid value for parameter "parallel_export_parquet.object_store_targets": "lake,,other"',
                 'an empty entry is refused');
SELECT is(current_setting('parallel_export_parquet.object_store_targets'), '[::1]:9000/lake, 127.0.0.1/lake',
          'a refused value leaves the setting as it was');
SELECT throws_ok($$SET LOCAL parallel_export_parquet.object_store_targets = '*, lake'$$, '22023', NULL,
                 '* within a list is refused');
SELECT throws_ok($$SET LOCAL parallel_export_parquet.object_store_targets = 'Lake'$$, '22023', NULL,
                 'an invalid bucket is refused');
SELECT throws_ok($$SET LOCAL parallel_export_parquet.object_store_targets = 'host:70000/lake'$$, '22023', NULL,
                 'a port out of range is refused');
SELECT throws_ok($$SET LOCAL parallel_export_parquet.object_store_targets = 'key:secret@host/lake'$$, '22023', NULL,
                 'credentials in a host are refused');
SELECT throws_ok($$SET LOCAL parallel_export_parquet.object_store_targets = 'host/path/lake'$$, '22023', NULL,
                 'a path between host and bucket is refused');
SELECT throws_ok($$SET LOCAL parallel_export_parquet.object_store_targets = 'host_1/lake'$$, '22023', NULL,
                 'a host name with an underscore is refused');
SELECT is(pg_temp.err($$SET LOCAL parallel_export_parquet.object_store_targets = 'lake, Other'$$),
          '22023 invalid value for parameter "parallel_export_parquet.object_store_targets": "lake, Other" / Entry "Other" is not valid. A bucket name consists of lower-case letters, digits, dots and hyphens.',
          'the detail names the entry and what is wrong with it');

-- Refusals name the target and the setting.
SET LOCAL parallel_export_parquet.object_store_targets = '';
SELECT is(pg_temp.err($$SELECT parallel_export_parquet('s3t', 's3://lake/x', 1)$$),
          '42501 object storage target "s3://lake/x/" is not allowed / The configuration parameter "parallel_export_parquet.object_store_targets" is empty, which forbids every object storage target.',
          'an empty setting forbids s3:// targets');
SELECT is(pg_temp.export_err('/nonexistent-parent/x'), '58P01 could not access parent directory "/nonexistent-parent": No such file or directory',
          'control: an empty setting leaves local directories to the local guard');
SET LOCAL parallel_export_parquet.object_store_targets = 'other, third';
SELECT is(pg_temp.err($$SELECT parallel_export_parquet('s3t', 's3://lake/x', 1)$$),
          '42501 object storage target "s3://lake/x/" is not allowed / The configuration parameter "parallel_export_parquet.object_store_targets" does not list the bucket "lake".',
          'a bucket not listed is refused');
SELECT throws_ok($$SELECT parallel_export_parquet('s3t'::regclass, 's3://lake/x', 1)$$, '42501', NULL,
                 'by the regclass form too');
SELECT is(pg_temp.export_err('s3://other/x'), :'passed', 'control: a listed bucket passes');
SELECT is(pg_temp.export_err('s3://third/x'), :'passed', 'control: the last listed bucket passes');
SET LOCAL parallel_export_parquet.object_store_targets = 'minio.example/lake';
SELECT is(pg_temp.export_err('s3://lake/x'), '42501 object storage target "s3://lake/x/" is not allowed',
          'a host entry does not allow a target without a foreign server');
SET LOCAL parallel_export_parquet.object_store_targets = '*';
SELECT is(pg_temp.export_err('s3://lake/x'), :'passed', 'control: * allows it');

-- Only a superuser may change the setting.
CREATE ROLE regress_s3t_user;
GRANT pg_write_server_files TO regress_s3t_user;
GRANT SELECT ON s3t TO regress_s3t_user;
-- Every signature of the function, whatever arguments later versions add.
DO $$
DECLARE
    f regprocedure;
BEGIN
    FOR f IN SELECT oid FROM pg_proc WHERE proname = 'parallel_export_parquet' LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO regress_s3t_user', f);
    END LOOP;
END
$$;
SET LOCAL parallel_export_parquet.object_store_targets = '';
SET LOCAL ROLE regress_s3t_user;
SELECT throws_ok($$SET parallel_export_parquet.object_store_targets = '*'$$, '42501',
                 'permission denied to set parameter "parallel_export_parquet.object_store_targets"',
                 'a role that may export cannot SET the setting');
SELECT throws_ok($$SELECT set_config('parallel_export_parquet.object_store_targets', '*', true)$$, '42501', NULL,
                 'nor set_config it');
SELECT throws_ok($$ALTER ROLE regress_s3t_user SET parallel_export_parquet.object_store_targets = '*'$$, '42501', NULL,
                 'nor give it to itself with ALTER ROLE');
SELECT is(pg_temp.export_err('s3://lake/x'), '42501 object storage target "s3://lake/x/" is not allowed',
          'and stays refused');
RESET ROLE;
SELECT lives_ok($$SET LOCAL parallel_export_parquet.object_store_targets = 'lake'$$, 'control: a superuser may SET it');
SET LOCAL ROLE regress_s3t_user;
SELECT is(pg_temp.export_err('s3://lake/x'), :'passed', 'control: the role may then export there');
RESET ROLE;

-- s3_server belongs to s3:// targets.
SELECT throws_ok(format($$SELECT parallel_export_parquet('s3t', %L, 1, s3_server => 'any')$$, :'base' || '-local'),
                 '22023', 'option "s3_server" is valid only for an object storage target',
                 's3_server with a local directory is refused');
SELECT is(pg_temp.listing(:'base' || '-local'), NULL, 'and wrote nothing');
RESET max_parallel_workers;
SELECT is(parallel_export_parquet('s3t', :'base' || '-local', 1, s3_server => NULL), 1::bigint,
          'control: a NULL s3_server exports locally');

SELECT * FROM finish();
ROLLBACK;
