#!/usr/bin/env bash
# regress/t_s3_sweep.sh: what a dead object-store export left, swept.
#
# A killed object-store export leaves its record in
# $PGDATA/pgsql_tmp_parallel_export_parquet/HASH.ledger with the lock free, and
# real pending uploads and objects in the bucket.  The first cases forge
# exactly that: the harness writes the record's first line as the caller
# would, and regress/s3proxy/S3Forge.java makes the export's uploads and
# objects through the extension's own S3 client, appending each step's line
# before the step as a worker does.  Beside them goes what the sweep must
# never touch: an object someone else put under the prefix and a pending
# upload of another key there.  What the server holds is asked of it through
# the S3 API (regress/s3proxy/S3Look.java).  Cases:
#   - a target without a record: nothing done, no file made;
#   - a record whose lock a live process holds (premise: it really is
#     held): an error naming the running export, nothing touched;
#   - the dead record (premise: all of it there, the lock free): exactly
#     the export's uploads aborted and objects deleted, the foreign object
#     and upload left, the file removed; again: nothing to do;
#   - a record the sweep cannot use (a step it does not know): an error,
#     nothing touched, the file kept and its lock free for the next try;
#   - a dead record whose _SUCCESS the sweeping worker cannot reach (the
#     s3_success_denied fault): the sweep function and the next export into
#     the target fail at it, touch nothing and keep the record; the
#     control, without the fault, sweeps it;
#   - a link at the ledger's name: refused, not followed;
#   - real exports whose caller (not a worker) is killed with SIGKILL
#     mid-write, so that no cleanup runs anywhere (premise: its uploads
#     pending and recorded, the lock free after the crash restart): the next
#     export into the target sweeps first and succeeds, a foreign upload
#     under the prefix survives; and parallel_export_parquet_sweep() undoes
#     another such export, leaving a foreign object and upload;
#   - a copy of the data directory while exports run (a real pg_basebackup,
#     started as a hot standby on PEP_PORT + 2000): it holds no ledger file;
#     a ledger file copied into it file by file names another owner, and
#     both an export into its target and the sweep refuse it; the running
#     exports' uploads are untouched and they complete; and two servers
#     exporting into one target: the copy publishes first, the primary's
#     conditional _SUCCESS write is refused and its export fails cleanly;
#   - a target of a foreign server: swept with the settings of the server
#     and its user mapping, the server's environment holding no key; the
#     secret is nowhere in the server log;
#   - privileges: PUBLIC cannot call it; EXECUTE alone is not enough.
#
# Until the foreign-server case the server reaches S3Proxy through the
# postmaster's environment (AWS_ENDPOINT_URL and the keys), so the cluster
# is restarted with it, and without it for that case and at the end.
# Nothing races a timer: the kill waits for the hang fault in
# pg_stat_activity, the copy for its exports to wait at the gate in pg_locks.  Needs a running cluster from tools/cluster.sh with the
# extension installed; runs as root.  Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/s3case.sh
source "$here/lib/s3case.sh"

ROLE=regress_pep_sweeper
ROWS=200000

holder=""
gate=""
s3case_cleanup() {
	if [[ -n "$holder" ]]; then
		pkill -P "$holder" 2>/dev/null
		kill "$holder" 2>/dev/null
	fi
	[[ -n "$gate" ]] && kill "$gate" 2>/dev/null
	[[ -f "$WORK/copy/postmaster.pid" ]] &&
		runuser -u postgres -- "$(pep_bindir)/pg_ctl" -D "$WORK/copy" -m immediate -w stop >/dev/null
	sql "DROP ROLE IF EXISTS $ROLE" >/dev/null 2>&1
}
s3case_setup --quiet s3_sweep pep_sweep_rows "$ROWS"

put() { look put "$BUCKET" "$1" "someone else's"; }

