#!/usr/bin/env bash
# bench/shared-jvm.sh: a second writer as a thread of the same JVM against a
# second JVM, without PostgreSQL (issue 13; bench/results/shared-jvm.md).
#
# A 2-worker export costs about 2 CPU-seconds more than a 1-worker export of
# the same rows, and bench/results/scaling.md traced that to the second
# worker's JVM. Whether fewer JVMs than workers would win that back depends on
# what threads of one JVM cost, which this measures on the extension's own
# writer (bench/SharedJvm.java): ROWS rows of the benchmark table's kinds
# written by 1 JVM with 1 thread, 1 JVM with N threads and N JVMs with 1
# thread each, for N = 2 and 4, rounds interleaved. The JVMs run with the
# extension's default jvm_options (read from extension/src/entry/pep_guc.c) and the
# installed jar.
#
# Usage: bench/shared-jvm.sh [ROWS [ROUNDS]]      defaults: 10000000 rows, 5
#   BENCH_MODES: some of "one threads2 jvms2 threads4 jvms4" (all by default);
#   BENCH_JVM_EXTRA: options after the default ones (-XX:+UseParallelGC);
#   BENCH_SINK_OPTIONS: the writer's options, one name=value a line
#   ("compression=uncompressed"; the export's defaults when empty).
# Prints a line per JVM and run (mode, threads, rows, wall s, process CPU s
# while writing, writing threads' CPU s), then per mode the medians of the
# wall time and of the CPU summed over its JVMs.
set -euo pipefail

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$bench_dir")
rows=${1:-10000000}
rounds=${2:-5}
jar="$(pg_config --sharedir)/extension/parallel_export_parquet.jar"
[ -r "$jar" ] || { echo "shared-jvm.sh: $jar not found; run tools/build.sh" >&2; exit 1; }

# The default of parallel_export_parquet.jvm_options: the string literals of
# its DefineCustomStringVariable, up to PGC_SUSET; the worker adds -Xrs.
read -r -a options < <(awk '/&pep_jvm_options,/ { on = 1; next } on && /PGC_SUSET/ { exit }
	on { while (match($0, /"[^"]*"/)) { printf "%s", substr($0, RSTART + 1, RLENGTH - 2); $0 = substr($0, RSTART + RLENGTH) } }
	END { print "" }' \
	"$root/extension/src/entry/pep_guc.c")
[ "${#options[@]}" -gt 3 ] || { echo "shared-jvm.sh: default jvm_options not found in extension/src/entry/pep_guc.c" >&2; exit 1; }
options+=(-Xrs)
read -r -a extra <<< "${BENCH_JVM_EXTRA:-}"
options+=("${extra[@]}")
modes=${BENCH_MODES:-one threads2 jvms2 threads4 jvms4}

work=$(mktemp -d /tmp/pep-shared-jvm.XXXXXX)
trap 'rm -rf "$work"' EXIT
javac -cp "$jar" -d "$work/classes" "$bench_dir/SharedJvm.java"

echo "jvm_options: ${options[*]}"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# run MODE JVMS THREADS: JVMS JVMs of THREADS threads each write rows/(JVMS*THREADS) rows.
run() {
	local mode=$1 jvms=$2 threads=$3 j pids=()
	local each=$((rows / (jvms * threads)))
	rm -rf "$work/out" && mkdir "$work/out"
	for ((j = 0; j < jvms; j++)); do
		java "${options[@]}" -cp "$work/classes:$jar" SharedJvm "$threads" "$each" "$work/out" \
			"$mode.$j" "$jvms" "${BENCH_SINK_OPTIONS:+$BENCH_SINK_OPTIONS$'\n'}" > "$work/out/$mode.$j.line" &
		pids+=($!)
	done
	# A JVM that fails ends the run, not a median of empty lines; HotSpot prints
	# an error at its start to stdout.
	for j in "${pids[@]}"; do
		wait "$j" || { cat "$work/out/$mode".*.line >&2; exit 1; }
	done
	for ((j = 0; j < jvms; j++)); do
		printf '%s\t%s\n' "$mode" "$(cat "$work/out/$mode.$j.line")" | tee -a "$work/lines"
	done
}

for ((r = 1; r <= rounds; r++)); do
	for mode in $modes; do
		case $mode in
		one) run one 1 1 ;;
		threads[0-9]*) run "$mode" 1 "${mode#threads}" ;;
		jvms[0-9]*) run "$mode" "${mode#jvms}" 1 ;;
		*) echo "shared-jvm.sh: unknown mode $mode" >&2; exit 1 ;;
		esac
	done
done

echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "mode       wall s (median)  CPU s summed over JVMs (median)  writing threads' CPU s (median)"
# Per mode and round: the slowest JVM's wall time and the CPU summed over its JVMs (a JVM's
# lines come in round order); then the medians over the rounds.
awk -F'\t' -v rounds="$rounds" -v order="$modes" '
	{ split($2, a, "."); m = $1; j = a[2]; seen[m, j]++; r = seen[m, j]
	  if ($5 > wall[m, r]) wall[m, r] = $5; cpu[m, r] += $6; writers[m, r] += $7; modes[m] = 1 }
	function median(arr, m,    i, k, v, t) {
		k = 0; for (i = 1; i <= rounds; i++) v[++k] = arr[m, i]
		for (i = 1; i <= k; i++) for (t = i + 1; t <= k; t++) if (v[t] < v[i]) { x = v[i]; v[i] = v[t]; v[t] = x }
		return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2 }
	END { k = split(order, names, " ")
		for (o = 1; o <= k; o++) { m = names[o]; if (m in modes)
			printf "%-10s %15.2f %32.2f %32.2f\n", m, median(wall, m), median(cpu, m), median(writers, m) } }' \
	"$work/lines"
