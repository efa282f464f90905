#!/usr/bin/env bash
# regress/t_s3.sh: exports into s3://, against S3Proxy; never a partial export.
#
# Starts S3Proxy (regress/lib/s3proxy.sh) on PEP_PORT + 1000 with a bucket
# "lake", and restarts the cluster with the AWS SDK's standard variables
# (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION)
# pointing at it, a configuration the extension supports as it is; at the
# end the cluster is restarted without them and S3Proxy stopped.
#
# What the server holds is asked of the server, through the S3 API
# (regress/s3proxy/S3Look.java, the AWS SDK): objects by ListObjectsV2,
# pending multipart uploads by ListMultipartUploads.  Values are read back by
# DuckDB from S3Proxy's folder (a bucket is a folder, an object a plain file)
# and compared with PostgreSQL's, value by value.
#
# Cases:
#   round trip   a table and a query (several parts, zstd) read back; the
#                manifest in _SUCCESS lists exactly the parts, with their rows;
#                parallel_export_parquet_last() and the LOG line name the URL;
#                the table's workers load every class of the S3 client (the
#                SDK's and the extension's) from the AppCDS archive;
#   unpublished  paused after every part is written: no object listed, the
#                uploads pending; cancelled, nothing left;
#   not empty    a prefix holding someone else's object is refused, with and
#                without overwrite, and the object is untouched;
#   overwrite    a replacing export paused before PUBLISH, and one paused
#                after its _SUCCESS was written, are cancelled: the old export
#                is whole and readable both times; one that commits replaces
#                it, and the old parts are gone;
#   failures     cancel at several depths, statement_timeout, worker ERROR,
#                caller FATAL, worker terminate, an endpoint whose uploads
#                fail: each asserts its premise (an upload pending, the fault
#                reached), then no object and no upload of the export, no
#                worker left, no ledger file left, and a retry into the same
#                prefix succeeds;
#   race         a second export into a target whose export runs fails at
#                once, and touches none of the running export's uploads;
#   exit order   _SUCCESS written and worker 0 unable to take it back: every
#                part it names stays, with the record, until the sweep
#                removes all; worker 1 terminated on its own after _SUCCESS:
#                worker 0 takes _SUCCESS back, then deletes every part;
#                worker 1 terminated while worker 0 is held just before it
#                decides to write _SUCCESS: worker 0 refuses to (control:
#                released with no worker undoing, it publishes);
#   no conditions a server that answers the conditional _SUCCESS PUT with 501:
#                the plain PUT publishes the export whole, overwrite too;
#   sigkill      a worker killed outright after _SUCCESS was written: the
#                crash restart leaves the objects and the ledger file's
#                record; the next export into the target sweeps exactly them
#                and succeeds.  The same kill of an overwrite: the sweep puts
#                the replaced export's manifest back, and it is whole;
#   partition_by a two-level Hive tree of keys (NULLs, values needing
#                escapes, dates): read back by DuckDB's Hive partitioning
#                value by value, the manifest lists exactly the keys with
#                their partition; no object before publication; at the
#                smallest partition_memory the upload buffers make the
#                workers finish parts early, and the values still read
#                back; cancel mid-write, a worker ERROR, a worker SIGKILL
#                then the next export's sweep: each leaves no object and no
#                upload of the export; overwrite of an unpartitioned and of a
#                partitioned export, the old one whole while a replacing
#                export is paused and after it is cancelled, and refused
#                with a foreign object deep in the old tree;
#   part limit   with s3_small_uploads (uploads of 3 parts of 5 MiB) a
#                worker ends each part before its upload runs out of part
#                numbers, and the parts read back whole (control: without
#                it, one part larger than such an upload holds).
# Nothing races a timer: faults come from the fault injection setting, and
# the harness waits for what it can observe.
#
# Needs a running cluster from tools/cluster.sh with the extension installed,
# Maven (S3Proxy, DuckDB) and a JDK.  Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
# shellcheck source=lib/tap.sh
source "$here/lib/tap.sh"
# shellcheck source=lib/export.sh
source "$here/lib/export.sh"
# shellcheck source=lib/s3look.sh
source "$here/lib/s3look.sh"

WORK="${PEP_HARNESS_OUT:-$PEP_OUT}/s3"
S3DIR="$WORK/s3proxy"
S3PORT=$((PEP_PORT + 1000))
BUCKET=lake
JAR="$("$PG_CONFIG" --sharedir)/extension/parallel_export_parquet.jar"
ROWS=200000
PAUSE_MARK='parallel_export_parquet fault injection: pause'

fresh_work pep_s3 "$ROWS"
sql "DROP TABLE IF EXISTS pep_s3_types;
	CREATE TABLE pep_s3_types AS
	SELECT g AS id,
		CASE WHEN g % 7 = 0 THEN NULL ELSE 'välue ' || g END AS t,
		(g * 1.25)::numeric(12, 2) AS n,
		g % 3 = 0 AS b,
		date '2026-01-01' + g % 400 AS d,
		timestamp '2026-01-01 00:00:00' + g * interval '1 minute' AS ts
	FROM generate_series(1, 50000) g" >/dev/null

