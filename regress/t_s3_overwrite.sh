#!/usr/bin/env bash
# regress/t_s3_overwrite.sh: whose manifest an overwrite into s3:// acts on,
# and what a crash in the overwrite's tail leaves (issue 42, defects 4 and 5).
#
# S3Proxy on PEP_PORT + 1000 and the cluster restarted with the SDK's
# variables pointing at it are regress/lib/s3case.sh's; what the server holds
# is asked through the S3 API (regress/s3proxy/S3Look.java).  Cases:
#   seal         an export's _SUCCESS carries a seal; the server's manifest
#                key is a 32-byte file of mode 0600 in the data directory,
#                and it is nowhere in the server log;
#   forged       a co-tenant's part-00000-aaaaaaaaaaaa.parquet beside a
#                _SUCCESS that names it, unsealed (as version 1.1 wrote
#                them), with a made-up seal, and a real sealed manifest with
#                the co-tenant's object added to its parts: overwrite is
#                refused with a clear error and a hint, nothing is deleted;
#                control: the real manifest, re-serialized but with its parts
#                as sealed, is overwritten;
#   other key    a real export overwritten while the server holds another
#                key: refused, nothing deleted; control: with the key back,
#                overwritten;
#   tail         an overwrite whose worker 0 is paused at each step of the
#                tail after the commit (pause:committed, pause:superseding,
#                pause:superseded) and killed there with SIGKILL: after the
#                crash restart the record is there, its lock free, and the
#                sweep deletes exactly the replaced export's parts (an object
#                put beside them meanwhile stays), leaves the new export
#                whole and removes the record; the next export into the
#                target sweeps such a record too, and succeeds;
#   denied       an overwrite whose worker 0 cannot delete (s3_delete_denied)
#                succeeds with a WARNING and keeps its record; the sweep
#                under the same fault fails and keeps it; without the fault
#                the sweep deletes the replaced parts.
# Nothing races a timer: the harness waits for the pause marks in
# pg_stat_activity.  Needs a running cluster from tools/cluster.sh with the
# extension installed, Maven (S3Proxy) and a JDK; runs as root.  Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/s3case.sh
source "$here/lib/s3case.sh"

ROWS=20000
KEYFILE="$PEP_DATA/parallel_export_parquet_manifest.key"

# The "other key" case moves the server's key aside: it is back before the
# server restarts.
s3case_cleanup() {
	[[ -f "$WORK/key.saved" ]] && cp -p "$WORK/key.saved" "$KEYFILE"
}
s3case_setup s3_overwrite pep_ow_rows "$ROWS"

# The part keys under PREFIX, sorted.
parts_of() { state_of "$1" | awk '$1 == "object" && $2 ~ /\/part-[^\/]*\.parquet$/ { print $2 }'; }
# The part keys _SUCCESS under PREFIX names, sorted.
manifest_parts() {
	look manifest "$BUCKET" "${1}_SUCCESS" | awk -v p="$1" '$1 == "part" { print p $2 }' | LC_ALL=C sort
}
# An export of the table into PREFIX (no trailing slash), with SQLSTATEs shown.
export_into() {
	psql -X -A -t -q -v VERBOSITY=verbose \
		-c "SET parallel_export_parquet.fault_injection = '${2:-}'" \
		-c "SELECT parallel_export_parquet('pep_ow_rows', 's3://$BUCKET/$1', 2, overwrite => true)" 2>&1
}
sweep() {
	psql -X -A -t -q -c "SET parallel_export_parquet.fault_injection = '${2:-}'" \
		-c "SELECT * FROM parallel_export_parquet_sweep('s3://$BUCKET/$1')" 2>&1
}
# Whether every line of $1 is a line of $2 (both sorted as LC_ALL=C sorts).
has_all() { [[ -z "$(LC_ALL=C comm -23 <(printf '%s\n' "$1") <(printf '%s\n' "$2"))" ]]; }
# The object's bytes as S3Proxy's folder holds them.
object_file() { echo "$PEP_S3_DATA/$BUCKET/$1"; }

[[ -z "$(ledger_files)" ]]
ok $? "premise: no ledger file before the harness" "$(ledger_files)"

