#!/usr/bin/env bash
# bench/run.sh: the benchmark of parallel_export_parquet (issues 5 and 13), in one command.
#
# Starts its own throwaway cluster (tools/cluster.sh), generates the table t
# deterministically (bench/sql/create_table.sql, BENCH_ROWS rows, 10 columns,
# 5% NULLs), the wide table w (bench/sql/create_wide.sql, BENCH_WIDE_ROWS rows,
# 50 columns) and t_nested_one (bench/sql/create_nested_one.sql), VACUUM
# ANALYZEs and warms them, then runs every method once as a
# warm-up and BENCH_RUNS more times, round-robin (so that noise on this shared
# machine hits every method alike), and reports medians:
#
#   copy_csv      COPY (SELECT * FROM t) TO 'file' (FORMAT csv), server side
#   copy_binary   the same with (FORMAT binary)
#   jdbc_1/2      bench/jdbc-exporter's JdbcExporter: pgjdbc + parquet-avro, 1 or 2 threads
#   pep_1/2/4     parallel_export_parquet('t', dir, 1|2|4), table source
#   pep_query_2   parallel_export_parquet('SELECT * FROM t WHERE true', dir, 2), query source
#   pep_wide_2    parallel_export_parquet('w', dir, 2): values encoded per second per worker
#   pep_s3_2      parallel_export_parquet('t', 's3://bench/...', 2): into S3Proxy on loopback
#                 (regress/lib/s3proxy.sh, port PEP_PORT + 1000, filesystem backend under
#                 PEP_TMP), the cluster pointed at it by the AWS SDK's variables
#   pep_one       a 1-row table exported with 1 worker: start-up latency (BENCH_ONE_RUNS runs)
#   pep_one_s3    the same into S3Proxy
#   pep_one_nested  the same for a row of arrays, a composite, an enum and an interval
#
# Every Parquet output is checked with DuckDB (row count and a fingerprint of
# all values, compared with the same fingerprint computed by PostgreSQL:
# bench/sql/fingerprint_*.sql); the csv output's line count is checked. Peak
# RSS: VmHWM of the export's `parallel worker` processes, polled every 100 ms;
# the caller backend's VmHWM before and after the export (read by the backend
# itself from /proc/self/status); the JDBC client's max RSS from /usr/bin/time.
# Server-side methods are timed by psql's \timing (the statement alone), the
# JDBC client by the wall time of its whole process (JVM start included).
#
# The table is printed and written to bench/results/latest.md, followed by every
# target of issue 13 beside its measured value. Two of them compare with another
# run's results file: the output size with BENCH_SIZE_BASE's pep_2 (the same
# BENCH_ROWS), the scale with BENCH_SCALE_BASE's pep_2 (a run of fewer rows of
# the same build; for the issue's target, 10M rows against this run's 100M).
#
# Usage: bench/run.sh
# Environment (defaults in brackets):
#   BENCH_ROWS [10000000]      rows of t
#   BENCH_WIDE_ROWS [BENCH_ROWS / 5]  rows of w
#   BENCH_RUNS [3]             timed runs of each method after one warm-up
#   BENCH_ONE_RUNS [5]         timed runs of the 1-row export
#   BENCH_METHODS [all]        space-separated subset of the methods above
#   BENCH_FETCH_SIZE [10000]   JDBC fetch size
#   BENCH_PROFILE [0]          1: then profile one pep_2 export (bench/profile.sh: perf, C and
#                              Java) into bench/results/profile.txt
#   BENCH_KEEP [0]             1: leave the cluster running; a later run reuses its table
#   BENCH_PREPARE_ONLY [0]     1: stop once the tables are generated, fingerprinted and read
#                              into the cache, before any export; implies BENCH_KEEP=1, so a
#                              later run (e.g. in a quiet window) starts measuring at once
#   BENCH_RESULTS [bench/results/latest.md]
#   BENCH_SIZE_BASE [bench/results/row-writer.md]  results whose pep_2 output size is "today's"
#   BENCH_SCALE_BASE []        results of a smaller run for the scale target (none: not compared)
#   PEP_TMP [/tmp/pep-bench], PEP_PORT [54402]   the cluster's directory and port
#   BENCH_SHARED_BUFFERS [256MB]
#   BENCH_EXTENSION [installed]  which build of the extension to measure:
#       installed   the one installed in the system PostgreSQL (make -C extension
#                   install); installed here only when missing, since it is shared
#       a git revision (HEAD, a commit): that revision is built, with `git archive`,
#                   into a private copy of PostgreSQL 15 under BENCH_PG_DIR
#                   [/tmp/pep-bench-pg], which the cluster then runs; reused while
#                   the revision is the same, and for another revision only the
#                   extension's files are replaced, so a kept cluster keeps its
#                   tables. Immune to other people reinstalling.
set -euo pipefail

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$bench_dir")

