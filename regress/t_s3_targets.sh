#!/usr/bin/env bash
# regress/t_s3_targets.sh: an invalid object_store_targets applied as the
# library loads forbids s3:// targets instead of leaving the default "*".
#
# A value given where PostgreSQL applies it without a caller to tell
# (postgresql.conf, ALTER ROLE or DATABASE SET, the client's connection
# options) is only checked once the library loads, and a refused one leaves
# a WARNING and the setting's previous value: the default, which allows
# every bucket. Here a superuser's connection options give a malformed list
# that names bucket lake: the session must refuse s3://lake with the
# setting's own error. The control gives the same list without the typo:
# lake passes the check, and another bucket is refused by the list. pgTAP
# cannot open a second session, hence a harness. Needs a running cluster
# from tools/cluster.sh with the extension installed. Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/tap.sh
source "$here/lib/tap.sh"

sql "CREATE EXTENSION IF NOT EXISTS parallel_export_parquet" >/dev/null

# A new session with the setting in its connection options: exports to each
# target, then the setting's value.
session() {
	local value="$1"
	shift
	local cmds=()
	for target in "$@"; do
		cmds+=(-c "SELECT parallel_export_parquet('SELECT 1', '$target', 1)")
	done
	cmds+=(-c "SHOW parallel_export_parquet.object_store_targets")
	PGOPTIONS="-c client_min_messages=warning -c parallel_export_parquet.object_store_targets=$value" \
		psql -X -A -t -q "${cmds[@]}" 2>&1
}

out=$(session 'lake,,other' 's3://lake/x')
grep -q 'WARNING:  invalid value for parameter "parallel_export_parquet.object_store_targets": "lake,,other"' <<<"$out" &&
	grep -qx '\*' <<<"$out"
ok $? "premise: the malformed value was refused as the library loaded, leaving the default *" "$out"
grep -q 'ERROR:  object storage target "s3://lake/x/" is not allowed' <<<"$out" &&
	grep -q 'The configured value of "parallel_export_parquet.object_store_targets" is invalid' <<<"$out"
ok $? "the session refuses s3:// targets, the bucket it names too" "$out"

out=$(session 'lake,other' 's3://third/x' 's3://lake/x')
grep -qx 'lake,other' <<<"$out" &&
	grep -q 'ERROR:  object storage target "s3://third/x/" is not allowed' <<<"$out"
ok $? "control: the valid value applies, and refuses a bucket it does not list" "$out"
! grep -q 's3://lake/x/" is not allowed' <<<"$out"
ok $? "control: and lets a listed bucket pass" "$out"

tap_done