# --- seal: the manifest is sealed with the server's key, which stays secret
OUT=$(export_into sealed)
[[ "$OUT" == "$ROWS" ]]
ok $? "seal: an export into an empty prefix succeeds" "$OUT"
grep -q '"seal"' "$(object_file sealed/_SUCCESS)" && grep -q '"HMAC-SHA256"' "$(object_file sealed/_SUCCESS)"
ok $? "seal: its _SUCCESS carries an HMAC-SHA256 seal" "$(head -c 600 "$(object_file sealed/_SUCCESS)")"
[[ -f "$KEYFILE" && ! -L "$KEYFILE" && "$(stat -c '%s %a %U' "$KEYFILE")" == "32 600 postgres" ]]
ok $? "seal: the manifest key is a 32-byte file of mode 0600, the server's" "$(stat -c '%s %a %U' "$KEYFILE" 2>&1)"
key_hex="$(od -An -tx1 -v "$KEYFILE" | tr -d ' \n')"
[[ ${#key_hex} == 64 ]] && ! grep -qi "$key_hex" "$PEP_LOG" && ! grep -rqi "$key_hex" "$PEP_S3_DATA"
ok $? "seal: the key is nowhere in the server log nor in the bucket"

# --- forged manifests: a co-tenant's object named as a part
victim=part-00000-aaaaaaaaaaaa.parquet
declare -A manifest_of
manifest_of[unsealed]='{"format":"parallel_export_parquet","manifest_version":1,"export_id":"aaaaaaaaaaaa","parts":[{"name":"'$victim'","rows":1,"bytes":15}],"rows":1}'
manifest_of[madeup]='{"format":"parallel_export_parquet","manifest_version":2,"export_id":"aaaaaaaaaaaa","parts":[{"name":"'$victim'","rows":1,"bytes":15}],"rows":1,"seal":{"algorithm":"HMAC-SHA256","mac":"'$(printf '%064d' 0)'"}}'
for forged in unsealed madeup; do
	look put "$BUCKET" "$forged/$victim" "co-tenant data" >/dev/null
	look put "$BUCKET" "$forged/_SUCCESS" "${manifest_of[$forged]}" >/dev/null
	before="$(state_of "$forged/")"
	[[ "$(parts_of "$forged/")" == "$forged/$victim" ]]
	ok $? "forged $forged: premise: the co-tenant's part and a _SUCCESS naming it are there" "$before"
	OUT=$(export_into "$forged")
	grep -q "55000: \"s3://$BUCKET/$forged/\" does not hold only a previous export" <<<"$OUT" &&
		grep -q "seal" <<<"$OUT" && grep -q "delete it by hand" <<<"$OUT"
	ok $? "forged $forged: overwrite is refused, saying why and what to do" "$OUT"
	[[ "$(state_of "$forged/")" == "$before" && "$(cat "$(object_file "$forged/$victim")")" == "co-tenant data" ]]
	ok $? "forged $forged: the co-tenant's object and the _SUCCESS are untouched" "$(state_of "$forged/")"
done

# A real sealed export's manifest, compacted: once with the co-tenant's
# object added to its parts, once as it was (the control).
OUT=$(export_into altered)
[[ "$OUT" == "$ROWS" ]]
ok $? "altered: premise: a real export into the prefix" "$OUT"
original="$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])), separators=(",", ":")))' "$(object_file altered/_SUCCESS)")"
added="$(python3 -c 'import json,sys; m = json.loads(sys.argv[1]); m["parts"].append({"name": sys.argv[2], "rows": 1, "bytes": 15}); print(json.dumps(m, separators=(",", ":")))' "$original" "$victim")"
look put "$BUCKET" "altered/$victim" "co-tenant data" >/dev/null
look put "$BUCKET" altered/_SUCCESS "$added" >/dev/null
before="$(state_of altered/)"
[[ "$(manifest_parts altered/)" == "$(parts_of altered/)" ]] && grep -q "altered/$victim" <<<"$before"
ok $? "altered: premise: the manifest lists exactly the parts there, the co-tenant's among them" "$before"
OUT=$(export_into altered)
grep -q "55000: \"s3://$BUCKET/altered/\" does not hold only a previous export" <<<"$OUT" &&
	grep -q "seal does not verify" <<<"$OUT"
ok $? "altered: overwrite of a sealed manifest with a part added is refused" "$OUT"
[[ "$(state_of altered/)" == "$before" ]]
ok $? "altered: nothing was deleted" "$(state_of altered/)"
look delete "$BUCKET" "altered/$victim" >/dev/null
look put "$BUCKET" altered/_SUCCESS "$original" >/dev/null
OUT=$(export_into altered)
[[ "$OUT" == "$ROWS" && "$(manifest_parts altered/)" == "$(parts_of altered/)" ]]
ok $? "altered, control: the same manifest as sealed, re-serialized, is overwritten" "$OUT"$'\n'"$(state_of altered/)"

# --- another key: the server's key replaced by another one
OUT=$(export_into rekeyed)
[[ "$OUT" == "$ROWS" ]]
ok $? "other key: premise: a real export into the prefix" "$OUT"
cp -p "$KEYFILE" "$WORK/key.saved"
head -c 32 /dev/urandom >"$KEYFILE"
before="$(state_of rekeyed/)"
[[ "$(stat -c '%s' "$KEYFILE")" == 32 ]] && ! cmp -s "$KEYFILE" "$WORK/key.saved"
ok $? "other key: premise: the server holds another key"
OUT=$(export_into rekeyed)
grep -q "does not hold only a previous export" <<<"$OUT" && grep -q "seal does not verify" <<<"$OUT" &&
	[[ "$(state_of rekeyed/)" == "$before" ]]
ok $? "other key: an export sealed with another key is not overwritten, nothing deleted" "$OUT"
cp -p "$WORK/key.saved" "$KEYFILE"
rm -f "$WORK/key.saved"
OUT=$(export_into rekeyed)
[[ "$OUT" == "$ROWS" && "$(manifest_parts rekeyed/)" == "$(parts_of rekeyed/)" ]]
ok $? "other key, control: with the server's key back, it is overwritten" "$OUT"

# --- the overwrite's tail: worker 0 killed at each step after the commit.
# Leaves the replaced parts in OLD and the replacing export's id in NEW_ID.
kill_in_tail() {
	local prefix="$1" pause="$2" app="pep_ow_$2" record worker
	OUT=$(export_into "${prefix%/}")
	OLD="$(parts_of "$prefix")"
	[[ "$OUT" == "$ROWS" && -n "$OLD" ]]
	ok $? "tail $pause: premise: a first export into the prefix" "$OUT"
	start_export "$app" "SET parallel_export_parquet.fault_injection = 'pause:$pause';" \
		"SELECT parallel_export_parquet('pep_ow_rows', 's3://$BUCKET/${prefix%/}', 2, overwrite => true)"
	wait_until "[[ \$(sql \"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'parallel worker'
		AND query = '$PAUSE_MARK $pause'\") == 1 ]]"
	ok $? "tail $pause: worker 0 of the overwrite pauses there"
	record="$(cat "$(ledger_files)" 2>&1)"
	NEW_ID="$(grep '^success ' <<<"$record" | cut -d' ' -f2)"
	case $pause in
	committed) grep -q '^committed$' <<<"$record" && ! grep -q '^superseded ' <<<"$record" &&
		has_all "$OLD" "$(parts_of "$prefix")" ;;
	superseding) [[ "$(grep -c '^superseded ' <<<"$record")" == "$(wc -l <<<"$OLD")" ]] &&
		has_all "$OLD" "$(parts_of "$prefix")" ;;
	superseded) [[ "$(grep -c '^superseded ' <<<"$record")" == "$(wc -l <<<"$OLD")" ]] &&
		! grep -qxF "$OLD" <<<"$(parts_of "$prefix")" ;;
	esac
	ok $? "tail $pause: premise: the record says committed, and the replaced parts are where the step leaves them" \
		"$record"$'\n'"$(state_of "$prefix")"
	[[ "$(export_id_of "${prefix}_SUCCESS")" == "$NEW_ID" ]]
	ok $? "tail $pause: premise: _SUCCESS is the replacing export's" "$(export_id_of "${prefix}_SUCCESS") vs $NEW_ID"
	worker=$(sql "SELECT pid FROM pg_stat_activity WHERE backend_type = 'parallel worker' AND query = '$PAUSE_MARK $pause'")
	kill -9 "$worker"
	finish_export "$app"
	wait_until "sql 'SELECT 1' >/dev/null 2>&1"
	[[ $(ledger_files | wc -l) == 1 ]] && lock_free "$(ledger_files)" && grep -q '^committed$' "$(ledger_files)"
	ok $? "tail $pause: premise: after the SIGKILL and the crash restart the committed record is there, its lock free" \
		"$OUT"$'\n'"$(ledger_files)"
}

