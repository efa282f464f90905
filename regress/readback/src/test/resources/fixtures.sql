-- regress/readback/src/test/resources/fixtures.sql: committed source objects
-- for the read-back tests, in schema regress_readback (made anew each run).
--
-- alltypes: 200,000 rows, one column per type of the product's first slice
-- plus a few "everything else" types, extreme and special values in rows
-- 1..40, NULLs in every column but id (column k is NULL where id % 97 = k,
-- k in 40..66, and in the last row).
DROP SCHEMA IF EXISTS regress_readback CASCADE;
CREATE SCHEMA regress_readback;
SET search_path = regress_readback, public;

CREATE TABLE alltypes (
    id          bigint NOT NULL PRIMARY KEY,
    c_bool      boolean,
    c_int2      smallint,
    c_int4      integer,
    c_int8      bigint,
    c_float4    real,
    c_float8    double precision,
    c_num       numeric(12,2),
    c_num_small numeric(5,1),
    c_num38     numeric(38,10),
    c_num_free  numeric,
    c_text      text,
    c_varchar   varchar(20),
    c_char      char(5),
    c_name      name,
    c_bytea     bytea,
    c_date      date,
    c_time      time,
    c_ts        timestamp,
    c_tstz      timestamptz,
    c_uuid      uuid,
    c_json      json,
    c_jsonb     jsonb,
    c_interval  interval,
    c_int4_arr  integer[],
    c_inet      inet
);

INSERT INTO alltypes
SELECT g,
    CASE WHEN g % 97 = 40 OR g = 200000 THEN NULL ELSE v_bool END,
    CASE WHEN g % 97 = 41 OR g = 200000 THEN NULL ELSE v_int2 END,
    CASE WHEN g % 97 = 42 OR g = 200000 THEN NULL ELSE v_int4 END,
    CASE WHEN g % 97 = 43 OR g = 200000 THEN NULL ELSE v_int8 END,
    CASE WHEN g % 97 = 44 OR g = 200000 THEN NULL ELSE v_float4 END,
    CASE WHEN g % 97 = 45 OR g = 200000 THEN NULL ELSE v_float8 END,
    CASE WHEN g % 97 = 46 OR g = 200000 THEN NULL ELSE v_num END,
    CASE WHEN g % 97 = 47 OR g = 200000 THEN NULL ELSE v_num_small END,
    CASE WHEN g % 97 = 48 OR g = 200000 THEN NULL ELSE v_num38 END,
    CASE WHEN g % 97 = 49 OR g = 200000 THEN NULL ELSE v_num_free END,
    CASE WHEN g % 97 = 50 OR g = 200000 THEN NULL ELSE v_text END,
    CASE WHEN g % 97 = 51 OR g = 200000 THEN NULL ELSE v_varchar END,
    CASE WHEN g % 97 = 52 OR g = 200000 THEN NULL ELSE v_char END,
    CASE WHEN g % 97 = 53 OR g = 200000 THEN NULL ELSE v_name END,
    CASE WHEN g % 97 = 54 OR g = 200000 THEN NULL ELSE v_bytea END,
    CASE WHEN g % 97 = 55 OR g = 200000 THEN NULL ELSE v_date END,
    CASE WHEN g % 97 = 56 OR g = 200000 THEN NULL ELSE v_time END,
    CASE WHEN g % 97 = 57 OR g = 200000 THEN NULL ELSE v_ts END,
    CASE WHEN g % 97 = 58 OR g = 200000 THEN NULL ELSE v_tstz END,
    CASE WHEN g % 97 = 59 OR g = 200000 THEN NULL ELSE v_uuid END,
    CASE WHEN g % 97 = 60 OR g = 200000 THEN NULL ELSE v_json END,
    CASE WHEN g % 97 = 61 OR g = 200000 THEN NULL ELSE v_jsonb END,
    CASE WHEN g % 97 = 62 OR g = 200000 THEN NULL ELSE v_interval END,
    CASE WHEN g % 97 = 63 OR g = 200000 THEN NULL ELSE v_int4_arr END,
    CASE WHEN g % 97 = 64 OR g = 200000 THEN NULL ELSE v_inet END
