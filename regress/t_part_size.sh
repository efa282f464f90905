#!/usr/bin/env bash
# regress/t_part_size.sh: a worker's part ends at the default file_size_bytes, 1 GiB.
#
# The default bounds a worker's memory, which parquet-java's per-row-group
# footer metadata would otherwise grow with the table (OptionDefaults), so
# it must hold without the option being passed.  One worker exports a query
# of 1,100 rows of 1 MiB (uncompressed, no dictionary, no statistics: the
# part's bytes are the values' bytes) and must write two parts, the first
# ending within one row group past 1 GiB.  The control: the same export with
# file_size_bytes => 0 writes one part holding all of it, so the split comes
# from the limit and 0 means no limit.
#
# Premise checked, not assumed: the export wrote more than 1 GiB, so a
# single part would have passed the limit.  Needs a running cluster from
# tools/cluster.sh with the extension installed, and 2.2 GB of free disk
# space under PEP_OUT (one export at a time).  Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/tap.sh
source "$here/lib/tap.sh"

WORK="${PEP_HARNESS_OUT:-$PEP_OUT}/part-size"
MIB=$((1024 * 1024))
GIB=$((1024 * MIB))
ROWS=1100
# A part ends at the first row group written past the limit: at most one
# row group (row_group_bytes, 64 MiB) and a footer beyond it.
SLACK=$((65 * MIB))
SOURCE="SELECT g AS id, repeat(chr(97 + g % 26), $MIB) AS v FROM generate_series(1, $ROWS) AS g"
PLAIN="compression => 'uncompressed', dictionary => false, statistics => false"

rm -rf "$WORK"
mkdir -p "$WORK"
chown postgres "$WORK"
sql "CREATE EXTENSION IF NOT EXISTS parallel_export_parquet" >/dev/null

# Sizes of DIR's parts, in name order, one per line.
part_sizes() { find "$1" -name 'part-*.parquet' -printf '%f %s\n' | sort | cut -d' ' -f2; }

dir="$WORK/default"
got=$(sql "SELECT parallel_export_parquet(\$q\$$SOURCE\$q\$, '$dir', 1, $PLAIN)" 2>&1)
[[ $got == "$ROWS" ]]
ok $? "the default export returned every row" "$got"
mapfile -t sizes < <(part_sizes "$dir")
total=0
for s in "${sizes[@]}"; do total=$((total + s)); done
((total > GIB))
ok $? "premise: the export wrote more than 1 GiB ($total bytes)"
((${#sizes[@]} == 2))
ok $? "the default split one worker's export into two parts (${#sizes[@]})" "$(ls -l "$dir")"
((${sizes[0]:-0} >= GIB && ${sizes[0]:-0} <= GIB + SLACK))
ok $? "the first part ended within one row group past 1 GiB (${sizes[0]:-none} bytes)"
[[ -f $dir/_SUCCESS ]]
ok $? "the split export is complete"
rm -rf "$dir"

dir="$WORK/unlimited"
got=$(sql "SELECT parallel_export_parquet(\$q\$$SOURCE\$q\$, '$dir', 1, $PLAIN, file_size_bytes => 0)" 2>&1)
[[ $got == "$ROWS" ]]
ok $? "control: the export with file_size_bytes => 0 returned every row" "$got"
mapfile -t sizes < <(part_sizes "$dir")
((${#sizes[@]} == 1 && ${sizes[0]} > total - MIB))
ok $? "control: file_size_bytes => 0 wrote one part of it all (${sizes[*]} bytes)" "$(ls -l "$dir")"
rm -rf "$WORK"

tap_done
