#!/usr/bin/env bash
# regress/t_s3_lock.sh: one export per object-store target on one server,
# whatever the endpoint is called, and none into a nested prefix.
#
# The ledger file that locks a target is keyed on its bucket and prefix
# alone, and an export also holds lock-manager locks on its prefix and its
# ancestors (DESIGN.md, "The ledger file").  S3Proxy serves on PEP_PORT +
# 1000; four foreign servers name it as http://127.0.0.1:PORT,
# http://localhost:PORT, http://127.0.0.1:PORT/ and HTTP://127.0.0.1:PORT,
# and the cluster runs with the AWS SDK's variables naming it too (the
# SDK's chain).  A held export is paused at publishing (pause:publishing)
# with its uploads pending; the harness waits for the pause in
# pg_stat_activity, never for a timer.  Cases:
#   - aliases: an export through 127.0.0.1 holds; a second into the same
#     target through each alias (localhost, a trailing "/", an upper-case
#     scheme, the SDK's chain) is refused as a running export and touches
#     none of the held export's uploads; once it ends (cancelled, nothing
#     left), the alias's export succeeds (the control);
#   - nested prefixes: an export into nest/ holds, one into nest/sub is
#     refused; an export into nest2/deep/sub holds, one into nest2 is
#     refused; each refused export succeeds once the held one ended;
#   - siblings (the control): an export into sib/a holds, exports into sib/b
#     and sib/ab succeed beside it, and the held export is untouched;
#   - a dead record (the caller killed mid-write) is swept only through the
#     foreign server it names: the sweep function and an export through an
#     alias server refuse it, touching nothing; the sweep through its own
#     server undoes it;
#   - a record left under the name version 1.1 gave the ledger file (the
#     endpoint as written hashed in): the next export into the target
#     sweeps it and succeeds; the sweep function sweeps another.
# Needs a running cluster from tools/cluster.sh with the extension
# installed; runs as root.  Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/s3case.sh
source "$here/lib/s3case.sh"

ROWS=20000

s3case_cleanup() {
	sql "DROP SERVER IF EXISTS regress_lock_ip, regress_lock_host, regress_lock_slash, regress_lock_upper CASCADE" \
		>/dev/null 2>&1
}
s3case_setup --quiet s3_lock pep_lock_rows "$ROWS"

# One endpoint, four spellings: each foreign server's, by alias name.
declare -A ENDPOINT=(
	[ip]="http://127.0.0.1:$S3PORT"
	[host]="http://localhost:$S3PORT"
	[slash]="http://127.0.0.1:$S3PORT/"
	[upper]="HTTP://127.0.0.1:$S3PORT"
)
for alias in "${!ENDPOINT[@]}"; do
	sql "DROP SERVER IF EXISTS regress_lock_$alias CASCADE;
		CREATE SERVER regress_lock_$alias FOREIGN DATA WRAPPER parallel_export_parquet_s3
			OPTIONS (endpoint '${ENDPOINT[$alias]}', region 'us-east-1');
		CREATE USER MAPPING FOR CURRENT_USER SERVER regress_lock_$alias
			OPTIONS (access_key_id '$PEP_S3_IDENTITY', secret_access_key '$PEP_S3_CREDENTIAL')" >/dev/null
done
[[ "${ENDPOINT[ip]}" == "$PEP_S3_ENDPOINT" ]]
ok $? "premise: the SDK's chain names the endpoint as server regress_lock_ip does" "$PEP_S3_ENDPOINT"

# The SQL arguments after the workers for an export through alias SERVER
# ("chain": none, the SDK's chain).
via() { [[ "$1" != chain ]] && printf ", s3_server => 'regress_lock_%s'" "$1"; }
# Export into s3://$BUCKET/PREFIX through SERVER; its output (or error) in OUT.
export_into() {
	OUT=$(psql -X -A -t -q -v VERBOSITY=verbose \
		-c "SELECT parallel_export_parquet('pep_lock_rows', 's3://$BUCKET/${1%/}', 2$(via "$2"))" 2>&1)
}
# The export into PREFIX returned ROWS and is published: _SUCCESS and its
# parts are there and no upload is pending.
published() {
	local state
	state=$(state_of "$1")
	[[ "$OUT" == "$ROWS" ]] && grep -q "^object ${1}_SUCCESS " <<<"$state" && [[ $(uploads_of "$state") == 0 ]]
}

