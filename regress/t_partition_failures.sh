#!/usr/bin/env bash
# regress/t_partition_failures.sh: a partitioned export that fails leaves
# no folder and no file of its tree anywhere.
#
# The failure harness's ways to die (t_failures.sh), for an export with
# partition_by, whose staging directory is a tree of "k=value" folders:
# a cancel mid-export, an ERROR in one worker, and a SIGKILL of a worker
# followed by the next export's sweep of the dead tree; and an overwrite of
# a partitioned export, cancelled while the replacing tree waits sealed in
# staging, which must leave the old tree exactly as it was.  Each case checks
#   control  the same export without the failure completes, with folders;
#   premise  the failure struck mid-flight: partition folders and a part
#            existed in the staging tree when we acted; for the worker
#            ERROR, the error is the injected one, raised after the worker
#            had written 3 batches, each into a part in a partition folder;
#   outcome  no target, no staging tree, no lock, no parallel worker left;
#   retry    the same export into the same directory then succeeds.
# Mid-flight points come from the fault injection setting, never a timer.
#
# Needs a running cluster from tools/cluster.sh with the extension installed.
# Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/tap.sh
source "$here/lib/tap.sh"
# shellcheck source=lib/export.sh
source "$here/lib/export.sh"

WORK="${PEP_HARNESS_OUT:-$PEP_OUT}/partition-failures"
ROWS=300000
BY="partition_by => ARRAY['k']"

# Partition folders in the staging tree of DIR.
staging_folders() { find "$(staging_of "$1")" -mindepth 1 -type d -name 'k=*' 2>/dev/null | wc -l; }

# A partitioned export of pep_part into DIR completes with its 16 folders.
partitioned_ok() {
	local dir="$1" what="$2" got problems=""
	got=$(sql "SELECT parallel_export_parquet('pep_part', '$dir', 2, $BY)" 2>&1)
	assert_whole "$dir" "$ROWS" "$got" "$what"
	[[ $(find "$dir" -mindepth 1 -maxdepth 1 -type d -name 'k=*' | wc -l) == 16 ]] ||
		problems+="expected 16 folders: $(ls -A "$dir" 2>&1 | tr '\n' ' ')"
	[[ -z "$(find "$dir" -mindepth 2 -name _SUCCESS)" ]] || problems+="_SUCCESS below the root"
	[[ -z "$problems" ]]
	ok $? "$what: 16 partition folders, _SUCCESS only at the root" "$problems"
}

case_cancel() {
	local dir="$WORK/cancel" app="pep_part_cancel"
	partitioned_ok "$WORK/control-cancel" "cancel: control export completes"
	start_export "$app" "SET parallel_export_parquet.fault_injection = 'hang:any:3';" \
		"SELECT parallel_export_parquet('pep_part', '$dir', 2, $BY)"
	wait_hang "$app" "$dir"
	local folders
	folders=$(staging_folders "$dir")
	[[ $folders -ge 1 ]]
	ok $? "cancel: worker paused with $folders partition folder(s) and $(staging_parts "$dir") part(s) staged"
	sql "SELECT pg_cancel_backend($(caller_pid "$app"))" >/dev/null
	finish_export "$app"
	grep -q "canceling statement due to user request" <<<"$OUT"
	ok $? "cancel: the export was cancelled" "$OUT"
	assert_clean "$dir" "cancel"
	partitioned_ok "$dir" "cancel: retry into the same directory succeeds"
}

case_worker_error() {
	local dir="$WORK/error" out
	# A worker fails after writing 3 batches, so its folders and parts existed.
	# Which worker gets 3 batches of the table's scan is not ours to choose:
	# the first to write its 3rd fails.
	out=$(psql -X -A -t -q -c "SET parallel_export_parquet.fault_injection = 'worker_error:any:3'" \
		-c "SELECT parallel_export_parquet('pep_part', '$dir', 2, $BY)" 2>&1)
	grep -q "injected fault after 3 batches" <<<"$out" && grep -Eq "parallel export worker [01]$" <<<"$out"
	ok $? "worker error: the worker's ERROR reaches the caller, naming the worker" "$out"
	assert_clean "$dir" "worker error"
	partitioned_ok "$dir" "worker error: retry succeeds"
}

