/* sql/parallel_export_parquet--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION parallel_export_parquet" to load this file. \quit

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
    unconstrained_numeric text DEFAULT 'text')
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
    unconstrained_numeric text DEFAULT 'text')
RETURNS bigint
AS 'MODULE_PATHNAME', 'pep_export_regclass'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION @extschema@.parallel_export_parquet(text, text, integer, text, integer, bigint, bigint, bigint, integer, boolean, boolean, text, text[], boolean, text) IS
'export a table, view or query into a server directory of Parquet part files, written by parallel workers; returns the rows exported';
COMMENT ON FUNCTION @extschema@.parallel_export_parquet(pg_catalog.regclass, text, integer, text, integer, bigint, bigint, bigint, integer, boolean, boolean, text, text[], boolean, text) IS
'export a relation into a server directory of Parquet part files, written by parallel workers; returns the rows exported';

CREATE FUNCTION @extschema@.parallel_export_parquet_last(
    OUT source text,
    OUT directory text,
    OUT rows bigint,
    OUT parts integer,
    OUT bytes bigint,
    OUT workers integer,
    OUT seconds double precision)
RETURNS record
AS 'MODULE_PATHNAME', 'pep_last_export'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.parallel_export_parquet_last() IS
'summary of the last export this session finished, or NULL';

-- Exports report as a COPY TO FILE (so pg_stat_progress_copy shows them);
-- slot 11 carries the marker 0x504550 ("PEP") that tells them from a COPY.
CREATE VIEW @extschema@.parallel_export_parquet_progress AS
SELECT s.pid,
       a.datname,
       CASE WHEN s.relid <> 0 THEN s.relid::pg_catalog.regclass END AS source_relation,
       a.query,
       pg_catalog.substr(pg_catalog.split_part(w.query, E'\n', 2), 12) AS directory,
       pg_catalog.substr(w.query, pg_catalog.strpos(w.query, E'\nsource: ') + 9) AS source,
       CASE s.param12
            WHEN 1 THEN 'starting'
            WHEN 2 THEN 'writing'
            WHEN 3 THEN 'publishing'
            WHEN 4 THEN 'cleaning up'
       END AS phase,
       s.param13 AS workers_launched,
       s.param3 AS rows_written,
       s.param1 AS bytes_written,
       s.param14 AS parts_finished,
       s.param15 AS blocks_total,
       s.param16 AS blocks_scanned,
       CASE WHEN s.param15 > 0
            THEN pg_catalog.round(s.param16::numeric / s.param15, 4)
       END AS fraction_done,
       pg_catalog.now() - a.query_start AS elapsed
FROM pg_catalog.pg_stat_get_progress_info('COPY') AS s
JOIN pg_catalog.pg_stat_activity AS a ON a.pid = s.pid
-- Each worker's activity names the directory and the source; take one.
LEFT JOIN LATERAL (SELECT w.query
                   FROM pg_catalog.pg_stat_activity AS w
                   WHERE w.leader_pid = s.pid
                     AND w.query LIKE 'parallel_export_parquet worker %'
                   LIMIT 1) AS w ON true
WHERE s.param11 = 5260624;

COMMENT ON VIEW @extschema@.parallel_export_parquet_progress IS
'one row per running export: phase, workers, rows and bytes written, parts finished, blocks scanned';

-- Like pg_stat_progress_copy: every role sees its own exports, members of
-- pg_read_all_stats see all.
GRANT SELECT ON @extschema@.parallel_export_parquet_progress TO PUBLIC;

-- Writes server files: nobody may call it unless granted.
REVOKE ALL ON FUNCTION @extschema@.parallel_export_parquet(text, text, integer, text, integer, bigint, bigint, bigint, integer, boolean, boolean, text, text[], boolean, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.parallel_export_parquet(pg_catalog.regclass, text, integer, text, integer, bigint, bigint, bigint, integer, boolean, boolean, text, text[], boolean, text) FROM PUBLIC;
