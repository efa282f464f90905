#!/usr/bin/env bash
# regress/t_s3_partition.sh: exports into s3:// with partition_by, against
# S3Proxy (the setup is regress/lib/s3case.sh's).
#
# Cases: a two-level Hive tree of keys (NULLs, values needing escapes,
# dates): read back by DuckDB's Hive partitioning value by value, the
# manifest lists exactly the keys with their partition; no object before
# publication; at the smallest partition_memory the upload buffers make the
# workers finish parts early, and the values still read back; cancel
# mid-write, a worker ERROR, a worker SIGKILL then the next export's sweep:
# each leaves no object and no upload of the export; overwrite of an
# unpartitioned and of a partitioned export, the old one whole while a
# replacing export is paused and after it is cancelled, and refused with a
# foreign object deep in the old tree.
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
s3case_setup --duck s3_partition pep_s3 "$ROWS"

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
duck_hive() { duck --hive "$@"; }
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
	manifest_rows "$manifest" "$rows" || problems+="manifest rows do not add up to $rows"$'\n'
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

# Overwrite: a partitioned export replaces an unpartitioned one, made here so
# that no other harness's objects are needed ...
got=$(s3_export "'SELECT * FROM pep_s3 WHERE id <= 1000', 's3://$BUCKET/ow', 2")
assert_s3_whole ow/ 1000 "$got" "partitioned overwrite: the unpartitioned export to replace is whole"
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

s3look_done
tap_done
