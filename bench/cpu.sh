#!/usr/bin/env bash
# bench/cpu.sh: the CPU time an export's workers use, and the values they
# encode per CPU-second, measured so that a shared machine does not skew it.
#
# Wall time on a machine others share says mostly how busy they were; the CPU
# time of the workers themselves does not. The postmaster reaps every parallel
# worker, and the kernel then adds the worker's CPU time, all its threads (the
# JVM's JIT compiler and garbage collector included), to the postmaster's
# cutime and cstime (fields 16 and 17 of /proc/PID/stat). Read in the caller's
# session right before and right after the statement (the statement returns
# only once its workers are reaped), their difference is the CPU time of the
# export's workers. Any other child of the postmaster that exits in between
# counts too, so the numbers are for a cluster with autovacuum off.
#
# Usage: bench/cpu.sh SOURCE [WORKERS [RUNS]]      defaults: 2 workers, 3 runs
#   on a running tools/cluster.sh cluster (PEP_TMP, PEP_PORT as for it), the
#   extension created; SOURCE is a table, a view or a query, as the export
#   takes it ('SELECT * FROM t WHERE true' measures a query source). Extra SQL
#   before each export (a SET) can be given in BENCH_CPU_SETUP, more arguments
#   of the export in BENCH_EXPORT_ARGS (", partition_by => ARRAY['p16']").
# Prints a line per run: wall seconds, the workers' CPU seconds, values
# (rows x columns) per CPU-second per worker, and the load average; then the
# medians.
#
# BENCH_CPU_THREADS=1 also splits the workers' time by JVM thread (issue 13:
# the fixed cost each worker's JVM adds). While the export runs, every
# thread of every parallel worker of the cluster is read from
# /proc/PID/task/*/stat each 100 ms and its last utime + stime kept; its name
# says what it is: the worker's main thread (PostgreSQL's C and the Java it
# calls, interpreted or compiled), the C2 and C1 compiler threads, the VM
# thread (SerialGC collects in it), other collectors' GC threads, and the
# rest. Each thread's last 100 ms can be missed: the "sampled" sum beside the
# postmaster's total says how much.
set -euo pipefail

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$bench_dir")
source_name=${1:?usage: bench/cpu.sh SOURCE [WORKERS [RUNS]]}
workers=${2:-2}
runs=${3:-3}

