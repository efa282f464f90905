#!/usr/bin/env bash
# bench/ab.sh: an interleaved A/B of two builds of the extension, each
# installed into its own PostgreSQL and running its own cluster over the same
# generated table, so that the noise of this shared machine falls on both
# alike.
#
# Usage: bench/ab.sh PAIRS SOURCE WORKERS TARGET A B
#   A, B     LABEL:PEP_TMP:PORT of a running tools/cluster.sh cluster each,
#            autovacuum off, the extension created, SOURCE the same in both
#   SOURCE   a table or a query, as the export takes it
#   TARGET   local: into PEP_TMP/out of each cluster;
#            s3://BUCKET/PREFIX: into PREFIX-LABEL-RUN (the clusters started
#            with the AWS SDK's variables set); AB_S3_DATA, the object
#            store's folder (PEP_S3_DATA of regress/lib/s3proxy.sh), is where
#            the output's size is read and the output deleted after each run
# Environment: AB_WARMUP [1] pairs run first and left out; AB_LOG [PEP_TMP of
# A/ab.tsv] one line per run.
#
# Pair i runs A then B when i is odd, B then A when it is even, so that
# neither build always runs second (after the other's output was just
# deleted, with the cache as it left it). Each export runs after a `sync` and
# its output is deleted after it. Wall time is psql's \timing of the
# statement; the workers' CPU time is the postmaster's reaped-children
# counters (cutime + cstime) read in the caller's session before and after it,
# as bench/cpu.sh reads them. Prints a line per run, then per build the median
# and range of both, values (rows x columns) per CPU-second per worker, and
# B/A: the ratio of the medians and the median of the pairs' ratios.
set -euo pipefail
# shellcheck source=bench/psql-times.sh
source "$(dirname "${BASH_SOURCE[0]}")/psql-times.sh"

usage="usage: bench/ab.sh PAIRS SOURCE WORKERS TARGET LABEL:PEP_TMP:PORT LABEL:PEP_TMP:PORT"
[[ $# -eq 6 ]] || {
	echo "$usage" >&2
	exit 2
}
pairs=$1 source_name=$2 workers=$3 target=$4
IFS=: read -r label_a tmp_a port_a <<<"$5"
IFS=: read -r label_b tmp_b port_b <<<"$6"
warmup=${AB_WARMUP:-1}
log=${AB_LOG:-$tmp_a/ab.tsv}
hz=$(getconf CLK_TCK)
case $target in
local) ;;
s3://*/*) : "${AB_S3_DATA:?AB_S3_DATA: the folder of the object store, for the output size}" ;;
*)
	echo "$usage" >&2
	exit 2
	;;