case_sigkill_worker() {
	local dir="$WORK/sigkill" app="pep_part_sigkill"
	start_export "$app" "SET parallel_export_parquet.fault_injection = 'hang:any:3';" \
		"SELECT parallel_export_parquet('pep_part', '$dir', 2, $BY)"
	wait_hang "$app" "$dir"
	ok $? "sigkill: worker paused with $(staging_folders "$dir") partition folder(s) staged"
	local wpid
	wpid=$(sql "SELECT pid FROM pg_stat_activity WHERE backend_type = 'parallel worker' AND query = '$HANG_MARK'")
	kill -9 "$wpid"
	finish_export "$app"
	wait_until "sql 'SELECT 1' >/dev/null 2>&1"
	ok $? "sigkill: the server came back after the crash restart"
	local problems=""
	[[ -e "$dir" ]] && problems+="target exists"$'\n'
	[[ $(staging_folders "$dir") -ge 1 && $(staging_parts "$dir") -ge 1 ]] ||
		problems+="premise: no dead staging tree with folders and parts to sweep"$'\n'
	[[ -z "$problems" ]]
	ok $? "sigkill: nothing visible, the dead export's staging tree is left" "$problems"

	local before
	before=$(wc -l <"$PEP_LOG")
	partitioned_ok "$dir" "sigkill: the next export into the directory succeeds"
	tail -n +"$((before + 1))" "$PEP_LOG" | grep -q "removed staging directory \"$(staging_of "$dir")\""
	ok $? "sigkill: that export swept the dead staging tree and logged it"
}

case_foreign_in_tree() {
	local dir="$WORK/foreign" staging
	staging=$(staging_of "$dir")
	# A dead staging tree with something no export writes two levels down.
	mkdir -p "$staging/k=1"
	touch "$staging/k=1/part-00000.parquet" "$staging/k=1/notes.txt"
	chown -R postgres "$staging"
	chmod -R go-w "$staging"
	local out
	out=$(sql "SELECT parallel_export_parquet('pep_part', '$dir', 2, $BY)" 2>&1)
	grep -q "cannot sweep staging directory" <<<"$out"
	ok $? "foreign file in a dead tree: the export is refused" "$out"
	[[ -f "$staging/k=1/notes.txt" && -f "$staging/k=1/part-00000.parquet" ]]
	ok $? "foreign file in a dead tree: nothing of the tree was removed"
	rm -f "$staging/k=1/notes.txt"
	partitioned_ok "$dir" "control: without the foreign file the tree is swept and the export succeeds"
}

case_overwrite_cancelled() {
	local dir="$WORK/overwrite" app="pep_part_overwrite" before
	partitioned_ok "$dir" "overwrite: the partitioned export to replace"
	before=$(find "$dir" -printf '%P %y %i %s\n' | sort)
	start_export "$app" "SET parallel_export_parquet.fault_injection = 'pause:publishing';" \
		"SELECT parallel_export_parquet('SELECT * FROM pep_part WHERE k < 4', '$dir', 2, overwrite => true, $BY)"
	wait_until "[[ \$(sql \"SELECT count(*) FROM pg_stat_activity WHERE application_name = '$app'
		AND query = 'parallel_export_parquet fault injection: pause publishing'\") == 1 ]]"
	[[ -f "$(staging_of "$dir")/_SUCCESS" && $(staging_folders "$dir") == 4 &&
		"$(find "$dir" -printf '%P %y %i %s\n' | sort)" == "$before" ]]
	ok $? "overwrite: premise, the new tree waits sealed in staging (4 folders), the old tree is untouched"
	sql "SELECT pg_cancel_backend($(caller_pid "$app"))" >/dev/null
	finish_export "$app"
	grep -q "canceling statement due to user request" <<<"$OUT"
	ok $? "overwrite: the replacing export was cancelled" "$OUT"
	[[ "$(find "$dir" -printf '%P %y %i %s\n' | sort)" == "$before" && ! -e "$(staging_of "$dir")" &&
		! -e "$(lock_of "$dir")" ]]
	ok $? "overwrite: the old tree is exactly as it was, no staging tree or lock left"
	[[ "$(sql "SELECT parallel_export_parquet('SELECT * FROM pep_part WHERE k < 4', '$dir', 2, overwrite => true, $BY)")" == \
		$((ROWS / 4)) && $(find "$dir" -mindepth 1 -maxdepth 1 -type d | wc -l) == 4 && -f "$dir/_SUCCESS" ]]
	ok $? "overwrite: control, the same export without the fault replaces the tree (4 folders left of 16)"
}

rm -rf "$WORK"
mkdir -p "$WORK"
chown postgres "$WORK"
sql "CREATE EXTENSION IF NOT EXISTS parallel_export_parquet; DROP TABLE IF EXISTS pep_part;
	CREATE TABLE pep_part AS SELECT g::bigint AS id, (g % 16)::integer AS k, md5(g::text) AS s
	FROM generate_series(1, $ROWS) g; ANALYZE pep_part" >/dev/null
tmp_before=$(tmp_files)
case_cancel
case_worker_error
case_sigkill_worker
case_foreign_in_tree
case_overwrite_cancelled
rm -rf "$WORK"
sql "DROP TABLE pep_part" >/dev/null
assert_no_new_tmp "$tmp_before" "the partitioned failures"
tap_done