# Restart the cluster with, or (no argument) without, the SDK's variables.
restart_cluster() {
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

finish() {
	s3look_stop
	restart_cluster
	"$here/lib/s3proxy.sh" stop "$S3DIR"
}

if ! "$here/lib/s3proxy.sh" start "$S3DIR" "$S3PORT" "$BUCKET"; then
	ok 1 "S3Proxy started on port $S3PORT"
	tap_done
	exit 1
fi
# shellcheck source=/dev/null
source "$S3DIR/s3proxy.env"
export PEP_S3_ENDPOINT PEP_S3_IDENTITY PEP_S3_CREDENTIAL PEP_S3_DATA
trap finish EXIT
restart_cluster with_s3

mkdir -p "$WORK/look"
javac -d "$WORK/look" -cp "$JAR" "$root/regress/s3proxy/S3Look.java"
ok $? "the S3 listing tool compiles against the extension's jar"
s3look_start "$WORK" "$JAR:$WORK/look"
ok $? "the S3 listing tool serves on loopback"

# DuckDB, through regress/readback's Query, over the objects of a prefix.
mvn -B -ntp -q -f "$root/pom.xml" -pl regress/readback compile org.apache.maven.plugins:maven-dependency-plugin:3.9.0:build-classpath \
	-Dmdep.outputFile="$WORK/readback.cp" >"$WORK/readback-build.log" 2>&1
ok $? "the DuckDB read-back tool builds" "$(tail -20 "$WORK/readback-build.log")"
duck() {
	java -XX:+UseSerialGC -cp "$root/regress/readback/target/classes:$(cat "$WORK/readback.cp")" \
		org.parallelexport.readback.Query "$PEP_S3_DATA/$BUCKET/$1" "$2"
}

# Objects and pending uploads under a prefix (ending in /), one per line,
# sorted by byte: states are compared as text, which must not depend on the
# order in which the server lists pending uploads.
state_of() { look list "$BUCKET" "$1" | LC_ALL=C sort; }

# The ledger files in the data directory (one per target with a record).
LEDGERS="$PEP_DATA/pgsql_tmp_parallel_export_parquet"
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

# --- Round trip: a table and a query, read back by DuckDB value by value.
pg_rows="$(psql -X -A -t -q -F $'\t' -c "SELECT id, t, n, CASE WHEN b THEN 'true' ELSE 'false' END, d, ts FROM pep_s3_types ORDER BY id")"
# One session: parallel_export_parquet_last() is the session's last export.
# Its workers log where each class came from (-Xlog:class+load to stdout,
# which is the server log's, each line with the worker's PID; jvm_options
# may write no file), split into one file per worker.
classes_from=$(stat -c %s "$PEP_LOG")
out=$(psql -X -A -t -q -c "LOAD 'parallel_export_parquet'" \
	-c "SELECT set_config('parallel_export_parquet.jvm_options', current_setting('parallel_export_parquet.jvm_options')
		|| ' -Xlog:class+load=info:stdout:pid', false)" \
	-c "SELECT parallel_export_parquet('pep_s3_types', 's3://$BUCKET/trip/table', 2)" \
	-c "SELECT directory, rows, parts FROM parallel_export_parquet_last()" 2>&1)
tail -c +"$((classes_from + 1))" "$PEP_LOG" |
	awk -v dir="$WORK" 'match($0, /^\[[0-9]+\] /) { print > (dir "/classes-" substr($0, 2, RLENGTH - 3) ".log") }'
got=$(sed -n 2p <<<"$out")
last=$(tail -n 1 <<<"$out")
assert_s3_whole "trip/table/" 50000 "$got" "round trip table: whole export, manifest matches the parts"
duck_rows="$(duck trip/table "SELECT id, t, n, b, d::VARCHAR, ts::VARCHAR FROM parts ORDER BY id")"
[[ -n "$duck_rows" && "$duck_rows" == "$pg_rows" ]]
ok $? "round trip table: DuckDB reads every value PostgreSQL holds" \
	"$(diff <(echo "$pg_rows") <(echo "$duck_rows") | head -5)"
[[ "$last" == "s3://$BUCKET/trip/table/|50000|$(look manifest "$BUCKET" trip/table/_SUCCESS | grep -c '^part ')" ]]
ok $? "round trip table: parallel_export_parquet_last() names the URL and the parts" "$last"
grep -q "exported 50000 rows of public.pep_s3_types to \"s3://$BUCKET/trip/table/\"" "$PEP_LOG"
ok $? "round trip table: the LOG line names the URL"
# Premise: both workers logged, and loaded classes from the archive.
archived=$(cat "$WORK"/classes-*.log 2>/dev/null | grep -c 'source: shared objects file')
[[ $(ls "$WORK"/classes-*.log 2>/dev/null | wc -l) == 2 && $archived -gt 1000 ]]
ok $? "round trip table: both workers logged their class loading, $archived classes from the AppCDS archive"
outside=$(cat "$WORK"/classes-*.log 2>/dev/null | grep -F 'parallel_export_parquet.jar' |
	grep -E ' (software\.amazon\.awssdk|org\.parallelexport\.parquet\.s3)\.')
[[ -z "$outside" ]]
ok $? "round trip table: no class of the S3 client was loaded from outside the AppCDS archive" \
	"$(wc -l <<<"$outside") loaded from the jar, among them:"$'\n'"$(head -n 10 <<<"$outside")"

got=$(s3_export "'SELECT id, t, n FROM pep_s3_types WHERE id % 2 = 0', 's3://$BUCKET/trip/query', 2,
	compression => 'zstd', file_size_bytes => 65536")
assert_s3_whole "trip/query/" 25000 "$got" "round trip query: whole export"
parts=$(objects_of "$(state_of trip/query/)")
[[ $parts -ge 4 ]]
ok $? "round trip query: file_size_bytes made several parts ($((parts - 1)) and _SUCCESS)"
pg_q="$(psql -X -A -t -q -F $'\t' -c "SELECT id, t, n FROM pep_s3_types WHERE id % 2 = 0 ORDER BY id")"
duck_q="$(duck trip/query "SELECT id, t, n FROM parts ORDER BY id")"
[[ -n "$duck_q" && "$duck_q" == "$pg_q" ]]
ok $? "round trip query: DuckDB reads every value PostgreSQL holds" \
	"$(diff <(echo "$pg_q") <(echo "$duck_q") | head -5)"
[[ "$(duck trip/query "SELECT DISTINCT compression FROM parquet_metadata('$PEP_S3_DATA/$BUCKET/trip/query/*.parquet')")" == ZSTD ]]
ok $? "round trip query: the parts are zstd-compressed"

# --- Nothing is visible before publication.
app=pep_s3_unpublished
start_export "$app" "SET parallel_export_parquet.fault_injection = 'pause:publishing';" \
	"SELECT parallel_export_parquet('pep_s3', 's3://$BUCKET/unpublished', 2)"
wait_mark "$app" "$PAUSE_MARK"
state=$(state_of unpublished/)
[[ $(objects_of "$state") == 0 && $(uploads_of "$state") -ge 1 ]]
ok $? "unpublished: every part written, $(uploads_of "$state") upload(s) pending, no object listed" "$state"
sql "SELECT pg_cancel_backend($(caller_pid "$app"))" >/dev/null
finish_export "$app"
grep -q "canceling statement due to user request" <<<"$OUT"
ok $? "unpublished: the export was cancelled" "$OUT"
assert_s3_clean unpublished/ "unpublished"
retry_ok unpublished/ "unpublished"

# --- A prefix that holds someone else's object is refused, and kept.
look put "$BUCKET" busy/theirs.csv "a,b"
for overwrite in false true; do
	out=$(s3_export "'pep_s3', 's3://$BUCKET/busy', 2, overwrite => $overwrite")
	case $overwrite in
	false) expect='"s3://lake/busy/" is not empty' ;;
	true) expect='"s3://lake/busy/" does not hold only a previous export' ;;
	esac
	grep -qF "$expect" <<<"$out"
	ok $? "not empty, overwrite => $overwrite: refused ($expect)" "$out"
	state=$(state_of busy/)
	[[ "$state" == "object busy/theirs.csv 3" ]]
	ok $? "not empty, overwrite => $overwrite: their object is untouched, nothing else there" "$state"
