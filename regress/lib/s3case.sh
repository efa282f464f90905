# shellcheck shell=bash
# regress/lib/s3case.sh: what the object-store harnesses share: their own
# S3Proxy, the cluster's restarts around it, the tools that ask S3Proxy what
# it holds, and the checks of what an export left there.
#
# Sourced by t_s3_trip.sh, t_s3_failures.sh, t_s3_exit.sh and
# t_s3_partition.sh (the cases split from t_s3.sh), t_s3_lock.sh,
# t_s3_overwrite.sh, t_s3_sweep.sh and t_encoding.sh after `set -uo
# pipefail`; it sources what it builds on, lib/tap.sh, lib/export.sh and
# lib/s3look.sh, so a harness sources this file alone.
# s3case_setup gives each harness its own S3Proxy (regress/lib/s3proxy.sh)
# on PEP_PORT + 1000 with a bucket "lake", restarts the cluster with the AWS
# SDK's standard variables (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
# AWS_SECRET_ACCESS_KEY, AWS_REGION) pointing at it, a configuration the
# extension supports as it is, and starts S3Look. At exit the harness's
# s3case_cleanup runs first, if it defines one, then the cluster is
# restarted without the variables and S3Proxy stopped. Each harness so
# starts from an empty bucket, and no case depends on what another file's
# cases left.
#
# What the server holds is asked of the server, through the S3 API
# (regress/s3proxy/S3Look.java, the AWS SDK): objects by ListObjectsV2,
# pending multipart uploads by ListMultipartUploads. Values are read back by
# DuckDB (regress/readback's Query) from S3Proxy's folder (a bucket is a
# folder, an object a plain file) and compared with PostgreSQL's.
#
# The tools (S3Look's and S3Forge's classes; regress/readback's classes and
# classpath) are built by the first harness of a run that needs them into
# $PEP_OUT/s3case-tools, and reused by the others while they are newer than
# their sources and the jar: each file pays for its own S3Proxy and server
# restart, not for a compile or a Maven build. A harness counts the same
# checks whichever harness built them.
#
# Gives: S3PORT, BUCKET, JAR, JAVA, PAUSE_MARK, LEDGERS, S3CASE_CLASSES (the
# jar and the classes of S3Look and S3Forge); from s3case_setup on: WORK,
# S3DIR, PEP_S3_* (exported). Functions: s3case_setup, s3case_restart,
# duck PREFIX SQL (DuckDB over the prefix's objects as "parts"), forge
# (S3Forge), state_of PREFIX, uploads_of STATE, objects_of STATE,
# export_id_of KEY, ledger_files, lock_free FILE, old_ledger_of PREFIX
# ENDPOINT, wait_mark APP MARK, assert_s3_clean, assert_s3_whole,
# s3_export ARGS, retry_ok.

# shellcheck source=tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
# shellcheck source=export.sh
source "$(dirname "${BASH_SOURCE[0]}")/export.sh"
# shellcheck source=s3look.sh
source "$(dirname "${BASH_SOURCE[0]}")/s3look.sh"

S3PORT=$((PEP_PORT + 1000))
BUCKET=lake
JAR="$("$PG_CONFIG" --sharedir)/extension/parallel_export_parquet.jar"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
JAVAC="${JAVA_HOME:+$JAVA_HOME/bin/}javac"
# shellcheck disable=SC2034 # the harnesses' marks of a paused export
PAUSE_MARK='parallel_export_parquet fault injection: pause'
# The ledger files in the data directory (one per target with a record).
LEDGERS="$PEP_DATA/pgsql_tmp_parallel_export_parquet"
S3CASE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
S3CASE_TOOLS="$PEP_OUT/s3case-tools"
S3CASE_CLASSES="$JAR:$S3CASE_TOOLS/look"
S3CASE_QUIET=""

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

# The EXIT trap: the harness's own s3case_cleanup first (it may need the
# server as the cases left it, or put back what must be there when it
# starts), then S3Look, the cluster without the SDK's variables, S3Proxy.
s3case_finish() {
	if declare -F s3case_cleanup >/dev/null; then
		s3case_cleanup
	fi
	s3look_stop
	s3case_restart
	"$S3CASE_ROOT/regress/lib/s3proxy.sh" stop "$S3DIR"
}

