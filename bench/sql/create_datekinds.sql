-- bench/sql/create_datekinds.sql: the table k, :rows rows, deterministic, of only the kinds a
-- worker once stored through pep_put_fixed one call per value (bench/results/colwide.md, branch
-- datefill): 4 date, 4 timestamp, 4 timestamptz, 2 uuid and 4 numeric(12,2) columns, about 5%
-- NULLs in each; values derive from the row number g through hashint8extended, as in
-- create_table.sql. Not part of bench/run.sh; measured with bench/cpu.sh and bench/profile.sh.
-- Run with psql -v rows=N.
DROP TABLE IF EXISTS k;
BEGIN;
CREATE TABLE k (dt1 date, dt2 date, dt3 date, dt4 date,
                ts1 timestamp, ts2 timestamp, ts3 timestamp, ts4 timestamp,
                tz1 timestamptz, tz2 timestamptz, tz3 timestamptz, tz4 timestamptz,
                u1 uuid, u2 uuid,
                n1 numeric(12,2), n2 numeric(12,2), n3 numeric(12,2), n4 numeric(12,2));
INSERT INTO k
SELECT CASE WHEN (h1 >> 0) % 20 = 0 THEN NULL ELSE date '1970-01-01' + ((h2 >> 1) % 40000)::int END,
       CASE WHEN (h1 >> 1) % 20 = 0 THEN NULL ELSE date '1970-01-01' + ((h2 >> 2) % 40000)::int END,
       CASE WHEN (h1 >> 2) % 20 = 0 THEN NULL ELSE date '1970-01-01' + ((h2 >> 3) % 40000)::int END,
       CASE WHEN (h1 >> 3) % 20 = 0 THEN NULL ELSE date '1970-01-01' + ((h2 >> 4) % 40000)::int END,
       CASE WHEN (h1 >> 4) % 20 = 0 THEN NULL ELSE timestamp '2000-01-01' + ((h3 >> 1) % 946080000000000) * interval '1 microsecond' END,
       CASE WHEN (h1 >> 5) % 20 = 0 THEN NULL ELSE timestamp '2000-01-01' + ((h3 >> 2) % 946080000000000) * interval '1 microsecond' END,
       CASE WHEN (h1 >> 6) % 20 = 0 THEN NULL ELSE timestamp '2000-01-01' + ((h3 >> 3) % 946080000000000) * interval '1 microsecond' END,
       CASE WHEN (h1 >> 7) % 20 = 0 THEN NULL ELSE timestamp '2000-01-01' + ((h3 >> 4) % 946080000000000) * interval '1 microsecond' END,
       CASE WHEN (h1 >> 8) % 20 = 0 THEN NULL ELSE timestamptz '2020-01-01 00:00:00+00' + ((h4 >> 1) % 157680000000000) * interval '1 microsecond' END,
       CASE WHEN (h1 >> 9) % 20 = 0 THEN NULL ELSE timestamptz '2020-01-01 00:00:00+00' + ((h4 >> 2) % 157680000000000) * interval '1 microsecond' END,
       CASE WHEN (h1 >> 10) % 20 = 0 THEN NULL ELSE timestamptz '2020-01-01 00:00:00+00' + ((h4 >> 3) % 157680000000000) * interval '1 microsecond' END,
       CASE WHEN (h1 >> 11) % 20 = 0 THEN NULL ELSE timestamptz '2020-01-01 00:00:00+00' + ((h4 >> 4) % 157680000000000) * interval '1 microsecond' END,
       CASE WHEN (h1 >> 12) % 20 = 0 THEN NULL ELSE md5(g::text || 'k1')::uuid END,
       CASE WHEN (h1 >> 13) % 20 = 0 THEN NULL ELSE md5(g::text || 'k2')::uuid END,
       CASE WHEN (h1 >> 14) % 20 = 0 THEN NULL ELSE (((h5 >> 1) % 2000000000) / 100.0)::numeric(12,2) END,
       CASE WHEN (h1 >> 15) % 20 = 0 THEN NULL ELSE (((h5 >> 2) % 2000000000) / 100.0)::numeric(12,2) END,
       CASE WHEN (h1 >> 16) % 20 = 0 THEN NULL ELSE (((h5 >> 3) % 2000000000) / 100.0)::numeric(12,2) END,
       CASE WHEN (h1 >> 17) % 20 = 0 THEN NULL ELSE (((h5 >> 4) % 2000000000) / 100.0)::numeric(12,2) END
FROM generate_series(1, :rows) AS g,
     LATERAL (SELECT (hashint8extended(g, 21) & 9223372036854775807) AS h1,
                     (hashint8extended(g, 22) & 9223372036854775807) AS h2,
                     (hashint8extended(g, 23) & 9223372036854775807) AS h3,
                     (hashint8extended(g, 24) & 9223372036854775807) AS h4,
                     (hashint8extended(g, 25) & 9223372036854775807) AS h5) AS hs;
COMMIT;