done

# --- Overwrite keeps the old export whole until the new one commits.
got=$(s3_export "'pep_s3', 's3://$BUCKET/ow', 2")
assert_s3_whole ow/ "$ROWS" "$got" "overwrite: the first export is whole"
export_id_of() { look manifest "$BUCKET" "$1" | awk '$1 == "export_id" { print $2 }'; }
old_id=$(export_id_of ow/_SUCCESS)
for pause in publishing committing; do
	app="pep_s3_ow_$pause"
	start_export "$app" "SET parallel_export_parquet.fault_injection = 'pause:$pause';" \
		"SELECT parallel_export_parquet('SELECT * FROM pep_s3 WHERE id <= 1000', 's3://$BUCKET/ow', 2, overwrite => true)"
	wait_mark "$app" "$PAUSE_MARK $pause"
	state=$(state_of ow/)
	case $pause in
	publishing) premise=$(uploads_of "$state") ;;
	committing) premise=$(look manifest "$BUCKET" ow/_SUCCESS | awk '$1 == "rows" { print $2 }') ;;
	esac
	[[ "$pause" == publishing && "$premise" -ge 1 || "$pause" == committing && "$premise" == 1000 ]]
	ok $? "overwrite paused at $pause: the new export got that far (uploads pending, or its _SUCCESS in place)" "$state"
	[[ "$pause" == committing ]] ||
		[[ "$(duck ow "SELECT count(*) FROM parts")" == "$ROWS" ]]
	ok $? "overwrite paused at $pause: the old export is still readable whole"
	sql "SELECT pg_cancel_backend($(caller_pid "$app"))" >/dev/null
	finish_export "$app"
	grep -q "canceling statement due to user request" <<<"$OUT"
	ok $? "overwrite paused at $pause: cancelled" "$OUT"
	assert_s3_whole ow/ "$ROWS" "$ROWS" "overwrite cancelled at $pause: the old export is whole"
	[[ "$(export_id_of ow/_SUCCESS)" == "$old_id" &&
		"$(duck ow "SELECT count(*) FROM parts")" == "$ROWS" ]]
	ok $? "overwrite cancelled at $pause: _SUCCESS is the old export's, DuckDB reads it whole"
done
got=$(s3_export "'SELECT * FROM pep_s3 WHERE id <= 1000', 's3://$BUCKET/ow', 2, overwrite => true")
assert_s3_whole ow/ 1000 "$got" "overwrite: the replacing export is whole and the old parts are gone"
[[ "$(export_id_of ow/_SUCCESS)" != "$old_id" ]]
ok $? "overwrite: _SUCCESS is the new export's"

# --- Failures: each leaves nothing of the export, and a retry succeeds.

# Cancel an export paused by FAULT; PREMISE says what must be pending then.
case_cancel() {
	local label="$1" fault="$2" mark="$3" premise="$4"
	local prefix="cancel-$label/" app="pep_s3_cancel_$label" state
	start_export "$app" "SET parallel_export_parquet.fault_injection = '$fault';" \
		"SELECT parallel_export_parquet('pep_s3', 's3://$BUCKET/${prefix%/}', 2)"
	wait_mark "$app" "$mark"
	state=$(state_of "$prefix")
	case $premise in
	none) [[ -z "$state" ]] ;;
	uploads) [[ $(uploads_of "$state") -ge 1 && $(objects_of "$state") == 0 ]] ;;
	success) grep -q "^object ${prefix}_SUCCESS " <<<"$state" && [[ $(uploads_of "$state") == 0 ]] ;;
	esac
	ok $? "cancel $label: paused with the expected state ($premise)" "$state"
	sql "SELECT pg_cancel_backend($(caller_pid "$app"))" >/dev/null
	finish_export "$app"
	grep -q "canceling statement due to user request" <<<"$OUT"
	ok $? "cancel $label: the export was cancelled" "$OUT"
	assert_s3_clean "$prefix" "cancel $label"
	retry_ok "$prefix" "cancel $label"
}
case_cancel starting pause:starting "$PAUSE_MARK starting" none
case_cancel writing hang:any:1 "$HANG_MARK" uploads
case_cancel publishing pause:publishing "$PAUSE_MARK publishing" uploads
case_cancel committing pause:committing "$PAUSE_MARK committing" success

# statement_timeout while a worker is paused with its upload pending.
app=pep_s3_timeout
start_export "$app" "SET parallel_export_parquet.fault_injection = 'hang:any:1'; SET statement_timeout = '20s';" \
	"SELECT parallel_export_parquet('pep_s3', 's3://$BUCKET/timeout', 2)"
wait_mark "$app" "$HANG_MARK"
state=$(state_of timeout/)
[[ $(uploads_of "$state") -ge 1 && -z "$(cat "$WORK/$app.out")" ]]
ok $? "statement_timeout: an upload was pending before the timeout fired" "$state"
finish_export "$app"
grep -q "canceling statement due to statement timeout" <<<"$OUT"
ok $? "statement_timeout: the export ended by the timeout" "$OUT"
assert_s3_clean timeout/ "statement_timeout"
retry_ok timeout/ "statement_timeout"

