#!/usr/bin/env bash
# regress/t_s3_sweep.sh: parallel_export_parquet_sweep() against S3Proxy.
#
# A killed object-store export leaves a record in
# $PGDATA/pg_parallel_export_parquet/HASH.ledger, lock released, and real
# pending uploads and objects in the bucket.  This harness forges exactly
# that: it writes the record's first line as the caller would, and
# regress/lib/S3Forge.java makes the export's uploads and objects through
# the extension's own S3 client, appending each step's line before the step
# as a worker does.  Beside them it puts what the sweep must never touch:
# an object someone else put under the prefix and a pending upload of
# another key there.  Cases:
#   - a target without a record: nothing done, no file made;
#   - a record whose lock a live process holds (premise: flock -n fails):
#     an error naming the running export, nothing touched;
#   - the dead record (premise: all of it there, the lock free): exactly
#     the export's uploads aborted and objects deleted, the foreign object
#     and upload left, the file removed; again: nothing to do, nothing
#     changed;
#   - a record the sweep cannot use (a line it does not know): an error,
#     nothing touched, the file kept and its lock free for the next try;
#   - a link at the ledger's name: refused, not followed;
#   - a target of a foreign server: swept with the settings of the server
#     and its user mapping, the server's environment holding no key; the
#     secret is nowhere in the server log;
#   - privileges: PUBLIC cannot call it; EXECUTE alone is not enough.
#
# Until the foreign-server case, the server reaches S3Proxy through the
# postmaster's environment (AWS_ENDPOINT_URL and the keys), so the cluster
# is restarted with it, and without it for that case and at the end.  Needs a running cluster from
# tools/cluster.sh with the extension installed; runs as root.  Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/tap.sh
source "$here/lib/tap.sh"

WORK="${PEP_HARNESS_OUT:-$PEP_OUT}/s3_sweep"
S3DIR="$WORK/s3proxy"
S3PORT=$((PEP_PORT + 1000))
BUCKET=lake
JAR="$("$PG_CONFIG" --sharedir)/extension/parallel_export_parquet.jar"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
LEDGERS="$PEP_DATA/pg_parallel_export_parquet"
ROLE=regress_pep_sweeper

rm -rf "$WORK"
mkdir -p "$WORK"
chown postgres "$WORK"

# Restart the server with exactly these extra environment variables.
restart_server() {
	env -u AWS_ENDPOINT_URL -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_REGION "$@" \
		bash -c "source '$here/../tools/cluster.sh' && pep_pg_ctl -l '$PEP_LOG' -w -t 60 restart >/dev/null"
}

holder=""
finish() {
	if [[ -n "$holder" ]]; then
		pkill -P "$holder" 2>/dev/null
		kill "$holder" 2>/dev/null
	fi
	"$here/lib/s3proxy.sh" stop "$S3DIR"
	restart_server
	sql "DROP ROLE IF EXISTS $ROLE" >/dev/null 2>&1
}
trap finish EXIT

"$here/lib/s3proxy.sh" start "$S3DIR" "$S3PORT" "$BUCKET" || exit 1
set -a
# shellcheck source=/dev/null
source "$S3DIR/s3proxy.env"
set +a
export PEP_S3_BUCKET="$BUCKET"
restart_server AWS_ENDPOINT_URL="$PEP_S3_ENDPOINT" AWS_ACCESS_KEY_ID="$PEP_S3_IDENTITY" \
	AWS_SECRET_ACCESS_KEY="$PEP_S3_CREDENTIAL" AWS_REGION=us-east-1 || exit 1
sql "CREATE EXTENSION IF NOT EXISTS parallel_export_parquet" >/dev/null