# The export into PREFIX is NEW_ID's, whole: the parts there are exactly its
# manifest's, none of OLD among them.
assert_replaced() {
	local prefix="$1" what="$2" parts
	parts="$(parts_of "$prefix")"
	[[ "$(export_id_of "${prefix}_SUCCESS")" == "$NEW_ID" && -n "$parts" && "$parts" == "$(manifest_parts "$prefix")" ]] &&
		! grep -qxF "$OLD" <<<"$parts" && [[ -z "$(ledger_files)" ]]
	ok $? "$what" "$(state_of "$prefix")"$'\n'"replaced: $OLD"$'\n'"$(ledger_files)"
}

for pause in committed superseding superseded; do
	kill_in_tail "tail-$pause/" "$pause"
	look put "$BUCKET" "tail-$pause/foreign.txt" "someone else's" >/dev/null
	OUT=$(sweep "tail-$pause/")
	[[ "$OUT" == "s3://$BUCKET/tail-$pause/|t|0|$(wc -l <<<"$OLD")" ]]
	ok $? "tail $pause: the sweep deletes the $(wc -l <<<"$OLD") replaced part(s)" "$OUT"
	assert_replaced "tail-$pause/" "tail $pause: only the replacing export's parts are left, and no record"
	grep -q "^object tail-$pause/foreign.txt " <<<"$(state_of "tail-$pause/")"
	ok $? "tail $pause: the object put beside them is left"
