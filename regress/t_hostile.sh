#!/usr/bin/env bash
# regress/t_hostile.sh: hostile-filesystem harness; no link followed, no foreign file touched.
#
# The target's parent may be writable by other OS users, who can plant
# symbolic links, hard links, foreign files and directories at every name
# an export uses, before it starts or while it runs.  A victim directory
# holds files of the server's OS user and of another OS user
# (regress_pep_other, created here if absent), some with the very names an
# export writes.  Each case plants one trap, runs an export, and checks:
#   premise  the trap is in place (and, mid-export, the export really was
#            mid-flight: a part on disk, the leader waiting at a gate);
#   outcome  the export is refused or fails with the clear error expected,
#            nothing in the victim directory was created, changed or
#            removed, no file appeared at a link's target, the trap itself
#            is left as it was;
#   control  without the trap, the same export into the same directory
#            succeeds.
# It also covers overwrite of a target that a previous export cannot have
# written (a directory, a link or a foreign file at a part's name), and a
# directory argument with bytes that are not UTF-8 in a SQL_ASCII database.
#
# Mid-export points come from events, never timers: the hang fault pauses a
# worker with its part open (pg_stat_activity says so), and a query source
# waits on an advisory lock that the harness holds in a gate session
# (pg_stat_activity shows the leader waiting on it), so the export goes on
# once the harness ends that session.
#
# Runs as root (it plays the other user).  Needs a running cluster from
# tools/cluster.sh with the extension installed.  Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/tap.sh
source "$here/lib/tap.sh"
# shellcheck source=lib/export.sh
source "$here/lib/export.sh"
# shellcheck source=lib/gate.sh
source "$here/lib/gate.sh"

WORK="${PEP_HARNESS_OUT:-$PEP_OUT}/hostile"
VICTIM="$WORK/victim"
OTHER=regress_pep_other
HANG_MARK='parallel_export_parquet fault injection: hang'
GATE_KEY=4242
CEILING=180
ROWS=120000



# Everything about the victim directory that an export could change:
# names, types, owners, link counts, sizes, modes, contents.
victim_state() {
	(cd "$VICTIM" && find . -printf '%p %y %u %n %s %m\n' | sort && find . -type f -exec md5sum {} + | sort)
}

# Run one export; its output (errors and warnings included) in OUT.
export_into() {
	local dir="$1" extra="${2:-}" settings="${3:-}"
	OUT=$(psql -X -A -t -q -c "SET client_min_messages = warning; $settings" \
		-c "SELECT parallel_export_parquet('SELECT * FROM pep_hostile', '$dir', 2$extra)" 2>&1)
}

# The export into DIR completed: the row count, _SUCCESS, no staging or lock.
assert_exported() {
	local dir="$1" what="$2"
	local problems=""
	[[ "$OUT" == "$ROWS" ]] || problems+="returned '$OUT'"$'\n'
	[[ -f "$dir/_SUCCESS" ]] || problems+="no _SUCCESS"$'\n'
	[[ -e "$(staging_of "$dir")" || -e "$(lock_of "$dir")" ]] && problems+="staging or lock left"$'\n'
	[[ -z "$problems" ]]
	ok $? "$what" "$problems"
}

# The victim is exactly as it was (state saved in $VICTIM_BEFORE).
assert_victim() {
	local now
	now=$(victim_state)
	[[ "$now" == "$VICTIM_BEFORE" ]]
	ok $? "$1: the victim directory is untouched" "$(diff <(echo "$VICTIM_BEFORE") <(echo "$now"))"
}

# OUT holds an ERROR matching the pattern, and the export left no lock.
assert_refused() {
	local dir="$1" pattern="$2" what="$3"
	local problems=""
	grep -q "ERROR: .*$pattern" <<<"$OUT" || problems+="expected an error matching '$pattern'"$'\n'
	[[ -e "$(lock_of "$dir")" && ! -L "$(lock_of "$dir")" ]] && problems+="lock file left"$'\n'
	[[ -e "$dir" ]] && problems+="target exists"$'\n'
	[[ -z "$problems" ]]
	ok $? "$what" "$problems$OUT"
}

