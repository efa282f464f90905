#!/usr/bin/env bash
# regress/t_phases.sh: a cancel, a statement_timeout or a terminate in every
# phase of an export; what the client gets always matches the disk.
#
# The export is paused in one phase by the superuser-only fault injection
# setting: starting (staging created, no worker yet), writing (a worker
# paused with its part open: hang:0:1), publishing (_SUCCESS in staging, the
# manifest of the parts there, before the rename) and published (after the rename, before the return).
# The harness waits until pg_stat_activity shows the pause and the disk shows
# the phase (the premise), then cancels, lets statement_timeout fire,
# terminates the caller, or kills the client (psql, SIGKILL) with
# client_connection_check_interval set, and checks the outcome:
#   before the rename  the client gets the cancel, timeout or termination
#                      (a killed client: the server logs "connection to
#                      client lost"); nothing at the target, no staging, no
#                      lock, no LOG line, parallel_export_parquet_last() has
#                      no export, and a retry into the same directory
#                      succeeds;
#   after the rename   the client gets the row count (cancel, timeout) or
#                      the termination, the target is complete with
#                      _SUCCESS, the LOG line and parallel_export_parquet_last()
#                      say so, and a retry fails with "not empty".
# Always: no parallel worker left, the server answers. A control export of
# each source without a fault completes first. A killed client without
# client_connection_check_interval is not noticed, as for any statement: the
# export runs to its end and stays published.
#
# statement_timeout is generous for the phase: the pause only ends by an
# interrupt, so if the premise is seen the timeout fired in the pause; if it
# fired earlier the premise check fails instead of the case passing.
#
# Needs a running cluster from tools/cluster.sh with the extension installed.
# Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/tap.sh
source "$here/lib/tap.sh"
# shellcheck source=lib/export.sh
source "$here/lib/export.sh"
# shellcheck source=lib/gate.sh
source "$here/lib/gate.sh"

WORK="${PEP_HARNESS_OUT:-$PEP_OUT}/phases"
PAUSE_MARK='parallel_export_parquet fault injection: pause'
ROWS=20000
QUERY="SELECT * FROM pep_ph"
GATE_KEY=4344

setup() {
	fresh_work pep_ph "$ROWS"
	export_ok pep_ph "$WORK/control-table" 2 "$ROWS" "control: the table export completes without a fault"
	export_ok "$QUERY" "$WORK/control-query" 1 "$ROWS" "control: the query export completes without a fault"
}

# A bad value of the setting is an error at SET, not a silently absent fault.
# Like any extension's setting it is checked once the library is loaded
# (before that, PostgreSQL keeps a placeholder and warns at load).
case_check_hook() {
	local value out
	for value in 'pause:bogus' 'pause' 'hang:x' 'nope' 'hang:1:2:3' 'pause:starting:1' 'hang:anyone:1' \
		'publish_error:any' 's3_success_lost:any'; do
		out=$(psql -X -A -t -q -c "LOAD 'parallel_export_parquet'" \
			-c "SET parallel_export_parquet.fault_injection = '$value'" 2>&1)
		grep -q "invalid value for parameter \"parallel_export_parquet.fault_injection\": \"$value\"" <<<"$out"
		ok $? "check hook: '$value' is refused at SET" "$out"
	done
	for value in 'pause:starting' 'pause:publishing' 'pause:published' 'hang:0:1' 'publish_error' \
		'hang:any:1' 'java_error:any:2' 'open_error:any'; do
		out=$(psql -X -A -t -q -c "LOAD 'parallel_export_parquet'" \
			-c "SET parallel_export_parquet.fault_injection = '$value'" 2>&1)
		[[ -z "$out" ]]
		ok $? "check hook: '$value' is accepted" "$out"
	done
}

