#!/usr/bin/env bash
# regress/t_s3_exit.sh: an export into s3:// whose workers die or fail once
# _SUCCESS is written, against S3Proxy (the setup is regress/lib/s3case.sh's).
#
# Cases:
#   sigkill      a worker killed outright after _SUCCESS was written: the
#                crash restart leaves the objects and the ledger file's
#                record; the next export into the target sweeps exactly them
#                and succeeds.  The same kill of an overwrite: the sweep puts
#                the replaced export's manifest back, and it is whole;
#   exit order   _SUCCESS written and worker 0 unable to take it back: every
#                part it names stays, with the record, until the sweep
#                removes all; worker 1 terminated on its own after _SUCCESS:
#                worker 0 takes _SUCCESS back, then deletes every part;
#                worker 1 terminated while worker 0 is held just before it
#                decides to write _SUCCESS: worker 0 refuses to (control:
#                released with no worker undoing, it publishes).
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
s3case_setup --duck s3_exit pep_s3 "$ROWS"

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

s3look_done
tap_done