# A step of the setup that the cases need: if it failed (STATUS not 0), a
# failed check, and the harness ends there.
s3case_need() { # s3case_need STATUS DESCRIPTION [DIAGNOSTIC]
	[[ "$1" == 0 ]] && return 0
	ok "$1" "$2" "${3:-}"
	tap_done
	exit 1
}

# The same, and a passing check when it worked, unless s3case_setup was
# given --quiet (the harnesses that count no setup step).
s3case_step() { # s3case_step STATUS DESCRIPTION [DIAGNOSTIC]
	s3case_need "$@"
	[[ -n "$S3CASE_QUIET" ]] || ok 0 "$2"
}

# True when STAMP is newer than the jar and than every SOURCE (files or
# folders).
s3case_fresh() { # s3case_fresh STAMP SOURCE...
	local stamp="$1"
	shift
	[[ -f "$stamp" && "$stamp" -nt "$JAR" ]] || return 1
	[[ -z "$(find "$@" -newer "$stamp" -print -quit 2>/dev/null)" ]]
}

# S3Look's and S3Forge's classes, compiled once: the source launcher would
# compile them again at every call.
s3case_look_tools() {
	local src="$S3CASE_ROOT/regress/s3proxy" out="" rc=0 reused=""
	if s3case_fresh "$S3CASE_TOOLS/look.stamp" "$src/S3Look.java" "$src/S3Forge.java"; then
		reused=" (compiled by an earlier harness of this run)"
	else
		rm -rf "$S3CASE_TOOLS/look" "$S3CASE_TOOLS/look.stamp"
		mkdir -p "$S3CASE_TOOLS/look"
		out=$("$JAVAC" -nowarn -d "$S3CASE_TOOLS/look" -cp "$JAR" "$src/S3Look.java" "$src/S3Forge.java" 2>&1) || rc=$?
		[[ $rc != 0 ]] || touch "$S3CASE_TOOLS/look.stamp"
	fi
	s3case_step "$rc" "the S3 listing tool compiles against the extension's jar$reused" "$out"
}

# DuckDB's read-back classes (regress/readback) and their classpath.
s3case_duck_tools() {
	local rb="$S3CASE_ROOT/regress/readback" rc=0 reused=""
	if s3case_fresh "$S3CASE_TOOLS/duck.stamp" "$S3CASE_ROOT/pom.xml" "$rb/pom.xml" "$rb/src" &&
		[[ -d "$rb/target/classes/org" && -s "$S3CASE_TOOLS/readback.cp" ]]; then
		reused=" (built by an earlier harness of this run)"
	else
		rm -f "$S3CASE_TOOLS/duck.stamp"
		mkdir -p "$S3CASE_TOOLS"
		mvn -B -ntp -q -f "$S3CASE_ROOT/pom.xml" -pl regress/readback compile \
			org.apache.maven.plugins:maven-dependency-plugin:3.9.0:build-classpath \
			-Dmdep.outputFile="$S3CASE_TOOLS/readback.cp" >"$S3CASE_TOOLS/readback-build.log" 2>&1 || rc=$?
		[[ $rc != 0 ]] || touch "$S3CASE_TOOLS/duck.stamp"
	fi
	s3case_step "$rc" "the DuckDB read-back tool builds$reused" "$(tail -20 "$S3CASE_TOOLS/readback-build.log" 2>/dev/null)"
}