BENCH_ROWS=${BENCH_ROWS:-10000000}
BENCH_WIDE_ROWS=${BENCH_WIDE_ROWS:-$((BENCH_ROWS / 5))}
BENCH_RUNS=${BENCH_RUNS:-3}
BENCH_ONE_RUNS=${BENCH_ONE_RUNS:-5}
BENCH_METHODS=${BENCH_METHODS:-copy_csv copy_binary jdbc_1 jdbc_2 pep_1 pep_2 pep_4 pep_query_2 pep_wide_2 pep_s3_2 pep_one pep_one_nested pep_one_s3}
BENCH_FETCH_SIZE=${BENCH_FETCH_SIZE:-10000}
BENCH_PROFILE=${BENCH_PROFILE:-0}
BENCH_KEEP=${BENCH_KEEP:-0}
BENCH_PREPARE_ONLY=${BENCH_PREPARE_ONLY:-0}
[[ $BENCH_PREPARE_ONLY == 1 ]] && BENCH_KEEP=1
BENCH_RESULTS=${BENCH_RESULTS:-$bench_dir/results/latest.md}
BENCH_SIZE_BASE=${BENCH_SIZE_BASE:-$bench_dir/results/row-writer.md}
BENCH_SCALE_BASE=${BENCH_SCALE_BASE:-}
BENCH_SHARED_BUFFERS=${BENCH_SHARED_BUFFERS:-256MB}
BENCH_EXTENSION=${BENCH_EXTENSION:-installed}
BENCH_PG_DIR=${BENCH_PG_DIR:-/tmp/pep-bench-pg}
# Bump when create_table.sql changes, so that a kept cluster's table is remade.
TABLE_GENERATION=3
# The extension's row group size (SinkOptions), used for DuckDB's reference file.
ROW_GROUP_ROWS=122880

export PEP_TMP=${PEP_TMP:-/tmp/pep-bench}
export PEP_PORT=${PEP_PORT:-54402}
export PEP_EXTRA_CONF="shared_buffers = $BENCH_SHARED_BUFFERS
wal_level = minimal
max_wal_senders = 0"

log() {
	printf '[bench %(%H:%M:%S)T] %s\n' -1 "$*" >&2
}

die() {
	log "error: $*"
	exit 1
}

# ---------------------------------------------------------------- build
"$root/tools/deps.sh" >&2

# Builds git revision $1 of the extension into a private copy of the system's
# PostgreSQL 15 (relocatable: pg_config and postgres find their files relative
# to their own location) under $BENCH_PG_DIR, and points PG_CONFIG at it.
build_private() {
	local commit pgc
	commit=$(git -C "$root" rev-parse --verify "$1^{commit}")
	pgc=$BENCH_PG_DIR/root/usr/lib/postgresql/15/bin/pg_config
	if [[ ! -f $BENCH_PG_DIR/.built-$commit ]]; then
		log "building the extension at $1 ($commit) into $BENCH_PG_DIR"
		[[ ! -e $BENCH_PG_DIR || -f $BENCH_PG_DIR/.pep-bench ]] ||
			die "$BENCH_PG_DIR exists and was not made by bench/run.sh"
		# The copy of PostgreSQL is made once and kept across revisions, so a kept
		# cluster (BENCH_KEEP) runs the same binaries and keeps its tables; only the
		# extension's files and sources are replaced.
		if [[ ! -f $BENCH_PG_DIR/.pep-bench ]]; then
			mkdir -p "$BENCH_PG_DIR/root/usr/lib/postgresql" "$BENCH_PG_DIR/root/usr/share/postgresql" \
				"$BENCH_PG_DIR/root/usr/include"
			cp -a /usr/lib/postgresql/15 "$BENCH_PG_DIR/root/usr/lib/postgresql/"
			cp -a /usr/share/postgresql/15 "$BENCH_PG_DIR/root/usr/share/postgresql/"
			cp -a /usr/include/postgresql "$BENCH_PG_DIR/root/usr/include/"
			touch "$BENCH_PG_DIR/.pep-bench"
		fi
		rm -rf "$BENCH_PG_DIR/src" "$BENCH_PG_DIR"/.built-*
		rm -f "$BENCH_PG_DIR"/root/usr/lib/postgresql/15/lib/parallel_export_parquet.so \
			"$BENCH_PG_DIR"/root/usr/share/postgresql/15/extension/parallel_export_parquet*
		mkdir -p "$BENCH_PG_DIR/src"
		git -C "$root" archive "$commit" | tar -x -C "$BENCH_PG_DIR/src"
		# the parent pom lists this module; an uncommitted bench/ is not in the archive
		if [[ ! -d $BENCH_PG_DIR/src/bench/jdbc-exporter ]]; then
			mkdir -p "$BENCH_PG_DIR/src/bench/jdbc-exporter"
			cp -a "$bench_dir/jdbc-exporter/pom.xml" "$bench_dir/jdbc-exporter/src" "$BENCH_PG_DIR/src/bench/jdbc-exporter/"
		fi
		make -C "$BENCH_PG_DIR/src/extension" PG_CONFIG="$pgc" install >&2
		touch "$BENCH_PG_DIR/.built-$commit"
	fi
	export PG_CONFIG=$pgc
	extension_label="git $1 ($commit), private build in $BENCH_PG_DIR"
}

if [[ $BENCH_EXTENSION == installed ]]; then
	export PG_CONFIG=${PG_CONFIG:-pg_config}
	extension_label="installed in the system PostgreSQL"
	if [[ ! -f $("$PG_CONFIG" --sharedir)/extension/parallel_export_parquet.control ]]; then
		log "extension not installed: make -C extension install"
		make -C "$root/extension" install >&2
	fi
else
	build_private "$BENCH_EXTENSION"
