#!/usr/bin/env bash
# regress/t_failures.sh: failure harness; every failure leaves nothing behind.
#
# For each way an export can die (cancel at several depths, statement_timeout,
# an ERROR or a Java exception in one worker, pg_terminate_backend of the
# caller or of one worker, SIGKILL of a worker and the crash restart it
# causes, two exports racing for one directory) it checks, in this order:
#   control  the same export without the failure completes and writes files;
#   premise  the failure really struck mid-flight: a staging part existed and
#            the worker sat at the injected fault point when we acted, or the
#            error is the one we caused and not completion or a rejection;
#   outcome  no target files, no _SUCCESS, no staging directory, no lock file,
#            no parallel worker left, the server answers;
#   retry    the same export into the same directory then succeeds.
# At the end: no file of the server's OS user appeared in /tmp (a worker's
# JVM killed hard must not leave its attach socket, /tmp/.java_pidN, there).
#
# Nothing here races a timer.  Mid-flight points come from the superuser-only
# fault injection setting (a worker pauses after N batches and says so in
# pg_stat_activity), and the harness waits for observable events.  Polling
# loops have a generous ceiling that only turns a hang into a failure.  How a
# table's parallel scan splits its blocks between workers is not ours to
# choose, so a fault there names the worker "any" (the first to reach the
# point); a query source's rows go round-robin to the workers, so a fault
# there may name one.
#
# Needs a running cluster from tools/cluster.sh with the extension installed.
# Prints TAP.  PEP_FAILURE_RUNS (default 1) repeats the whole harness.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/tap.sh
source "$here/lib/tap.sh"
# shellcheck source=lib/export.sh
source "$here/lib/export.sh"

RUNS="${PEP_FAILURE_RUNS:-1}"
WORK="${PEP_HARNESS_OUT:-$PEP_OUT}/failures"
setup() {
	fresh_work pep_h 300000
	ROWS=300000
	QUERY="SELECT * FROM pep_h"
}

# Cancel a paused export; depth = batches the worker wrote before pausing.
case_cancel() {
	local source="$1" workers="$2" fault="$3" label="$4"
	local dir="$WORK/cancel-$label" app="pep_cancel_$label"
	export_ok "$source" "$WORK/control-cancel-$label" "$workers" "$ROWS" "cancel $label: control export completes"
	start_export "$app" "SET parallel_export_parquet.fault_injection = '$fault';" \
		"SELECT parallel_export_parquet('$source', '$dir', $workers)"
	wait_hang "$app" "$dir"
	ok $? "cancel $label: worker paused mid-export with $(staging_parts "$dir") staging part(s)"
	sql "SELECT pg_cancel_backend($(caller_pid "$app"))" >/dev/null
	local out
	finish_export "$app"
	out=$OUT
	grep -q "canceling statement due to user request" <<<"$out"
	ok $? "cancel $label: the export was cancelled" "$out"
	assert_clean "$dir" "cancel $label"
	export_ok "$source" "$dir" "$workers" "$ROWS" "cancel $label: retry into the same directory succeeds"
}

case_statement_timeout() {
	# The timeout leaves a worker's JVM start under load (seconds) far behind,
	# so the part is on disk before it fires; the check below says if not.
	local dir="$WORK/timeout" app="pep_timeout_control" timeout_s=10
	# Premise: without the timeout, the same paused export outlasts it twice over.
	start_export "$app" "SET parallel_export_parquet.fault_injection = 'hang:any:1';" \
		"SELECT parallel_export_parquet('pep_h', '$WORK/timeout-control', 2)"
	wait_hang "$app" "$WORK/timeout-control"
	local t0=$SECONDS
	sleep $((timeout_s * 2))
	local still
	still=$(sql "SELECT count(*) FROM pg_stat_activity WHERE application_name = '$app' AND backend_type = 'client backend' AND state = 'active'")
	[[ "$still" == 1 && $((SECONDS - t0)) -ge $((timeout_s * 2)) ]]
	ok $? "statement_timeout: uncancelled export still running after $((timeout_s * 2)) s (twice the timeout)"
	sql "SELECT pg_cancel_backend($(caller_pid "$app"))" >/dev/null
	finish_export "$app"
	assert_clean "$WORK/timeout-control" "statement_timeout control"

	app="pep_timeout"
	start_export "$app" "SET parallel_export_parquet.fault_injection = 'hang:any:1'; SET statement_timeout = '${timeout_s}s';" \
		"SELECT parallel_export_parquet('pep_h', '$dir', 2)"
	wait_hang "$app" "$dir"
	local reached=$?
	local out
	finish_export "$app"
	out=$OUT
	[[ $reached == 0 ]]
	ok $? "statement_timeout: a staging part existed before the timeout fired"
	grep -q "canceling statement due to statement timeout" <<<"$out"
	ok $? "statement_timeout: the export ended by the timeout" "$out"
	assert_clean "$dir" "statement_timeout"
	export_ok pep_h "$dir" 2 "$ROWS" "statement_timeout: retry succeeds"
}