# Hold an export into PREFIX through SERVER at publishing, as APP; its
# objects and uploads in HELD.
hold() {
	local app="$1" prefix="$2" server="$3"
	start_export "$app" "SET parallel_export_parquet.fault_injection = 'pause:publishing';" \
		"SELECT parallel_export_parquet('pep_lock_rows', 's3://$BUCKET/${prefix%/}', 2$(via "$server"))"
	wait_mark "$app" "$PAUSE_MARK publishing"
	HELD=$(state_of "$prefix")
	[[ $(uploads_of "$HELD") -ge 1 && $(objects_of "$HELD") == 0 ]]
	ok $? "$app: premise: the export into s3://$BUCKET/$prefix through $server holds at publishing, its uploads pending" \
		"$HELD"$'\n'"$(cat "$WORK/$app.out")"
}
# Cancel the held export APP into PREFIX: it ends, leaving nothing.
release() {
	local app="$1" prefix="$2"
	sql "SELECT pg_cancel_backend($(caller_pid "$app"))" >/dev/null
	finish_export "$app"
	# Its cleanup ran before the call returned.
	[[ -z "$(state_of "$prefix")" ]]
	ok $? "$app: the held export, cancelled, left nothing under $prefix" "$OUT"$'\n'"$(state_of "$prefix")"
}

[[ -z "$(ledger_files)" ]]
ok $? "premise: no ledger file before the harness" "$(ledger_files)"

# --- aliases of one endpoint meet at one lock
for alias in host slash upper chain; do
	prefix="alias-$alias/"
	hold "pep_lock_$alias" "$prefix" ip
	export_into "$prefix" "$alias"
	grep -qF "55006: another export into \"s3://$BUCKET/$prefix\" is running" <<<"$OUT"
	ok $? "alias $alias: an export into the held target through it is refused as running" "$OUT"
	[[ "$(state_of "$prefix")" == "$HELD" ]]
	ok $? "alias $alias: the held export's uploads are untouched" "$HELD"$'\n---\n'"$(state_of "$prefix")"
	release "pep_lock_$alias" "$prefix"
	export_into "$prefix" "$alias"
	published "$prefix"
	ok $? "alias $alias, control: once the held export ended, the export through it succeeds" "$OUT"
done