# shellcheck source=../tools/cluster.sh
source "$root/tools/cluster.sh"
# shellcheck source=bench/psql-times.sh
source "$bench_dir/psql-times.sh"
pep_running || {
	echo "cpu: no cluster at $PEP_TMP (tools/cluster.sh start)" >&2
	exit 1
}
pm_pid=$(head -n 1 "$PEP_DATA/postmaster.pid")
hz=$(getconf CLK_TCK)
case ${source_name,,} in
select[[:space:]]* | with[[:space:]]* | values[[:space:]]* | table[[:space:]]*) query=$source_name ;;
*) query="SELECT * FROM $source_name" ;;
esac
# one line per output column, whatever SOURCE is
columns=$(printf '%s \\gdesc\n' "$query" | psql -X -At -v ON_ERROR_STOP=1 | wc -l)
source_literal=${source_name//\'/\'\'}
work=$PEP_TMP/cpu
mkdir -p "$work"

# Appends "pid tid comm ticks" of every thread of every parallel worker of
# the cluster every 100 ms until killed.
sample_threads() {
	set +e
	local p t title stat comm
	local -a f
	while :; do
		for p in $(pgrep -P "$pm_pid"); do
			read -r -d '' title 2>/dev/null <"/proc/$p/cmdline"
			[[ $title == *"parallel worker"* ]] || continue
			for t in /proc/"$p"/task/*; do
				read -r stat 2>/dev/null <"$t/stat" || continue
				# comm may hold blanks: it lies between the first "(" and the last ")"
				comm=${stat#*(}
				comm=${comm%)*}
				read -r -a f <<<"${stat##*) }"
				echo "$p ${t##*/} ${comm// /_} $((f[11] + f[12]))"
			done
		done
		sleep 0.1
	done
}

# "sampled main c2 c1 vm gc other" CPU seconds, summed over the workers
split_threads() {
	awk -v hz="$hz" '
		{
			last[$1 " " $2] = $4
			kind[$1 " " $2] = ($1 == $2) ? "main" : ($3 ~ /^C2_Compiler/) ? "c2" : \
				($3 ~ /^C1_Compiler/) ? "c1" : ($3 == "VM_Thread") ? "vm" : \
				($3 ~ /^(GC_Thread|G1_)/) ? "gc" : "other"
		}
		END {
			for (k in last) { s[kind[k]] += last[k]; all += last[k] }
			printf "%.2f %.2f %.2f %.2f %.2f %.2f %.2f\n", all / hz, s["main"] / hz,
				s["c2"] / hz, s["c1"] / hz, s["vm"] / hz, s["gc"] / hz, s["other"] / hz
		}' "$1"
}

results=()
threads=()
for run in $(seq "$runs"); do
	out=$PEP_OUT/cpu-$run
	rm -rf "$out"
	if [[ ${BENCH_CPU_THREADS:-0} == 1 ]]; then
		sample_threads >"$work/threads" &
		sampler=$!
	fi
	psql -X -q -v ON_ERROR_STOP=1 -At >"$work/psql.out" <<-EOF
		LOAD 'parallel_export_parquet';
		${BENCH_CPU_SETUP:-}
		\! awk '{ print "ticks_before", \$16 + \$17 }' /proc/$pm_pid/stat
		\timing on
		SELECT 'rows', parallel_export_parquet('$source_literal', '$out', $workers${BENCH_EXPORT_ARGS:-});
		\timing off
		\! awk '{ print "ticks_after", \$16 + \$17 }' /proc/$pm_pid/stat
	EOF
	if [[ ${BENCH_CPU_THREADS:-0} == 1 ]]; then
		kill "$sampler"
		wait "$sampler" 2>/dev/null || true
	fi
	rm -rf "$out"
	read -r secs cpu rows < <(bench_psql_times "$hz" <"$work/psql.out")
	# each worker encodes its share of the values in its share of the CPU time
	per_worker=$(awk -v r="$rows" -v c="$columns" -v cpu="$cpu" 'BEGIN { printf "%.2f", r * c / cpu / 1e6 }')
	printf 'run %d: %s rows x %s columns, wall %s s, workers CPU %s s, %sM values per CPU-second per worker; load %s\n' \
		"$run" "$rows" "$columns" "$secs" "$cpu" "$per_worker" "$(cut -d' ' -f1-3 /proc/loadavg)"
	results+=("$secs $cpu $per_worker")
	if [[ ${BENCH_CPU_THREADS:-0} == 1 ]]; then
		split=$(split_threads "$work/threads")
		read -r sampled main c2 c1 vm gc other <<<"$split"
		printf '  threads, all workers: main %s s, C2 %s, C1 %s, VM thread %s, GC threads %s, other %s (sampled %s of %s s)\n' \
			"$main" "$c2" "$c1" "$vm" "$gc" "$other" "$sampled" "$cpu"
		threads+=("$split")
	fi
done
printf '%s\n' "${results[@]}" | awk -v src="$source_name" -v w="$workers" '
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j > 0 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
		return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{ n++; s[n] = $1; c[n] = $2; v[n] = $3 }
	END { printf "median of %d (%s, %d workers): wall %.2f s, workers CPU %.2f s, %.2fM values per CPU-second per worker\n", n, src, w, median(s, n), median(c, n), median(v, n) }'
if [[ ${BENCH_CPU_THREADS:-0} == 1 ]]; then
	printf '%s\n' "${threads[@]}" | awk '
		function median(c,   i, j, t, a) {
			for (i = 1; i <= n; i++) a[i] = v[i, c]
			for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j > 0 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
			return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		{ n++; for (c = 1; c <= NF; c++) v[n, c] = $c }
		END { printf "  threads, medians: main %.2f s, C2 %.2f, C1 %.2f, VM thread %.2f, GC threads %.2f, other %.2f\n", median(2), median(3), median(4), median(5), median(6), median(7) }'
fi
