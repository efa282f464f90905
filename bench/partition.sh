#!/usr/bin/env bash
# bench/partition.sh: partition_by against the unpartitioned export (issue 14).
#
# On the running cluster of tools/cluster.sh (with the extension installed),
# builds tp: the benchmark table t (bench/sql/create_table.sql, BENCH_ROWS
# rows) plus integer columns p10, p16, p160 and p10k (id modulo 10, 16, 160
# and 10,000).  Then, in one run, round-robin BENCH_RUNS times, with 2 workers:
#
#   flat       parallel_export_parquet('tp', dir, 2)
#   p16, p160  the same with partition_by => ARRAY['p16'] / ARRAY['p160']
#
# and reports median seconds, files written and their average size.  Then a
# worker's peak memory (the largest VmHWM of the export's parallel workers,
# polled every 100 ms) for 10, 160 and 10,000 partitions, on the first
# BENCH_MEM_ROWS rows ordered by the partition column (a query source, so
# each worker meets folders in runs, as a table clustered by them would).
# With BENCH_S3=1, the same memory runs again into s3:// on an S3Proxy the
# script starts (regress/lib/s3proxy.sh) and reaches through a foreign
# server, so a worker's upload buffers are in the peak too.
#
# Usage: bench/partition.sh   Environment: BENCH_ROWS [10000000],
# BENCH_RUNS [1], BENCH_MEM_ROWS [1000000], BENCH_S3 [0], BENCH_RESULTS
# [bench/results/partition.md].  Every export is checked: rows returned and
# row count read back equal.

set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=../tools/cluster.sh
source "$root/tools/cluster.sh"

ROWS=${BENCH_ROWS:-10000000}
RUNS=${BENCH_RUNS:-1}
MEM_ROWS=${BENCH_MEM_ROWS:-1000000}
RESULTS=${BENCH_RESULTS:-$root/bench/results/partition.md}
OUT="$PEP_OUT/bench-partition"

q() { psql -X -A -t -q -v ON_ERROR_STOP=1 "$@"; }

if [[ "$(q -c "SELECT count(*) FROM pg_class WHERE relname = 'tp'")" == 1 &&
	"$(q -c "SELECT count(*) FROM tp")" == "$ROWS" ]]; then
	echo "# reusing tp ($ROWS rows)"
else
	echo "# building tp ($ROWS rows)"
	PGOPTIONS="-c client_min_messages=warning" q -v rows="$ROWS" -f "$root/bench/sql/create_table.sql" >/dev/null
	PGOPTIONS="-c client_min_messages=warning" q -c "DROP TABLE IF EXISTS tp; CREATE TABLE tp AS SELECT *, (id % 10)::int AS p10,
		(id % 16)::int AS p16, (id % 160)::int AS p160, (id % 10000)::int AS p10k FROM t;
		DROP TABLE t, t_one" -c "VACUUM ANALYZE tp" >/dev/null
fi
q -c "CREATE EXTENSION IF NOT EXISTS parallel_export_parquet" >/dev/null

# Peak VmHWM (kB) of the parallel workers while "$@" runs as one psql call.
peak_worker_kb() {
	local peak=0 pid kb
	"$@" >"$OUT.last" 2>&1 &
	local job=$!
	while kill -0 "$job" 2>/dev/null; do
		for pid in $(q -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'parallel worker'"); do
			kb=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
			((${kb:-0} > peak)) && peak=$kb
		done
		sleep 0.1
	done
	wait "$job"
	echo "$peak"
}

# The memory table: TARGET is a directory or an s3:// URL whose objects lie
# in the folder FILES, ARGS more options.
memory_runs() {
	local target="$1" files="$2" args="$3" col kb
	echo "| partitions | peak worker RSS | files |"
	echo "|---|---|---|"
	for col in p10 p160 p10k; do
		kb=$(peak_worker_kb q -c "SELECT parallel_export_parquet('SELECT * FROM tp WHERE id <= $MEM_ROWS ORDER BY $col', '$target/mem-$col', 2, partition_by => ARRAY['$col']$args)")
		grep -q "^$MEM_ROWS\$" "$OUT.last" || { cat "$OUT.last" >&2; exit 1; }
		printf '| %s | %d MB | %d |\n' "$(q -c "SELECT count(DISTINCT $col) FROM tp WHERE id <= $MEM_ROWS")" \
			"$((kb / 1024))" "$(find "$files/mem-$col" -name 'part-*.parquet' | wc -l)"
	done
}

# Seconds of one export into a fresh directory; checks its rows.
run_export() {
	local name="$1" by="$2" dir="$OUT/$1" started rows
	rm -rf "$dir"
	started=$(date +%s.%N)
	rows=$(q -c "SELECT parallel_export_parquet('tp', '$dir', 2$by)")
	[[ "$rows" == "$ROWS" ]] || { echo "$name returned $rows rows" >&2; exit 1; }
	echo "$(date +%s.%N) - $started" | bc
}

median() { grep . | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

rm -rf "$OUT"
mkdir -p "$OUT"
chown postgres "$OUT"
declare -A times
for ((r = 1; r <= RUNS; r++)); do
	times[flat]+="$(run_export flat '')"$'\n'
	times[p16]+="$(run_export p16 ", partition_by => ARRAY['p16']")"$'\n'
	times[p160]+="$(run_export p160 ", partition_by => ARRAY['p160']")"$'\n'
done

{
	echo "# partition_by: $ROWS rows of tp, 2 workers, median of $RUNS ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores)"
	echo
	echo "| export | seconds | vs flat | files | average file size |"
	echo "|---|---|---|---|---|"
	flat=$(median <<<"${times[flat]}")
	for name in flat p16 p160; do
		secs=$(median <<<"${times[$name]}")
		files=$(find "$OUT/$name" -name 'part-*.parquet' | wc -l)
		bytes=$(find "$OUT/$name" -name 'part-*.parquet' -printf '%s\n' | awk '{s += $1} END {print s}')
		printf '| %s | %.1f | %.2fx | %d | %.1f MB |\n' "$name" "$secs" "$(echo "$secs / $flat" | bc -l)" \
			"$files" "$(echo "$bytes / $files / 1048576" | bc -l)"
	done
	echo
	echo "A worker's peak memory (VmHWM), $MEM_ROWS rows ordered by the partition column, 2 workers:"
	echo
	memory_runs "$OUT" "$OUT" ""
	if [[ "${BENCH_S3:-0}" == 1 ]]; then
		"$root/regress/lib/s3proxy.sh" start "$OUT/s3proxy" $((PEP_PORT + 2000)) bench >&2
		# shellcheck source=/dev/null
		source "$OUT/s3proxy/s3proxy.env"
		q >/dev/null <<SQL
DROP SERVER IF EXISTS bench_s3 CASCADE;
CREATE SERVER bench_s3 FOREIGN DATA WRAPPER parallel_export_parquet_s3
    OPTIONS (endpoint '$PEP_S3_ENDPOINT', region 'us-east-1', path_style 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER bench_s3
    OPTIONS (access_key_id '$PEP_S3_IDENTITY', secret_access_key '$PEP_S3_CREDENTIAL');
SQL
		echo
		echo "The same into s3:// on S3Proxy (part_size 8 MiB, each open part's upload buffers in partition_memory):"
		echo
		memory_runs s3://bench "$PEP_S3_DATA/bench" ", s3_server => 'bench_s3'"
		q -c "DROP SERVER bench_s3 CASCADE" >/dev/null
		"$root/regress/lib/s3proxy.sh" stop "$OUT/s3proxy"
	fi
} | tee "$RESULTS"
rm -rf "$OUT" "$OUT.last"
