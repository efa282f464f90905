-- bench/sql/create_nested_one.sql: t_nested_one, one row of the kinds the flat 1-row export does
-- not touch (arrays, a multi-dimensional array, a composite, an enum, an interval), for the
-- start-up latency of a part whose writers are nested.
DROP TABLE IF EXISTS t_nested_one;
DROP TYPE IF EXISTS bench_pair, bench_mood;
CREATE TYPE bench_pair AS (k int, v text[]);
CREATE TYPE bench_mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE t_nested_one (id bigint, a int[], m text[][], p bench_pair, ps bench_pair[],
                           mood bench_mood, iv interval);
INSERT INTO t_nested_one VALUES
    (1, ARRAY[1, NULL, 3], ARRAY[['a', 'b'], ['c', NULL]], ROW(7, ARRAY['x', 'y'])::bench_pair,
     ARRAY[ROW(1, ARRAY['p'])::bench_pair, NULL], 'happy', interval '1 year 2 days 03:04:05.678');