FROM (
    SELECT g,
        g % 3 = 0 AS v_bool,
        CASE g WHEN 1 THEN -32768 WHEN 2 THEN 32767 WHEN 3 THEN 0
               ELSE (g * 7 % 65536 - 32768) END::smallint AS v_int2,
        CASE g WHEN 1 THEN -2147483648 WHEN 2 THEN 2147483647 WHEN 3 THEN 0
               ELSE (g::bigint * 7919 % 4294967296 - 2147483648) END::integer AS v_int4,
        CASE g WHEN 1 THEN -9223372036854775808 WHEN 2 THEN 9223372036854775807 WHEN 3 THEN 0
               ELSE ((g::numeric * 92233720368547 % 9223372036854775807) * (CASE WHEN g % 2 = 0 THEN 1 ELSE -1 END))::bigint END AS v_int8,
        CASE g WHEN 1 THEN 'NaN'::real WHEN 2 THEN 'Infinity' WHEN 3 THEN '-Infinity' WHEN 4 THEN '-0'
               WHEN 5 THEN '1.4e-45' WHEN 6 THEN '3.4028235e38' WHEN 7 THEN '-1.17549435e-38' WHEN 8 THEN 0
               ELSE (sin(g) * 1000)::real END AS v_float4,
        CASE g WHEN 1 THEN 'NaN'::double precision WHEN 2 THEN 'Infinity' WHEN 3 THEN '-Infinity' WHEN 4 THEN '-0'
               WHEN 5 THEN '4.9e-324' WHEN 6 THEN '1.7976931348623157e308' WHEN 7 THEN '-2.2250738585072014e-308'
               WHEN 8 THEN 0.1
               ELSE sin(g) * 1e6 END AS v_float8,
        CASE g WHEN 1 THEN -9999999999.99 WHEN 2 THEN 9999999999.99 WHEN 3 THEN 0 WHEN 4 THEN -0.01
               ELSE (g * 123.45 - 1e7) END::numeric(12,2) AS v_num,
        CASE g WHEN 1 THEN -9999.9 WHEN 2 THEN 9999.9 WHEN 3 THEN 0
               ELSE (g % 199999 - 99999) / 10.0 END::numeric(5,1) AS v_num_small,
        CASE g WHEN 1 THEN -9999999999999999999999999999.9999999999
               WHEN 2 THEN 9999999999999999999999999999.9999999999
               WHEN 3 THEN 0.0000000001 WHEN 4 THEN 0
               ELSE g * 1234567890.0123456789 END::numeric(38,10) AS v_num38,
        -- numeric's text is written by pep_numtext.c, not numeric_out: weights below
        -- zero and past the last digit, a first digit of 1 to 4 figures, scales that
        -- are and are not multiples of four, zero with a scale, the special values
        CASE g WHEN 1 THEN 'NaN'::numeric WHEN 2 THEN 'Infinity' WHEN 3 THEN '-Infinity'
               WHEN 4 THEN 1e-30 WHEN 5 THEN 1e100 WHEN 6 THEN 0.000 WHEN 7 THEN -1.50
               WHEN 8 THEN -0.00001234 WHEN 9 THEN 10000 WHEN 10 THEN 99990000.00010
               WHEN 11 THEN 123456789012345678901234567890.123456789 WHEN 12 THEN 100.0000
               WHEN 13 THEN 1000.1 WHEN 14 THEN 0.00005 WHEN 15 THEN -9999 WHEN 16 THEN 0
               WHEN 17 THEN 5.5e-100 WHEN 18 THEN 42.00000000000000000000001
               ELSE g::numeric / 7 * 10 ^ (g % 9 - 4)::numeric END AS v_num_free,
        CASE g WHEN 1 THEN '' WHEN 2 THEN 'héllo wörld ☃ 𝄞 日本語'
               WHEN 3 THEN E'line1\nline2\ttab\r\n"quoted" ''single'' back\\slash'
               WHEN 4 THEN repeat('long', 5000) WHEN 5 THEN ' padded  '
               ELSE 'text-' || g || repeat('x', g % 40) END AS v_text,
        CASE g WHEN 1 THEN '' WHEN 2 THEN 'ünïcödé' ELSE left('v' || md5(g::text), 1 + g % 20) END::varchar(20) AS v_varchar,
        CASE g WHEN 1 THEN '' WHEN 2 THEN 'ab' WHEN 3 THEN 'abcde' WHEN 4 THEN 'é'
               ELSE left(md5(g::text), 1 + g % 5) END::char(5) AS v_char,
        CASE g WHEN 1 THEN '' WHEN 2 THEN repeat('n', 63) ELSE 'name_' || g END::name AS v_name,
        CASE g WHEN 1 THEN '\x'::bytea WHEN 2 THEN '\x00' WHEN 3 THEN '\x00ff00ff'
               WHEN 4 THEN decode(repeat('deadbeef', 2500), 'hex')
               ELSE decode(md5(g::text), 'hex') END AS v_bytea,
        CASE g WHEN 1 THEN '0001-01-01'::date WHEN 2 THEN '9999-12-31' WHEN 3 THEN '1970-01-01'
               WHEN 4 THEN '1969-12-31' WHEN 5 THEN '2000-02-29' WHEN 6 THEN '0044-03-15 BC'
               ELSE DATE '2000-01-01' + (g % 40000 - 20000) END AS v_date,
        CASE g WHEN 1 THEN '00:00:00'::time WHEN 2 THEN '23:59:59.999999' WHEN 3 THEN '12:34:56.789012'
               ELSE TIME '00:00' + (g::bigint * 1234567891 % 86400000000) * interval '1 microsecond' END AS v_time,
        CASE g WHEN 1 THEN '0001-01-01 00:00:00'::timestamp WHEN 2 THEN '9999-12-31 23:59:59.999999'
               WHEN 3 THEN '1970-01-01 00:00:00' WHEN 4 THEN '1969-12-31 23:59:59.999999'
               WHEN 5 THEN '0100-03-01 12:00:00 BC'
               ELSE TIMESTAMP '2000-01-01' + g * interval '1 hour 1 second 123457 microseconds' END AS v_ts,
        CASE g WHEN 1 THEN '0001-01-01 00:00:00+00'::timestamptz WHEN 2 THEN '9999-12-31 23:59:59.999999+00'
               WHEN 3 THEN '2000-01-01 00:00:00+14' WHEN 4 THEN '1999-12-31 23:00:00-11'
               WHEN 5 THEN '2021-03-28 02:30:00 Europe/Berlin' WHEN 6 THEN '1969-12-31 23:59:59.999999+00'
               ELSE TIMESTAMPTZ '2020-01-01 00:00:00+00' - g * interval '37 minutes 123457 microseconds' END AS v_tstz,
        CASE g WHEN 1 THEN '00000000-0000-0000-0000-000000000000'::uuid
               WHEN 2 THEN 'ffffffff-ffff-ffff-ffff-ffffffffffff'
               ELSE md5(g::text)::uuid END AS v_uuid,
        CASE g WHEN 1 THEN '{"b": 1,   "a": [1, 2.50, "x"]}'::json WHEN 2 THEN 'null' WHEN 3 THEN '"é\u00e9"'
               WHEN 4 THEN '[]' WHEN 5 THEN '12345678901234567890.123'
               ELSE json_build_object('id', g, 'k', 'v' || g) END AS v_json,
        -- jsonb's text is written by pep_jsonb.c, not jsonb_out: every layout and
        -- escape rule, and each ASCII byte but NUL in a key and a value (g % 127)
        CASE g WHEN 1 THEN '{"b": 1,   "a": [1, 2.50, "x"]}'::jsonb WHEN 2 THEN 'null' WHEN 3 THEN '"é\u00e9"'
               WHEN 4 THEN '{}' WHEN 5 THEN '1e2'
               WHEN 6 THEN '{"q\"k": "a\\b\/c\b\f\n\r\t\u0001\u001f\u007f", "": "", "e": [], "o": {}}'
               WHEN 7 THEN '[[], {}, [[1]], {"a": {"b": [null, true, false, -0.0, 1.5e300, "s"]}}, "", 0]'
               WHEN 8 THEN '"a raw \"scalar\" \\ string"' WHEN 9 THEN 'true' WHEN 10 THEN '[]'
               WHEN 11 THEN '{"ключ": "значение 😀", "日本": ["語", {"x": "\u00e9\t"}]}'
               WHEN 12 THEN '[{"a": []}, {"b": {}}, [{"c": [{}]}]]' WHEN 13 THEN '-123.4500'
               WHEN 14 THEN '[0, 0.000, -0.00001234, 10000, 99990000.00010, 1e100, 5.5e-100, 100.0000, 7, 12.5]'
               -- more than 32 children (JB_OFFSET_STRIDE): some JEntries hold an end offset, not a length
               WHEN 15 THEN (SELECT jsonb_object_agg('key' || repeat('x', i % 7) || i,
                                                     CASE i % 5 WHEN 0 THEN to_jsonb(i * 1.5) WHEN 1 THEN to_jsonb(repeat('s', i))
                                                                WHEN 2 THEN to_jsonb(i % 2 = 0) WHEN 3 THEN 'null'::jsonb
                                                                ELSE jsonb_build_array(i, 'a' || i) END)
                             FROM generate_series(1, 40) AS i)
               WHEN 16 THEN (SELECT jsonb_agg(CASE i % 4 WHEN 0 THEN to_jsonb(i / 7.0) WHEN 1 THEN to_jsonb(repeat('é', i))
                                                         WHEN 2 THEN jsonb_build_object('n', i) ELSE to_jsonb(-i) END)
                             FROM generate_series(1, 70) AS i)
               ELSE jsonb_build_object('id', g, 'nested', jsonb_build_object('v', g % 10),
                                       'k' || chr(1 + g % 127), chr(1 + (g + 7) % 127) || 'v') END AS v_jsonb,
        CASE g WHEN 1 THEN '1 year 2 mons 3 days 04:05:06.789'::interval WHEN 2 THEN '-1 day'
               ELSE g * interval '1 minute' END AS v_interval,
        CASE g WHEN 1 THEN '{}'::integer[] WHEN 2 THEN '{1,NULL,3}' ELSE ARRAY[g, g + 1] END AS v_int4_arr,
        CASE g WHEN 1 THEN '::1'::inet WHEN 2 THEN '192.168.0.1/24'
               ELSE ('10.' || g % 256 || '.' || g / 256 % 256 || '.1')::inet END AS v_inet
    FROM generate_series(1, 200000) AS g
) AS v;