# The ledger file of s3://$BUCKET/PREFIX, whatever the endpoint.
ledger_of() {
	printf '%s\0%s\0' "$BUCKET" "$1" | sha256sum |
		awk -v d="$LEDGERS" '{ print d "/" $1 ".ledger" }'
}
# Write a record's first line as the caller would, as the server's OS user,
# through foreign server SERVER (none: the SDK's chain).
begin_record() {
	install -d -m 700 -o postgres "$LEDGERS"
	runuser -u postgres -- bash -c "umask 077; printf 'export\t%s\ts3://$BUCKET/%s\t%s\n' \
		\"\$(date -u +%Y-%m-%dT%H:%M:%SZ)\" '$1' '${3:-}' >'$2'"
}

# Sweep in psql with SQLSTATEs shown; output in OUT.
sweep() {
	OUT=$(psql -X -A -t -q -v VERBOSITY=verbose -c "SELECT * FROM parallel_export_parquet_sweep('$1')" 2>&1)
}

[[ -z "$(ledger_files)" ]]
ok $? "premise: no ledger file before the harness" "$(ledger_files)"

# --- no record
sweep "s3://$BUCKET/none/"
[[ "$OUT" == "s3://$BUCKET/none/|f|0|0" ]]
ok $? "a target without a record: nothing to do" "$OUT"
[[ -z "$(ledger_files)" ]]
ok $? "the sweep of a target without a record made no ledger file"

