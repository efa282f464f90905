/* sql/parallel_export_parquet--1.1--1.2.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION parallel_export_parquet UPDATE TO '1.2'" to load this file. \quit

-- Every statement here follows "Security Considerations for Extension
-- Scripts", as 1.0--1.1 does: functions and types are named with their
-- schema, so that nothing in the extension's schema can stand in for them.

-- The export functions take two more arguments after
-- write_partition_columns: field_ids (position 19: 'auto', or a JSON object
-- of field names to the Parquet field ids written into every part's schema)
-- and kv_metadata (position 20: a JSON object of string keys and values
-- added to every part's footer key-value metadata).  Both default to NULL,
-- which writes what 1.1 wrote.  The library still accepts 1.0's and 1.1's
-- argument lists, and reads a later argument only when the call passes it.
-- A function's argument list cannot change in place, so each is dropped and
-- created again with the comment and privileges it had.
DROP FUNCTION @extschema@.parallel_export_parquet(pg_catalog.text, pg_catalog.text, pg_catalog.int4,
    pg_catalog.text, pg_catalog.int4, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int4,
    pg_catalog.bool, pg_catalog.bool, pg_catalog.text, pg_catalog.text[], pg_catalog.bool, pg_catalog.text,
    pg_catalog.text, pg_catalog.text, pg_catalog.text[], pg_catalog.bool);
DROP FUNCTION @extschema@.parallel_export_parquet(pg_catalog.regclass, pg_catalog.text, pg_catalog.int4,
    pg_catalog.text, pg_catalog.int4, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int4,
    pg_catalog.bool, pg_catalog.bool, pg_catalog.text, pg_catalog.text[], pg_catalog.bool, pg_catalog.text,
    pg_catalog.text, pg_catalog.text, pg_catalog.text[], pg_catalog.bool);

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
    write_partition_columns pg_catalog.bool DEFAULT false,
    field_ids pg_catalog.text DEFAULT NULL,
    kv_metadata pg_catalog.jsonb DEFAULT NULL)
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
    write_partition_columns pg_catalog.bool DEFAULT false,
    field_ids pg_catalog.text DEFAULT NULL,
    kv_metadata pg_catalog.jsonb DEFAULT NULL)
RETURNS pg_catalog.int8
AS 'MODULE_PATHNAME', 'pep_export_regclass'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION @extschema@.parallel_export_parquet(pg_catalog.text, pg_catalog.text, pg_catalog.int4,
    pg_catalog.text, pg_catalog.int4, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int4,
    pg_catalog.bool, pg_catalog.bool, pg_catalog.text, pg_catalog.text[], pg_catalog.bool, pg_catalog.text,
    pg_catalog.text, pg_catalog.text, pg_catalog.text[], pg_catalog.bool, pg_catalog.text, pg_catalog.jsonb) IS
'export a table, view or query into a server directory or an s3:// prefix of Parquet part files, written by parallel workers; returns the rows exported';
COMMENT ON FUNCTION @extschema@.parallel_export_parquet(pg_catalog.regclass, pg_catalog.text, pg_catalog.int4,
    pg_catalog.text, pg_catalog.int4, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int4,
    pg_catalog.bool, pg_catalog.bool, pg_catalog.text, pg_catalog.text[], pg_catalog.bool, pg_catalog.text,
    pg_catalog.text, pg_catalog.text, pg_catalog.text[], pg_catalog.bool, pg_catalog.text, pg_catalog.jsonb) IS
'export a relation into a server directory or an s3:// prefix of Parquet part files, written by parallel workers; returns the rows exported';

-- Writes server files: nobody may call it unless granted.
REVOKE ALL ON FUNCTION @extschema@.parallel_export_parquet(pg_catalog.text, pg_catalog.text, pg_catalog.int4,
    pg_catalog.text, pg_catalog.int4, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int4,
    pg_catalog.bool, pg_catalog.bool, pg_catalog.text, pg_catalog.text[], pg_catalog.bool, pg_catalog.text,
    pg_catalog.text, pg_catalog.text, pg_catalog.text[], pg_catalog.bool, pg_catalog.text, pg_catalog.jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.parallel_export_parquet(pg_catalog.regclass, pg_catalog.text, pg_catalog.int4,
    pg_catalog.text, pg_catalog.int4, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int4,
    pg_catalog.bool, pg_catalog.bool, pg_catalog.text, pg_catalog.text[], pg_catalog.bool, pg_catalog.text,
    pg_catalog.text, pg_catalog.text, pg_catalog.text[], pg_catalog.bool, pg_catalog.text, pg_catalog.jsonb) FROM PUBLIC;