# Errors: a worker's ERROR, and an endpoint that starts failing uploads.
case_error() {
	local label="$1" fault="$2" expect="$3" out
	out=$(psql -X -A -t -q -c "SET parallel_export_parquet.fault_injection = '$fault'" \
		-c "SELECT parallel_export_parquet('pep_s3', 's3://$BUCKET/$label', 2)" 2>&1)
	grep -q -- "$expect" <<<"$out" && grep -Eq "parallel export worker [01]$" <<<"$out"
	ok $? "$label: the error names what failed ($expect) and the worker" "$out"
	assert_s3_clean "$label/" "$label"
	retry_ok "$label/" "$label"
}
case_error worker-error worker_error:any:1 "injected fault after 1 batches"
case_error endpoint-fails s3_error:any:1 "503"

# The caller's FATAL, and a worker's, while an upload is pending.
case_terminate() {
	local who="$1" app="pep_s3_term_$1" prefix="terminate-$1/" state expect
	start_export "$app" "SET parallel_export_parquet.fault_injection = 'hang:any:1';" \
		"SELECT parallel_export_parquet('pep_s3', 's3://$BUCKET/${prefix%/}', 2)"
	wait_mark "$app" "$HANG_MARK"
	state=$(state_of "$prefix")
	[[ $(uploads_of "$state") -ge 1 ]]
	ok $? "terminate $who: an upload was pending" "$state"
	case $who in
	caller)
		sql "SELECT pg_terminate_backend($(caller_pid "$app"))" >/dev/null
		expect="terminating connection due to administrator command"
		;;
	worker)
		sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
			WHERE backend_type = 'parallel worker' AND query = '$HANG_MARK'" >/dev/null
		expect='terminating background worker "parallel worker" due to administrator command'
		;;
	esac
	finish_export "$app"
	grep -qF "$expect" <<<"$OUT"
	ok $? "terminate $who: $expect" "$OUT"
	wait_until "[[ \$(sql \"SELECT count(*) FROM pg_stat_activity WHERE application_name = '$app'\") == 0 ]]"
	assert_s3_clean "$prefix" "terminate $who"
	retry_ok "$prefix" "terminate $who"
}
case_terminate caller
case_terminate worker

# --- Two exports into one target: the second fails at once, the first is untouched.
app=pep_s3_race
start_export "$app" "SET parallel_export_parquet.fault_injection = 'pause:publishing';" \
	"SELECT parallel_export_parquet('pep_s3', 's3://$BUCKET/race', 2)"
wait_mark "$app" "$PAUSE_MARK publishing"
before=$(state_of race/)
out=$(s3_export "'pep_s3', 's3://$BUCKET/race', 2")
grep -qF 'another export into "s3://lake/race/" is running' <<<"$out"
ok $? "race: the second export fails clearly" "$out"
after=$(state_of race/)
[[ $(uploads_of "$before") -ge 1 && "$after" == "$before" ]]
ok $? "race: the running export's $(uploads_of "$before") pending upload(s) are untouched" "$before"$'\n'"---"$'\n'"$after"
sql "SELECT pg_cancel_backend($(caller_pid "$app"))" >/dev/null
finish_export "$app"
assert_s3_clean race/ "race"
retry_ok race/ "race"

# --- SIGKILL of a worker once _SUCCESS is out: the record survives, the next export sweeps it.
app=pep_s3_sigkill
start_export "$app" "SET parallel_export_parquet.fault_injection = 'pause:committing';" \
	"SELECT parallel_export_parquet('pep_s3', 's3://$BUCKET/sigkill', 2)"
wait_mark "$app" "$PAUSE_MARK committing"
kill -9 "$(sql "SELECT pid FROM pg_stat_activity w WHERE w.backend_type = 'parallel worker'
	AND w.leader_pid = $(caller_pid "$app") ORDER BY pid LIMIT 1")"
finish_export "$app"
wait_until "sql 'SELECT 1' >/dev/null 2>&1"
ok $? "sigkill: the server came back after the crash restart"
state=$(state_of sigkill/)
grep -q '^object sigkill/_SUCCESS ' <<<"$state" && [[ $(ledger_files | wc -l) == 1 ]]
ok $? "sigkill: the dead export's _SUCCESS and parts are left, and its ledger file" "$state"$'\n'"$(ledger_files)"
look put "$BUCKET" sigkill-other/keep.txt "theirs"
before=$(wc -l <"$PEP_LOG")
retry_ok sigkill/ "sigkill"
tail -n +"$((before + 1))" "$PEP_LOG" | grep -qF 'swept what an export into "s3://lake/sigkill/" that did not finish left behind'
ok $? "sigkill: the next export swept the dead record and logged it"
[[ -z "$(ledger_files)" && "$(state_of sigkill-other/)" == "object sigkill-other/keep.txt 6" ]]
ok $? "sigkill: no ledger file left; an object outside the record is untouched"

# --- SIGKILL of a worker once a replacing export's _SUCCESS is out, before the
# commit point: no exit path runs, and the sweep of the record puts the
# replaced export's manifest back, so a reader trusting _SUCCESS sees the
# replaced export whole, never neither export.
got=$(s3_export "'SELECT * FROM pep_s3 WHERE id <= 2000', 's3://$BUCKET/sigkill-ow', 2")
assert_s3_whole sigkill-ow/ 2000 "$got" "sigkill overwrite: the export to replace is whole"
old_id=$(export_id_of sigkill-ow/_SUCCESS)
app=pep_s3_sigkill_ow
start_export "$app" "SET parallel_export_parquet.fault_injection = 'pause:committing';" \
	"SELECT parallel_export_parquet('SELECT * FROM pep_s3 WHERE id <= 1000', 's3://$BUCKET/sigkill-ow', 2, overwrite => true)"
wait_mark "$app" "$PAUSE_MARK committing"
new_id=$(export_id_of sigkill-ow/_SUCCESS)
[[ -n "$new_id" && "$new_id" != "$old_id" ]]
ok $? "sigkill overwrite: premise: the replacing export's _SUCCESS is in place" "$old_id -> $new_id"
kill -9 "$(sql "SELECT pid FROM pg_stat_activity w WHERE w.backend_type = 'parallel worker'
	AND w.leader_pid = $(caller_pid "$app") ORDER BY pid LIMIT 1")"