done

# The next export sweeps such a record first, and then overwrites.
kill_in_tail tail-next/ committed
OUT=$(export_into tail-next)
[[ "$OUT" == "$ROWS" && -z "$(ledger_files)" && "$(parts_of tail-next/)" == "$(manifest_parts tail-next/)" ]] &&
	! grep -qxF "$OLD" <<<"$(parts_of tail-next/)"
ok $? "tail committed: the next export sweeps the record and overwrites" "$OUT"$'\n'"$(state_of tail-next/)"

# --- denied: worker 0 cannot delete the replaced parts
OUT=$(export_into denied)
OLD="$(parts_of denied/)"
[[ "$OUT" == "$ROWS" && -n "$OLD" ]]
ok $? "denied: premise: a first export into the prefix" "$OUT"
OUT=$(export_into denied s3_delete_denied)
NEW_ID="$(export_id_of denied/_SUCCESS)"
grep -qx "$ROWS" <<<"$OUT" && grep -q "parts of the export replaced in \"s3://$BUCKET/denied/\" may be left" <<<"$OUT"
ok $? "denied: the overwrite succeeds and warns that the replaced parts may be left" "$OUT"
has_all "$OLD" "$(parts_of denied/)" && [[ $(ledger_files | wc -l) == 1 ]] && lock_free "$(ledger_files)"
ok $? "denied: premise: the replaced parts are there, and the record is kept, its lock free" \
	"$(state_of denied/)"$'\n'"$(ledger_files)"
record="$(cat "$(ledger_files)")"
OUT=$(sweep denied/ s3_delete_denied)
grep -q "injected fault: delete denied" <<<"$OUT" && [[ "$(cat "$(ledger_files)")" == "$record" ]] &&
	has_all "$OLD" "$(parts_of denied/)"
ok $? "denied: the sweep that cannot delete fails and keeps the record" "$OUT"
OUT=$(sweep denied/)
[[ "$OUT" == "s3://$BUCKET/denied/|t|0|$(wc -l <<<"$OLD")" ]]
ok $? "denied: the sweep without the fault deletes the replaced parts" "$OUT"
assert_replaced denied/ "denied: only the replacing export's parts are left, and no record"

s3look_done
tap_done