# s3case_setup [--quiet] [--duck] NAME TABLE ROWS: everything before a
# harness's first case: a fresh WORK (PEP_HARNESS_OUT/NAME) and table TABLE
# of ROWS rows (export.sh's fresh_work), S3Proxy, the restart with the SDK's
# variables, S3Look's and S3Forge's classes, S3Look serving, and with --duck
# DuckDB's read-back. The classes, the read-back and S3Look are a check each
# (none with --quiet); a step that fails is a failed check and ends the
# harness. retry_ok exports TABLE and expects the harness's ROWS rows.
s3case_setup() {
	local duck=""
	while [[ "$1" == --* ]]; do
		case "$1" in
		--quiet) S3CASE_QUIET=1 ;;
		--duck) duck=1 ;;
		esac
		shift
	done
	WORK="${PEP_HARNESS_OUT:-$PEP_OUT}/$1"
	S3DIR="$WORK/s3proxy"
	S3CASE_TABLE="$2"
	fresh_work "$2" "$3"
	trap s3case_finish EXIT
	"$S3CASE_ROOT/regress/lib/s3proxy.sh" start "$S3DIR" "$S3PORT" "$BUCKET"
	s3case_need $? "S3Proxy started on port $S3PORT"
	# shellcheck source=/dev/null
	source "$S3DIR/s3proxy.env"
	export PEP_S3_ENDPOINT PEP_S3_IDENTITY PEP_S3_CREDENTIAL PEP_S3_DATA
	s3case_restart with_s3
	s3case_need $? "the cluster restarted with the SDK's variables naming S3Proxy" "$(tail -n 5 "$PEP_LOG")"
	s3case_look_tools
	[[ -z "$duck" ]] || s3case_duck_tools
	s3look_start "$WORK" "$S3CASE_CLASSES"
	s3case_step $? "the S3 listing tool serves on loopback"
}

# DuckDB, through regress/readback's Query, over the objects of a prefix;
# with --hive first, by Hive partitioning.
duck() {
	local hive=()
	if [[ "$1" == --hive ]]; then
		hive=(--hive)
		shift
	fi
	"$JAVA" -XX:+UseSerialGC -cp "$S3CASE_ROOT/regress/readback/target/classes:$(cat "$S3CASE_TOOLS/readback.cp")" \
		org.parallelexport.readback.Query "${hive[@]}" "$PEP_S3_DATA/$BUCKET/$1" "$2"
}

# Objects and pending uploads under a prefix (ending in /), one per line,
# sorted by byte: states are compared as text, which must not depend on the
# order in which the server lists pending uploads.
state_of() { look list "$BUCKET" "$1" | LC_ALL=C sort; }

# S3Forge (regress/s3proxy/S3Forge.java): makes the uploads and objects of a
# forged record through the extension's own S3 client. It takes its prefix
# from the command line, which Java decodes by the locale.
forge() {
	LC_ALL=C.UTF-8 "$JAVA" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$S3CASE_CLASSES" \
		S3Forge "$1" "$BUCKET" "${@:2}"
}

ledger_files() { find "$LEDGERS" -name '*.ledger' 2>/dev/null; }
# Whether the ledger file is there and its lock free, without creating it.
lock_free() { [[ -f "$1" ]] && flock -n 9 9<"$1"; }
# The name version 1.1 gave the ledger file of s3://$BUCKET/PREFIX through
# ENDPOINT as written ("" for the SDK's chain); this version names it for
# bucket and prefix alone, and adopts a record left under the old name.
old_ledger_of() {
	printf '%s\0%s\0%s\0' "$2" "$BUCKET" "$1" | sha256sum | awk -v d="$LEDGERS" '{ print d "/" $1 ".ledger" }'
}

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

# Whether the parts of MANIFEST (look manifest's lines) and its total both
# count ROWS rows. A part line ends with its rows and bytes; its name may
# hold spaces (a partition value).
manifest_rows() { # manifest_rows MANIFEST ROWS
	[[ "$(awk '$1 == "part" { n += $(NF - 1) } END { print n }' <<<"$1")" == "$2" &&
		"$(awk '$1 == "rows" { print $2 }' <<<"$1")" == "$2" ]]
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
	manifest_rows "$manifest" "$rows" || problems+="manifest rows do not add up to $rows: $manifest"$'\n'
	[[ -z "$problems" ]]
	ok $? "$what" "$problems"
}

s3_export() {
	sql "SELECT parallel_export_parquet($1)" 2>&1
}

# The same export without a fault, into the same prefix: the retry.
retry_ok() {
	local prefix="$1" what="$2"
	assert_s3_whole "$prefix" "$ROWS" "$(s3_export "'$S3CASE_TABLE', 's3://$BUCKET/$prefix', 2")" \
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