# A fresh victim directory for every case, so that each case's evidence is its own.
fill_victim() {
	rm -rf "$VICTIM"
	mkdir "$VICTIM"
	# Files with the names an export writes and removes, and others.
	for f in part-00000.parquet part-00001.parquet _SUCCESS notes.txt lock-target; do
		echo "victim $f" >"$VICTIM/$f"
	done
	echo "other's" >"$VICTIM/part-00002.parquet"
	chown postgres "$VICTIM" "$VICTIM"/*
	chown "$OTHER" "$VICTIM/part-00002.parquet"
	chmod 0700 "$VICTIM"
}

setup() {
	id "$OTHER" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$OTHER"
	rm -rf "$WORK"
	mkdir -p "$WORK"
	chown postgres "$WORK"
	chmod 0755 "$WORK"
	sql "CREATE EXTENSION IF NOT EXISTS parallel_export_parquet;
		DROP TABLE IF EXISTS pep_hostile;
		CREATE TABLE pep_hostile AS SELECT g AS id, md5(g::text) AS s FROM generate_series(1, $ROWS) g;
		ANALYZE pep_hostile" >/dev/null
}

# A symbolic link at the staging name, planted before the export.
case_staging_symlink() {
	fill_victim
	local dir="$WORK/t-staging-link"
	ln -s "$VICTIM" "$(staging_of "$dir")"
	VICTIM_BEFORE=$(victim_state)
	[[ -L "$(staging_of "$dir")" ]]
	ok $? "staging symlink: premise, the link is in place"
	export_into "$dir"
	assert_refused "$dir" 'cannot sweep staging directory.*' "staging symlink: the export is refused"
	grep -q "symbolic link" <<<"$OUT"
	ok $? "staging symlink: the error says why" "$OUT"
	assert_victim "staging symlink"
	[[ -L "$(staging_of "$dir")" ]]
	ok $? "staging symlink: the link itself is left for the DBA"
	rm "$(staging_of "$dir")"
	export_into "$dir"
	assert_exported "$dir" "staging symlink: control, the same export succeeds once the link is gone"
}

# A symbolic link at the lock name: to a victim file, and dangling into the victim.
case_lock_symlink() {
	fill_victim
	local dir="$WORK/t-lock-link" dangling="$WORK/t-lock-dangling"
	ln -s "$VICTIM/lock-target" "$(lock_of "$dir")"
	ln -s "$VICTIM/created-by-lock" "$(lock_of "$dangling")"
	VICTIM_BEFORE=$(victim_state)
	[[ -L "$(lock_of "$dir")" && -L "$(lock_of "$dangling")" && ! -e "$VICTIM/created-by-lock" ]]
	ok $? "lock symlink: premise, both links are in place, the dangling one's target absent"
	export_into "$dir"
	assert_refused "$dir" 'cannot use lock file' "lock symlink: the export is refused"
	export_into "$dangling"
	assert_refused "$dangling" 'cannot use lock file' "lock symlink: a dangling link is refused too"
	[[ ! -e "$VICTIM/created-by-lock" ]]
	ok $? "lock symlink: nothing was created at the link's target"
	assert_victim "lock symlink"
	[[ ! -e "$(staging_of "$dir")" && ! -e "$(staging_of "$dangling")" ]]
	ok $? "lock symlink: no staging directory was made"
	rm "$(lock_of "$dir")" "$(lock_of "$dangling")"
	export_into "$dir"
	assert_exported "$dir" "lock symlink: control, the same export succeeds once the link is gone"
}

# A foreign lock file (another user's) and a hard link to a victim file at the lock name.
case_lock_foreign() {
	fill_victim
	local dir="$WORK/t-lock-foreign" linked="$WORK/t-lock-hardlink"
	touch "$(lock_of "$dir")"
	chown "$OTHER" "$(lock_of "$dir")"
	chmod 0666 "$(lock_of "$dir")"
	ln "$VICTIM/lock-target" "$(lock_of "$linked")"
	VICTIM_BEFORE=$(victim_state)
	[[ $(stat -c %U "$(lock_of "$dir")") == "$OTHER" && $(stat -c %h "$VICTIM/lock-target") == 2 ]]
	ok $? "foreign lock: premise, another user's lock file and a hard link to a victim file"
	export_into "$dir"
	grep -q "ERROR: .*lock file" <<<"$OUT" && [[ ! -e "$dir" && ! -e "$(staging_of "$dir")" ]]
	ok $? "foreign lock: another user's lock file is refused" "$OUT"
	export_into "$linked"
	grep -q "ERROR: .*cannot use lock file" <<<"$OUT" && grep -q "other hard links" <<<"$OUT"
	ok $? "foreign lock: a hard-linked lock file is refused" "$OUT"
	assert_victim "foreign lock"
	[[ -e "$(lock_of "$dir")" && -e "$(lock_of "$linked")" ]]
	ok $? "foreign lock: both planted files are left in place"
	rm "$(lock_of "$dir")" "$(lock_of "$linked")"
	export_into "$dir"
	assert_exported "$dir" "foreign lock: control, the same export succeeds once the file is gone"
}

# A dead staging entry that cannot be a dead export's: ARGS describe how to plant it.
# Usage: case_bad_staging LABEL PATTERN PLANT_FUNCTION
case_bad_staging() {
	fill_victim
	local label="$1" pattern="$2" plant="$3"
	local dir="$WORK/t-$label"
	local staging
	staging=$(staging_of "$dir")
	"$plant" "$staging"
	VICTIM_BEFORE=$(victim_state)
	local before
	before=$(find "$staging" -printf '%p %y %u %n %m\n' 2>/dev/null | sort; find "$staging" -type f -exec md5sum {} + 2>/dev/null | sort)
	[[ -e "$staging" ]]
	ok $? "$label: premise, the planted staging entry exists"
	export_into "$dir"
	assert_refused "$dir" "cannot sweep staging directory.*" "$label: the export is refused"
	grep -q "$pattern" <<<"$OUT"
	ok $? "$label: the error says why ($pattern)" "$OUT"
	grep -q "HINT: .*Inspect" <<<"$OUT"
	ok $? "$label: the hint tells the DBA what to inspect" "$OUT"
	local after
	after=$(find "$staging" -printf '%p %y %u %n %m\n' 2>/dev/null | sort; find "$staging" -type f -exec md5sum {} + 2>/dev/null | sort)
	[[ "$before" == "$after" ]]
	ok $? "$label: the planted entry is left exactly as it was" "$(diff <(echo "$before") <(echo "$after"))"
	assert_victim "$label"
	rm -rf "$staging"
	export_into "$dir"
	assert_exported "$dir" "$label: control, the same export succeeds once the entry is gone"
}

plant_regular_file() { echo planted >"$1"; chown postgres "$1"; }
plant_foreign_dir() {
	mkdir "$1"
	echo "other's part" >"$1/part-00000.parquet"
	chown -R "$OTHER" "$1"
}
plant_world_writable() {
	mkdir "$1"
	echo "other's part" >"$1/part-00000.parquet"
	chown postgres "$1"
	chown "$OTHER" "$1/part-00000.parquet"
	chmod 0777 "$1"
}
plant_foreign_entry() {
	mkdir "$1"
	echo "other's part" >"$1/part-00000.parquet"
	chown postgres "$1"
	chmod 0700 "$1"
	chown "$OTHER" "$1/part-00000.parquet"
}
plant_hard_link() {
	mkdir "$1"
	ln "$VICTIM/part-00000.parquet" "$1/part-00000.parquet"
	chown postgres "$1"
	chmod 0700 "$1"
}
plant_subdirectory() {
	mkdir -p "$1/part-00000.parquet"
	echo keep >"$1/part-00000.parquet/inner"
	chown -R postgres "$1"
	chmod 0700 "$1"
}

# Start the export as application APP in the background; output in $WORK/APP.out.
start_into() {
	local app="$1" dir="$2" settings="$3" source="$4" extra="${5:-}"
	PGAPPNAME="$app" psql -X -A -t -q -c "SET client_min_messages = warning; $settings" \
		-c "SELECT parallel_export_parquet(\$q\$$source\$q\$, '$dir', 2$extra)" >"$WORK/$app.out" 2>&1 &
	echo $! >"$WORK/$app.pid"
}
staged_parts() { find "$1" -maxdepth 1 -name 'part-*.parquet' 2>/dev/null | wc -l; }

# Swap the staging directory for a link to the victim; the real one moves aside.
swap_staging() {
	local staging="$1"
	mv "$staging" "$staging.moved" && ln -s "$VICTIM" "$staging"
}

# The staging directory is swapped for a link while a worker sits at the hang fault; then cancel.
case_swap_then_cancel() {
	fill_victim
	local dir="$WORK/t-swap-cancel" app=pep_hostile_swap_cancel
	local staging
	staging=$(staging_of "$dir")
	VICTIM_BEFORE=$(victim_state)
	start_into "$app" "$dir" "SET parallel_export_parquet.fault_injection = 'hang:0:2';" "SELECT * FROM pep_hostile"
	wait_until "[[ \$(sql \"SELECT count(*) FROM pg_stat_activity w JOIN pg_stat_activity l ON w.leader_pid = l.pid
		WHERE l.application_name = '$app' AND w.backend_type = 'parallel worker' AND w.query = '$HANG_MARK'\") -ge 1 ]] \
		&& [[ \$(staged_parts '$staging') -ge 1 ]]"
	ok $? "swap then cancel: premise, a worker paused with $(staged_parts "$staging") part(s) on disk"
	swap_staging "$staging"
	[[ -L "$staging" && -d "$staging.moved" ]]
	ok $? "swap then cancel: the staging directory was swapped for a link to the victim"
	sql "SELECT pg_cancel_backend($(caller_pid "$app"))" >/dev/null
	finish_export "$app"
	grep -q "canceling statement due to user request" <<<"$OUT"
	ok $? "swap then cancel: the export was cancelled" "$OUT"
	assert_victim "swap then cancel"
	[[ $(staged_parts "$staging.moved") == 0 && ! -e "$dir" && ! -e "$(lock_of "$dir")" ]]
	ok $? "swap then cancel: the export's own parts were removed from its own directory, nothing published" \
		"$(ls -A "$staging.moved"; echo "$OUT")"
	rm -rf "$staging" "$staging.moved"
	export_into "$dir"
	assert_exported "$dir" "swap then cancel: control, the same export succeeds"
}

# A query source that stops at the gate after half its rows.
GATED="$(gate_query pep_hostile 'id, s' $((ROWS / 2)) "$GATE_KEY")"

# Start a gated export and wait until its leader waits at the gate with at
# least PARTS parts on disk.  Usage: start_gated APP DIR EXTRA_ARGS PARTS
start_gated() {
	local app="$1" dir="$2" extra="$3" parts="$4"
	gate_close pep_hostile_gate "$GATE_KEY"
	start_into "$app" "$dir" "" "$GATED" "$extra"
	wait_until "at_gate '$app' && [[ \$(staged_parts '$(staging_of "$dir")') -ge $parts ]]"
}

# The staging directory is swapped for a link while the export runs, and the export goes on.
case_swap_then_continue() {
	fill_victim
	local dir="$WORK/t-swap-continue" app=pep_hostile_swap_go
	local staging
	staging=$(staging_of "$dir")
	VICTIM_BEFORE=$(victim_state)
	# file_size_bytes => 1: every batch is its own part, so parts are created after the swap too.
	start_gated "$app" "$dir" ", file_size_bytes => 1" 1
	ok $? "swap and go on: premise, the leader waits at the gate with $(staged_parts "$staging") part(s) on disk"
	swap_staging "$staging"
	gate_open pep_hostile_gate
	finish_export "$app"
	grep -q "ERROR: .*staging directory .* was replaced during" <<<"$OUT"
	ok $? "swap and go on: the workers wrote every row, and publication refused the swapped name" "$OUT"
	assert_victim "swap and go on"
	[[ -L "$staging" && ! -e "$dir" && $(staged_parts "$staging.moved") == 0 ]]
	ok $? "swap and go on: nothing published; the export's parts, made after the swap too, were removed from its own directory" \
		"$(ls -la "$WORK" "$staging.moved")"
	rm -rf "$staging" "$staging.moved"
	start_gated "$app" "$dir" ", file_size_bytes => 1" 1
	gate_open pep_hostile_gate
	finish_export "$app"
	assert_exported "$dir" "swap and go on: control, the same gated export succeeds"
}

# Publication fails before _SUCCESS exists: no WARNING may name it.
case_success_never_created() {
	fill_victim
	local dir="$WORK/t-no-success" app=pep_hostile_no_success
	local staging
	staging=$(staging_of "$dir")
	# Both workers' parts already open, so the read-only directory stops only _SUCCESS.
	start_gated "$app" "$dir" "" 2
	ok $? "missing _SUCCESS: premise, the leader waits at the gate with both workers' parts on disk"
	# No search permission: _SUCCESS cannot be created, nor the parts reached.
	chmod 0600 "$staging"
	gate_open pep_hostile_gate
	finish_export "$app"
	grep -q "ERROR: .*could not create file .*_SUCCESS" <<<"$OUT" && [[ ! -e "$staging/_SUCCESS" ]]
	ok $? "missing _SUCCESS: premise, publication failed creating _SUCCESS and it does not exist" "$OUT"
	grep -q "WARNING: .*part-0000" <<<"$OUT"
	ok $? "missing _SUCCESS: control, cleanup does warn about the parts it could not remove" "$OUT"
	! grep "WARNING" <<<"$OUT" | grep -q "_SUCCESS"
	ok $? "missing _SUCCESS: no WARNING names the _SUCCESS that never existed" "$OUT"
	chmod 0700 "$staging"
	export_into "$dir"
	assert_exported "$dir" "missing _SUCCESS: the next export sweeps the leftover and succeeds"
}

# Overwrite of a target holding something no export writes: refused up front, nothing moved.
# Usage: case_overwrite LABEL PATTERN PLANT_FUNCTION
case_overwrite() {
	fill_victim
	local label="$1" pattern="$2" plant="$3"
	local dir="$WORK/t-$label"
	export_into "$dir"
	assert_exported "$dir" "$label: premise, a previous complete export"
	"$plant" "$dir"
	VICTIM_BEFORE=$(victim_state)
	local before
	before=$(find "$dir" -printf '%p %y %u %n %i\n' | sort)
	export_into "$dir" ", overwrite => true"
	grep -q "ERROR: .*does not hold only a previous export" <<<"$OUT" && grep -q "$pattern" <<<"$OUT"
	ok $? "$label: overwrite is refused, naming the entry" "$OUT"
	[[ "$(find "$dir" -printf '%p %y %u %n %i\n' | sort)" == "$before" && ! -e "$(staging_of "$dir")" && ! -e "$(lock_of "$dir")" ]]
	ok $? "$label: nothing was moved or removed"
	assert_victim "$label"
	rm -rf "${dir:?}/part-99999.parquet"
	export_into "$dir" ", overwrite => true"
	assert_exported "$dir" "$label: control, overwrite succeeds once the entry is gone"
}

overwrite_directory() { mkdir "$1/part-99999.parquet"; chown postgres "$1/part-99999.parquet"; }
overwrite_symlink() { ln -s "$VICTIM/part-00000.parquet" "$1/part-99999.parquet"; }
overwrite_foreign() { echo x >"$1/part-99999.parquet"; chown "$OTHER" "$1/part-99999.parquet"; }
overwrite_hard_link() { ln "$VICTIM/part-00001.parquet" "$1/part-99999.parquet"; }

# A directory argument with a byte sequence that is not UTF-8, in a SQL_ASCII database.
case_invalid_bytes() {
	local db=regress_pep_ascii
	sql "DROP DATABASE IF EXISTS $db" >/dev/null
	sql "CREATE DATABASE $db ENCODING 'SQL_ASCII' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'" >/dev/null
	psql -X -q -d "$db" -c "CREATE EXTENSION parallel_export_parquet" >/dev/null
	OUT=$(psql -X -A -t -q -d "$db" -c "SELECT parallel_export_parquet('SELECT 1 AS a', E'$WORK/bad\\377name', 1)" 2>&1)
	grep -q "ERROR: .*directory contains an invalid byte sequence" <<<"$OUT"
	ok $? "invalid bytes: the error names the directory argument" "$OUT"
	[[ -z "$(find "$WORK" -maxdepth 1 \( -name 'bad*' -o -name '.bad*' \))" ]]
	ok $? "invalid bytes: nothing was created"
	OUT=$(psql -X -A -t -q -d "$db" -c "SELECT parallel_export_parquet('SELECT 1 AS a', '$WORK/ascii-ok', 1)" 2>&1)
	[[ "$OUT" == 1 && -f "$WORK/ascii-ok/_SUCCESS" ]]
	ok $? "invalid bytes: control, a valid name exports from the same database" "$OUT"
	sql "DROP DATABASE $db" >/dev/null
}

setup
case_staging_symlink
case_lock_symlink
case_lock_foreign
case_bad_staging staging-file "is not a directory" plant_regular_file
case_bad_staging staging-foreign "owned by another user" plant_foreign_dir
case_bad_staging staging-world-writable "can be written by other users" plant_world_writable
case_bad_staging staging-foreign-entry "owned by another user" plant_foreign_entry
case_bad_staging staging-hard-link "other hard links" plant_hard_link
case_bad_staging staging-subdirectory "not a regular file" plant_subdirectory
case_swap_then_cancel
case_swap_then_continue
case_success_never_created
case_overwrite overwrite-directory "part-99999.parquet.*not a regular file" overwrite_directory
case_overwrite overwrite-symlink "part-99999.parquet.*symbolic link" overwrite_symlink
case_overwrite overwrite-foreign "part-99999.parquet.*owned by another user" overwrite_foreign
case_overwrite overwrite-hard-link "part-99999.parquet.*other hard links" overwrite_hard_link
case_invalid_bytes
sql "DROP TABLE pep_hostile" >/dev/null
tap_done