fi
sharedir=$("$PG_CONFIG" --sharedir)/extension
pkglibdir=$("$PG_CONFIG" --pkglibdir)
installed_digest() {
	cat "$pkglibdir/parallel_export_parquet.so" "$sharedir/parallel_export_parquet.jar" | md5sum | cut -c1-12
}
digest_start=$(installed_digest)

log "building bench/jdbc-exporter"
(cd "$root" && mvn -q -B -f bench/jdbc-exporter/pom.xml -DskipTests package >&2)
CP="$bench_dir/jdbc-exporter/target/pep-bench-jdbc.jar:$bench_dir/jdbc-exporter/target/lib/*"
verify() {
	java -XX:+UseSerialGC -cp "$CP" org.parallelexport.bench.Verify "$@"
}

# ---------------------------------------------------------------- cluster
# shellcheck source=../tools/cluster.sh
source "$root/tools/cluster.sh"
stop_cluster() {
	if [[ $BENCH_KEEP == 1 ]]; then
		log "cluster kept: PEP_TMP=$PEP_TMP PEP_PORT=$PEP_PORT"
	else
		pep_stop >&2 || true
	fi
	"$root/regress/lib/s3proxy.sh" stop "$s3proxy_dir" >&2 || true
}
# The object-store methods export into S3Proxy; the server reaches it through
# the AWS SDK's standard variables, which the postmaster inherits.
s3proxy_dir=$PEP_TMP.s3proxy
if [[ " $BENCH_METHODS " == *" pep_s3_2 "* || " $BENCH_METHODS " == *" pep_one_s3 "* ]]; then
	log "starting S3Proxy"
	"$root/regress/lib/s3proxy.sh" stop "$s3proxy_dir" >&2
	rm -rf "$s3proxy_dir"
	"$root/regress/lib/s3proxy.sh" start "$s3proxy_dir" "$((PEP_PORT + 1000))" bench >&2
	# shellcheck source=/dev/null
	source "$s3proxy_dir/s3proxy.env"
	export AWS_ENDPOINT_URL=$PEP_S3_ENDPOINT AWS_ACCESS_KEY_ID=$PEP_S3_IDENTITY
	export AWS_SECRET_ACCESS_KEY=$PEP_S3_CREDENTIAL AWS_REGION=us-east-1
	# A kept cluster was started without them: restarted with them, its tables kept.
	if [[ -f $PEP_DATA/postmaster.pid ]] && pep_running; then
		pep_pg_ctl -m fast -w -t 60 -l "$PEP_LOG" restart >/dev/null
	fi
fi
# A kept cluster running other binaries (BENCH_EXTENSION changed) is made anew.
if [[ -f $PEP_DATA/postmaster.pid ]] && pep_running &&
	[[ $(readlink -f "/proc/$(head -n 1 "$PEP_DATA/postmaster.pid")/exe") != "$(readlink -f "$("$PG_CONFIG" --bindir)/postgres")" ]]; then
	log "the kept cluster runs other binaries: starting anew"
	pep_stop >&2
fi
pep_start >&2
trap stop_cluster EXIT
pm_pid=$(head -n 1 "$PEP_DATA/postmaster.pid")
jdbc_url="jdbc:postgresql://127.0.0.1:$PEP_PORT/postgres?user=postgres"

sql() {
	psql -X -q -v ON_ERROR_STOP=1 -At "$@"
}

# Made anew each time: the installed extension may have changed since a kept
# cluster created it, and its SQL must match its library.
sql -c "DROP EXTENSION IF EXISTS parallel_export_parquet" \
	-c "CREATE EXTENSION parallel_export_parquet" \
	-c "CREATE EXTENSION IF NOT EXISTS pg_prewarm"

# ---------------------------------------------------------------- table
table_tag="pep-bench rows=$BENCH_ROWS wide=$BENCH_WIDE_ROWS generation=$TABLE_GENERATION"
expected_t=$PEP_TMP/expected-t.txt
expected_one=$PEP_TMP/expected-t_one.txt
expected_w=$PEP_TMP/expected-w.txt
expected_nested=$PEP_TMP/expected-t_nested_one.txt
if [[ $(sql -c "SELECT obj_description(to_regclass('t'), 'pg_class')") != "$table_tag" ]]; then
	log "generating t: $BENCH_ROWS rows"
	start=$(date +%s)
	sql -v rows="$BENCH_ROWS" -f "$bench_dir/sql/create_table.sql" 2>/dev/null
	log "generating w: $BENCH_WIDE_ROWS rows"
	sql -v rows="$BENCH_WIDE_ROWS" -f "$bench_dir/sql/create_wide.sql" 2>/dev/null
	sql -f "$bench_dir/sql/create_nested_one.sql" 2>/dev/null
	sql -c "VACUUM ANALYZE t" -c "VACUUM ANALYZE t_one" -c "VACUUM ANALYZE w" -c "VACUUM ANALYZE t_nested_one"
	log "generated in $(($(date +%s) - start)) s"
	rm -f "$expected_t" "$expected_one" "$expected_w" "$expected_nested"
fi
if [[ ! -s $expected_t || ! -s $expected_one || ! -s $expected_w || ! -s $expected_nested ]]; then
	log "fingerprints of t, t_one, w and t_nested_one in PostgreSQL"
	verify expect "$jdbc_url" "$bench_dir/sql/fingerprint_pg.sql" t "$expected_t"
	verify expect "$jdbc_url" "$bench_dir/sql/fingerprint_pg.sql" t_one "$expected_one"
	verify expect "$jdbc_url" "$bench_dir/sql/fingerprint_wide.sql" w "$expected_w"
	verify expect "$jdbc_url" "$bench_dir/sql/fingerprint_count.sql" t_nested_one "$expected_nested"
	sql -c "COMMENT ON TABLE t IS '$table_tag'"