finish_export "$app"
wait_until "sql 'SELECT 1' >/dev/null 2>&1"
grep -q "^success $new_id\$" "$(ledger_files)" && ! grep -q '^committed$' "$(ledger_files)"
ok $? "sigkill overwrite: premise: the dead record has success, not committed" "$(ledger_files)"
out=$(sql "SELECT * FROM parallel_export_parquet_sweep('s3://$BUCKET/sigkill-ow')" 2>&1)
[[ "$out" == "s3://$BUCKET/sigkill-ow/|t|0|"* ]]
ok $? "sigkill overwrite: the sweep undid the dead export" "$out"
assert_s3_whole sigkill-ow/ 2000 2000 "sigkill overwrite: after the sweep the replaced export is whole"
[[ "$(export_id_of sigkill-ow/_SUCCESS)" == "$old_id" && "$(duck sigkill-ow "SELECT count(*) FROM parts")" == 2000 ]]
ok $? "sigkill overwrite: _SUCCESS is the replaced export's again, DuckDB reads it whole"
got=$(s3_export "'SELECT * FROM pep_s3 WHERE id <= 1000', 's3://$BUCKET/sigkill-ow', 2, overwrite => true")
assert_s3_whole sigkill-ow/ 1000 "$got" "sigkill overwrite: a retry replaces it"

# --- _SUCCESS up, and worker 0 cannot take it back (s3_success_lost: the
# server stored it, but its answer and every later request of worker 0 are
# lost).  No worker deletes a part it names: _SUCCESS, every part and the
# record stay until the sweep, which takes _SUCCESS back first, then removes
# everything.  This case and the two after it need a part of each worker: a
# query source's rows alternate between the workers in 64 kB chunks, where a
# table's scan could leave a worker starved of CPU no block.
out=$(psql -X -A -t -q -c "SET parallel_export_parquet.fault_injection = 's3_success_lost'" \
	-c "SELECT parallel_export_parquet('SELECT * FROM pep_s3', 's3://$BUCKET/lost', 2)" 2>&1)
lost_id=$(export_id_of lost/_SUCCESS)
grep -qF "could not write \"s3://$BUCKET/lost/_SUCCESS\"" <<<"$out" && [[ -n "$lost_id" ]] &&
	[[ $(look manifest "$BUCKET" lost/_SUCCESS | grep -c '^part ') -ge 2 ]]
ok $? "success lost: premise: writing _SUCCESS failed, yet the server holds it, naming several parts" "$out"
grep -qF "objects or uploads of the failed export into \"s3://$BUCKET/lost/\" may be left" <<<"$out"
ok $? "success lost: the export warns that its record stays" "$out"
assert_s3_whole lost/ "$ROWS" "$ROWS" "success lost: _SUCCESS is there and so is every part it names"
grep -q "^success $lost_id\$" "$(ledger_files)" && ! grep -q '^committed$' "$(ledger_files)"
ok $? "success lost: the record stays, with success and without committed" "$(ledger_files)"
out=$(sql "SELECT * FROM parallel_export_parquet_sweep('s3://$BUCKET/lost')" 2>&1)
[[ "$out" == "s3://$BUCKET/lost/|t|0|"* ]]
ok $? "success lost: the sweep undid the export" "$out"
assert_s3_clean lost/ "success lost, swept"
retry_ok lost/ "success lost"

# --- Worker 1 terminated on its own once _SUCCESS is up: it leaves its parts,
# which _SUCCESS names, to worker 0, whose exit path takes _SUCCESS back and
# then deletes every part it named; nothing of the export is left.
app=pep_s3_late_term
start_export "$app" "SET parallel_export_parquet.fault_injection = 'pause:committing';" \
	"SELECT parallel_export_parquet('SELECT * FROM pep_s3', 's3://$BUCKET/late-term', 2)"
wait_mark "$app" "$PAUSE_MARK committing"
state=$(state_of late-term/)
grep -q '^object late-term/_SUCCESS ' <<<"$state" && [[ $(objects_of "$state") -ge 3 ]]
ok $? "worker 1 terminated after _SUCCESS: premise: _SUCCESS and the parts are up" "$state"
sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
	WHERE application_name = 'parallel_export_parquet worker 1' AND leader_pid = $(caller_pid "$app")" >/dev/null
finish_export "$app"
grep -qF 'terminating background worker "parallel worker" due to administrator command' <<<"$OUT"
ok $? "worker 1 terminated after _SUCCESS: the export failed" "$OUT"
wait_until "[[ \$(sql \"SELECT count(*) FROM pg_stat_activity WHERE application_name = '$app'\") == 0 ]]"
assert_s3_clean late-term/ "worker 1 terminated after _SUCCESS"
retry_ok late-term/ "worker 1 terminated after _SUCCESS"

