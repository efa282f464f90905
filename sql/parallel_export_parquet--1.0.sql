/* sql/parallel_export_parquet--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION parallel_export_parquet" to load this file. \quit

CREATE FUNCTION @extschema@.parallel_export_parquet(
    source text,
    directory text,
    workers integer DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'pep_export_text'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE FUNCTION @extschema@.parallel_export_parquet(
    source pg_catalog.regclass,
    directory text,
    workers integer DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'pep_export_regclass'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION @extschema@.parallel_export_parquet(text, text, integer) IS
'export a table, view or query into a server directory of Parquet part files, written by parallel workers; returns the rows exported';
COMMENT ON FUNCTION @extschema@.parallel_export_parquet(pg_catalog.regclass, text, integer) IS
'export a relation into a server directory of Parquet part files, written by parallel workers; returns the rows exported';

-- Writes server files: nobody may call it unless granted.
REVOKE ALL ON FUNCTION @extschema@.parallel_export_parquet(text, text, integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.parallel_export_parquet(pg_catalog.regclass, text, integer) FROM PUBLIC;
