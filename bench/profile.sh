#!/usr/bin/env bash
# bench/profile.sh: where the time of parallel_export_parquet's workers goes,
# C and Java together, on the cluster bench/run.sh left running (BENCH_KEEP=1).
#
# JFR does not work here: the extension blocks every asynchronous signal on the
# worker's main thread around each Java call (pljava-glue, so that no
# PostgreSQL handler runs inside the JVM), and JFR's execution sampler
# suspends threads with a signal (SIGUSR2 on Linux), so it records no Java
# samples at all. So this script samples the worker processes from outside
# with perf (call graphs by frame pointer: the workers' JVM gets
# -XX:+PreserveFramePointer) and has each JVM write its JIT symbol map
# (/tmp/perf-PID.map) through its attach socket, /tmp/.java_pidPID, which the
# JVM opens at start because it gets -XX:-DisableAttachMechanism (the
# extension's default turns attach off) and -XX:+StartAttachListener (-Xrs
# disables the usual SIGQUIT-started listener). bench/PerfMap.java asks for
# the map, never jcmd: jcmd sends SIGQUIT to a process whose socket it does
# not find (a worker whose JVM is still starting or already gone, or a PID
# reused by another server process), a PostgreSQL process runs its crash-exit
# handler on SIGQUIT and exits with code 2, and the postmaster restarts the
# whole cluster. PerfMap only connects to a socket that exists. It runs every
# few seconds while the workers live, so a worker that exits keeps the map of
# its last dump; code compiled after it shows as unknown. The script fails if
# the server log of the run shows a server process that ended otherwise than
# with exit code 0 or 1.
#
# Usage: bench/profile.sh [WORKERS [SOURCE]]     defaults: 2, t
#   same PEP_TMP / PEP_PORT as bench/run.sh [/tmp/pep-bench, 54402]; more
#   arguments of the export in BENCH_EXPORT_ARGS (", partition_by => ARRAY['p16']")
# Writes bench/results/profile.txt: self time by library, then by symbol.
set -euo pipefail

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$bench_dir")
workers=${1:-2}
source_name=${2:-t}
export PEP_TMP=${PEP_TMP:-/tmp/pep-bench}
export PEP_PORT=${PEP_PORT:-54402}
out=${PROFILE_OUT:-$bench_dir/results/profile.txt}

# shellcheck source=../tools/cluster.sh
source "$root/tools/cluster.sh"
pep_running || {
	echo "profile: no cluster at $PEP_TMP; run BENCH_KEEP=1 bench/run.sh first" >&2
	exit 1
}
command -v perf >/dev/null || {
	echo "profile: perf is not installed (apt-get install linux-perf)" >&2
	exit 1
}
pm_pid=$(head -n 1 "$PEP_DATA/postmaster.pid")
work=$PEP_TMP/profile
rm -rf "$work" "$PEP_OUT/profile"
mkdir -p "$work"
# PerfMap runs as the server's OS user: a JVM answers its own user only.
javac -d "$work" "$bench_dir/PerfMap.java"
chmod -R a+rX "$work"
log_start=$(stat -c %s "$PEP_LOG")

opts=$(psql -X -q -At -c "LOAD 'parallel_export_parquet'" -c "SHOW parallel_export_parquet.jvm_options")
opts="$opts -XX:-DisableAttachMechanism -XX:+PreserveFramePointer -XX:+StartAttachListener -XX:+DebugNonSafepoints"
psql -X -q -v ON_ERROR_STOP=1 -At >"$work/psql.out" 2>&1 <<EOF &
LOAD 'parallel_export_parquet';
SET parallel_export_parquet.jvm_options = '$opts';
\timing on
SELECT parallel_export_parquet('$source_name', '$PEP_OUT/profile', $workers${BENCH_EXPORT_ARGS:-});
EOF
psql_pid=$!

pids=
for _ in $(seq 200); do
	pids=$(pgrep -P "$pm_pid" -f 'parallel worker' | paste -sd, -) || true
	[[ -n $pids ]] && break
	sleep 0.05
