-- bench/sql/fingerprint_count.sql: the row count alone, for the 1-row export of nested kinds;
-- the same text for PostgreSQL and DuckDB. {{SRC}} is the relation.
SELECT count(*) AS rows FROM {{SRC}};