# --- Worker 0 held (pause:sending) just before it decides to write _SUCCESS,
# every part complete, while worker 1 is terminated and its exit path runs
# to its end (it marks itself undoing first, then deletes its parts);
# released then (a cancel sent to worker 0 ends the pause and is spent on
# it), worker 0 refuses to write _SUCCESS and nothing of the export is left.
# The retry is held and released the same way with no worker undoing: the
# control, it publishes the export whole.
sending_pause() {
	local app="$1" what="$2" state
	start_export "$app" "SET parallel_export_parquet.fault_injection = 'pause:sending';" \
		"SELECT parallel_export_parquet('SELECT * FROM pep_s3', 's3://$BUCKET/sending', 2)"
	wait_mark "$app" "$PAUSE_MARK sending"
	state=$(state_of sending/)
	[[ $(uploads_of "$state") == 0 && $(objects_of "$state") -ge 2 ]] && ! grep -q _SUCCESS <<<"$state"
	ok $? "$what: premise: worker 0 held with every part complete, no _SUCCESS" "$state"
}
worker_pid() {
	sql "SELECT pid FROM pg_stat_activity
		WHERE application_name = 'parallel_export_parquet worker $2' AND leader_pid = $(caller_pid "$1")"
}
app=pep_s3_sending
sending_pause "$app" "refused _SUCCESS"
worker0=$(worker_pid "$app" 0)
log_from=$(($(wc -l <"$PEP_LOG") + 1))
sql "SELECT pg_terminate_backend($(worker_pid "$app" 1))" >/dev/null
wait_until "[[ -z \"\$(worker_pid $app 1)\" ]]"
held=$(sql "SELECT count(*) FROM pg_stat_activity WHERE pid = $worker0 AND query = '$PAUSE_MARK sending'")
[[ $held == 1 ]]
ok $? "refused _SUCCESS: premise: worker 1's exit path ran to its end while worker 0 was still held" "$(live_workers)"
sql "SELECT pg_cancel_backend($worker0)" >/dev/null
finish_export "$app"
grep -qF 'terminating background worker "parallel worker" due to administrator command' <<<"$OUT"
ok $? "refused _SUCCESS: the export failed" "$OUT"
wait_until "[[ \$(sql \"SELECT count(*) FROM pg_stat_activity WHERE application_name = '$app'\") == 0 ]]"
tail -n +"$log_from" "$PEP_LOG" | grep -qF "a worker of the export into \"s3://$BUCKET/sending/\" stopped before its _SUCCESS was written"
ok $? "refused _SUCCESS: released, worker 0 refused to write _SUCCESS" "$(tail -n +"$log_from" "$PEP_LOG" | grep -E 'ERROR|WARNING|FATAL' | head -10)"
assert_s3_clean sending/ "refused _SUCCESS"
app=pep_s3_sending_retry
sending_pause "$app" "refused _SUCCESS, the retry"
sql "SELECT pg_cancel_backend($(worker_pid "$app" 0))" >/dev/null
finish_export "$app"
assert_s3_whole sending/ "$ROWS" "$OUT" "refused _SUCCESS, control: the retry, released with no worker undoing, is published whole"

# --- A server without conditional writes answers the conditional _SUCCESS PUT
# with 501 Not Implemented (s3_conditions_501 sends it with a header S3Proxy
# does not implement, which it refuses so, writing nothing): the export falls
# back to the plain PUT and publishes whole, and so does an overwrite
# (If-Match).  The control: no export before sent anything S3Proxy refused.
unknown=$(grep 'Unknown header' "$S3DIR/s3proxy.log")
[[ -z "$unknown" ]]
ok $? "no conditions: control: S3Proxy refused no header of the exports so far" "$unknown"
refusals() { grep -c "Unknown header x-amz-pep-injected-fault with URI /$BUCKET/no-cond/_SUCCESS\$" "$S3DIR/s3proxy.log"; }
for overwrite in false true; do
	before=$(refusals)
	got=$(psql -X -A -t -q -c "SET parallel_export_parquet.fault_injection = 's3_conditions_501'" \
		-c "SELECT parallel_export_parquet('SELECT * FROM pep_s3 WHERE id <= 1000', 's3://$BUCKET/no-cond', 2, overwrite => $overwrite)" 2>&1)
	# A refusal before the body was read may reset the connection, which the SDK retries.
	[[ $(refusals) -gt $before ]]
	ok $? "no conditions, overwrite => $overwrite: premise: S3Proxy answered the conditional _SUCCESS PUT with 501" \
		"$(grep 'Unknown header' "$S3DIR/s3proxy.log")"
	assert_s3_whole no-cond/ 1000 "$got" "no conditions, overwrite => $overwrite: the plain PUT published the export whole"
done

# --- partition_by: every leaf's parts are uploads under prefix/region=.../d=.../.
sql "DROP TABLE IF EXISTS pep_s3_part;
	CREATE TABLE pep_s3_part AS
	SELECT g AS id,
		CASE WHEN g % 11 = 0 THEN NULL
		ELSE (ARRAY['eu/west', 'a=b', '50%', 'with space', 'zürich', 'plain'])[g % 6 + 1] END AS region,
		date '2026-11-28' + (g / 6) % 3 AS d, md5(g::text) AS payload
	FROM generate_series(1, 70000) g" >/dev/null
PROWS=70000
PBY="partition_by => ARRAY['region', 'd']"
pg_part="$(psql -X -A -t -q -F $'\t' -c "SELECT id, region, d, payload FROM pep_s3_part ORDER BY id")"
duck_hive() {
	java -XX:+UseSerialGC -cp "$root/regress/readback/target/classes:$(cat "$WORK/readback.cp")" \
		org.parallelexport.readback.Query --hive "$PEP_S3_DATA/$BUCKET/$1" "$2"
}
part_export() {
	s3_export "'${3:-pep_s3_part}', 's3://$BUCKET/$1', 2, $PBY$2"
}

# The partitioned export into PREFIX is whole: ROWS returned, no upload
# pending, every object but _SUCCESS a part two folders down that the
# manifest lists with its partition, and the manifest's rows add up.
# S3Proxy's filesystem store lists its folders as keys ending in "/": they
# hold nothing and are left out.
assert_s3_tree() {
	local prefix="$1" rows="$2" got="$3" what="$4" state manifest listed present problems=""
	state=$(state_of "$prefix" 2>&1)
	[[ "$got" == "$rows" ]] || problems+="returned '$got', expected $rows"$'\n'
	grep -q '^upload ' <<<"$state" && problems+="uploads pending:"$'\n'"$state"$'\n'
	manifest=$(look manifest "$BUCKET" "${prefix}_SUCCESS" 2>&1)
	listed=$(sed -n 's/^part \(.*\) [0-9]* [0-9]*$/\1/p' <<<"$manifest" | sort)
	present=$(sed -n "s|^object ${prefix}\\(.*[^/]\\) [0-9]*\$|\\1|p" <<<"$state" | grep -vx _SUCCESS | sort)
	[[ -n "$listed" && "$listed" == "$present" ]] ||
		problems+="manifest lists [$listed], the prefix holds [$present]"$'\n'
	grep -qv '^region=[^/]*/d=[^/]*/part-[0-9]*-[0-9a-f]*\.parquet$' <<<"$listed" &&
		problems+="a part outside two partition folders: $listed"$'\n'
	[[ "$(sed -n 's/^partition //p' <<<"$manifest" | sort)" == "$(sed 's|/[^/]*$||' <<<"$listed" | sort)" ]] ||
		problems+="the manifest's partitions are not its parts' folders: $manifest"$'\n'
	[[ "$(awk '$1 == "part" { n += $(NF - 1) } END { print n }' <<<"$manifest")" == "$rows" &&
		"$(awk '$1 == "rows" { print $2 }' <<<"$manifest")" == "$rows" ]] ||
		problems+="manifest rows do not add up to $rows"$'\n'
	[[ -z "$problems" ]]
	ok $? "$what" "$problems"
}
parts_of() { look manifest "$BUCKET" "${1}_SUCCESS" | grep -c '^part '; }