done
[[ -n $pids ]] || {
	echo "profile: no parallel worker appeared" >&2
	wait "$psql_pid" || cat "$work/psql.out" >&2
	exit 1
}
perf record -F 499 -g -p "$pids" -o "$work/perf.data" 2>"$work/perf.log" &
perf_pid=$!
# JIT symbol maps, every 3 s while the export runs
while kill -0 "$psql_pid" 2>/dev/null; do
	sleep 3
	runuser -u postgres -- java -cp "$work" PerfMap ${pids//,/ } >>"$work/perfmap.log" 2>&1 || true
done
wait "$psql_pid" || {
	cat "$work/psql.out" >&2
	exit 1
}
kill -INT "$perf_pid" 2>/dev/null || true
wait "$perf_pid" || true
if tail -c +"$((log_start + 1))" "$PEP_LOG" |
	grep -E 'exited with exit code [^01]|terminated by signal|terminating any other active server processes'; then
	echo "profile: a server process crashed during the profile (server log above)" >&2
	exit 1
fi
rm -rf "$PEP_OUT/profile"
# perf reads a map only when it is owned by the reader or root
for p in ${pids//,/ }; do
	[[ -f /tmp/perf-$p.map ]] && chown root: "/tmp/perf-$p.map"
done

# head closes the pipes early: no pipefail from here on
set +o pipefail
{
	echo "# profile of parallel_export_parquet('$source_name', dir, $workers${BENCH_EXPORT_ARGS:-})"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), perf at 499 Hz on worker processes $pids; export: $(grep -h '^Time:' "$work/psql.out")"
	echo
	echo "## self time by library (perf-PID.map = JIT-compiled Java)"
	echo
	perf report -i "$work/perf.data" --no-children --sort dso --stdio -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -25
	echo
	perf report -i "$work/perf.data" --no-children --sort dso,sym --stdio -g none 2>/dev/null |
		grep -v '^#' | grep -v '^$' >"$work/symbols.txt"
	echo "## self time by kind (symbol-name heuristics; a later, narrower rule overrides an earlier one)"
	echo
	awk '{ p = $1 + 0; k = "other"; name = $0; sub(/\(.*/, "", name) }
		/ postgres / { k = "PostgreSQL: heap scan, buffers, tuple deforming" }
		/ postgres / && name ~ /escape_json|[Jj]sonb|StringInfo|_out$|OutputFunctionCall/ { k = "PostgreSQL: output functions (jsonb as text)" }
		/parallel_export_parquet\.so/ { k = "extension C: batch filling (values, numeric, nested)" }
		/parallel_export_parquet\.so/ && /pep_jsonb/ { k = "PostgreSQL: output functions (jsonb as text)" }
		/parallel_export_parquet\.so/ && /pep_jvm|pep_sink/ { k = "JNI crossing" }
		/\[JIT\]/ { k = "Java: other compiled code" }
		/\[JIT\]/ && name ~ /org\.parallelexport/ { k = "Java: batch reading and level computation (this project)" }
		/\[JIT\]/ && name ~ /ColumnWriterBase|ColumnWriteStore|ColumnWriterV[12]|ColumnValueCollector/ { k = "Java: parquet-java column writers (per-value calls)" }
		/\[JIT\]/ && name ~ /RunLengthBitPacking|BitPacking|DevNullValuesWriter/ { k = "Java: level and id encoding (RLE, bit-packing)" }
		/\[JIT\]/ && name ~ /[Dd]ictionary|Fallback|OpenHashMap/ { k = "Java: dictionary encoding" }
		/\[JIT\]/ && name ~ /Plain|LittleEndian|CapacityByteArrayOutputStream|BytesInput|ByteBuffer|\.Binary[.$]/ { k = "Java: plain encoding, page buffers, copies" }
		/\[JIT\]/ && name ~ /Statistics|Comparator|ColumnIndex|OffsetIndex/ { k = "Java: statistics and column index" }
		/\[JIT\]/ && name ~ /RecyclingAllocator/ { k = "allocation (JVM, page buffers, libc memset)" }
		/\[JIT\]/ && name ~ /ParquetFileWriter|SyncingOutputFile|FileChannel|ColumnChunkPageWriteStore|MultipartOutputFile/ { k = "Java: page and file output" }
		/\[JIT\]/ && /Interpreter/ { k = "JVM: interpreter" }
		/\[JIT\]/ && /StubRoutines|adapters|vtable|itable/ { k = "Java: stubs (array copies, dispatch)" }
		/libjvm/ { k = "JVM: other (class loading, runtime)" }
		/libjvm/ && /Phase|Compile|C2|C1|Matcher|IndexSet|Dict::|Node|Parse|GraphKit|Type|Register|LIR|Linear|ciMethod|ciEnv|ciObject|Block|Chaitin|Arena|Loop|Escape|Inline/ { k = "JVM: JIT compiler" }
		/libjvm/ && /DefNew|Tenured|Serial|CardTable|MarkSweep|OopClosure|ScanClosure|GenCollect|Survivor|oop_oop_iterate|ContiguousSpace|Generation/ { k = "garbage collector" }
		/libjvm/ && /MemAllocator|ObjArrayAllocator|TypeArrayKlass::allocate|OptoRuntime::new|CollectedHeap|TLAB|Tlab/ { k = "allocation (JVM, page buffers, libc memset)" }
		/libjvm/ && /jni_|JNIHandles|JavaCalls|JavaCallWrapper|ThreadStateTransition|ThreadInVMfromNative/ { k = "JNI crossing" }
		/snappy|zstd|libz|lz4/ { k = "compression (native)" }
		/kernel/ { k = "kernel: file I/O, page faults, scheduling" }
		/libc\.so/ { k = "libc: memcpy, strlen" }
		/libc\.so/ && /memset/ { k = "allocation (JVM, page buffers, libc memset)" }
		{ t[k] += p }
		END { for (k in t) printf "%6.2f%%  %s\n", t[k], k }' "$work/symbols.txt" | sort -rn
	echo
	echo "## Java methods, self time, all workers together (top 40)"
	echo
	awk -F'\\[\\.\\] ' '/\[JIT\]/ { split($0, a, "%"); s[$2] += a[1] }
		END { for (k in s) printf "%6.2f%%  %s\n", s[k], k }' "$work/symbols.txt" | sort -rn | head -40
	echo
	echo "## native symbols, self time (top 40)"
	echo
	grep -v '\[JIT\]' "$work/symbols.txt" | head -40
} >"$out"
for p in ${pids//,/ }; do
	rm -f "/tmp/perf-$p.map"
done
echo "profile: written to $out" >&2
cat "$out"
