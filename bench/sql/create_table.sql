-- bench/sql/create_table.sql: the benchmark table t, :rows rows, deterministic.
-- Every value derives from the row number g through hashint8extended(g, seed) (a fixed hash,
-- no random()); about 5% of each column but id is NULL. About 200 bytes a row on disk.
-- Run with psql -v rows=N. Also creates t_one, one row of t, for the start-up latency.
DROP TABLE IF EXISTS t, t_one;
BEGIN;
-- created and filled in one transaction: with wal_level = minimal the rows skip the WAL
CREATE TABLE t (id bigint NOT NULL, i int, d double precision, amount numeric(12,2), txt text,
                ts timestamptz, dt date, flag boolean, u uuid, j jsonb);
INSERT INTO t
SELECT g::bigint AS id,
       CASE WHEN h1 % 20 = 0 THEN NULL ELSE (h2 % 2000000000)::int END AS i,
       CASE WHEN h1 % 20 = 1 THEN NULL ELSE (h3 % 100000000) / 1024.0::float8 END AS d,
       CASE WHEN h1 % 20 = 2 THEN NULL
            ELSE ((h4 % 2000000000) / 100.0)::numeric(12,2) END AS amount,
       CASE WHEN h1 % 20 = 3 THEN NULL
            ELSE (ARRAY['alpha','bravo','charlie','delta','echo','foxtrot','golf','hotel'])[1 + h5 % 8]
                 || ' ' || left(md5(g::text), 8 + (h5 / 8 % 25)::int) END AS txt,
       CASE WHEN h1 % 20 = 4 THEN NULL
            ELSE timestamptz '2020-01-01 00:00:00+00' + (h6 % 157680000) * interval '1 second'
                 + (h7 % 1000000) * interval '1 microsecond' END AS ts,
       CASE WHEN h1 % 20 = 5 THEN NULL ELSE date '2000-01-01' + (h7 % 10000)::int END AS dt,
       CASE WHEN h1 % 20 = 6 THEN NULL ELSE h8 % 3 = 0 END AS flag,
       CASE WHEN h1 % 20 = 7 THEN NULL ELSE md5(g::text || 'u')::uuid END AS u,
       CASE WHEN h1 % 20 = 8 THEN NULL
            ELSE jsonb_build_object('k', h8 % 1000, 'tag', 'tag' || (h8 % 50),
                                    'v', round((h2 % 100000) / 100.0, 2), 'ok', h8 % 2 = 0) END AS j
FROM generate_series(1, :rows) AS g,
     LATERAL (SELECT (hashint8extended(g, 1) & 9223372036854775807) AS h1, hashint8extended(g, 2) AS h2,
                     hashint8extended(g, 3) AS h3, hashint8extended(g, 4) AS h4,
                     (hashint8extended(g, 5) & 9223372036854775807) AS h5, (hashint8extended(g, 6) & 9223372036854775807) AS h6,
                     (hashint8extended(g, 7) & 9223372036854775807) AS h7, (hashint8extended(g, 8) & 9223372036854775807) AS h8) AS hs;
ALTER TABLE t ADD PRIMARY KEY (id);
CREATE TABLE t_one (LIKE t);
INSERT INTO t_one SELECT * FROM t WHERE id = 1;
COMMIT;
