#!/usr/bin/env bash
# regress/t_writeback.sh: a part's bytes go to disk while the export runs, not all at its close,
# and leave the page cache behind them.
#
# A worker asks the kernel to start writing its part back every 8 MB the
# part grows (pep_dir_part_grew in pep_dirtarget.c), so the fsync that closes the part
# finds little left to write, and drops what the request before covered from
# the page cache, so an export holds about two intervals of its part there,
# not the whole output.  Both are hints whose errors are ignored, so only
# this harness would see them stop working.  It pauses an export at the
# hang fault with a part of at least 24 MB open, and asks the kernel through
# cachestat(2) (regress/lib/cachestat.c) how much of the part is still dirty
# (at most the bytes written since the last request) and how much is cached
# at all (at most those since the request before it); once for a part in
# the staging directory, once for one in a partition folder, which the
# worker reaches by another path.
#
# Premises checked, not assumed: the worker sat at the fault with its part
# open, and the part was big enough for the check to mean something.  The
# control: a file of the same size written into the same directory just
# before the export is still dirty when the part is measured, so the kernel
# did not write the part back on its own in that window, and is still cached
# whole, so the kernel did not drop the part's pages on its own either (this
# machine's memory is not short).  Then the export is
# cancelled and leaves nothing behind.
#
# Needs a running cluster from tools/cluster.sh with the extension
# installed, a C compiler, and Linux 6.5 or later (else the checks are
# skipped, as on a tmpfs, whose pages are never written back).  Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/tap.sh
source "$here/lib/tap.sh"
# shellcheck source=lib/export.sh
source "$here/lib/export.sh"

WORK="${PEP_HARNESS_OUT:-$PEP_OUT}/writeback"
MB=$((1024 * 1024))
# The hint's interval (PEP_WRITEBACK_AFTER) plus one row group of pep_wb at
# row_group_rows 10000 (about 1.1 MB), rounded up: what may be dirty.
DIRTY_MAX=$((10 * MB))
# Two such intervals: what may still be cached.
CACHED_MAX=$((2 * DIRTY_MAX))
PART_MIN=$((24 * MB))

# 300,000 rows of three md5 texts, which neither dictionaries nor snappy
# shrink much: about 110 bytes a row in the part, 73 batches; p puts every
# row into one partition folder.
fresh_work pep_wb 0
sql "DROP TABLE pep_wb;
	CREATE TABLE pep_wb AS SELECT g::bigint AS id, md5(g::text) AS a, md5(g || 'b') AS b,
		md5(g || 'c') AS c, 1 AS p FROM generate_series(1, 300000) g;
	ANALYZE pep_wb" >/dev/null

# Pause an export of pep_wb (more arguments in ARGS) with its part open,
# measure the part and the control, then cancel the export.
case_paused() {
	local label="$1" args="$2"
	local dir="$WORK/paused-${label// /-}" app="pep_writeback_${label// /_}"
	local control="$WORK/control.bin" part size part_cached part_dirty part_wb control_cached control_dirty
	# Written before the export starts, never synced: what the kernel left dirty.
	head -c "$PART_MIN" /dev/urandom >"$control"
	start_export "$app" "SET parallel_export_parquet.fault_injection = 'hang:0:70';" \
		"SELECT parallel_export_parquet('pep_wb', '$dir', 1, row_group_rows => 10000$args)"
	wait_hang "$app" "$dir"
	ok $? "$label: the worker paused after 70 batches with $(staging_parts "$dir") staging part open"

	part=$(find "$(staging_of "$dir")" -name 'part-*.parquet' | head -n 1)
	size=$(stat -c %s "$part" 2>/dev/null || echo 0)
	read -r part_cached part_dirty part_wb < <("$cachestat" "$part")
	read -r control_cached control_dirty _ < <("$cachestat" "$control")
	((size >= PART_MIN))
	ok $? "$label: premise: the part, ${part#"$(staging_of "$dir")"/}, holds at least $((PART_MIN / MB)) MB ($size bytes)"
	((control_dirty >= PART_MIN * 9 / 10))
	ok $? "$label: control: a file written just before the export is still dirty ($control_dirty of $PART_MIN bytes)"
	((part_dirty <= DIRTY_MAX))
	ok $? "$label: the part's bytes are being written back as it grows: $part_dirty of $size bytes dirty, $part_wb under writeback (at most $DIRTY_MAX may be dirty)"
	((control_cached >= PART_MIN * 9 / 10))
	ok $? "$label: control: the file written just before the export is still cached ($control_cached of $PART_MIN bytes)"
	((part_cached <= CACHED_MAX))
	ok $? "$label: the part's written-back bytes leave the page cache: $part_cached of $size bytes cached (at most $CACHED_MAX may be)"

	sql "SELECT pg_cancel_backend($(caller_pid "$app"))" >/dev/null
	finish_export "$app"
	grep -q "canceling statement due to user request" <<<"$OUT"
	ok $? "$label: the paused export was cancelled" "$OUT"
	assert_clean "$dir" "$label: cancelled export"
	rm -f "$control"
}

cachestat="$WORK/cachestat"
fs=$(stat -f -c %T "$WORK")
if ! cc -O2 -o "$cachestat" "$here/lib/cachestat.c"; then
	ok 1 "cachestat helper builds"
elif [[ "$fs" == tmpfs ]]; then
	echo "ok 1 # skip $WORK is on a tmpfs, whose pages are never written back"
	ntest=1
elif ! "$cachestat" "$cachestat" >/dev/null 2>&1 && [[ $? == 2 ]]; then
	echo "ok 1 # skip this kernel has no cachestat(2) (Linux 6.5)"
	ntest=1
else
	case_paused table ""
	case_paused "partition folder" ", partition_by => ARRAY['p']"
fi

tap_done