# Does the disk show that APP's export into DIR is paused in PHASE?
in_phase() {
	local app="$1" dir="$2" phase="$3" staging
	staging=$(staging_of "$dir")
	case "$phase" in
	writing)
		[[ $(sql "SELECT count(*) FROM pg_stat_activity w JOIN pg_stat_activity l ON w.leader_pid = l.pid
			WHERE l.application_name = '$app' AND w.query = '$HANG_MARK'") -ge 1 &&
			$(staging_parts "$dir") -ge 1 ]]
		return
		;;
	starting) [[ -d "$staging" && ! -e "$dir" &&
		$(sql "SELECT count(*) FROM pg_stat_activity w JOIN pg_stat_activity l ON w.leader_pid = l.pid
			WHERE l.application_name = '$app'") == 0 ]] || return 1 ;;
	publishing) [[ -f "$staging/_SUCCESS" && ! -e "$dir" &&
		"$(manifest_of "$staging")" == *" $(staging_parts "$dir")" ]] || return 1 ;;
	published) [[ -f "$dir/_SUCCESS" && ! -e "$staging" ]] || return 1 ;;
	esac
	[[ $(sql "SELECT count(*) FROM pg_stat_activity WHERE application_name = '$app'
		AND backend_type = 'client backend' AND query = '$PAUSE_MARK $phase' AND wait_event = 'Extension'") == 1 ]]
}

# One case: pause the export in PHASE, then ACTION (cancel, timeout, terminate).
case_phase() {
	local phase="$1" action="$2"
	local dir="$WORK/$phase-$action" app="pep_ph_${phase}_$action"
	local source=pep_ph workers=2 fault="pause:$phase" timeout=8 settings out log_before
	[[ $phase == writing ]] && source=$QUERY workers=1 fault='hang:0:1' timeout=5
	[[ $phase == starting ]] && timeout=2
	settings="SET parallel_export_parquet.fault_injection = '$fault';"
	[[ $action == timeout ]] && settings+=" SET statement_timeout = '${timeout}s';"
	[[ $action == lost ]] && settings+=" SET client_connection_check_interval = '100ms';"
	log_before=$(wc -l <"$PEP_LOG")

	start_export "$app" "$settings" "SELECT parallel_export_parquet('$source', '$dir', $workers)" \
		"SELECT 'last ' || coalesce((SELECT rows || ' ' || directory FROM parallel_export_parquet_last()), 'none')"
	local pid
	pid=$(cat "$WORK/$app.pid")
	wait_until "in_phase '$app' '$dir' '$phase' || ! kill -0 $pid 2>/dev/null"
	in_phase "$app" "$dir" "$phase"
	ok $? "$phase $action: premise: the export is paused $phase" "$(cat "$WORK/$app.out")"

	case "$action" in
	cancel) sql "SELECT pg_cancel_backend($(caller_pid "$app"))" >/dev/null ;;
	terminate) sql "SELECT pg_terminate_backend($(caller_pid "$app"))" >/dev/null ;;
	lost) kill -KILL "$pid" ;;
	esac
	finish_export "$app"
	out=$OUT
	wait_until "[[ \$(sql \"SELECT count(*) FROM pg_stat_activity WHERE application_name = '$app'\") == 0 ]]"

	local expect logged=1 seen=$out
	case "$action" in
	cancel) expect="canceling statement due to user request" ;;
	timeout) expect="canceling statement due to statement timeout" ;;
	terminate) expect="terminating connection due to administrator command" ;;
	lost) expect="FATAL:  connection to client lost" seen=$(tail -n +"$((log_before + 1))" "$PEP_LOG") ;;
	esac
	tail -n +"$((log_before + 1))" "$PEP_LOG" | grep -q "exported $ROWS rows of .* to \"$dir\"" || logged=0

	if [[ $phase != published ]]; then
		grep -q "$expect" <<<"$seen" && ! grep -qx "$ROWS" <<<"$out"
		ok $? "$phase $action: $([[ $action == lost ]] && echo "the server logged" || echo "the client got") \"$expect\"" "$seen"
		assert_clean "$dir" "$phase $action"
		[[ $logged == 0 ]]
		ok $? "$phase $action: no LOG line claims the export"
		if [[ $action == cancel || $action == timeout ]]; then
			grep -qx "last none" <<<"$out"
			ok $? "$phase $action: parallel_export_parquet_last() has no export" "$out"
		fi
		# A lost client's cleanup is the terminate's: its retry adds nothing.
		[[ $action == lost ]] ||
			export_ok "$source" "$dir" "$workers" "$ROWS" "$phase $action: retry into the same directory succeeds"
		return
	fi

	if [[ $action == terminate ]]; then
		grep -q "$expect" <<<"$out"
		ok $? "$phase $action: the session was terminated, the client has no outcome" "$out"
		assert_whole "$dir" "$ROWS" "$ROWS" "$phase $action: the export stays published and whole"
	else
		! grep -q "ERROR" <<<"$out" && grep -qx "last $ROWS $dir" <<<"$out"
		ok $? "$phase $action: the client got success and parallel_export_parquet_last() agrees" "$out"
		assert_whole "$dir" "$ROWS" "$(head -n 1 <<<"$out")" "$phase $action: the client's row count matches a whole export"
	fi
	[[ $logged == 1 ]]
	ok $? "$phase $action: the LOG line says the export was published"
	[[ -z "$(live_workers)" && "$(sql 'SELECT 1')" == 1 ]]
	ok $? "$phase $action: no worker left, the server answers" "$(live_workers)"
	out=$(sql "SELECT parallel_export_parquet('$source', '$dir', $workers)" 2>&1)
	grep -q "directory \"$dir\" is not empty" <<<"$out"
	ok $? "$phase $action: retry fails with \"not empty\"" "$out"
}