fi
table_bytes=$(sql -c "SELECT pg_table_size('t')")

log "warming the cache"
sql -c "SELECT pg_prewarm('t', 'read')" -c "SELECT count(*) FROM t" -c "SELECT count(*) FROM t" >/dev/null
sql -c "SELECT pg_prewarm('w', 'read')" -c "SELECT count(*) FROM w" >/dev/null
if [[ $BENCH_PREPARE_ONLY == 1 ]]; then
	log "prepared (BENCH_PREPARE_ONLY=1): tables, fingerprints and cache ready, nothing exported"
	exit 0
fi

# ---------------------------------------------------------------- measuring
work=$PEP_TMP/bench
rm -rf "$work"
mkdir -p "$work/client"
runs_tsv=$work/runs.tsv
: >"$runs_tsv"
failures=0

# Appends "kind pid VmHWM RssAnon RssShmem" (kB) every 100 ms until killed, for
# every parallel worker (kind W) and local client backend (kind C: the caller,
# connected by psql over the socket; the JDBC client uses TCP) of this cluster.
poll_backends() {
	set +e
	local p k v kind hwm anon shmem title
	while :; do
		for p in $(pgrep -P "$pm_pid"); do
			read -r -d '' title 2>/dev/null <"/proc/$p/cmdline"
			case $title in
			*"parallel worker"*) kind=W ;;
			*"[local]"*) kind=C ;;
			*) continue ;;
			esac
			hwm=
			anon=
			shmem=
			while read -r k v _; do
				case $k in
				VmHWM:) hwm=$v ;;
				RssAnon:) anon=$v ;;
				RssShmem:) shmem=$v ;;
				esac
			done 2>/dev/null <"/proc/$p/status"
			[[ -n $hwm ]] && echo "$kind $p $hwm ${anon:-0} ${shmem:-0}" >>"$1"
		done
		sleep 0.1
	done
}

# Runs $1 (one SQL statement) in a fresh session under psql's \timing, with
# the backend's own VmHWM and RssAnon read before and after. Leaves in
# $work/psql.out: the statement's output, "before|VmHWM|RssAnon",
# "after|VmHWM|RssAnon" (kB), "Time: N ms", and "ticks_before N" and
# "ticks_after N": the postmaster's cutime + cstime, which grow by the CPU
# time of every child it reaps, so by the workers' (all their threads), as
# bench/cpu.sh explains; the statement returns only once they are reaped.
timed_sql() {
	local script=$work/stmt.sql
	cat >"$script" <<-EOF
		LOAD 'parallel_export_parquet';
		SELECT 'before', substring(s from 'VmHWM:\s+(\d+)'), substring(s from 'RssAnon:\s+(\d+)') FROM pg_read_file('/proc/self/status') AS s;
		\! awk '{ print "ticks_before", \$16 + \$17 }' /proc/$pm_pid/stat
		\timing on
		$1;
		\timing off
		\! awk '{ print "ticks_after", \$16 + \$17 }' /proc/$pm_pid/stat
		SELECT 'after', substring(s from 'VmHWM:\s+(\d+)'), substring(s from 'RssAnon:\s+(\d+)') FROM pg_read_file('/proc/self/status') AS s;
	EOF
	psql -X -q -v ON_ERROR_STOP=1 -At -f "$script" >"$work/psql.out"
}

