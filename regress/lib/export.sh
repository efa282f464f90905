# shellcheck shell=bash
# regress/lib/export.sh: what the failure, phase and soak harnesses share.
#
# Sourced after lib/tap.sh, with WORK set to the harness's scratch directory
# (owned by the server's OS user). Gives: wait_until CONDITION (poll with a
# generous ceiling that only turns a hang into a failure), the staging and
# lock names of a target, start_export/finish_export for an export run in the
# background under an application name, caller_pid, fresh_work, the /tmp
# check, and assert_clean, the
# check that a failed export left nothing behind, assert_whole and export_ok
# for a complete one (manifest_of: what its _SUCCESS lists), and wait_hang
# for a worker paused by the hang fault.

CEILING="${CEILING:-180}"
HANG_MARK='parallel_export_parquet fault injection: hang'

# A fresh $WORK owned by the server's OS user, and a table NAME of ROWS rows
# (id bigint, s text) in it for the cases to export.
fresh_work() {
	local table="$1" rows="$2"
	rm -rf "$WORK"
	mkdir -p "$WORK"
	chown postgres "$WORK"
	sql "DROP TABLE IF EXISTS $table; CREATE EXTENSION IF NOT EXISTS parallel_export_parquet;
		CREATE TABLE $table AS SELECT g::bigint AS id, md5(g::text) AS s FROM generate_series(1, $rows) g;
		ANALYZE $table" >/dev/null
}

# The files of the server's OS user directly in /tmp, sorted.
tmp_files() { find /tmp -maxdepth 1 -user postgres | sort; }

# No file of the server's OS user appeared in /tmp since BEFORE (tmp_files).
# A worker's JVM killed hard must not leave its attach socket, /tmp/.java_pidN.
assert_no_new_tmp() {
	local before="$1" what="$2" new
	new=$(comm -13 <(echo "$before") <(tmp_files))
	[[ -z "$new" ]]
	ok $? "$what left no file of the server's OS user in /tmp" "$new"
}

# Poll until a shell condition holds; false after the ceiling.
wait_until() {
	local deadline=$((SECONDS + CEILING))
	while ! eval "$1"; do
		((SECONDS > deadline)) && return 1
		sleep 0.05
	done
}

staging_of() { echo "$(dirname "$1")/.$(basename "$1").pep-staging"; }
lock_of() { echo "$(dirname "$1")/.$(basename "$1").pep-lock"; }
staging_parts() { find "$(staging_of "$1")" -name 'part-*.parquet' 2>/dev/null | wc -l; }

# What DIR/_SUCCESS lists, read as JSON by the server: "ROWS PARTS" (the
# manifest's total rows, its number of parts); empty unless it is a manifest.
manifest_of() {
	sql "SELECT (m->>'rows') || ' ' || jsonb_array_length(m->'parts')
		FROM (SELECT pg_read_file('$1/_SUCCESS')::jsonb AS m) AS s
		WHERE m->>'format' = 'parallel_export_parquet'" 2>/dev/null
}

# Start an export in the background as application APP; settings before it.
# Usage: start_export APP SETTINGS SQL [SQL...]; output in $WORK/APP.out.
# Later statements run in the same session even if an earlier one fails.
start_export() {
	local app="$1" settings="$2"
	shift 2
	local cmds=()
	for q in "$@"; do cmds+=(-c "$q"); done
	PGAPPNAME="$app" psql -X -A -t -q \
		-c "SET parallel_export_parquet.fault_injection = ''; $settings" \
		"${cmds[@]}" >"$WORK/$app.out" 2>&1 &
	echo $! >"$WORK/$app.pid"
}

caller_pid() {
	sql "SELECT pid FROM pg_stat_activity WHERE application_name = '$1' AND backend_type = 'client backend'"
}

# Wait for APP's psql to end and put its output in OUT.  Not for use in $(...):
# a subshell cannot wait for this shell's children.
finish_export() {
	local app="$1"
	wait "$(cat "$WORK/$app.pid")" 2>/dev/null
	OUT=$(cat "$WORK/$app.out")
}

# The parallel workers still alive, described; empty if none.
live_workers() {
	sql "SELECT string_agg(format('%s leader %s %s %s', pid, leader_pid, state, left(query, 60)), '; ')
		FROM pg_stat_activity WHERE backend_type = 'parallel worker'"
}

# The export into DIR left nothing: target absent, staging and lock gone,
# no parallel worker alive, server healthy.
assert_clean() {
	local dir="$1" what="$2"
	local problems="" workers
	[[ -e "$dir" ]] && problems+="target exists: $(ls -A "$dir" | tr '\n' ' ')"$'\n'
	[[ -e "$(staging_of "$dir")" ]] && problems+="staging directory left: $(ls -A "$(staging_of "$dir")" | tr '\n' ' ')"$'\n'
	[[ -e "$(lock_of "$dir")" ]] && problems+="lock file left"$'\n'
	workers=$(live_workers)
	[[ -n "$workers" ]] && problems+="parallel workers still running: $workers"$'\n'
	[[ "$(sql 'SELECT 1')" != 1 ]] && problems+="server does not answer"$'\n'
	[[ -z "$problems" ]]
	ok $? "$what: nothing left behind" "$problems"
}

# Wait until APP's worker sits at the hang fault with a staging part of DIR open.
wait_hang() {
	local app="$1" dir="$2"
	wait_until "[[ \$(sql \"SELECT count(*) FROM pg_stat_activity w JOIN pg_stat_activity l ON w.leader_pid = l.pid
		WHERE l.application_name = '$app' AND w.backend_type = 'parallel worker' AND w.query = '$HANG_MARK'\") -ge 1 ]] \
		&& [[ \$(staging_parts '$dir') -ge 1 ]]"
}

# The export into DIR is whole: parts, and _SUCCESS, the manifest of their
# rows, expected rows from DuckDB-free counts.
assert_whole() {
	local dir="$1" rows="$2" got="$3" what="$4"
	local problems="" parts
	parts=$(find "$dir" -name 'part-*.parquet' | wc -l)
	[[ "$got" == "$rows" ]] || problems+="returned '$got', expected $rows"$'\n'
	[[ -f "$dir/_SUCCESS" ]] || problems+="no _SUCCESS"$'\n'
	[[ $parts -ge 1 ]] || problems+="no parts"$'\n'
	[[ "$(manifest_of "$dir")" == "$rows $parts" ]] ||
		problems+="_SUCCESS lists '$(manifest_of "$dir")', expected $rows rows in $parts parts"$'\n'
	[[ -e "$(staging_of "$dir")" || -e "$(lock_of "$dir")" ]] && problems+="staging or lock left after success"$'\n'
	[[ -z "$problems" ]]
	ok $? "$what" "$problems"
}

# The same export, no fault, into DIR: the control before and the retry after.
export_ok() {
	local source="$1" dir="$2" workers="$3" rows="$4" what="$5"
	local got
	got=$(sql "SELECT parallel_export_parquet('$source', '$dir', $workers)" 2>&1)
	assert_whole "$dir" "$rows" "$got" "$what"
}