# The client is killed mid-export and no client_connection_check_interval
# is set: nothing tells the server, so the export runs to its end and is
# published; the server learns of it only when it sends the result. The
# export's query source waits at a gate (regress/lib/gate.sh) until the
# client is dead, so the kill cannot come after the export ended.
case_lost_unnoticed() {
	local dir="$WORK/lost-unnoticed" app="pep_ph_lost_unnoticed" pid rc=0 log_before
	log_before=$(wc -l <"$PEP_LOG")
	gate_close pep_ph_gate "$GATE_KEY"
	start_export "$app" "" "SELECT parallel_export_parquet('$(gate_query pep_ph 'id, s' $((ROWS / 2)) "$GATE_KEY")', '$dir', 2)"
	pid=$(cat "$WORK/$app.pid")
	wait_until "at_gate '$app'"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || rc=$?
	[[ $rc == 137 && ! -e "$dir/_SUCCESS" ]] && at_gate "$app"
	ok $? "lost unnoticed: premise: the client was killed while its export waited at the gate (status $rc)"
	gate_open pep_ph_gate
	wait_until "tail -n +$((log_before + 1)) '$PEP_LOG' | grep -q 'exported $ROWS rows of .* to \"$dir\"'"
	ok $? "lost unnoticed: the export ran to its end and logged it"
	wait_until "[[ \$(sql \"SELECT count(*) FROM pg_stat_activity WHERE application_name = '$app'\") == 0 ]]"
	assert_whole "$dir" "$ROWS" "$ROWS" "lost unnoticed: the export is published and whole"
	[[ -z "$(live_workers)" ]]
	ok $? "lost unnoticed: no worker left" "$(live_workers)"
}

tmp_before=$(tmp_files)
setup
case_check_hook
for phase in starting writing publishing published; do
	for action in cancel timeout terminate lost; do
		[[ "$phase $action" =~ ${PEP_PHASES_ONLY:-.} ]] || continue
		# Held interrupts end the published pause only by a cancel or a
		# terminate: a lost client is found by the interrupt check itself.
		[[ "$phase $action" == "published lost" ]] && continue
		case_phase "$phase" "$action"
	done
done
[[ "lost unnoticed" =~ ${PEP_PHASES_ONLY:-.} ]] && case_lost_unnoticed
rm -rf "$WORK"
assert_no_new_tmp "$tmp_before" "the phases"
tap_done
