#!/usr/bin/env bash
# regress/t_disk_full.sh: an export that fills its file system fails with
# SQLSTATE 53100 (disk_full), as PostgreSQL's own full disk does, and leaves
# the space as it found it.
#
# A worker's write that fails where too little space is left becomes a
# DiskFullException (parquet-writer), which pljava-glue maps to 53100 with a
# hint; any other I/O error stays 58030.  The case: a 6 MB tmpfs mounted for
# this harness, and an export of about 20 MB of md5 text into it, with 1 and
# with 2 workers.  Premises checked, not assumed: the mount is a tmpfs of
# that size with room before each export; the exported table really is
# larger than the mount (the same export into the harness's own directory
# succeeds and its parts hold more than 6 MB); a small export into the same
# mount succeeds (the control: the mount takes exports, so the failure is
# its size).  After each failure: nothing left in the mount (no target,
# staging directory or lock) and all of its space usable again, no worker
# alive.
#
# Needs root (the mount is made where the server sees it, and unmounted when
# the script ends) and a running cluster from tools/cluster.sh with the
# extension installed; without the right to mount it skips.  Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# shellcheck source=lib/tap.sh
source "$here/lib/tap.sh"
# shellcheck source=lib/export.sh
source "$here/lib/export.sh"

WORK="${PEP_HARNESS_OUT:-$PEP_OUT}/disk_full"
MNT="$WORK/full"
SIZE_KB=6144
ROWS=200000

# Three md5 texts a row, which neither dictionaries nor snappy shrink much.
fresh_work pep_full_small 100
sql "DROP TABLE IF EXISTS pep_full;
	CREATE TABLE pep_full AS SELECT g::bigint AS id, md5(g::text) AS s, md5(g || 'a') AS a,
		md5(g || 'b') AS b FROM generate_series(1, $ROWS) g;
	ANALYZE pep_full" >/dev/null

mkdir -p "$MNT"
if ! mount -t tmpfs -o "size=${SIZE_KB}k,mode=0755" pep_full "$MNT" 2>"$WORK/mount.err"; then
	echo "1..0 # skip cannot mount a tmpfs here: $(cat "$WORK/mount.err")"
	exit 0
fi
# Lazily: a mount still busy when the script ends is detached all the same.
trap 'umount -l "$MNT" 2>/dev/null' EXIT
chown postgres "$MNT"

# Usable bytes of the mount for the server's OS user.
usable() { runuser -u postgres -- df --output=avail -B1 "$MNT" | tail -1 | tr -d ' '; }
# Entries in the mount, one line.
entries() { ls -A "$MNT" | tr '\n' ' '; }

fs=$(stat -f -c %T "$MNT")
room=$(usable)
[[ "$fs" == tmpfs && "$room" -ge $(((SIZE_KB - 64) * 1024)) && -z "$(entries)" ]]
ok $? "premise: $MNT is an empty tmpfs of ${SIZE_KB} kB with room" "type $fs, $room bytes usable, entries: $(entries)"

# The table is bigger than the mount: exported where there is room, its parts take more.
export_ok pep_full "$WORK/roomy" 2 "$ROWS" "premise: pep_full exports into a directory with room"
bytes=$(find "$WORK/roomy" -name 'part-*.parquet' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
[[ "$bytes" -gt $((SIZE_KB * 1024)) ]]
ok $? "premise: pep_full's parts take more than the mount ($bytes bytes)"
rm -rf "$WORK/roomy"

# The control: the mount takes an export that fits.
export_ok pep_full_small "$MNT/small" 1 100 "control: a small export into the mount succeeds"
rm -rf "$MNT/small"
[[ -z "$(entries)" ]]
ok $? "control's output removed" "$(entries)"

for workers in 1 2; do
	target="$MNT/out$workers"
	room=$(usable)
	out=$(psql -X -q -v ON_ERROR_STOP=1 -c "\\set VERBOSITY verbose" \
		-c "SELECT parallel_export_parquet('pep_full', '$target', $workers)" 2>&1)
	rc=$?
	[[ "$rc" -ne 0 && "$out" == *"ERROR:  53100:"* ]]
	ok $? "$workers worker(s): the export fails with SQLSTATE 53100" "rc $rc; $out"
	[[ "$out" == *"DiskFullException: the file system is full"* ]]
	ok $? "$workers worker(s): the detail names the full file system" "$out"
	[[ "$out" == *"HINT:  Free space on the file system of the target directory"* ]]
	ok $? "$workers worker(s): the hint says what to do" "$out"
	assert_clean "$target" "$workers worker(s)"
	[[ -z "$(entries)" && "$(usable)" -ge "$room" ]]
	ok $? "$workers worker(s): the mount is empty and all its space usable again" \
		"entries: $(entries); usable $(usable) of $room before"
done

tap_done
