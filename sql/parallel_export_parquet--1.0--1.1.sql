/* sql/parallel_export_parquet--1.0--1.1.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION parallel_export_parquet UPDATE TO '1.1'" to load this file. \quit

-- Every statement here follows "Security Considerations for Extension
-- Scripts": whoever may create objects in the extension's schema must not be
-- able to put one in place of what these statements mean.  Functions and
-- types are named with their schema; operators are written
-- OPERATOR(pg_catalog.op) with operands of exactly the operator's types
-- (literals cast explicitly), so that no operator elsewhere can be a better
-- match; and no simple CASE, whose hidden = would be looked up by name.

-- 1. Where each running export writes and what it reads, for the progress
-- view: read from the export's shared memory (see pep_progress.c), not
-- parsed from its workers' activity text, where a directory name holding a
-- newline could pass for another.  Shows only exports whose progress the
-- caller may see, as pg_stat_get_progress_info does.
CREATE FUNCTION @extschema@.parallel_export_parquet_progress_targets(
    OUT pid pg_catalog.int4,
    OUT directory pg_catalog.text,
    OUT source pg_catalog.text)
RETURNS SETOF pg_catalog.record
AS 'MODULE_PATHNAME', 'pep_progress_targets'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.parallel_export_parquet_progress_targets() IS
'directory and source of each running export whose progress the caller may see';

-- 2. The progress view, same columns, same meaning.  1.0's compared oid with
-- integer and divided numeric by bigint with unqualified operators, which a
-- decoy operator in the extension's schema could take over; it also took
-- directory and source from the workers' activity text (section 1).
-- Exports report as a COPY TO FILE (so pg_stat_progress_copy shows them);
-- slot 11 carries the marker 0x504550 ("PEP") that tells them from a COPY.
CREATE OR REPLACE VIEW @extschema@.parallel_export_parquet_progress AS
SELECT s.pid,
       a.datname,
       CASE WHEN s.relid OPERATOR(pg_catalog.<>) '0'::pg_catalog.oid
            THEN s.relid::pg_catalog.regclass
       END AS source_relation,
       a.query,
       t.directory,
       t.source,
       CASE WHEN s.param12 OPERATOR(pg_catalog.=) '1'::pg_catalog.int8 THEN 'starting'::pg_catalog.text
            WHEN s.param12 OPERATOR(pg_catalog.=) '2'::pg_catalog.int8 THEN 'writing'::pg_catalog.text
            WHEN s.param12 OPERATOR(pg_catalog.=) '3'::pg_catalog.int8 THEN 'publishing'::pg_catalog.text
            WHEN s.param12 OPERATOR(pg_catalog.=) '4'::pg_catalog.int8 THEN 'cleaning up'::pg_catalog.text
       END AS phase,
       s.param13 AS workers_launched,
       s.param3 AS rows_written,
       s.param1 AS bytes_written,
       s.param14 AS parts_finished,
       s.param15 AS blocks_total,
       s.param16 AS blocks_scanned,
       CASE WHEN s.param15 OPERATOR(pg_catalog.>) '0'::pg_catalog.int8
            THEN pg_catalog.round(s.param16::pg_catalog.numeric OPERATOR(pg_catalog./)
                                  s.param15::pg_catalog.numeric, '4'::pg_catalog.int4)
       END AS fraction_done,
       pg_catalog.now() OPERATOR(pg_catalog.-) a.query_start AS elapsed,
       s.param18 AS partitions_written
FROM pg_catalog.pg_stat_get_progress_info('COPY'::pg_catalog.text) AS s
JOIN pg_catalog.pg_stat_activity AS a ON a.pid OPERATOR(pg_catalog.=) s.pid
LEFT JOIN @extschema@.parallel_export_parquet_progress_targets() AS t
       ON t.pid OPERATOR(pg_catalog.=) s.pid
WHERE s.param11 OPERATOR(pg_catalog.=) '5260624'::pg_catalog.int8;

-- 3. Object storage.  The foreign-data wrapper whose servers say where an
-- object store is and whose user mappings hold the keys for it
-- (pep_s3server.c checks their options).  It has no handler: its servers
-- are named by exports, never scanned.
CREATE FUNCTION @extschema@.parallel_export_parquet_s3_validator(pg_catalog.text[], pg_catalog.oid)
RETURNS pg_catalog.void
AS 'MODULE_PATHNAME', 'pep_s3_fdw_validator'
LANGUAGE C STRICT;

COMMENT ON FUNCTION @extschema@.parallel_export_parquet_s3_validator(pg_catalog.text[], pg_catalog.oid) IS
'checks the options of parallel_export_parquet_s3 servers and user mappings';

CREATE FOREIGN DATA WRAPPER parallel_export_parquet_s3
    VALIDATOR @extschema@.parallel_export_parquet_s3_validator;

COMMENT ON FOREIGN DATA WRAPPER parallel_export_parquet_s3 IS
'object stores exports may write to: a server gives the endpoint, a user mapping the keys';

-- 4. The export functions take more arguments after unconstrained_numeric:
-- s3_server (position 15), the foreign server of an s3:// target (only its
-- name is in the call, so pg_stat_activity and the log show no key), and
-- compatibility (position 16: 'none', the faithful encodings, or a reader
-- profile such as 'spark' that writes every type the reader cannot read as
-- one it can), partition_by and write_partition_columns (positions 17 and
-- 18: Hive-partitioned output).  file_size_bytes now defaults to 1 GiB (0:
-- no limit), which the library also applies to a NULL, so 1.0's DEFAULT
-- NULL means the same.  The library still accepts 1.0's fifteen
-- arguments, and reads a later one only when the call passes it.  A
-- function's argument list cannot change in place, so each is dropped and
-- created again with the comment and privileges it had.
DROP FUNCTION @extschema@.parallel_export_parquet(pg_catalog.text, pg_catalog.text, pg_catalog.int4,
    pg_catalog.text, pg_catalog.int4, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int4,
    pg_catalog.bool, pg_catalog.bool, pg_catalog.text, pg_catalog.text[], pg_catalog.bool, pg_catalog.text);
DROP FUNCTION @extschema@.parallel_export_parquet(pg_catalog.regclass, pg_catalog.text, pg_catalog.int4,
    pg_catalog.text, pg_catalog.int4, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int4,
    pg_catalog.bool, pg_catalog.bool, pg_catalog.text, pg_catalog.text[], pg_catalog.bool, pg_catalog.text);

CREATE FUNCTION @extschema@.parallel_export_parquet(
    source pg_catalog.text,
    directory pg_catalog.text,
    workers pg_catalog.int4 DEFAULT NULL,
    compression pg_catalog.text DEFAULT 'snappy',
    compression_level pg_catalog.int4 DEFAULT NULL,
    row_group_rows pg_catalog.int8 DEFAULT 122880,
    row_group_bytes pg_catalog.int8 DEFAULT 67108864,
    file_size_bytes pg_catalog.int8 DEFAULT 1073741824,
    page_size pg_catalog.int4 DEFAULT 1048576,
    dictionary pg_catalog.bool DEFAULT NULL,
    statistics pg_catalog.bool DEFAULT true,
    parquet_version pg_catalog.text DEFAULT 'v1',
    bloom_filter_columns pg_catalog.text[] DEFAULT NULL,
    overwrite pg_catalog.bool DEFAULT false,
    unconstrained_numeric pg_catalog.text DEFAULT 'text',
    s3_server pg_catalog.text DEFAULT NULL,
    compatibility pg_catalog.text DEFAULT 'none',
    partition_by pg_catalog.text[] DEFAULT NULL,
    write_partition_columns pg_catalog.bool DEFAULT false)
RETURNS pg_catalog.int8
AS 'MODULE_PATHNAME', 'pep_export_text'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE FUNCTION @extschema@.parallel_export_parquet(
    source pg_catalog.regclass,
    directory pg_catalog.text,
    workers pg_catalog.int4 DEFAULT NULL,
    compression pg_catalog.text DEFAULT 'snappy',
    compression_level pg_catalog.int4 DEFAULT NULL,
    row_group_rows pg_catalog.int8 DEFAULT 122880,
    row_group_bytes pg_catalog.int8 DEFAULT 67108864,
    file_size_bytes pg_catalog.int8 DEFAULT 1073741824,
    page_size pg_catalog.int4 DEFAULT 1048576,
    dictionary pg_catalog.bool DEFAULT NULL,
    statistics pg_catalog.bool DEFAULT true,
    parquet_version pg_catalog.text DEFAULT 'v1',
    bloom_filter_columns pg_catalog.text[] DEFAULT NULL,
    overwrite pg_catalog.bool DEFAULT false,
    unconstrained_numeric pg_catalog.text DEFAULT 'text',
    s3_server pg_catalog.text DEFAULT NULL,
    compatibility pg_catalog.text DEFAULT 'none',
    partition_by pg_catalog.text[] DEFAULT NULL,
    write_partition_columns pg_catalog.bool DEFAULT false)
RETURNS pg_catalog.int8
AS 'MODULE_PATHNAME', 'pep_export_regclass'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION @extschema@.parallel_export_parquet(pg_catalog.text, pg_catalog.text, pg_catalog.int4,
    pg_catalog.text, pg_catalog.int4, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int4,
    pg_catalog.bool, pg_catalog.bool, pg_catalog.text, pg_catalog.text[], pg_catalog.bool, pg_catalog.text,
    pg_catalog.text, pg_catalog.text, pg_catalog.text[], pg_catalog.bool) IS
'export a table, view or query into a server directory or an s3:// prefix of Parquet part files, written by parallel workers; returns the rows exported';
COMMENT ON FUNCTION @extschema@.parallel_export_parquet(pg_catalog.regclass, pg_catalog.text, pg_catalog.int4,
    pg_catalog.text, pg_catalog.int4, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int4,
    pg_catalog.bool, pg_catalog.bool, pg_catalog.text, pg_catalog.text[], pg_catalog.bool, pg_catalog.text,
    pg_catalog.text, pg_catalog.text, pg_catalog.text[], pg_catalog.bool) IS
'export a relation into a server directory or an s3:// prefix of Parquet part files, written by parallel workers; returns the rows exported';

-- Writes server files: nobody may call it unless granted.
REVOKE ALL ON FUNCTION @extschema@.parallel_export_parquet(pg_catalog.text, pg_catalog.text, pg_catalog.int4,
    pg_catalog.text, pg_catalog.int4, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int4,
    pg_catalog.bool, pg_catalog.bool, pg_catalog.text, pg_catalog.text[], pg_catalog.bool, pg_catalog.text,
    pg_catalog.text, pg_catalog.text, pg_catalog.text[], pg_catalog.bool) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.parallel_export_parquet(pg_catalog.regclass, pg_catalog.text, pg_catalog.int4,
    pg_catalog.text, pg_catalog.int4, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int4,
    pg_catalog.bool, pg_catalog.bool, pg_catalog.text, pg_catalog.text[], pg_catalog.bool, pg_catalog.text,
    pg_catalog.text, pg_catalog.text, pg_catalog.text[], pg_catalog.bool) FROM PUBLIC;

-- 5. Undo what a dead object-store export left (DESIGN.md, "The ledger
-- file"): its caller was killed or the server crashed, so its record in
-- the data directory lists uploads to abort and objects to delete.  Only
-- what the record lists is touched, never anything else under the prefix;
-- a running export's record is never read (its lock is an error).  Safe to
-- call again after a failure, and a no-op on a target without a record.
CREATE FUNCTION @extschema@.parallel_export_parquet_sweep(
    target pg_catalog.text,
    s3_server pg_catalog.text DEFAULT NULL,
    OUT target pg_catalog.text,
    OUT dead_record pg_catalog.bool,
    OUT uploads_aborted pg_catalog.int4,
    OUT objects_deleted pg_catalog.int4)
RETURNS pg_catalog.record
AS 'MODULE_PATHNAME', 'pep_s3_sweep'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION @extschema@.parallel_export_parquet_sweep(pg_catalog.text, pg_catalog.text) IS
'abort the uploads and delete the objects a dead object-store export recorded, and nothing else';

-- Changes object storage as an export does: nobody may call it unless granted.
REVOKE ALL ON FUNCTION @extschema@.parallel_export_parquet_sweep(pg_catalog.text, pg_catalog.text) FROM PUBLIC;

-- 6. The summary of the last export says which reader profile it was
-- written for (compatibility).  A function's result columns cannot change
-- in place either.
DROP FUNCTION @extschema@.parallel_export_parquet_last();

CREATE FUNCTION @extschema@.parallel_export_parquet_last(
    OUT source pg_catalog.text,
    OUT directory pg_catalog.text,
    OUT rows pg_catalog.int8,
    OUT parts pg_catalog.int4,
    OUT bytes pg_catalog.int8,
    OUT workers pg_catalog.int4,
    OUT seconds pg_catalog.float8,
    OUT compatibility pg_catalog.text)
RETURNS pg_catalog.record
AS 'MODULE_PATHNAME', 'pep_last_export'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.parallel_export_parquet_last() IS
'summary of the last export this session finished, or NULL';