# An injected ERROR: its message proves where it struck, and for a worker's
# fault its context names the worker: the one the fault names, or for "any"
# one of the export's two.
case_error() {
	local fault="$1" expect="$2" label="$3" source="${4:-pep_h}"
	local dir="$WORK/error-$label" out worker
	out=$(psql -X -A -t -q -c "SET parallel_export_parquet.fault_injection = '$fault'" \
		-c "SELECT parallel_export_parquet('$source', '$dir', 2)" 2>&1)
	grep -q -- "$expect" <<<"$out"
	ok $? "$label: the error names what failed ($expect)" "$out"
	worker=$(cut -s -d: -f2 <<<"$fault")
	if [[ -n "$worker" ]]; then
		local named="$worker" context
		[[ "$worker" == any ]] && worker='[01]'
		context=$(grep -Eo "parallel export worker [0-9]+\$" <<<"$out" | head -n 1)
		[[ "$context" =~ ^"parallel export worker "$worker$ ]]
		ok $? "$label: the error comes from ${context#parallel export } (the fault named worker $named)" "$out"
	fi
	assert_clean "$dir" "$label"
	export_ok "$source" "$dir" 2 "$ROWS" "$label: retry succeeds"
}

case_terminate_caller() {
	local dir="$WORK/terminate-caller" app="pep_term_caller"
	start_export "$app" "SET parallel_export_parquet.fault_injection = 'hang:any:1';" \
		"SELECT parallel_export_parquet('pep_h', '$dir', 2)"
	wait_hang "$app" "$dir"
	ok $? "terminate caller: worker paused with $(staging_parts "$dir") staging part(s)"
	sql "SELECT pg_terminate_backend($(caller_pid "$app"))" >/dev/null
	local out
	finish_export "$app"
	out=$OUT
	grep -q "terminating connection due to administrator command" <<<"$out"
	ok $? "terminate caller: the caller's session was terminated (FATAL)" "$out"
	wait_until "[[ \$(sql \"SELECT count(*) FROM pg_stat_activity WHERE application_name = '$app'\") == 0 ]]"
	assert_clean "$dir" "terminate caller"
	export_ok pep_h "$dir" 2 "$ROWS" "terminate caller: retry succeeds"
}

case_terminate_worker() {
	local dir="$WORK/terminate-worker" app="pep_term_worker"
	start_export "$app" "SET parallel_export_parquet.fault_injection = 'hang:any:1';" \
		"SELECT parallel_export_parquet('pep_h', '$dir', 2)"
	wait_hang "$app" "$dir"
	ok $? "terminate worker: worker paused with $(staging_parts "$dir") staging part(s)"
	sql "SELECT pg_terminate_backend(w.pid) FROM pg_stat_activity w
		WHERE w.backend_type = 'parallel worker' AND w.query = '$HANG_MARK'" >/dev/null
	local out
	finish_export "$app"
	out=$OUT
	grep -q 'terminating background worker "parallel worker" due to administrator command' <<<"$out"
	ok $? "terminate worker: the caller reports the worker's termination" "$out"
	assert_clean "$dir" "terminate worker"
	export_ok pep_h "$dir" 2 "$ROWS" "terminate worker: retry succeeds"
}

case_sigkill_worker() {
	local dir="$WORK/sigkill" app="pep_sigkill"
	start_export "$app" "SET parallel_export_parquet.fault_injection = 'hang:any:1';" \
		"SELECT parallel_export_parquet('pep_h', '$dir', 2)"
	wait_hang "$app" "$dir"
	ok $? "sigkill: worker paused with $(staging_parts "$dir") staging part(s)"
	local wpid
	wpid=$(sql "SELECT pid FROM pg_stat_activity WHERE backend_type = 'parallel worker' AND query = '$HANG_MARK'")
	kill -9 "$wpid"
	finish_export "$app"
	wait_until "sql 'SELECT 1' >/dev/null 2>&1"
	ok $? "sigkill: the server came back after the crash restart"
	local problems=""
	[[ -n "$(find "$dir" \( -name '*.parquet' -o -name _SUCCESS \) 2>/dev/null)" ]] && problems+="visible files in target"$'\n'
	[[ $(staging_parts "$dir") -ge 1 ]] || problems+="premise: no leftover staging part to sweep"$'\n'
	[[ -z "$problems" ]]
	ok $? "sigkill: nothing visible in the target, the dead export's staging is left" "$problems"

	local before
	before=$(wc -l <"$PEP_LOG")
	export_ok pep_h "$dir" 2 "$ROWS" "sigkill: the next export into the directory succeeds"
	tail -n +"$((before + 1))" "$PEP_LOG" | grep -q "removed staging directory \"$(staging_of "$dir")\""
	ok $? "sigkill: that export swept the dead staging directory and logged it"
}