# --- a forged dead record, with foreign objects beside it
PREFIX=dead/
LEDGER="$(ledger_of "$PREFIX")"
put "${PREFIX}foreign.parquet"
foreign_upload="$(forge upload "${PREFIX}part-00009-ffffffffffff.parquet")"
begin_record "$PREFIX" "$LEDGER"
forge dead "$LEDGER" "$PREFIX" >/dev/null
before="$(state_of "$PREFIX")"
[[ "$(cut -d' ' -f1,2 <<<"$before")" == "object ${PREFIX}_SUCCESS
object ${PREFIX}foreign.parquet
object ${PREFIX}part-00000-0123456789ab.parquet
upload ${PREFIX}part-00001-0123456789ab.parquet
upload ${PREFIX}part-00002-0123456789ab.parquet
upload ${PREFIX}part-00009-ffffffffffff.parquet" ]]
ok $? "premise: the export's objects and uploads and the foreign ones are there" "$before"
grep -q "^upload ${PREFIX}part-00001" "$LEDGER" && ! grep -q "^upload ${PREFIX}part-00002" "$LEDGER"
ok $? "premise: part 1's upload id is recorded, part 2's is not" "$(cat "$LEDGER")"

# --- a live process holds the lock
flock -x -o "$LEDGER" sleep 600 &
holder=$!
wait_until "! lock_free '$LEDGER'"
ok $? "premise: the lock is held by a live process"
sweep "s3://$BUCKET/$PREFIX"
grep -q "55006: another export into \"s3://$BUCKET/$PREFIX\" is running" <<<"$OUT"
ok $? "a locked record is refused as a running export (55006)" "$OUT"
[[ "$(state_of "$PREFIX")" == "$before" && -s "$LEDGER" ]]
ok $? "nothing was touched while the lock was held"
pkill -P "$holder"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
holder=""
lock_free "$LEDGER"
ok $? "premise: the lock is free once its holder is gone"

# --- the sweep
sweep "s3://$BUCKET/$PREFIX"
[[ "$OUT" == "s3://$BUCKET/$PREFIX|t|2|2" ]]
ok $? "the dead record is swept: 2 uploads aborted, 2 objects deleted" "$OUT"
after="$(state_of "$PREFIX")"
[[ "$after" == "$(grep -e "^object ${PREFIX}foreign.parquet " -e " $foreign_upload\$" <<<"$before")" ]]
ok $? "only the foreign object and the foreign upload are left" "$after"
[[ -z "$(ledger_files)" ]]
ok $? "the ledger file is removed once everything was undone"
sweep "s3://$BUCKET/$PREFIX"
[[ "$OUT" == "s3://$BUCKET/$PREFIX|f|0|0" && "$(state_of "$PREFIX")" == "$after" ]]
ok $? "sweeping again does nothing" "$OUT"

# --- a record the sweep cannot use is kept
PREFIX=corrupt/
LEDGER="$(ledger_of "$PREFIX")"
begin_record "$PREFIX" "$LEDGER"
forge dead "$LEDGER" "$PREFIX" >/dev/null
echo "rename ${PREFIX}part-00000-0123456789ab.parquet" >>"$LEDGER"
before="$(state_of "$PREFIX")"
sweep "s3://$BUCKET/$PREFIX"
grep -q "records no known step" <<<"$OUT"
ok $? "a record with an unknown step is refused" "$OUT"
[[ "$(state_of "$PREFIX")" == "$before" ]]
ok $? "nothing of a refused record was touched"
[[ -s "$LEDGER" ]] && lock_free "$LEDGER"
ok $? "the refused record is kept, its lock free"
rm -f "$LEDGER"

# --- a dead record whose _SUCCESS cannot be taken back (s3_success_denied:
# every request of the sweeping worker for _SUCCESS fails before it is sent):
# the sweep function and the next export into the target stop at it, delete
# no part it names, abort no upload, and keep the record, its lock free.
# The control: the same record swept without the fault.
PREFIX=stuck/
LEDGER="$(ledger_of "$PREFIX")"
begin_record "$PREFIX" "$LEDGER"
forge dead "$LEDGER" "$PREFIX" >/dev/null
before="$(state_of "$PREFIX")"
[[ $(grep -c '^object ' <<<"$before") == 2 && $(grep -c '^upload ' <<<"$before") == 2 ]] &&
	grep -q "^success " "$LEDGER"
ok $? "stuck _SUCCESS: premise: the dead export's _SUCCESS, part and uploads are there, its record has success" "$before"
record="$(cat "$LEDGER")"
OUT=$(psql -X -A -t -q -c "SET parallel_export_parquet.fault_injection = 's3_success_denied'" \
	-c "SELECT * FROM parallel_export_parquet_sweep('s3://$BUCKET/$PREFIX')" 2>&1)
grep -q "injected fault: access to _SUCCESS denied" <<<"$OUT"
ok $? "stuck _SUCCESS: the sweep function fails at _SUCCESS" "$OUT"
[[ "$(state_of "$PREFIX")" == "$before" && "$(cat "$LEDGER")" == "$record" ]] && lock_free "$LEDGER"
ok $? "stuck _SUCCESS: the sweep function touched nothing and kept the record" "$(state_of "$PREFIX")"
OUT=$(psql -X -A -t -q -c "SET parallel_export_parquet.fault_injection = 's3_success_denied'" \
	-c "SELECT parallel_export_parquet('pep_sweep_rows', 's3://$BUCKET/${PREFIX%/}', 2)" 2>&1)
grep -q "could not sweep what an earlier export into \"s3://$BUCKET/$PREFIX\" left" <<<"$OUT" &&
	grep -q "injected fault: access to _SUCCESS denied" <<<"$OUT"
ok $? "stuck _SUCCESS: the next export fails sweeping at _SUCCESS" "$OUT"
[[ "$(state_of "$PREFIX")" == "$before" && "$(ledger_files)" == "$LEDGER" && "$(cat "$LEDGER")" == "$record" ]] &&
	lock_free "$LEDGER"
ok $? "stuck _SUCCESS: the next export touched nothing and kept the dead record" "$(state_of "$PREFIX")"$'\n'"$(cat "$LEDGER")"
sweep "s3://$BUCKET/$PREFIX"
[[ "$OUT" == "s3://$BUCKET/$PREFIX|t|2|2" && -z "$(state_of "$PREFIX")" && -z "$(ledger_files)" ]]
ok $? "stuck _SUCCESS, control: without the fault the kept record is swept whole" "$OUT"$'\n'"$(state_of "$PREFIX")"

# --- a link at the ledger's name
PREFIX=linked/
LEDGER="$(ledger_of "$PREFIX")"
echo "victim" >"$WORK/victim"
chown postgres "$WORK/victim"
ln -s "$WORK/victim" "$LEDGER"
sweep "s3://$BUCKET/$PREFIX"
grep -q "cannot use ledger file" <<<"$OUT" && grep -q "symbolic link" <<<"$OUT"
ok $? "a link at the ledger's name is refused" "$OUT"
[[ -L "$LEDGER" && "$(cat "$WORK/victim")" == victim ]]
ok $? "the link and its target are left as they were"
rm -f "$LEDGER"

# --- real exports killed mid-write: worker 0 hangs with its part's upload
# pending, and the caller (not a worker) is killed outright: no cleanup
# callback runs anywhere, and the postmaster's crash restart follows.
# Leaves the dead export's uploads' lines in DEAD_UPLOADS.
export_uploads() {
	state_of "$1" | grep "^upload ${1}part-[0-9]*-[0-9a-f]\{12\}\.parquet " | grep -v ffffffffffff
}
kill_mid_write() {
	local app="$1" prefix="$2" caller unrecorded
	start_export "$app" "SET parallel_export_parquet.fault_injection = 'hang:any:1';" \
		"SELECT parallel_export_parquet('pep_sweep_rows', 's3://$BUCKET/${prefix%/}', 2)"
	wait_until "[[ \$(sql \"SELECT count(*) FROM pg_stat_activity w JOIN pg_stat_activity l ON w.leader_pid = l.pid
		WHERE l.application_name = '$app' AND w.backend_type = 'parallel worker'
		AND w.query = '$HANG_MARK'\") -ge 1 ]]"
	ok $? "$app: premise: a worker hangs mid-write"
	[[ -n "$(export_uploads "$prefix")" && $(ledger_files | wc -l) == 1 ]] && grep -q "^upload " "$(ledger_files)"
	ok $? "$app: premise: its uploads are pending and recorded" \
		"$(state_of "$prefix")"$'\n'"$(cat "$(ledger_files)" 2>&1)"
	caller=$(caller_pid "$app")
	kill -9 "$caller"
	finish_export "$app"
	wait_until "sql 'SELECT 1' >/dev/null 2>&1"
	DEAD_UPLOADS="$(export_uploads "$prefix")"
	unrecorded=$(while read -r _ key _; do
		grep -qxF "key $key" "$(ledger_files)" || echo "$key"
	done <<<"$DEAD_UPLOADS")
	[[ -n "$DEAD_UPLOADS" && -z "$unrecorded" ]] && lock_free "$(ledger_files)"
	ok $? "$app: premise: after the caller's SIGKILL and the crash restart its uploads are pending, each recorded, and its record's lock free" \
		"$OUT"$'\n'"$(state_of "$prefix")"$'\n'"$(cat "$(ledger_files)" 2>&1)"
}

PREFIX=killed/
foreign_upload="$(forge upload "${PREFIX}part-00009-ffffffffffff.parquet")"
kill_mid_write pep_sweep_killed "$PREFIX"
log_from=$(($(wc -l <"$PEP_LOG") + 1))
OUT=$(sql "SELECT parallel_export_parquet('pep_sweep_rows', 's3://$BUCKET/killed', 2)" 2>&1)
[[ "$OUT" == "$ROWS" ]]
ok $? "the next export into the target succeeds" "$OUT"
tail -n +"$log_from" "$PEP_LOG" | grep -qF "s3://$BUCKET/$PREFIX\" that did not finish"
ok $? "the next export swept the dead record first, and logged it" "$(tail -n +"$log_from" "$PEP_LOG" | head -20)"
after="$(state_of "$PREFIX")"
[[ "$(grep '^upload ' <<<"$after")" == "upload ${PREFIX}part-00009-ffffffffffff.parquet $foreign_upload" ]]
ok $? "the dead export's uploads are aborted, the foreign one is left" "$after"
grep -q "^object ${PREFIX}_SUCCESS " <<<"$after" && [[ -z "$(ledger_files)" ]]
ok $? "the new export is published and its ledger file removed" "$after"$'\n'"$(ledger_files)"

PREFIX=killed-swept/
foreign_upload="$(forge upload "${PREFIX}part-00009-ffffffffffff.parquet")"
kill_mid_write pep_sweep_killed2 "$PREFIX"
put "${PREFIX}foreign.parquet"
before="$(state_of "$PREFIX")"
sweep "s3://$BUCKET/$PREFIX"
[[ "$OUT" == "s3://$BUCKET/$PREFIX|t|$(wc -l <<<"$DEAD_UPLOADS")|0" ]]
ok $? "the sweep function undoes a killed export: its $(wc -l <<<"$DEAD_UPLOADS") upload(s) aborted" "$OUT"$'\n'"$before"
after="$(state_of "$PREFIX")"
[[ "$after" == "$(grep -v -F "$DEAD_UPLOADS" <<<"$before")" && -z "$(ledger_files)" ]]
ok $? "only the foreign object and upload are left, and no ledger file" "$before"$'\n---\n'"$after"
sweep "s3://$BUCKET/$PREFIX"
[[ "$OUT" == "s3://$BUCKET/$PREFIX|f|0|0" && "$(state_of "$PREFIX")" == "$after" ]]
ok $? "the sweep function on a target without a record does nothing" "$OUT"

# --- A copy of the data directory while exports run.  Two exports are held
# mid-write by a gate: their query calls pep_sweep_gate(), which reads a
# table the harness keeps locked, so they resume the moment it lets go.  A
# real pg_basebackup of this cluster then starts as a hot standby on another
# port.  It carries no ledger file; a ledger file copied by other means (a
# file-level copy) names another owner, and the copy neither exports into
# its target nor sweeps it.  Neither touches the running exports' uploads,
# which then complete.  Last, two servers into one target: the copy exports
# into the second held target and publishes first; when the primary's export
# there resumes, its conditional _SUCCESS write is refused, and it fails and
# takes its parts back.
COPY="$WORK/copy"
COPYPORT=$((PEP_PORT + 2000))
csql() { psql -X -A -t -q -p "$COPYPORT" -v VERBOSITY=verbose "$@" 2>&1; }
sql "DROP TABLE IF EXISTS pep_sweep_gate; CREATE TABLE pep_sweep_gate ();
	CREATE OR REPLACE FUNCTION pep_sweep_gate(id bigint) RETURNS boolean LANGUAGE plpgsql STABLE AS
	\$\$ BEGIN IF id = 20000 THEN PERFORM FROM pep_sweep_gate; END IF; RETURN true; END \$\$" >/dev/null
mkfifo "$WORK/gate"
psql -X -q -f "$WORK/gate" >"$WORK/gate.out" 2>&1 &
gate=$!
exec 7>"$WORK/gate"
echo "BEGIN; LOCK pep_sweep_gate IN ACCESS EXCLUSIVE MODE;" >&7
wait_until "[[ \$(sql \"SELECT count(*) FROM pg_locks WHERE relation = 'pep_sweep_gate'::regclass AND granted\") == 1 ]]"
ok $? "copy: premise: the gate is shut" "$(cat "$WORK/gate.out")"
GATED=30000
gated="'SELECT * FROM pep_sweep_rows WHERE id <= $GATED AND pep_sweep_gate(id)'"
for target in copied twoservers; do
	start_export "pep_sweep_$target" "" "SELECT parallel_export_parquet($gated, 's3://$BUCKET/$target', 2)"
done
# A worker records "upload K ID" once CreateMultipartUpload answered, so the
# store lists an upload before its record names it: wait for both.
LEDGER="$(ledger_of copied/)"
wait_until "[[ \$(sql \"SELECT count(*) FROM pg_locks WHERE relation = 'pep_sweep_gate'::regclass AND NOT granted\") == 2 ]] &&
	[[ -n \"\$(export_uploads copied/)\" && -n \"\$(export_uploads twoservers/)\" ]] &&
	grep -q '^upload ' \"\$LEDGER\" 2>/dev/null"
ok $? "copy: premise: two exports wait at the gate with their uploads pending and recorded"
grep -q "^upload " "$LEDGER" && grep -q "^owner " "$LEDGER" && ! lock_free "$LEDGER"
ok $? "copy: premise: the held export's record names its owner and uploads, its lock held" "$(cat "$LEDGER")"
before="$(export_uploads copied/)"
pep_as_postgres "$(pep_bindir)/pg_basebackup" -h "$PEP_SOCK" -p "$PEP_PORT" -U postgres -D "$COPY" \
	-c fast -X stream -R >"$WORK/basebackup.log" 2>&1
ok $? "copy: pg_basebackup of the cluster while the exports run" "$(cat "$WORK/basebackup.log")"
[[ -z "$(find "$COPY" -name '*.ledger')" ]]
ok $? "copy: the base backup holds no ledger file" "$(find "$COPY" -name '*.ledger')"
env AWS_ENDPOINT_URL="$PEP_S3_ENDPOINT" AWS_ACCESS_KEY_ID="$PEP_S3_IDENTITY" \
	AWS_SECRET_ACCESS_KEY="$PEP_S3_CREDENTIAL" AWS_REGION=us-east-1 \
	runuser -u postgres -- "$(pep_bindir)/pg_ctl" -D "$COPY" -l "$WORK/copy.log" -w -t 120 \
	-o "-p $COPYPORT" start >/dev/null 7>&-
[[ "$(csql -c 'SELECT pg_is_in_recovery()')" == t ]]
ok $? "copy: premise: it runs as a hot standby on port $COPYPORT" "$(tail -5 "$WORK/copy.log")"
# What of BEFORE (the running export's objects and uploads) is gone now.
lost() { LC_ALL=C comm -23 <(echo "$before") <(state_of copied/); }
OUT=$(csql -c "SELECT * FROM parallel_export_parquet_sweep('s3://$BUCKET/copied')")
[[ "$OUT" == "s3://$BUCKET/copied/|f|0|0" && -z "$(lost)" ]]
ok $? "copy: its sweep of the target finds no record and touches nothing" "$OUT"$'\n'"$(lost)"
install -d -m 700 -o postgres "$COPY/pgsql_tmp_parallel_export_parquet"
cp --preserve=mode,ownership,timestamps "$LEDGER" "$COPY/pgsql_tmp_parallel_export_parquet/"
copied="$COPY/pgsql_tmp_parallel_export_parquet/$(basename "$LEDGER")"
cmp -s "$LEDGER" "$copied"
ok $? "copy: premise: the record copied file by file into the copy, its lock free there"
OUT=$(csql -c "SELECT parallel_export_parquet('pep_sweep_rows', 's3://$BUCKET/copied', 2)")
grep -q "55000: ledger file \"$copied\" holds the record of another server" <<<"$OUT"
ok $? "copy: an export into the copied record's target is refused (55000)" "$OUT"
OUT=$(csql -c "SELECT * FROM parallel_export_parquet_sweep('s3://$BUCKET/copied')")
grep -q "holds the record of another server" <<<"$OUT" && grep -q "HINT:  Sweep the target on the server that wrote the record" <<<"$OUT"
ok $? "copy: the sweep refuses the copied record, with a hint" "$OUT"
[[ -z "$(lost)" ]] && cmp -s "$LEDGER" "$copied"
ok $? "copy: the running export's uploads and the copied record are untouched" "$(lost)"
OUT=$(csql -c "SELECT parallel_export_parquet('SELECT * FROM pep_sweep_rows WHERE id <= 1000', 's3://$BUCKET/twoservers', 2)")
[[ "$OUT" == 1000 ]]
ok $? "two servers: the copy exports into the held export's target and publishes first" "$OUT"
printf 'COMMIT;\n\\q\n' >&7
exec 7>&-
wait "$gate"
gate=""
for target in copied twoservers; do
	finish_export "pep_sweep_$target"
	eval "out_$target=\$OUT"
done
[[ "$out_copied" == "$GATED" ]] && grep -q "^object copied/_SUCCESS " <<<"$(state_of copied/)" &&
	[[ -z "$(export_uploads copied/)" ]]
ok $? "copy: the primary's held export completes, published" "$out_copied"$'\n'"$(state_of copied/)"
grep -q "could not write \"s3://$BUCKET/twoservers/_SUCCESS\"" <<<"$out_twoservers" &&
	grep -q "conditional write was refused" <<<"$out_twoservers"
ok $? "two servers: the primary's export there fails, its _SUCCESS write refused" "$out_twoservers"
after="$(state_of twoservers/)"
[[ "$(look manifest "$BUCKET" twoservers/_SUCCESS | awk '$1 == "rows" { print $2 }')" == 1000 &&
	"$(grep -c '^object ' <<<"$after")" == $(($(look manifest "$BUCKET" twoservers/_SUCCESS | grep -c '^part ') + 1)) &&
	-z "$(grep '^upload ' <<<"$after")" && -z "$(ledger_files)" ]]
ok $? "two servers: only the copy's export is there, whole; the loser took its parts back" "$after"
runuser -u postgres -- "$(pep_bindir)/pg_ctl" -D "$COPY" -m immediate -w stop >/dev/null
rm -rf "$COPY"

# --- through a foreign server: endpoint and keys from the catalog, none in
# the server's environment any more
s3case_restart
s3case_need $? "the cluster restarted without the SDK's variables"
sql "DROP SERVER IF EXISTS regress_sweep_s3 CASCADE;
	CREATE SERVER regress_sweep_s3 FOREIGN DATA WRAPPER parallel_export_parquet_s3
		OPTIONS (endpoint '$PEP_S3_ENDPOINT', region 'us-east-1');
	CREATE USER MAPPING FOR CURRENT_USER SERVER regress_sweep_s3
		OPTIONS (access_key_id '$PEP_S3_IDENTITY', secret_access_key '$PEP_S3_CREDENTIAL')" >/dev/null
PREFIX=served/
LEDGER="$(ledger_of "$PREFIX")"
begin_record "$PREFIX" "$LEDGER" regress_sweep_s3
forge dead "$LEDGER" "$PREFIX" >/dev/null
OUT=$(psql -X -A -t -q -c "SELECT * FROM parallel_export_parquet_sweep('s3://$BUCKET/$PREFIX', s3_server => 'regress_sweep_s3')" 2>&1)
[[ "$OUT" == "s3://$BUCKET/$PREFIX|t|2|2" && -z "$(state_of "$PREFIX")" && -z "$(ledger_files)" ]]
ok $? "a record of a foreign server's target is swept with the server's settings" "$OUT"
! grep -qF "$PEP_S3_CREDENTIAL" "$PEP_LOG"
ok $? "the secret is nowhere in the server log"
sql "DROP SERVER regress_sweep_s3 CASCADE" >/dev/null

# --- privileges
sql "DROP ROLE IF EXISTS $ROLE; CREATE ROLE $ROLE LOGIN" >/dev/null
as_role() { psql -X -A -t -q -U "$ROLE" -c "SELECT * FROM parallel_export_parquet_sweep('s3://$BUCKET/none/')" 2>&1; }
OUT=$(as_role)
grep -q "permission denied for function parallel_export_parquet_sweep" <<<"$OUT"
ok $? "PUBLIC cannot call the sweep" "$OUT"
sql "GRANT EXECUTE ON FUNCTION parallel_export_parquet_sweep(text, text) TO $ROLE" >/dev/null
OUT=$(as_role)
grep -q "permission denied to sweep an export's record" <<<"$OUT"
ok $? "EXECUTE without pg_write_server_files is refused" "$OUT"
sql "GRANT pg_write_server_files TO $ROLE" >/dev/null
OUT=$(as_role)
[[ "$OUT" == "s3://$BUCKET/none/|f|0|0" ]]
ok $? "control: with pg_write_server_files it runs" "$OUT"
sql "REVOKE ALL ON FUNCTION parallel_export_parquet_sweep(text, text) FROM $ROLE; REVOKE pg_write_server_files FROM $ROLE" >/dev/null

s3look_done
tap_done
