-- regress/sql/writer_metadata.sql: the options field_ids and kv_metadata
-- (version 1.2), run by pg_prove (tools/test.sh). Every bad value is refused
-- with SQLSTATE 22023, a message in PostgreSQL's style and a detail naming
-- the field or key, before anything is written; NULL (the default) writes
-- exactly what an export without the options writes. What the ids and pairs
-- become in the files is checked by regress/readback's WriterMetadataTest,
-- with DuckDB.
\set topic writer_metadata
BEGIN;
SET LOCAL client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
\ir ../lib/helpers.psql

SELECT plan(25);

DROP EXTENSION IF EXISTS parallel_export_parquet CASCADE;
CREATE EXTENSION parallel_export_parquet;

CREATE TYPE wm_addr AS (street text, city text);
CREATE TABLE wm_t AS
SELECT g AS id, ROW('main st', 'town ' || g)::wm_addr AS addr, ARRAY[g, g + 1] AS tags
FROM generate_series(1, 1000) AS g;

-- SQLSTATE, message and detail ('' if none) of the error a statement
-- raises, or NULL.
CREATE FUNCTION pg_temp.error_of(stmt text) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
    state text;
    message text;
    detail text;
BEGIN
    EXECUTE stmt;
    RETURN NULL;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
    RETURN ARRAY[state, message, detail];
END
$$;

-- The error of an export of wm_t into :'base'-bad with the given options.
CREATE FUNCTION pg_temp.refused(options text) RETURNS text[] LANGUAGE sql AS $$
    SELECT pg_temp.error_of(format('SELECT parallel_export_parquet(%L, %L, 2, %s)',
                                   'wm_t', current_setting('pep.bad'), options))
$$;
SELECT set_config('pep.bad', :'base' || '-bad', true) AS bad_dir \gset

-- field_ids
SELECT is(pg_temp.refused($$field_ids => '{"nope": 1}'$$),
          ARRAY['22023', 'option "field_ids" names a field the export does not write',
                'No column or nested field of the export is named "nope".'],
          'field_ids: an unknown column is refused');
SELECT is(pg_temp.refused($$field_ids => '{"addr.zip": 1}'$$),
          ARRAY['22023', 'option "field_ids" names a field the export does not write',
                'No column or nested field of the export is named "addr.zip".'],
          'field_ids: an unknown composite field is refused');
SELECT is(pg_temp.refused($$field_ids => '{"id": 1, "tags.element": 1}'$$),
          ARRAY['22023', 'option "field_ids" gives field id 1 twice',
                'Fields "id" and "tags.element" both have field id 1.'],
          'field_ids: an id given to two fields is refused');
SELECT is(pg_temp.refused($$field_ids => '{"id": 1.5}'$$),
          ARRAY['22023', 'invalid field id for "id" in option "field_ids"',
                'A field id is an integer from 0 to 2147483647, not 1.5.'],
          'field_ids: a fractional id is refused');
SELECT is(pg_temp.refused($$field_ids => '{"id": "7"}'$$),
          ARRAY['22023', 'invalid field id for "id" in option "field_ids"',
                'A field id is a JSON number, not string.'],
          'field_ids: a string id is refused');
SELECT is(pg_temp.refused($$field_ids => '{"addr": 2147483648}'$$),
          ARRAY['22023', 'invalid field id for "addr" in option "field_ids"',
                'A field id is an integer from 0 to 2147483647, not 2147483648.'],
          'field_ids: an id past int32 is refused');
SELECT is(pg_temp.refused($$field_ids => '{"addr.city": -1}'$$),
          ARRAY['22023', 'invalid field id for "addr.city" in option "field_ids"',
                'A field id is an integer from 0 to 2147483647, not -1.'],
          'field_ids: a negative id is refused');
SELECT is((pg_temp.refused($$field_ids => 'automatic'$$))[1:2],
          ARRAY['22P02', 'invalid input syntax for type json'],
          'field_ids: text that is neither auto nor JSON is refused as JSON');
SELECT is(pg_temp.refused($$field_ids => '[1, 2]'$$),
          ARRAY['22023', 'invalid value for option "field_ids": ''[1, 2]''', ''],
          'field_ids: a JSON array is refused');