# Compiled once: the source launcher would compile it again at every call.
JAVAC="${JAVA_HOME:+$JAVA_HOME/bin/}javac"
"$JAVAC" -nowarn -cp "$JAR" -d "$WORK/forge" "$here/lib/S3Forge.java" || exit 1
forge() { "$JAVA" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$JAR:$WORK/forge" S3Forge "$@"; }
# What the bucket holds under a prefix: objects, then pending uploads.
keys() { forge keys "$1"; }
uploads() { forge uploads "$1" | sort; }

# The ledger file of s3://$BUCKET/PREFIX with the endpoint the SDK's chain
# gives (the hash input has an empty endpoint then).
ledger_of() {
	printf '%s\0%s\0%s\0' "" "$BUCKET" "$1" | sha256sum | awk -v d="$LEDGERS" '{ print d "/" $1 ".ledger" }'
}

# Write a record's first line as the caller would, as the server's OS user.
begin_record() {
	install -d -m 700 -o postgres "$LEDGERS"
	runuser -u postgres -- bash -c "umask 077; printf 'export\t%s\ts3://$BUCKET/%s\t\n' \
		\"\$(date -u +%Y-%m-%dT%H:%M:%SZ)\" '$1' >'$2'"
}

# Sweep in psql with SQLSTATEs shown; output in OUT.
sweep() {
	OUT=$(psql -X -A -t -q -v VERBOSITY=verbose -c "SELECT * FROM parallel_export_parquet_sweep('$1')" 2>&1)
}

# --- no record
sweep "s3://$BUCKET/none/"
[[ "$OUT" == "s3://$BUCKET/none/|f|0|0" ]]
ok $? "a target without a record: nothing to do" "$OUT"
[[ ! -e "$(ledger_of none/)" ]]
ok $? "the sweep of a target without a record made no ledger file"

# --- a dead record, with foreign objects beside it
PREFIX=dead/
LEDGER="$(ledger_of "$PREFIX")"
forge put "${PREFIX}foreign.parquet"
foreign_upload="$(forge upload "${PREFIX}part-00009-ffffffffffff.parquet")"
begin_record "$PREFIX" "$LEDGER"
forge dead "$LEDGER" "$PREFIX" >"$WORK/forged.txt"
before_keys="$(keys "$PREFIX")"
before_uploads="$(uploads "$PREFIX")"
[[ "$before_keys" == "${PREFIX}_SUCCESS
${PREFIX}foreign.parquet
${PREFIX}part-00000-0123456789ab.parquet" ]]
ok $? "premise: the export's objects and the foreign one are there" "$before_keys"
[[ "$(cut -d' ' -f1 <<<"$before_uploads" | tr '\n' ' ')" == "${PREFIX}part-00001-0123456789ab.parquet ${PREFIX}part-00002-0123456789ab.parquet ${PREFIX}part-00009-ffffffffffff.parquet " ]]
ok $? "premise: the export's two pending uploads and the foreign one are there" "$before_uploads"
grep -q "^upload ${PREFIX}part-00001" "$LEDGER" && ! grep -q "^upload ${PREFIX}part-00002" "$LEDGER"
ok $? "premise: part 1's upload id is recorded, part 2's is not" "$(cat "$LEDGER")"

# --- a live process holds the lock
flock -x -o "$LEDGER" sleep 600 &
holder=$!
deadline=$((SECONDS + 60))
while flock -n "$LEDGER" true && ((SECONDS < deadline)); do sleep 0.05; done
! flock -n "$LEDGER" true
ok $? "premise: the lock is held by a live process"
sweep "s3://$BUCKET/$PREFIX"
grep -q "55006: another export into \"s3://$BUCKET/$PREFIX\" is running" <<<"$OUT"
ok $? "a locked record is refused as a running export (55006)" "$OUT"
[[ "$(keys "$PREFIX")" == "$before_keys" && "$(uploads "$PREFIX")" == "$before_uploads" && -s "$LEDGER" ]]
ok $? "nothing was touched while the lock was held"
pkill -P "$holder"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
holder=""
flock -n "$LEDGER" true
ok $? "premise: the lock is free once its holder is gone"

# --- the sweep
sweep "s3://$BUCKET/$PREFIX"
[[ "$OUT" == "s3://$BUCKET/$PREFIX|t|2|2" ]]
ok $? "the dead record is swept: 2 uploads aborted, 2 objects deleted" "$OUT"
[[ "$(keys "$PREFIX")" == "${PREFIX}foreign.parquet" ]]
ok $? "only the foreign object is left" "$(keys "$PREFIX")"
[[ "$(uploads "$PREFIX")" == "${PREFIX}part-00009-ffffffffffff.parquet $foreign_upload" ]]
ok $? "only the foreign pending upload is left" "$(uploads "$PREFIX")"
[[ ! -e "$LEDGER" ]]
ok $? "the ledger file is removed once everything was undone"
sweep "s3://$BUCKET/$PREFIX"
[[ "$OUT" == "s3://$BUCKET/$PREFIX|f|0|0" && "$(keys "$PREFIX")" == "${PREFIX}foreign.parquet" &&
	"$(uploads "$PREFIX")" == "${PREFIX}part-00009-ffffffffffff.parquet $foreign_upload" ]]
ok $? "sweeping again does nothing" "$OUT"

# --- a record the sweep cannot use is kept
PREFIX=corrupt/
LEDGER="$(ledger_of "$PREFIX")"
begin_record "$PREFIX" "$LEDGER"
forge dead "$LEDGER" "$PREFIX" >/dev/null
echo "rename ${PREFIX}part-00000-0123456789ab.parquet" >>"$LEDGER"
before_uploads="$(uploads "$PREFIX")"
sweep "s3://$BUCKET/$PREFIX"
grep -q "records no known step" <<<"$OUT"
ok $? "a record with an unknown step is refused" "$OUT"
[[ "$(uploads "$PREFIX")" == "$before_uploads" && "$(keys "$PREFIX" | wc -l)" == 2 ]]
ok $? "nothing of a refused record was touched"
[[ -s "$LEDGER" ]] && flock -n "$LEDGER" true
ok $? "the refused record is kept, its lock free"

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

# --- through a foreign server: endpoint and keys from the catalog, none in
# the server's environment any more
restart_server || exit 1
sql "DROP SERVER IF EXISTS regress_sweep_s3 CASCADE;
	CREATE SERVER regress_sweep_s3 FOREIGN DATA WRAPPER parallel_export_parquet_s3
		OPTIONS (endpoint '$PEP_S3_ENDPOINT', region 'us-east-1');
	CREATE USER MAPPING FOR CURRENT_USER SERVER regress_sweep_s3
		OPTIONS (access_key_id '$PEP_S3_IDENTITY', secret_access_key '$PEP_S3_CREDENTIAL')" >/dev/null
PREFIX=served/
LEDGER="$(printf '%s\0%s\0%s\0' "$PEP_S3_ENDPOINT" "$BUCKET" "$PREFIX" | sha256sum |
	awk -v d="$LEDGERS" '{ print d "/" $1 ".ledger" }')"
begin_record "$PREFIX" "$LEDGER"
forge dead "$LEDGER" "$PREFIX" >/dev/null
OUT=$(psql -X -A -t -q -c "SELECT * FROM parallel_export_parquet_sweep('s3://$BUCKET/$PREFIX', s3_server => 'regress_sweep_s3')" 2>&1)
[[ "$OUT" == "s3://$BUCKET/$PREFIX|t|2|2" && -z "$(keys "$PREFIX")" && -z "$(uploads "$PREFIX")" && ! -e "$LEDGER" ]]
ok $? "a record of a foreign server's target is swept with the server's settings" "$OUT"
! grep -qF "$PEP_S3_CREDENTIAL" "$PEP_LOG"
ok $? "the secret is nowhere in the server log"
sql "DROP SERVER regress_sweep_s3 CASCADE" >/dev/null

# --- privileges
sql "DROP ROLE IF EXISTS $ROLE; CREATE ROLE $ROLE LOGIN" >/dev/null
OUT=$(psql -X -A -t -q -U "$ROLE" -c "SELECT * FROM parallel_export_parquet_sweep('s3://$BUCKET/none/')" 2>&1)
grep -q "permission denied for function parallel_export_parquet_sweep" <<<"$OUT"
ok $? "PUBLIC cannot call the sweep" "$OUT"
sql "GRANT EXECUTE ON FUNCTION parallel_export_parquet_sweep(text, text) TO $ROLE" >/dev/null
OUT=$(psql -X -A -t -q -U "$ROLE" -c "SELECT * FROM parallel_export_parquet_sweep('s3://$BUCKET/none/')" 2>&1)
grep -q "permission denied to sweep an export's record" <<<"$OUT"
ok $? "EXECUTE without pg_write_server_files is refused" "$OUT"
sql "GRANT pg_write_server_files TO $ROLE" >/dev/null
OUT=$(psql -X -A -t -q -U "$ROLE" -c "SELECT * FROM parallel_export_parquet_sweep('s3://$BUCKET/none/')" 2>&1)
[[ "$OUT" == "s3://$BUCKET/none/|f|0|0" ]]
ok $? "control: with pg_write_server_files it runs" "$OUT"
sql "REVOKE ALL ON FUNCTION parallel_export_parquet_sweep(text, text) FROM $ROLE; REVOKE pg_write_server_files FROM $ROLE" >/dev/null

tap_done
