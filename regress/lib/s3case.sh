# shellcheck shell=bash
# regress/lib/s3case.sh: what the t_s3_*.sh harnesses split from t_s3.sh share.
#
# Sourced after lib/tap.sh, lib/export.sh and lib/s3look.sh. s3case_setup NAME
# gives each harness its own S3Proxy (regress/lib/s3proxy.sh) on
# PEP_PORT + 1000 with a bucket "lake", restarts the cluster with the AWS
# SDK's standard variables (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
# AWS_SECRET_ACCESS_KEY, AWS_REGION) pointing at it, a configuration the
# extension supports as it is, and starts S3Look; at exit the cluster is
# restarted without them and S3Proxy stopped. Each harness so starts from an
# empty bucket, and no case depends on what another file's cases left.
#
# What the server holds is asked of the server, through the S3 API
# (regress/s3proxy/S3Look.java, the AWS SDK): objects by ListObjectsV2,
# pending multipart uploads by ListMultipartUploads. Values are read back by
# DuckDB (regress/readback's Query) from S3Proxy's folder (a bucket is a
# folder, an object a plain file) and compared with PostgreSQL's.
#
# The tools (S3Look's class, regress/readback's classes and classpath) are
# built by the first harness of a run into $PEP_OUT/s3case-tools and reused
# by the others while they are newer than their sources and the jar: each
# file pays for its own S3Proxy and server restart, not for a Maven build.
#
# Gives: WORK, S3DIR, BUCKET, JAR, ROWS (table pep_s3 of ROWS rows), PAUSE_MARK,
# LEDGERS; duck PREFIX SQL (DuckDB over the prefix's objects as "parts"),
# state_of PREFIX, ledger_files, assert_s3_clean, assert_s3_whole,
# s3_export ARGS, retry_ok, wait_mark, uploads_of, objects_of, export_id_of.

S3PORT=$((PEP_PORT + 1000))
BUCKET=lake
JAR="$("$PG_CONFIG" --sharedir)/extension/parallel_export_parquet.jar"
ROWS=200000
# shellcheck disable=SC2034 # the harnesses' marks of a paused export
PAUSE_MARK='parallel_export_parquet fault injection: pause'
# The ledger files in the data directory (one per target with a record).
LEDGERS="$PEP_DATA/pgsql_tmp_parallel_export_parquet"
S3CASE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
S3CASE_TOOLS="$PEP_OUT/s3case-tools"

# Restart the cluster with, or (no argument) without, the SDK's variables.
s3case_restart() {
	if [[ "${1:-}" == with_s3 ]]; then
		AWS_ENDPOINT_URL="$PEP_S3_ENDPOINT" AWS_ACCESS_KEY_ID="$PEP_S3_IDENTITY" \
			AWS_SECRET_ACCESS_KEY="$PEP_S3_CREDENTIAL" AWS_REGION=us-east-1 \
			pep_pg_ctl -w -t 60 -l "$PEP_LOG" restart >/dev/null
	else
		(
			unset AWS_ENDPOINT_URL AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION
			pep_pg_ctl -w -t 60 -l "$PEP_LOG" restart >/dev/null
		)
	fi
}

s3case_finish() {
	s3look_stop
	s3case_restart
	"$S3CASE_ROOT/regress/lib/s3proxy.sh" stop "$S3DIR"
}

# True when the built tools are newer than everything they are built from.
s3case_tools_fresh() {
	[[ -f "$S3CASE_TOOLS/stamp" && "$S3CASE_TOOLS/stamp" -nt "$JAR" ]] || return 1
	[[ -z "$(find "$S3CASE_ROOT/regress/s3proxy/S3Look.java" "$S3CASE_ROOT/regress/readback/src" \
		"$S3CASE_ROOT/regress/readback/pom.xml" -newer "$S3CASE_TOOLS/stamp" -print -quit)" ]]
}

# S3Look's class and DuckDB's read-back classes with their classpath.
s3case_tools() {
	local jrc=0 mrc=0
	if s3case_tools_fresh; then
		ok 0 "the S3 listing tool and the DuckDB read-back tool are built (by this run)"
		return
	fi
	rm -rf "$S3CASE_TOOLS"
	mkdir -p "$S3CASE_TOOLS/look"
	javac -d "$S3CASE_TOOLS/look" -cp "$JAR" "$S3CASE_ROOT/regress/s3proxy/S3Look.java" || jrc=$?
	ok "$jrc" "the S3 listing tool compiles against the extension's jar"
	mvn -B -ntp -q -f "$S3CASE_ROOT/pom.xml" -pl regress/readback compile \
		org.apache.maven.plugins:maven-dependency-plugin:3.9.0:build-classpath \
		-Dmdep.outputFile="$S3CASE_TOOLS/readback.cp" >"$S3CASE_TOOLS/readback-build.log" 2>&1 || mrc=$?
	ok "$mrc" "the DuckDB read-back tool builds" "$(tail -20 "$S3CASE_TOOLS/readback-build.log")"
	[[ $jrc != 0 || $mrc != 0 ]] || touch "$S3CASE_TOOLS/stamp"
}