case_live_staging_kept() {
	local dir="$WORK/live" app="pep_live"
	start_export "$app" "SET parallel_export_parquet.fault_injection = 'hang:any:1';" \
		"SELECT parallel_export_parquet('pep_h', '$dir', 2)"
	wait_hang "$app" "$dir"
	local parts
	parts=$(staging_parts "$dir")
	ok $? "live staging: first export paused with $parts staging part(s)"
	local out
	out=$(sql "SELECT parallel_export_parquet('pep_h', '$dir', 2)" 2>&1)
	grep -q "another export into directory \"$dir\" is in progress" <<<"$out"
	ok $? "live staging: a second export is refused while the first runs" "$out"
	[[ $(staging_parts "$dir") -ge "$parts" && -e "$(lock_of "$dir")" ]]
	ok $? "live staging: the running export's staging and lock are untouched"
	sql "SELECT pg_cancel_backend($(caller_pid "$app"))" >/dev/null
	finish_export "$app"
	assert_clean "$dir" "live staging"
}

case_race() {
	local dir="$WORK/race" gate=424242
	# Both sessions queue behind one advisory lock, then start together.
	PGAPPNAME=pep_gate psql -X -q -c "SELECT pg_advisory_lock($gate)" -c "SELECT pg_sleep(3600)" >/dev/null 2>&1 &
	local gate_pid=$!
	wait_until "[[ \$(sql \"SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = $gate AND granted\") == 1 ]]"
	for i in 1 2; do
		start_export "pep_race$i" "" \
			"SELECT pg_advisory_lock_shared($gate), parallel_export_parquet('pep_h', '$dir', 2)"
	done
	wait_until "[[ \$(sql \"SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = $gate AND NOT granted\") == 2 ]]"
	ok $? "race: both exports wait at the gate"
	sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'pep_gate'" >/dev/null
	wait "$gate_pid" 2>/dev/null
	local out1 out2 wins=0
	finish_export pep_race1
	out1=$OUT
	finish_export pep_race2
	out2=$OUT
	grep -q "|$ROWS\$" <<<"$out1" && wins=$((wins + 1))
	grep -q "|$ROWS\$" <<<"$out2" && wins=$((wins + 1))
	[[ $wins == 1 ]]
	ok $? "race: exactly one export wins" "$out1"$'\n'"$out2"
	grep -qE "is in progress|is not empty|no longer empty" <<<"$out1$out2"
	ok $? "race: the loser gets a clear error" "$out1"$'\n'"$out2"
	assert_whole "$dir" "$ROWS" "$ROWS" "race: the winner's export is whole"
}

# PEP_FAILURE_ONLY, a regular expression, picks cases by their call line.
run_all() {
	setup
	while read -r line; do
		[[ -z "$line" || ! "$line" =~ ${PEP_FAILURE_ONLY:-.} ]] && continue
		eval "$line"
	done <<'CASES'
case_cancel "$QUERY" 1 "hang:0:1" "first-file"
case_cancel "$QUERY" 1 "hang:0:36" "mid-way"
case_cancel "$QUERY" 1 "hang:0:72" "near-end"
case_cancel pep_h 2 "hang:any:1" "table"
case_statement_timeout
case_error "worker_error:any:2" "injected fault after 2 batches" "worker error"
case_error "worker_error:1:2" "injected fault after 2 batches" "worker error, query source" "$QUERY"
case_error "java_error:any:1" "Java exception: java.lang.IllegalStateException: injected fault after 1 batches" "java exception"
case_error "java_error:0:1" "Java exception: java.lang.IllegalStateException: injected fault after 1 batches" "java exception, query source" "$QUERY"
case_error "open_error:any" "injected fault while opening part" "open error"
case_error "close_error:any" "injected fault while closing a part" "close error"
case_error "open_error:1" "injected fault while opening part" "open error, query source" "$QUERY"
case_error "publish_error" "injected fault during publication" "publish error"
case_terminate_caller
case_terminate_worker
case_live_staging_kept
case_race
case_sigkill_worker
CASES
}

tmp_before=$(tmp_files)
for ((run = 1; run <= RUNS; run++)); do
	echo "# run $run of $RUNS"
	run_all
done
rm -rf "$WORK"
assert_no_new_tmp "$tmp_before" "the failures"
tap_done
