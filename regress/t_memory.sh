#!/usr/bin/env bash
# regress/t_memory.sh: the leader's memory stays bounded for a query source.
#
# A query source runs in the caller's backend, which fetches every
# out-of-line value before it sends the row to a worker.  This exports
# `SELECT * FROM pep_mem_t`, over 1 GB of text held three ways (stored out
# of line uncompressed, out of line compressed, and compressed inline), and
# samples the caller backend's RssAnon from /proc while the export runs.
# Growth from the idle session to the peak must stay under 50 MB, whatever
# the data's size.
#
# Premises checked, not assumed: the values really are stored as described
# (pg_column_size against octet_length, and the TOAST table's size); the
# sampler really watched the export (the progress view showed the caller in
# phase 'writing' with rows written); every row was exported.  Samples are
# taken until the exporting psql exits, no timer decides anything.  Needs a
# running cluster from tools/cluster.sh with the extension installed, and
# root or the server's OS user (to read /proc/PID/status).  Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/tap.sh
source "$here/lib/tap.sh"

WORK="${PEP_HARNESS_OUT:-$PEP_OUT}/memory"
ROWS=10500
LIMIT_KB=$((50 * 1024))

rm -rf "$WORK"
mkdir -p "$WORK"
chown postgres "$WORK"

# Column a: 100 kB of md5 text per row, STORAGE EXTERNAL (out of line,
# never compressed: fast to write).  Column b: 5 kB of one letter, which
# compresses to a few bytes and stays inline.  Column c, on every tenth row:
# 200 distinct md5s repeated ten times, which lz4 compresses to about 6 kB,
# too big to stay inline (pglz would give up: it looks back 4 kB at most).  Unlogged: the data is scratch, WAL would only cost time.
sql "CREATE EXTENSION IF NOT EXISTS parallel_export_parquet;
	DROP TABLE IF EXISTS pep_mem_t;
	CREATE UNLOGGED TABLE pep_mem_t (id integer, a text, b text, c text COMPRESSION lz4);
	ALTER TABLE pep_mem_t ALTER a SET STORAGE EXTERNAL;
	INSERT INTO pep_mem_t
	SELECT g, repeat(md5(g::text), 3200), repeat(chr(97 + g % 26), 5000),
	       CASE WHEN g % 10 = 0 THEN
	           repeat((SELECT string_agg(md5(g::text || '/' || i), '') FROM generate_series(1, 200) AS i), 10)
	       END
	FROM generate_series(1, $ROWS) AS g" >/dev/null

stored=$(sql "SELECT pg_relation_size(reltoastrelid) >= 1024 * 1024 * 1024,
		bool_and(pg_column_size(a) >= octet_length(a)),
		bool_and(pg_column_size(b) < 100 AND octet_length(b) = 5000),
		bool_and(c IS NULL OR (pg_column_size(c) < octet_length(c) / 5 AND pg_column_size(c) > 4000)),
		count(c), pg_size_pretty(pg_relation_size(reltoastrelid))
	FROM pep_mem_t, pg_class WHERE pg_class.oid = 'pep_mem_t'::regclass GROUP BY reltoastrelid")
[[ "$stored" == t\|t\|t\|t\|$((ROWS / 10))\|* ]]
ok $? "premise: over 1 GB out of line, uncompressed in a, compressed in c, compressed inline in b ($stored)"

# One session: report its pid, wait for the go, export.  The idle backend's
# RssAnon is the baseline.
mkfifo "$WORK/in"
chmod 666 "$WORK/in"
PGAPPNAME=pep_memory psql -X -A -t -q -v ON_ERROR_STOP=1 <"$WORK/in" >"$WORK/export.out" 2>&1 &
psql_pid=$!
exec 3>"$WORK/in"
echo "SELECT pg_backend_pid();" >&3
until [[ -s "$WORK/export.out" ]] || ! kill -0 "$psql_pid" 2>/dev/null; do
	sleep 0.05
done
backend=$(head -1 "$WORK/export.out")

rss() {
	awk '/^RssAnon:/ { print $2 }' "/proc/$1/status" 2>/dev/null
}

baseline=$(rss "$backend")
peak=$baseline
watched=0
echo "SELECT parallel_export_parquet('SELECT * FROM pep_mem_t', '$WORK/out', 2);" >&3
exec 3>&-
while kill -0 "$psql_pid" 2>/dev/null; do
	now=$(rss "$backend")
	[[ -n "$now" && "$now" -gt "$peak" ]] && peak=$now
	if [[ $watched == 0 ]] && [[ "$(sql "SELECT phase = 'writing' AND rows_written > 0
			FROM parallel_export_parquet_progress WHERE pid = $backend")" == t ]]; then
		watched=1
	fi
	sleep 0.2
done
wait "$psql_pid"
export_rc=$?
growth=$((peak - baseline))

[[ $export_rc == 0 && "$(sed -n 2p "$WORK/export.out")" == "$ROWS" ]]
ok $? "the export of the query source completed with every row" "$(cat "$WORK/export.out")"
[[ $watched == 1 ]]
ok $? "premise: the sampler watched the export while it was writing"
[[ -n "$baseline" && $growth -lt $LIMIT_KB ]]
ok $? "the caller's RssAnon grew by $((growth / 1024)) MB (from $((baseline / 1024)) MB to $((peak / 1024)) MB), under $((LIMIT_KB / 1024)) MB"

sql "DROP TABLE pep_mem_t" >/dev/null
rm -rf "$WORK"
tap_done