# Start the partitioned export APP of SOURCE (default the table) into PREFIX
# with FAULT, wait for MARK and put what the prefix holds then in $state.
part_pause() {
	local app="$1" fault="$2" mark="$3" prefix="$4" source="${5:-pep_s3_part}"
	start_export "$app" "SET parallel_export_parquet.fault_injection = '$fault';" \
		"SELECT parallel_export_parquet('$source', 's3://$BUCKET/${prefix%/}', 2, $PBY)"
	wait_mark "$app" "$mark"
	state=$(state_of "$prefix")
}

# Cancel the paused export APP: nothing of it is left under PREFIX.
part_cancel() {
	local app="$1" prefix="$2" what="$3"
	sql "SELECT pg_cancel_backend($(caller_pid "$app"))" >/dev/null
	finish_export "$app"
	grep -q "canceling statement due to user request" <<<"$OUT"
	ok $? "$what: cancelled" "$OUT"
	assert_s3_clean "$prefix" "$what"
}

# A query source: its rows go to the workers in alternating 64 kB chunks of
# several hundred rows, so each worker certainly meets every leaf; a table's
# scan could leave a worker starved of CPU only a few blocks.
got=$(part_export ptrip "" "SELECT * FROM pep_s3_part")
assert_s3_tree ptrip/ "$PROWS" "$got" "partitioned: whole, the manifest lists exactly the keys, with their partitions"
leaves=$(sed -n 's|^object ptrip/\(.*\)/part-.*|\1|p' <<<"$(state_of ptrip/)" | sort -u | wc -l)
[[ $leaves == 21 && $(parts_of ptrip/) == $((2 * leaves)) ]]
ok $? "partitioned: 21 leaves (7 regions, NULL among them, by 3 dates), a part per leaf and worker" "$(state_of ptrip/)"
duck_part="$(duck_hive ptrip "SELECT id, region, d::VARCHAR, payload FROM parts ORDER BY id")"
[[ -n "$duck_part" && "$duck_part" == "$pg_part" ]]
ok $? "partitioned: DuckDB's Hive partitioning reads every value PostgreSQL holds, partition columns included" \
	"$(diff <(echo "$pg_part") <(echo "$duck_part") | head -5)"

# The upload buffers count in partition_memory: at its 1 MB minimum one
# worker, whose rows (more than a round of 65,536) meet every leaf in each
# of two rounds, finishes parts early and so opens new ones in the second
# (more parts than leaves; with its parts kept open it writes one a leaf).
got=$(psql -X -A -t -q -c "SET parallel_export_parquet.partition_memory = '1MB'" \
	-c "SELECT parallel_export_parquet('pep_s3_part', 's3://$BUCKET/pmem', 1, $PBY)" 2>&1)
assert_s3_tree pmem/ "$PROWS" "$got" "partitioned, 1 MB budget: whole"
[[ $PROWS -gt 65536 && $(parts_of pmem/) -gt $leaves ]]
ok $? "partitioned, 1 MB budget: the worker finished parts to stay within it ($(parts_of pmem/) parts, $leaves leaves)"
[[ "$(duck_hive pmem "SELECT id, region, d::VARCHAR, payload FROM parts ORDER BY id")" == "$pg_part" ]]
ok $? "partitioned, 1 MB budget: DuckDB reads every value back"

# Nothing is visible before publication.
app=pep_s3_part_unpublished
part_pause "$app" pause:publishing "$PAUSE_MARK publishing" punpub/ "SELECT * FROM pep_s3_part"
[[ $(objects_of "$state") == 0 && $(uploads_of "$state") -ge $leaves ]] &&
	! grep -qv '^upload punpub/region=[^/]*/d=[^/]*/part-' <<<"$state"
ok $? "partitioned unpublished: $(uploads_of "$state") uploads pending under the leaves, no object listed" "$state"
[[ $(uploads_of "$state") -gt $leaves &&
	"$(sql "SELECT partitions_written FROM parallel_export_parquet_progress WHERE pid = $(caller_pid "$app")")" == "$leaves" ]]
ok $? "partitioned unpublished: the workers met leaves in common, and progress counts each leaf once"
part_cancel "$app" punpub/ "partitioned unpublished"

# Cancel mid-write, and a worker's ERROR after 3 batches.
app=pep_s3_part_cancel
part_pause "$app" hang:any:3 "$HANG_MARK" pcancel/
[[ $(uploads_of "$state") -ge 1 && $(objects_of "$state") == 0 ]]
ok $? "partitioned cancel: paused mid-write with $(uploads_of "$state") upload(s) pending" "$state"
part_cancel "$app" pcancel/ "partitioned cancel"
out=$(psql -X -A -t -q -c "SET parallel_export_parquet.fault_injection = 'worker_error:any:3'" \
	-c "SELECT parallel_export_parquet('pep_s3_part', 's3://$BUCKET/perror', 2, $PBY)" 2>&1)
grep -q "injected fault after 3 batches" <<<"$out" && grep -Eq "parallel export worker [01]$" <<<"$out"
ok $? "partitioned worker error: the injected ERROR reaches the caller, naming the worker" "$out"
assert_s3_clean perror/ "partitioned worker error"

