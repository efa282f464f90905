#!/usr/bin/env bash
# regress/t_s3_failures.sh: an export into s3:// that fails before it
# publishes leaves nothing, against S3Proxy (the setup is
# regress/lib/s3case.sh's).
#
# Cases:
#   unpublished  paused after every part is written: no object listed, the
#                uploads pending; cancelled, nothing left;
#   failures     cancel at several depths, statement_timeout, worker ERROR,
#                caller FATAL, worker terminate, an endpoint whose uploads
#                fail: each asserts its premise (an upload pending, the fault
#                reached), then no object and no upload of the export, no
#                worker left, no ledger file left, and a retry into the same
#                prefix succeeds;
#   race         a second export into a target whose export runs fails at
#                once, and touches none of the running export's uploads.
# Nothing races a timer: faults come from the fault injection setting, and
# the harness waits for what it can observe.
#
# Needs a running cluster from tools/cluster.sh with the extension installed,
# Maven (S3Proxy, DuckDB) and a JDK. Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/s3case.sh
source "$here/lib/s3case.sh"

ROWS=200000
s3case_setup s3_failures pep_s3 "$ROWS"

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

s3look_done
tap_done