# Sum of the sizes of the *.parquet files under $1.
parquet_bytes() {
	find "$1" -maxdepth 1 -name '*.parquet' -printf '%s\n' | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# run_method METHOD ROUND: one run; appends a line to $runs_tsv.
run_method() {
	local m=$1 round=$2
	local out seconds wall bytes verdict expected=$expected_t expect_rows=$BENCH_ROWS
	local fingerprint=$bench_dir/sql/fingerprint_duckdb.sql
	local client_kb=0 caller_hwm=0 caller_anon=0 worker_hwm=0 worker_anon=0 worker_shmem=0 nworkers=0 rows worker_cpu=0
	local samples=$work/samples poller t0 t1
	: >"$samples"
	case $m in
	copy_csv | copy_binary) out=$PEP_OUT/$m.out ;;
	jdbc_*) out=$work/client/$m ;;
	*s3*) out=$PEP_S3_DATA/bench/$m-$round ;;
	*) out=$PEP_OUT/$m ;;
	esac
	rm -rf "$out"
	case $m in
	pep_one | pep_one_s3) expected=$expected_one expect_rows=1 ;;
	pep_one_nested)
		expected=$expected_nested expect_rows=1
		fingerprint=$bench_dir/sql/fingerprint_count.sql
		;;
	pep_wide_2)
		expected=$expected_w expect_rows=$BENCH_WIDE_ROWS
		fingerprint=$bench_dir/sql/fingerprint_wide.sql
		;;
	esac

	poll_backends "$samples" &
	poller=$!
	t0=$(date +%s%N)
	case $m in
	copy_csv) timed_sql "COPY (SELECT * FROM t) TO '$out' (FORMAT csv)" ;;
	copy_binary) timed_sql "COPY (SELECT * FROM t) TO '$out' (FORMAT binary)" ;;
	pep_1 | pep_2 | pep_4) timed_sql "SELECT parallel_export_parquet('t', '$out', ${m#pep_})" ;;
	pep_query_2) timed_sql "SELECT parallel_export_parquet('SELECT * FROM t WHERE true', '$out', 2)" ;;
	pep_wide_2) timed_sql "SELECT parallel_export_parquet('w', '$out', 2)" ;;
	pep_one) timed_sql "SELECT parallel_export_parquet('t_one', '$out', 1)" ;;
	pep_s3_2) timed_sql "SELECT parallel_export_parquet('t', 's3://bench/$m-$round', 2)" ;;
	pep_one_s3) timed_sql "SELECT parallel_export_parquet('t_one', 's3://bench/$m-$round', 1)" ;;
	pep_one_nested) timed_sql "SELECT parallel_export_parquet('t_nested_one', '$out', 1)" ;;
	jdbc_1 | jdbc_2)
		/usr/bin/time -f '%M' -o "$work/time.out" \
			java -cp "$CP" org.parallelexport.bench.JdbcExporter "$jdbc_url" t "$out" "${m#jdbc_}" \
			"$BENCH_FETCH_SIZE" >"$work/client.out"
		;;
	*) die "unknown method $m" ;;
	esac
	t1=$(date +%s%N)
	kill "$poller"
	wait "$poller" 2>/dev/null || true
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')

	if [[ $m == jdbc_* ]]; then
		seconds=$wall
		client_kb=$(tail -n 1 "$work/time.out")
		rows=$(cat "$work/client.out")
	else
		seconds=$(awk '/^Time: / { printf "%.3f", $2 / 1000 }' "$work/psql.out")
		worker_cpu=$(awk -v hz="$(getconf CLK_TCK)" '$1 == "ticks_before" { b = $2 } $1 == "ticks_after" { a = $2 }
			END { printf "%.2f", (a - b) / hz }' "$work/psql.out")
		rows=$(awk -F'|' 'NF == 1 && /^[0-9]+$/ { print }' "$work/psql.out")
		# caller: VmHWM growth, and growth of RssAnon (polled, and at the end)
		read -r caller_hwm caller_anon < <(awk -F'[| ]' '
			FILENAME ~ /psql.out$/ && $1 == "before" { hb = $2; ab = $3; if (ab > am) am = ab }
			FILENAME ~ /psql.out$/ && $1 == "after" { ha = $2; if ($3 > am) am = $3 }
			FILENAME ~ /samples$/ && $1 == "C" { if ($4 > am) am = $4 }
			END { print ha - hb, am - ab }' "$work/psql.out" "$samples")
	fi
	read -r worker_hwm worker_anon worker_shmem nworkers < <(awk '
		$1 == "W" { if ($3 > h) h = $3; if ($4 > a) a = $4; if ($5 > s) s = $5; seen[$2] = 1 }
		END { n = 0; for (p in seen) n++; print h + 0, a + 0, s + 0, n }' "$samples")

	case $m in
	copy_csv)
		bytes=$(stat -c %s "$out")
		rows=$(wc -l <"$out")
		;;
	copy_binary)
		bytes=$(stat -c %s "$out")
		rows=
		;;
	*) bytes=$(parquet_bytes "$out") ;;
	esac

	if [[ $m == copy_binary ]]; then
		if [[ $(head -c 11 "$out" | od -An -c | tr -d ' ') == 'PGCOPY\n377\r\n\0' ]]; then
			verdict="header ok"
		else
			verdict=FAIL
		fi
	elif [[ $rows != "$expect_rows" ]]; then
		verdict="FAIL rows=$rows"
	elif [[ $m == copy_csv ]]; then
		verdict="ok $rows lines"
	elif verdict=$(verify check "$out" "$fingerprint" "$expected"); then
		verdict=${verdict//$'\n'/; }
	else
		verdict="FAIL ${verdict//$'\n'/; }"
	fi
	[[ $verdict == FAIL* ]] && failures=$((failures + 1))

	if [[ $m == pep_2 && $round == 0 ]]; then
		duckdb_ref_bytes=$(verify rewrite "$out" "$work/duckdb-ref.parquet" "$ROW_GROUP_ROWS")
		rm -f "$work/duckdb-ref.parquet"
	fi
	rm -rf "$out"

	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$m" "$round" "$seconds" "$wall" \
		"$bytes" "$worker_hwm" "$worker_anon" "$worker_shmem" "$nworkers" "$caller_hwm" "$caller_anon" \
		"$client_kb" "$verdict" "$worker_cpu" "$(cut -d' ' -f1 /proc/loadavg)" >>"$runs_tsv"
	log "$(printf '%-12s run %s: %8s s (wall %s), %s bytes, %s workers peak %s kB (anon %s, shmem %s), CPU %s s, caller +%s kB (anon +%s), client %s kB: %s' \
		"$m" "$round" "$seconds" "$wall" "$bytes" "$nworkers" "$worker_hwm" "$worker_anon" "$worker_shmem" \
		"$worker_cpu" "$caller_hwm" "$caller_anon" "$client_kb" "$verdict")"
}