# A worker killed outright mid-write: its uploads stay pending with the
# record; the next export into the prefix sweeps them.
app=pep_s3_part_sigkill
part_pause "$app" hang:any:3 "$HANG_MARK" pkill/
kill -9 "$(sql "SELECT pid FROM pg_stat_activity WHERE backend_type = 'parallel worker' AND query = '$HANG_MARK'")"
finish_export "$app"
wait_until "sql 'SELECT 1' >/dev/null 2>&1"
ok $? "partitioned sigkill: the server came back after the crash restart"
state=$(state_of pkill/)
dead_uploads=$(uploads_of "$state")
[[ $dead_uploads -ge 1 && $(ledger_files | wc -l) == 1 ]]
ok $? "partitioned sigkill: $dead_uploads upload(s) of the dead export and its ledger file are left" "$state"
before=$(wc -l <"$PEP_LOG")
assert_s3_tree pkill/ "$PROWS" "$(part_export pkill "")" "partitioned sigkill: the next export is whole, no upload of the dead one is left"
tail -n +"$((before + 1))" "$PEP_LOG" | grep -qF 'swept what an export into "s3://lake/pkill/" that did not finish left behind'
ok $? "partitioned sigkill: that export swept the dead record"
[[ -z "$(ledger_files)" ]]
ok $? "partitioned sigkill: no ledger file left"

# Overwrite: a partitioned export replaces an unpartitioned one ...
got=$(part_export ow ", overwrite => true" "SELECT * FROM pep_s3_part WHERE id <= 3000")
assert_s3_tree ow/ 3000 "$got" "partitioned overwrite of an unpartitioned export: only the new tree is there"
# ... and a partitioned one, which stays whole while a replacing export is paused and when it is cancelled.
old_id=$(export_id_of ow/_SUCCESS)
app=pep_s3_part_ow
start_export "$app" "SET parallel_export_parquet.fault_injection = 'pause:publishing';" \
	"SELECT parallel_export_parquet('SELECT * FROM pep_s3_part WHERE id <= 100', 's3://$BUCKET/ow', 2, overwrite => true, $PBY)"
wait_mark "$app" "$PAUSE_MARK publishing"
state=$(state_of ow/)
[[ $(uploads_of "$state") -ge 1 && "$(duck_hive ow "SELECT count(*) FROM parts")" == 3000 ]]
ok $? "partitioned overwrite paused: the new uploads are pending, the old tree reads whole" "$state"
sql "SELECT pg_cancel_backend($(caller_pid "$app"))" >/dev/null
finish_export "$app"
assert_s3_tree ow/ 3000 3000 "partitioned overwrite cancelled: the old tree is whole, nothing of the new one"
[[ "$(export_id_of ow/_SUCCESS)" == "$old_id" ]]
ok $? "partitioned overwrite cancelled: _SUCCESS is the old export's"
look put "$BUCKET" "ow/region=plain/d=2026-11-28/notes.txt" "theirs"
before=$(state_of ow/)
out=$(part_export ow ", overwrite => true" "SELECT * FROM pep_s3_part WHERE id <= 100")
grep -qF 'It holds "ow/region=plain/d=2026-11-28/notes.txt", which its manifest does not list.' <<<"$out"
ok $? "partitioned overwrite: a foreign object deep in the old tree refuses it, naming the object" "$out"
[[ "$(state_of ow/)" == "$before" ]]
ok $? "partitioned overwrite refused: nothing was moved"
look delete "$BUCKET" "ow/region=plain/d=2026-11-28/notes.txt"
got=$(part_export ow ", overwrite => true" "SELECT * FROM pep_s3_part WHERE id <= 100")
assert_s3_tree ow/ 100 "$got" "partitioned overwrite, control: without the foreign object it replaces the old tree, whose keys are gone"
[[ "$(duck_hive ow "SELECT count(*), count(DISTINCT region) FROM parts")" == "$(sql "SELECT count(*), count(DISTINCT region) FROM pep_s3_part WHERE id <= 100" | tr '|' '\t')" ]]
ok $? "partitioned overwrite: DuckDB reads the new tree"

# A part ends before its upload runs out of part numbers. S3 takes 10,000
# parts per upload, and a worker ends its part at nine tenths of that room
# (70.3 GiB of 8 MiB parts); s3_small_uploads gives worker 0's uploads 3 parts
# of 5 MiB, so the same rule ends its parts at 13.5 MiB. Control: the same
# export without it is one part larger than that.
MIB=$((1024 * 1024))
LIMIT=$((3 * 5 * MIB / 10 * 9))
sql "DROP TABLE IF EXISTS pep_s3_big;
	CREATE TABLE pep_s3_big AS SELECT g AS id, md5(g::text) || md5((-g)::text) AS t
	FROM generate_series(1, 600000) g" >/dev/null
part_sizes() { sed -n "s|^object $1part-[^ ]* \([0-9]*\)\$|\1|p" <<<"$2"; }
got=$(s3_export "'pep_s3_big', 's3://$BUCKET/big-control', 1")
state=$(state_of big-control/)
sizes=$(part_sizes big-control/ "$state")
[[ "$got" == 600000 && $(wc -l <<<"$sizes") == 1 && "$sizes" -gt $((3 * 5 * MIB)) ]]
ok $? "part limit, control: without the fault one part of more than 3 x 5 MiB" "$state"
got=$(psql -X -A -t -q -c "SET parallel_export_parquet.fault_injection = 's3_small_uploads'" \
	-c "SELECT parallel_export_parquet('pep_s3_big', 's3://$BUCKET/big', 1)" 2>&1)
assert_s3_whole big/ 600000 "$got" "part limit: the export with small uploads is whole"
state=$(state_of big/)
sizes=$(part_sizes big/ "$state")
[[ $(wc -l <<<"$sizes") -ge 3 && $(sort -n <<<"$sizes" | tail -n 1) -le $((3 * 5 * MIB)) &&
	$(sort -n <<<"$sizes" | sed -n 2p) -ge $((LIMIT - 2 * MIB)) ]]
ok $? "part limit: 3 or more parts, each within its upload's 3 x 5 MiB, all but the last ended near $LIMIT bytes" "$state"
[[ "$(duck big/ "SELECT count(*), sum(id), count(DISTINCT t) FROM parts")" == "$(sql "SELECT count(*), sum(id), count(DISTINCT t) FROM pep_s3_big" | tr '|' '\t')" ]]
ok $? "part limit: DuckDB reads every row of the parts"

s3look_done
tap_done
