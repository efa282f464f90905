# shellcheck shell=bash
# regress/lib/gate.sh: a gate that holds a query source's export midway, for
# the harnesses that must see an export mid-flight and then let it go on.
#
# Sourced after lib/tap.sh and lib/export.sh (wait_until). The gate is an
# advisory lock that a session of its own holds; a query source passes it
# only by taking the same lock shared, so its caller stops at that row,
# with every row before it sent to the workers, until the harness opens the
# gate by ending that session. pg_stat_activity shows a caller waiting
# there, so nothing waits on a timer.
#
#   gate_query TABLE COLUMNS ROW KEY  prints a query of TABLE's COLUMNS that
#                                     stops at the row whose id is ROW
#   gate_close APP KEY                holds the gate KEY in a session named APP;
#                                     returns once pg_locks shows it held
#   gate_open APP                     ends that session: the gate opens
#   at_gate APP                       true while APP's caller waits at a gate

gate_query() {
	echo "SELECT $2 FROM $1 WHERE CASE WHEN id = $3 THEN (SELECT true FROM pg_advisory_lock_shared($4)) ELSE true END"
}

gate_close() {
	local app="$1" key="$2"
	PGAPPNAME="$app" psql -X -q -c "SELECT pg_advisory_lock($key)" -c "SELECT pg_sleep(3600)" >/dev/null 2>&1 &
	GATE_PID=$!
	wait_until "[[ \$(sql \"SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
		WHERE a.application_name = '$app' AND l.locktype = 'advisory' AND l.granted\") == 1 ]]"
}

gate_open() {
	sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '$1'" >/dev/null
	wait "$GATE_PID" 2>/dev/null
}

at_gate() {
	[[ $(sql "SELECT count(*) FROM pg_stat_activity WHERE application_name = '$1'
		AND backend_type = 'client backend' AND wait_event_type = 'Lock' AND wait_event = 'advisory'") == 1 ]]
}