# Everything before a harness's first case: WORK (under PEP_HARNESS_OUT),
# table pep_s3, S3Proxy, the restart, the tools, S3Look.
s3case_setup() {
	WORK="${PEP_HARNESS_OUT:-$PEP_OUT}/$1"
	S3DIR="$WORK/s3proxy"
	fresh_work pep_s3 "$ROWS"
	if ! "$S3CASE_ROOT/regress/lib/s3proxy.sh" start "$S3DIR" "$S3PORT" "$BUCKET"; then
		ok 1 "S3Proxy started on port $S3PORT"
		tap_done
		exit 1
	fi
	# shellcheck source=/dev/null
	source "$S3DIR/s3proxy.env"
	export PEP_S3_ENDPOINT PEP_S3_IDENTITY PEP_S3_CREDENTIAL PEP_S3_DATA
	trap s3case_finish EXIT
	s3case_restart with_s3
	s3case_tools
	s3look_start "$WORK" "$JAR:$S3CASE_TOOLS/look"
	ok $? "the S3 listing tool serves on loopback"
}

# DuckDB, through regress/readback's Query, over the objects of a prefix;
# with --hive first, by Hive partitioning.
duck() {
	local hive=()
	if [[ "$1" == --hive ]]; then
		hive=(--hive)
		shift
	fi
	java -XX:+UseSerialGC -cp "$S3CASE_ROOT/regress/readback/target/classes:$(cat "$S3CASE_TOOLS/readback.cp")" \
		org.parallelexport.readback.Query "${hive[@]}" "$PEP_S3_DATA/$BUCKET/$1" "$2"
}

# Objects and pending uploads under a prefix (ending in /), one per line,
# sorted by byte: states are compared as text, which must not depend on the
# order in which the server lists pending uploads.
state_of() { look list "$BUCKET" "$1" | LC_ALL=C sort; }

ledger_files() { find "$LEDGERS" -name '*.ledger' 2>/dev/null; }

# Nothing of the export into PREFIX: no object, no upload, no worker, no
# ledger file.
assert_s3_clean() {
	local prefix="$1" what="$2" state workers problems=""
	state=$(state_of "$prefix" 2>&1)
	[[ -n "$state" ]] && problems+="left under $prefix:"$'\n'"$state"$'\n'
	[[ -n "$(ledger_files)" ]] && problems+="ledger files left: $(ledger_files)"$'\n'
	workers=$(live_workers)
	[[ -n "$workers" ]] && problems+="parallel workers still running: $workers"$'\n'
	[[ "$(sql 'SELECT 1')" != 1 ]] && problems+="server does not answer"$'\n'
	[[ -z "$problems" ]]
	ok $? "$what: no object, no pending upload, no worker left" "$problems"
}

# The export into PREFIX is whole: the call returned ROWS, no upload is
# pending, and _SUCCESS's manifest lists exactly the parts there, whose
# rows add up to ROWS.
assert_s3_whole() {
	local prefix="$1" rows="$2" got="$3" what="$4"
	local state manifest problems="" listed present
	state=$(state_of "$prefix" 2>&1)
	[[ "$got" == "$rows" ]] || problems+="returned '$got', expected $rows"$'\n'
	grep -q '^upload ' <<<"$state" && problems+="uploads pending:"$'\n'"$state"$'\n'
	manifest=$(look manifest "$BUCKET" "${prefix}_SUCCESS" 2>&1)
	listed=$(awk '$1 == "part" { print $2 }' <<<"$manifest" | sort)
	present=$(sed -n "s|^object ${prefix}\\(part-[^ ]*\\) .*|\\1|p" <<<"$state" | sort)
	[[ -n "$listed" && "$listed" == "$present" ]] ||
		problems+="manifest lists [$listed], the prefix holds [$present]"$'\n'
	[[ "$(awk '$1 == "part" { n += $3 } END { print n }' <<<"$manifest")" == "$rows" &&
		"$(awk '$1 == "rows" { print $2 }' <<<"$manifest")" == "$rows" ]] ||
		problems+="manifest rows do not add up to $rows: $manifest"$'\n'
	[[ -z "$problems" ]]
	ok $? "$what" "$problems"
}

s3_export() {
	sql "SELECT parallel_export_parquet($1)" 2>&1
}

# The same export without a fault, into the same prefix: the retry.
retry_ok() {
	local prefix="$1" what="$2"
	assert_s3_whole "$prefix" "$ROWS" "$(s3_export "'pep_s3', 's3://$BUCKET/$prefix', 2")" \
		"$what: a retry into the same prefix succeeds"
}

# Wait until APP's leader shows MARK, or a worker of it does.
wait_mark() {
	local app="$1" mark="$2"
	wait_until "[[ \$(sql \"SELECT count(*) FROM pg_stat_activity a
		WHERE (a.application_name = '$app' OR a.leader_pid = (SELECT pid FROM pg_stat_activity
			WHERE application_name = '$app' AND backend_type = 'client backend'))
		AND a.query LIKE '$mark%'\") -ge 1 ]]"
}

uploads_of() { grep -c '^upload ' <<<"$1"; }
objects_of() { grep -c '^object ' <<<"$1"; }
export_id_of() { look manifest "$BUCKET" "$1" | awk '$1 == "export_id" { print $2 }'; }