# What writing into the page cache costs on this machine. Every export
# writes its output through the page cache, and on a virtual machine whose
# guest hands freed memory back to its host (free page reporting) a page
# freed some seconds ago costs a host fault when it is written again, while
# one freed just now does not: 1 GB is written and deleted, written again
# at once, then again after 10 idle seconds, about the pause between two of
# the exports below (bench/README.md, "The machine").
probe_write() {
	local file=$PEP_OUT/write-probe seconds
	seconds=$( { TIMEFORMAT=%R; time dd if=/dev/zero of="$file" bs=1M count=1024 status=none; } 2>&1)
	rm -f "$file"
	echo "$seconds"
}
probe_write >/dev/null
write_cost="1 GB rewritten at once in $(probe_write) s"
sleep 10
write_cost+=", after 10 idle seconds in $(probe_write) s"
if [[ -r /sys/module/page_reporting/parameters/page_reporting_order ]]; then
	write_cost+="; the guest reports free pages to its host (page_reporting_order"
	write_cost+=" $(cat /sys/module/page_reporting/parameters/page_reporting_order))"
fi

# What fresh memory costs on this machine. A worker's JVM touches every page
# of its heap, metaspace and code cache for the first time (a 1-row export
# takes about 9,000 page faults, a 2-worker export of w about 76,000), and a
# virtual machine can make each fault cost ten times what it costs on bare
# metal: the JVM's own -XX:+AlwaysPreTouch touches 1 GB of heap, timed
# against the same start without it (bench/results/fresh-memory.md).
jvm_seconds() {
	{ TIMEFORMAT=%R; time java -XX:+UseSerialGC -Xms1g -Xmx1g "$@" -version >/dev/null 2>&1; } 2>&1
}
probe_touch() {
	local plain touched
	plain=$(jvm_seconds)
	touched=$(jvm_seconds -XX:+AlwaysPreTouch)
	awk -v t="$touched" -v p="$plain" 'BEGIN { d = t - p; printf "1 GB of a JVM'"'"'s heap touched in %.3f s, %.2f us per 4 kB page", d, d * 1e6 / 262144 }'
}
touch_cost=$(probe_touch)

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
duckdb_ref_bytes=
big_methods=()
one_row_methods=()
for m in $BENCH_METHODS; do
	if [[ $m == pep_one* ]]; then one_row_methods+=("$m"); else big_methods+=("$m"); fi
done
bench_start=$(date +%s)
for round in $(seq 0 "$BENCH_RUNS"); do
	log "round $round of $BENCH_RUNS (0 is the warm-up)"
	for m in "${big_methods[@]}"; do
		run_method "$m" "$round"
	done
done
for round in $(seq 0 "$BENCH_ONE_RUNS"); do
	for m in "${one_row_methods[@]}"; do
		run_method "$m" "$round"
	done
done

# ---------------------------------------------------------------- profile
if [[ $BENCH_PROFILE == 1 ]]; then
	log "profiling one pep_2 export (bench/profile.sh)"
	"$bench_dir/profile.sh" 2 t >/dev/null || log "profiling failed"
fi

digest_end=$(installed_digest)
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
bench_seconds=$(($(date +%s) - bench_start))