-- The same columns, fewer rows, for the Parquet type checks; and none.
CREATE TABLE types_small AS SELECT * FROM alltypes WHERE id <= 1000 OR id = 200000;
CREATE TABLE types_empty (LIKE alltypes);

-- Partitioned: three leaves, one with another column order, one with a
-- dropped column (and the default partition).
CREATE TABLE part (
    id      bigint NOT NULL,
    region  text,
    amount  numeric(12,2),
    ts      timestamptz,
    tag     varchar(10)
) PARTITION BY LIST (region);
CREATE TABLE part_eu PARTITION OF part FOR VALUES IN ('eu');
CREATE TABLE part_us (tag varchar(10), ts timestamptz, amount numeric(12,2), region text, id bigint NOT NULL);
ALTER TABLE part ATTACH PARTITION part_us FOR VALUES IN ('us');
CREATE TABLE part_rest (id bigint NOT NULL, junk integer, region text, amount numeric(12,2),
                        ts timestamptz, tag varchar(10));
ALTER TABLE part_rest DROP COLUMN junk;
ALTER TABLE part ATTACH PARTITION part_rest DEFAULT;
INSERT INTO part
SELECT g,
       CASE WHEN g % 50 = 7 THEN NULL ELSE (ARRAY['eu', 'us', 'apac', 'latam'])[g % 4 + 1] END,
       CASE WHEN g % 50 = 8 THEN NULL ELSE (g * 3.17)::numeric(12,2) END,
       CASE WHEN g % 50 = 9 THEN NULL ELSE TIMESTAMPTZ '2024-01-01 00:00:00+00' + g * interval '1.5 seconds' END,
       CASE WHEN g % 50 = 10 THEN NULL ELSE 'tag' || g % 1000 END
FROM generate_series(1, 60000) AS g;

-- A view (the streamed path) and the committed base of the in-transaction test.
CREATE VIEW alltypes_v AS SELECT * FROM alltypes WHERE id % 4 <> 0;
CREATE TABLE txn_base AS SELECT * FROM alltypes WHERE id <= 20000;
ALTER TABLE txn_base ADD PRIMARY KEY (id);

ANALYZE;
