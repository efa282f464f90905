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

-- 3. partition_by and write_partition_columns (Hive-partitioned output),
-- appended with the other arguments 1.1 adds, at their fixed positions:
-- s3_server (15), compatibility (16), partition_by (17),
-- write_partition_columns (18).  The library reads an argument only if the
-- call passes it, so a 1.0 definition keeps working until this update.
DROP FUNCTION @extschema@.parallel_export_parquet(text, text, integer, text, integer, bigint, bigint, bigint, integer, boolean, boolean, text, text[], boolean, text);
DROP FUNCTION @extschema@.parallel_export_parquet(pg_catalog.regclass, text, integer, text, integer, bigint, bigint, bigint, integer, boolean, boolean, text, text[], boolean, text);

CREATE FUNCTION @extschema@.parallel_export_parquet(
    source text,
    directory text,
    workers integer DEFAULT NULL,
    compression text DEFAULT 'snappy',
    compression_level integer DEFAULT NULL,
    row_group_rows bigint DEFAULT 122880,
    row_group_bytes bigint DEFAULT 67108864,
    file_size_bytes bigint DEFAULT NULL,
    page_size integer DEFAULT 1048576,
    dictionary boolean DEFAULT NULL,
    statistics boolean DEFAULT true,
    parquet_version text DEFAULT 'v1',
    bloom_filter_columns text[] DEFAULT NULL,
    overwrite boolean DEFAULT false,
    unconstrained_numeric text DEFAULT 'text',
    s3_server text DEFAULT NULL,
    compatibility text DEFAULT 'none',
    partition_by text[] DEFAULT NULL,
    write_partition_columns boolean DEFAULT false)
RETURNS bigint
AS 'MODULE_PATHNAME', 'pep_export_text'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE FUNCTION @extschema@.parallel_export_parquet(
    source pg_catalog.regclass,
    directory text,
    workers integer DEFAULT NULL,
    compression text DEFAULT 'snappy',
    compression_level integer DEFAULT NULL,
    row_group_rows bigint DEFAULT 122880,
    row_group_bytes bigint DEFAULT 67108864,
    file_size_bytes bigint DEFAULT NULL,
    page_size integer DEFAULT 1048576,
    dictionary boolean DEFAULT NULL,
    statistics boolean DEFAULT true,
    parquet_version text DEFAULT 'v1',
    bloom_filter_columns text[] DEFAULT NULL,
    overwrite boolean DEFAULT false,
    unconstrained_numeric text DEFAULT 'text',
    s3_server text DEFAULT NULL,
    compatibility text DEFAULT 'none',
    partition_by text[] DEFAULT NULL,
    write_partition_columns boolean DEFAULT false)
RETURNS bigint
AS 'MODULE_PATHNAME', 'pep_export_regclass'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION @extschema@.parallel_export_parquet(text, text, integer, text, integer, bigint, bigint, bigint, integer, boolean, boolean, text, text[], boolean, text, text, text, text[], boolean) IS
'export a table, view or query into a server directory of Parquet part files, written by parallel workers; returns the rows exported';
COMMENT ON FUNCTION @extschema@.parallel_export_parquet(pg_catalog.regclass, text, integer, text, integer, bigint, bigint, bigint, integer, boolean, boolean, text, text[], boolean, text, text, text, text[], boolean) IS
'export a relation into a server directory of Parquet part files, written by parallel workers; returns the rows exported';

-- Writes server files: nobody may call it unless granted.
REVOKE ALL ON FUNCTION @extschema@.parallel_export_parquet(text, text, integer, text, integer, bigint, bigint, bigint, integer, boolean, boolean, text, text[], boolean, text, text, text, text[], boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.parallel_export_parquet(pg_catalog.regclass, text, integer, text, integer, bigint, bigint, bigint, integer, boolean, boolean, text, text[], boolean, text, text, text, text[], boolean) FROM PUBLIC;