# ---------------------------------------------------------------- report
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
mem=$(awk '/^MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo)
pgver=$(sql -c "SHOW server_version")
javaver=$(java -version 2>&1 | head -n 1)

# pep_2 of another run's results file: "ROWS MEDIAN_SECONDS BYTES MAX_WORKER_ANON_KB", or nothing.
base_pep_2() {
	[[ -n $1 && -f $1 ]] || return 0
	awk -F'\t' '
		!rows && match($0, /BENCH_ROWS=[0-9]+/) { rows = substr($0, RSTART + 11, RLENGTH - 11) }
		$1 == "pep_2" && $2 > 0 { s[++n] = $3; bytes = $5; if ($7 > anon) anon = $7 }
		END {
			if (!rows || !n) exit
			for (i = 2; i <= n; i++) { t = s[i]; for (j = i - 1; j > 0 && s[j] > t; j--) s[j + 1] = s[j]; s[j + 1] = t }
			print rows, ((n % 2) ? s[(n + 1) / 2] : (s[n / 2] + s[n / 2 + 1]) / 2), bytes, anon
		}' "$1"
}

report() {
	echo "# parallel_export_parquet benchmark"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), bench/run.sh with BENCH_ROWS=$BENCH_ROWS BENCH_RUNS=$BENCH_RUNS" \
		"(medians of $BENCH_RUNS timed runs after a warm-up; the 1-row export: median of $BENCH_ONE_RUNS)."
	echo "Machine: $(nproc) cores ($cpu), $mem RAM, $(uname -r); PostgreSQL $pgver; $javaver."
	echo "Table t: $BENCH_ROWS rows, $((table_bytes / 1048576)) MB on disk; shared_buffers $BENCH_SHARED_BUFFERS, cache warm."
	echo "Page cache writes: $write_cost."
	echo "Fresh memory: $touch_cost."
	echo "Load average (1/5/15 min) before: $load_start, after: $load_end; measuring took ${bench_seconds} s."
	echo "Extension: $extension_label; md5 of .so + jar: $digest_start at start, $digest_end at end."
	echo
	awk -F'\t' -v rows="$BENCH_ROWS" -v wide="$BENCH_WIDE_ROWS" -v ref="${duckdb_ref_bytes:-0}" -v rg="$ROW_GROUP_ROWS" \
		-v size_base="$(base_pep_2 "$BENCH_SIZE_BASE")" -v scale_base="$(base_pep_2 "$BENCH_SCALE_BASE")" '
		function median(list,   n, a, i, j, t) {
			n = split(list, a, " ")
			for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j > 0 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
			return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		function minmax(list,   n, a, i, lo, hi) {
			n = split(list, a, " "); lo = hi = a[1]
			for (i = 2; i <= n; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] }
			return sprintf("%.2f-%.2f", lo, hi)
		}
		function max(arr, m, v) { if (!(m in arr) || v + 0 > arr[m] + 0) arr[m] = v + 0 }
		$2 > 0 {
			m = $1
			if (!(m in secs)) order[++n] = m
			secs[m] = secs[m] " " $3; wall[m] = wall[m] " " $4; bytes[m] = $5
			max(whwm, m, $6); max(wanon, m, $7); max(wshm, m, $8); max(nw, m, $9)
			max(chwm, m, $10); max(canon, m, $11); max(client, m, $12)
			cpu[m] = cpu[m] " " $14; load[m] = load[m] " " $15
			if ($13 ~ /^FAIL/) bad[m] = 1
			ver[m] = bad[m] ? "FAIL" : (($13 ~ /^ok/) ? "ok" : $13)
		}
		END {
			desc["copy_csv"] = "COPY TO csv (server)"
			desc["copy_binary"] = "COPY TO binary (server)"
			desc["jdbc_1"] = "pgjdbc + parquet-avro, 1 thread"
			desc["jdbc_2"] = "pgjdbc + parquet-avro, 2 threads"
			desc["pep_1"] = "extension, table, 1 worker"
			desc["pep_2"] = "extension, table, 2 workers"
			desc["pep_4"] = "extension, table, 4 workers"
			desc["pep_query_2"] = "extension, query, 2 workers"
			desc["pep_wide_2"] = "extension, 50-column table w, 2 workers"
			desc["pep_one"] = "extension, 1-row table, 1 worker"
			desc["pep_one_nested"] = "extension, 1 row of nested kinds, 1 worker"
			desc["pep_s3_2"] = "extension, table, 2 workers, into S3Proxy"
			desc["pep_one_s3"] = "extension, 1-row table, 1 worker, into S3Proxy"
			csv = ("copy_csv" in secs) ? median(secs["copy_csv"]) : 0
			print "| method | what | seconds (median) | min-max | rows/s | output MB | peak RSS MB: VmHWM (anon, shmem) | caller +MB: VmHWM (anon) | vs COPY csv | check |"
			print "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"
			for (i = 1; i <= n; i++) {
				m = order[i]; s = median(secs[m]); r = (m ~ /^pep_one/) ? 1 : (m == "pep_wide_2") ? wide : rows
				rss = "-"
				if (whwm[m] > 0) rss = sprintf("%.0f (%.0f, %.0f) x%d workers", whwm[m] / 1024, wanon[m] / 1024, wshm[m] / 1024, nw[m])
				if (client[m] > 0) rss = sprintf("%.0f (client JVM)", client[m] / 1024)
				cal = "-"
				if (m ~ /^(pep|copy)/) cal = sprintf("%.1f (%.1f)", chwm[m] / 1024, canon[m] / 1024)
				printf "| %s | %s | %.2f | %s | %s | %.1f | %s | %s | %s | %s |\n", m, desc[m], s, minmax(secs[m]),
					((s > 0) ? sprintf("%.0f", r / s) : "-"), bytes[m] / 1048576, rss, cal,
					((csv > 0 && m !~ /^pep_(one|wide)/) ? sprintf("%.2fx", s / csv) : "-"), ver[m]
				med[m] = s
			}
			print ""
			if ("pep_one" in secs)
				printf "1-row export: statement %.3f s median; whole psql process (connect, LOAD, statement) %.3f s median.\n\n", med["pep_one"], median(wall["pep_one"])
			print "Targets of issue 13 (measured; the target in brackets):"
			print ""
			if (csv > 0 && ("pep_2" in med)) {
				x = med["pep_2"] / csv
				printf "- 2 workers vs COPY csv: %.2fx [<= 0.25x] (%s)\n", x, ((x <= 0.25) ? "met" : "missed")
			}
			if (("pep_1" in med) && ("pep_2" in med)) {
				x = med["pep_1"] / med["pep_2"]
				printf "- 1 -> 2 workers: %.2fx [>= 1.85x] (%s)\n", x, ((x >= 1.85) ? "met" : "missed")
			}
			if (("pep_4" in med) && ("pep_2" in med))
				printf "- 4 workers on %d cores: %.2f s vs 2 workers %.2f s [no slower] (%s)\n", ncores, med["pep_4"], med["pep_2"], ((med["pep_4"] <= med["pep_2"]) ? "met" : "missed")
			if (("pep_query_2" in med) && ("pep_2" in med)) {
				x = med["pep_2"] / med["pep_query_2"]
				printf "- query source vs table source (2 workers): %.0f%% [>= 80%%] (%s)\n", 100 * x, ((x >= 0.8) ? "met" : "missed")
			}
			if ("pep_wide_2" in med) {
				x = wide * 50 / med["pep_wide_2"] / 2
				y = wide * 50 / median(cpu["pep_wide_2"])
				printf "- wide table (50 columns, %d rows), 2 workers: %.2fM values/s per worker by wall time, %.2fM values per CPU-second per worker (the workers%s CPU time, median %.2f s, load average %s) [goal 14.5M, the C exporter] (%s)\n", wide, x / 1e6, y / 1e6, "'"'"'", median(cpu["pep_wide_2"]), median(load["pep_wide_2"]), ((x >= 14.5e6) ? "met" : "missed")
			}
			if ("pep_2" in med)
				printf "- the 10-column table t, 2 workers: %.2fM values per CPU-second per worker (the workers%s CPU time, median %.2f s, load average %s)\n", rows * 10 / median(cpu["pep_2"]) / 1e6, "'"'"'", median(cpu["pep_2"]), median(load["pep_2"])
			if (split(scale_base, sb, " ") == 4 && ("pep_2" in med)) {
				x = med["pep_2"] / (sb[2] * rows / sb[1])
				printf "- scale: %d rows in %.2f s vs %.2f s for %d rows, %.2fx of the linear time [within 10%%] (%s); worker anonymous peak %.0f MB vs %.0f MB [the same]\n", rows, med["pep_2"], sb[2], sb[1], x, ((x <= 1.1) ? "met" : "missed"), wanon["pep_2"] / 1024, sb[4] / 1024
			} else
				print "- scale: not measured by this run [100M rows within 10% of 10x the 10M time, the same peak worker memory]: run with BENCH_ROWS=100000000 BENCH_SCALE_BASE=<a 10M-row results file of the same build>"
			for (i = 1; i <= n; i++) if (order[i] ~ /^pep_one/ && order[i] != "pep_one_s3")
				printf "- 1-row export (%s): %.3f s [<= 0.2 s] (%s)\n", order[i], med[order[i]], ((med[order[i]] <= 0.2) ? "met" : "missed")
			if (split(size_base, zb, " ") == 4 && zb[1] == rows && ("pep_2" in bytes)) {
				x = bytes["pep_2"] / zb[3] - 1
				printf "- output size (pep_2): %.1f MB vs %.1f MB before [within 2%%]: %+.2f%% (%s)\n", bytes["pep_2"] / 1048576, zb[3] / 1048576, 100 * x, ((x <= 0.02 && x >= -0.02) ? "met" : "missed")
			} else
				print "- output size: not compared [within 2% of the row writer'"'"'s]: BENCH_SIZE_BASE has no pep_2 of the same BENCH_ROWS"
			print "- output value by value: every export above is checked against PostgreSQL'"'"'s fingerprint (check column)"
			print ""
			print "Targets of issue 11 (object storage):"
			print ""
			if (("pep_s3_2" in med) && ("pep_2" in med)) {
				x = med["pep_s3_2"] / med["pep_2"]
				printf "- 2 workers into S3Proxy vs the local export: %.2f s vs %.2f s, %.2fx [<= 1.3x] (%s)\n", med["pep_s3_2"], med["pep_2"], x, ((x <= 1.3) ? "met" : "missed")
			}
			if ("pep_one_s3" in med)
				printf "- 1-row export into S3Proxy: %.3f s [< 0.6 s] (%s)\n", med["pep_one_s3"], ((med["pep_one_s3"] < 0.6) ? "met" : "missed")
			print ""
			print "Also measured:"
			print ""
			w = 0; wa = 0; c = 0; ca = 0
			for (m in whwm) if (m ~ /^pep/) { if (whwm[m] > w) w = whwm[m]; if (wanon[m] > wa) wa = wanon[m] }
			for (m in chwm) if (m ~ /^pep/) { if (chwm[m] > c) c = chwm[m]; if (canon[m] > ca) ca = canon[m] }
			if (w > 0)
				printf "- worker peak RSS < 300 MB: VmHWM %.0f MB (%s), of which anonymous at most %.0f MB; the rest is shared buffers the scan touched\n", w / 1024, ((w / 1024 < 300) ? "met" : "missed"), wa / 1024
			printf "- caller backend grows a few MB at most: anonymous +%.1f MB; VmHWM +%.1f MB (for the query source it counts the shared buffers the caller scans)\n", ca / 1024, c / 1024
			if (ref > 0 && ("pep_2" in bytes)) {
				x = bytes["pep_2"] / ref - 1
				printf "- output within 10%% of DuckDB (snappy, %d-row groups, DuckDB rewriting the pep_2 output): %.1f MB vs %.1f MB, %+.1f%% (%s)\n", rg, bytes["pep_2"] / 1048576, ref / 1048576, 100 * x, ((x <= 0.10) ? "met" : "missed")
			}
		}' ncores="$(nproc)" "$runs_tsv"
	echo
	echo "Every run (method, run (0 = warm-up), seconds, wall seconds, bytes, worker VmHWM, RssAnon, RssShmem kB, workers seen, caller VmHWM and RssAnon growth kB, client max RSS kB, check, workers' CPU seconds, 1-minute load average after the run):"
	echo
	echo '```'
	cat "$runs_tsv"
	echo '```'
}

mkdir -p "$(dirname "$BENCH_RESULTS")"
report | tee "$BENCH_RESULTS"
[[ $digest_start == "$digest_end" ]] ||
	log "warning: the installed extension changed during the run ($digest_start -> $digest_end)"
if [[ $failures -gt 0 ]]; then
	die "$failures run(s) failed their check"
fi