esac
case ${source_name,,} in
select[[:space:]]* | with[[:space:]]* | values[[:space:]]* | table[[:space:]]*) query=$source_name ;;
*) query="SELECT * FROM $source_name" ;;
esac
source_literal=${source_name//\'/\'\'}

# psql against the cluster of label $1
sql_on() {
	local tmp port
	if [[ $1 == "$label_a" ]]; then tmp=$tmp_a port=$port_a; else tmp=$tmp_b port=$port_b; fi
	shift
	PGHOST=$tmp/sock PGPORT=$port PGUSER=postgres PGDATABASE=postgres \
		psql -X -q -v ON_ERROR_STOP=1 -At "$@"
}

columns=$(printf '%s \\gdesc\n' "$query" | sql_on "$label_a" | wc -l)
for label in "$label_a" "$label_b"; do
	sql_on "$label" -c "SELECT pg_prewarm(c.oid, 'read') FROM pg_class c
		WHERE c.oid = to_regclass('$source_literal')" >/dev/null 2>&1 || true
done

# Runs one export on the cluster of label $1, run number $2; prints
# "label run wall cpu rows bytes load1".
run_one() {
	local label=$1 run=$2 tmp pm_pid dest folder out secs cpu rows bytes
	if [[ $label == "$label_a" ]]; then tmp=$tmp_a; else tmp=$tmp_b; fi
	pm_pid=$(head -n 1 "$tmp/data/postmaster.pid")
	if [[ $target == local ]]; then
		dest=$tmp/out/ab-$run folder=$dest
	else
		dest=$target-$label-$run
		folder=$AB_S3_DATA/${dest#s3://}
	fi
	rm -rf "$folder"
	sync
	out=$(sql_on "$label" <<-EOF
		\! awk '{ print "ticks_before", \$16 + \$17 }' /proc/$pm_pid/stat
		\timing on
		SELECT 'rows', parallel_export_parquet('$source_literal', '$dest', $workers);
		\timing off
		\! awk '{ print "ticks_after", \$16 + \$17 }' /proc/$pm_pid/stat
	EOF
	)
	bytes=$(du -sb "$folder" | cut -f1)
	rm -rf "$folder"
	read -r secs cpu rows < <(bench_psql_times "$hz" <<<"$out")
	echo "$label $run $secs $cpu $rows $bytes $(cut -d' ' -f1 /proc/loadavg)"
}

: >"$log"
for ((pair = 1; pair <= warmup + pairs; pair++)); do
	if ((pair % 2)); then order=("$label_a" "$label_b"); else order=("$label_b" "$label_a"); fi
	for label in "${order[@]}"; do
		line=$(run_one "$label" "$pair")
		if ((pair <= warmup)); then
			echo "warm-up: $line"
		else
			echo "$line" | tee -a "$log"
		fi
	done
done

awk -v a="$label_a" -v b="$label_b" -v c="$columns" -v w="$workers" '
	function median(x, n,   i, j, t) {
		for (i = 2; i <= n; i++) { t = x[i]; for (j = i - 1; j > 0 && x[j] > t; j--) x[j + 1] = x[j]; x[j + 1] = t }
		return (n % 2) ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
	}
	function summary(l,   i, n, s, u, lo, hi, clo, chi) {
		n = 0
		for (i = 1; i <= np; i++) {
			n++; s[n] = wall[l, pairno[i]]; u[n] = cpu[l, pairno[i]]
			if (n == 1 || s[n] < lo) lo = s[n]
			if (n == 1 || s[n] > hi) hi = s[n]
			if (n == 1 || u[n] < clo) clo = u[n]
			if (n == 1 || u[n] > chi) chi = u[n]
		}
		mw[l] = median(s, n); mc[l] = median(u, n)
		printf "%s: %d runs, wall median %.3f s (%.3f-%.3f), workers CPU median %.2f s (%.2f-%.2f), %.2fM values per CPU-second per worker, %d rows, last output %d bytes\n",
			l, n, mw[l], lo, hi, mc[l], clo, chi, rows[l] * c / mc[l] / 1e6, rows[l], bytes[l]
	}
	{
		wall[$1, $2] = $3; cpu[$1, $2] = $4; rows[$1] = $5; bytes[$1] = $6
		if (!($2 in seen)) { np++; pairno[np] = $2; seen[$2] = 1 }
		if (!(lmin) || $7 < lmin) lmin = $7
		if ($7 > lmax) lmax = $7
	}
	END {
		summary(a); summary(b)
		for (i = 1; i <= np; i++) {
			p = pairno[i]; rw[i] = wall[b, p] / wall[a, p]; rc[i] = cpu[b, p] / cpu[a, p]
			if (wall[b, p] < wall[a, p]) faster++
		}
		printf "%s/%s: wall %.3f (median of pairs %.3f), CPU %.3f (median of pairs %.3f); %s faster in %d of %d pairs; load average (1 min) %.2f-%.2f\n",
			b, a, mw[b] / mw[a], median(rw, np), mc[b] / mc[a], median(rc, np), b, faster, np, lmin, lmax
	}' "$log"