-- kv_metadata
SELECT is(pg_temp.refused($$kv_metadata => '{"geo": "{}"}'$$),
          ARRAY['22023', 'key "geo" of option "kv_metadata" is reserved',
                'Readers or this writer give the key "geo" a meaning of their own.'],
          'kv_metadata: the GeoParquet key is refused');
SELECT is((pg_temp.refused($$kv_metadata => '{"ARROW:schema": "x"}'$$))[1:2],
          ARRAY['22023', 'key "ARROW:schema" of option "kv_metadata" is reserved'],
          'kv_metadata: the Arrow schema key is refused');
SELECT is((pg_temp.refused($$kv_metadata => '{"parquet.avro.schema": "x"}'$$))[1:2],
          ARRAY['22023', 'key "parquet.avro.schema" of option "kv_metadata" is reserved'],
          'kv_metadata: the Avro schema key this writer writes is refused');
SELECT is((pg_temp.refused($$kv_metadata => '{"writer.model.name": "x"}'$$))[1:2],
          ARRAY['22023', 'key "writer.model.name" of option "kv_metadata" is reserved'],
          'kv_metadata: parquet-java''s writer model key is refused');
SELECT is(pg_temp.refused($$kv_metadata => '{"parallel_export_parquet.version": "0"}'$$),
          ARRAY['22023', 'key "parallel_export_parquet.version" of option "kv_metadata" is reserved',
                'Keys starting with "parallel_export_parquet." are written by this writer or read by Spark.'],
          'kv_metadata: this writer''s own keys are refused');
SELECT is(pg_temp.refused($$kv_metadata => '{"run": 7}'$$),
          ARRAY['22023', 'invalid value for key "run" of option "kv_metadata"',
                'Key-value metadata values are JSON strings, not number.'],
          'kv_metadata: a number value is refused');
SELECT is(pg_temp.refused($$kv_metadata => '{"run": {"a": "b"}}'$$),
          ARRAY['22023', 'invalid value for key "run" of option "kv_metadata"',
                'Key-value metadata values are JSON strings, not object.'],
          'kv_metadata: an object value is refused');
SELECT is(pg_temp.refused($$kv_metadata => '"x"'$$),
          ARRAY['22023', 'invalid value for option "kv_metadata": "x"', ''],
          'kv_metadata: a JSON string instead of an object is refused');
SELECT is(pg_temp.refused($$field_ids => 'auto', kv_metadata => '{"run": null}'$$),
          ARRAY['22023', 'invalid value for key "run" of option "kv_metadata"',
                'Key-value metadata values are JSON strings, not null.'],
          'kv_metadata: a null value is refused, with field_ids valid');
SELECT is(pg_temp.listing(:'base' || '-bad'), NULL, 'refused options created nothing');

-- Defaults: NULL writes what no option writes, byte for byte (one worker,
-- one part, the same rows in the same order).
SELECT is(parallel_export_parquet('SELECT * FROM wm_t ORDER BY id', :'base' || '-plain', 1), 1000::bigint,
          'an export without the options');
SELECT is(parallel_export_parquet('SELECT * FROM wm_t ORDER BY id', :'base' || '-null', 1,
                                  field_ids => NULL, kv_metadata => NULL), 1000::bigint,
          'an export with both options NULL');
SELECT is(md5(pg_read_binary_file(:'base' || '-null/part-00000.parquet')),
          md5(pg_read_binary_file(:'base' || '-plain/part-00000.parquet')),
          'NULL options write the same bytes as none');

-- The control: with the options, the part differs and holds the pair.
SELECT is(parallel_export_parquet('SELECT * FROM wm_t ORDER BY id', :'base' || '-meta', 1,
                                  field_ids => 'AUTO', kv_metadata => '{"wm.source": "wm-kv-value"}'),
          1000::bigint, 'an export with field_ids and kv_metadata');
SELECT isnt(md5(pg_read_binary_file(:'base' || '-meta/part-00000.parquet')),
            md5(pg_read_binary_file(:'base' || '-plain/part-00000.parquet')),
            'control: the options change the part');
SELECT ok(position(convert_to('wm-kv-value', 'UTF8') IN pg_read_binary_file(:'base' || '-meta/part-00000.parquet')) > 0
          AND position(convert_to('wm-kv-value', 'UTF8') IN pg_read_binary_file(:'base' || '-plain/part-00000.parquet')) = 0,
          'the kv_metadata value is in the part with the option and only there');

SELECT * FROM finish();
ROLLBACK;