# --- nested prefixes, both ways
hold pep_lock_parent nest/ ip
[[ $(sql "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND database = 0 AND objsubid = 20549
	AND pid = $(caller_pid pep_lock_parent) AND granted") == 2 ]]
ok $? "nested: the held export holds two lock-manager locks, its prefix's and the bucket root's" \
	"$(sql "SELECT * FROM pg_locks WHERE locktype = 'advisory'")"
export_into nest/sub ip
grep -qF "55006: cannot export into \"s3://$BUCKET/nest/sub/\" while an export into \"s3://$BUCKET/nest/\" is running" <<<"$OUT"
ok $? "nested: an export into a prefix under a held export's is refused" "$OUT"
[[ "$(state_of nest/)" == "$HELD" ]]
ok $? "nested: the held export's uploads are untouched, nothing under nest/sub/" "$(state_of nest/)"
release pep_lock_parent nest/
export_into nest/sub ip
published nest/sub/
ok $? "nested, control: once the export into nest/ ended, the one into nest/sub succeeds" "$OUT"

hold pep_lock_child nest2/deep/sub/ ip
export_into nest2 ip
grep -qF "55006: cannot export into \"s3://$BUCKET/nest2/\" while an export into a prefix under it is running" <<<"$OUT"
ok $? "nested: an export into a prefix above a held export's is refused" "$OUT"
[[ "$(state_of nest2/)" == "$HELD" ]]
ok $? "nested: the held export's uploads are untouched, nothing else under nest2/" "$(state_of nest2/)"
release pep_lock_child nest2/deep/sub/
export_into nest2 host
published nest2/
ok $? "nested, control: once the export into nest2/deep/sub ended, the one into nest2 succeeds" "$OUT"

# --- siblings share their ancestors
hold pep_lock_sib sib/a/ ip
export_into sib/b ip
published sib/b/
ok $? "siblings: an export into sib/b succeeds beside the held sib/a" "$OUT"
export_into sib/ab host
published sib/ab/
ok $? "siblings: an export into sib/ab, a longer name but no descendant, succeeds" "$OUT"
[[ "$(state_of sib/a/)" == "$HELD" ]]
ok $? "siblings: the held export's uploads are untouched" "$(state_of sib/a/)"
release pep_lock_sib sib/a/

# --- dead records.  The caller of an export is killed with SIGKILL while a
# worker hangs mid-write: no cleanup runs, the postmaster restarts, the
# record stays with its lock free.  DEAD: the export's pending uploads.
kill_mid_write() {
	local app="$1" prefix="$2" server="$3"
	start_export "$app" "SET parallel_export_parquet.fault_injection = 'hang:any:1';" \
		"SELECT parallel_export_parquet('pep_lock_rows', 's3://$BUCKET/${prefix%/}', 2$(via "$server"))"
	wait_until "[[ \$(sql \"SELECT count(*) FROM pg_stat_activity w JOIN pg_stat_activity l ON w.leader_pid = l.pid
		WHERE l.application_name = '$app' AND w.backend_type = 'parallel worker'
		AND w.query = '$HANG_MARK'\") -ge 1 ]] && [[ -n \"\$(state_of '$prefix')\" ]]"
	ok $? "$app: premise: a worker hangs mid-write, an upload pending"
	kill -9 "$(caller_pid "$app")"
	finish_export "$app"
	wait_until "sql 'SELECT 1' >/dev/null 2>&1"
	DEAD=$(state_of "$prefix")
	[[ $(uploads_of "$DEAD") -ge 1 && $(ledger_files | wc -l) == 1 ]] && lock_free "$(ledger_files)" &&
		grep -q "^upload " "$(ledger_files)"
	ok $? "$app: premise: after the SIGKILL and the crash restart its uploads are pending, its record there, the lock free" \
		"$DEAD"$'\n'"$(ledger_files)"
}
sweep() {
	OUT=$(psql -X -A -t -q -v VERBOSITY=verbose \
		-c "SELECT * FROM parallel_export_parquet_sweep('s3://$BUCKET/$1'$(via "$2"))" 2>&1)
}

kill_mid_write pep_lock_dead dead/ ip
record="$(cat "$(ledger_files)")"
sweep dead/ host
grep -qF "55000: the unfinished export into \"s3://$BUCKET/dead/\" was made through another foreign server" <<<"$OUT" &&
	grep -qF "HINT:  Call parallel_export_parquet_sweep('s3://$BUCKET/dead/', s3_server => 'regress_lock_ip') first." <<<"$OUT"
ok $? "dead record: the sweep through an alias server refuses it, naming the server to sweep through" "$OUT"
export_into dead/ host
grep -qF "was made through another foreign server" <<<"$OUT"
ok $? "dead record: an export through an alias server refuses it" "$OUT"
[[ "$(state_of dead/)" == "$DEAD" && "$(cat "$(ledger_files)")" == "$record" ]] && lock_free "$(ledger_files)"
ok $? "dead record: both touched nothing and kept the record" "$(state_of dead/)"
sweep dead/ ip
[[ "$OUT" == "s3://$BUCKET/dead/|t|$(uploads_of "$DEAD")|0" && -z "$(state_of dead/)" && -z "$(ledger_files)" ]]
ok $? "dead record, control: the sweep through its own server undoes it and removes the file" "$OUT"

# A record under the old name: the same kill, then the file moved to the
# name version 1.1 gave it (inode and birth time, so its owner, unchanged).
to_old_name() {
	local prefix="$1" old
	old="$(old_ledger_of "$prefix" "${ENDPOINT[ip]}")"
	mv "$(ledger_files)" "$old"
	[[ "$(ledger_files)" == "$old" ]] && lock_free "$old"
	ok $? "old name: premise: the dead record is only under the name version 1.1 gave it" "$(ledger_files)"
}
kill_mid_write pep_lock_old old/ ip
to_old_name old/
log_from=$(($(wc -l <"$PEP_LOG") + 1))
export_into old/ ip
published old/ && [[ -z "$(ledger_files)" ]]
ok $? "old name: the next export into the target succeeds and leaves no ledger file" "$OUT"$'\n'"$(ledger_files)"
tail -n +"$log_from" "$PEP_LOG" | grep -qF "s3://$BUCKET/old/\" that did not finish"
ok $? "old name: the next export swept the old record first" "$(tail -n +"$log_from" "$PEP_LOG" | head -20)"
[[ -z "$(LC_ALL=C comm -12 <(grep '^upload ' <<<"$DEAD") <(state_of old/))" ]]
ok $? "old name: the dead export's uploads are aborted" "$(state_of old/)"

kill_mid_write pep_lock_old2 old2/ ip
to_old_name old2/
sweep old2/ ip
[[ "$OUT" == "s3://$BUCKET/old2/|t|$(uploads_of "$DEAD")|0" && -z "$(state_of old2/)" && -z "$(ledger_files)" ]]
ok $? "old name: the sweep function undoes another and removes the file" "$OUT"$'\n'"$(ledger_files)"

s3look_done
tap_done
