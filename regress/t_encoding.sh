#!/usr/bin/env bash
# regress/t_encoding.sh: every name an export writes is UTF-8, exactly once,
# whatever the database encoding.
#
# The same exports run in a UTF8 database (the cluster's "postgres", the
# control) and in LATIN1, EUC_JP (multi-byte) and SQL_ASCII databases made
# for the harness, each with a word its encoding holds ("café", or "データ"
# in EUC_JP) in the target and as a partition value.  The harness's psql
# speaks UTF-8 (PGCLIENTENCODING), so every expected name below is the
# word's UTF-8 bytes.  Cases, per database:
#   - s3:// with partition_by: every object key is under the UTF-8 prefix,
#     the word's partition folder among them, and the _SUCCESS manifest names
#     that partition in UTF-8;
#   - a local export with partition_by: the partition folder's name is the
#     word's UTF-8 bytes;
#   - a crash: an export paused before publication (pause:publishing) holds
#     a ledger record whose first line is UTF-8 and says so ("utf8") and whose
#     keys are under the UTF-8 prefix; its caller is killed with SIGKILL
#     (premise: its uploads pending, its record's lock free after the crash
#     restart); parallel_export_parquet_sweep() then aborts exactly its
#     uploads and removes the record.  In the LATIN1 database a second crash
#     is swept by the next export into the target instead, which succeeds,
#     and a third, through a foreign server named with the word, is swept
#     through that server: the record names the server in UTF-8, and the
#     check that a sweep names the record's server compares it so.
# And once:
#   - a record in the form version 1.1 wrote in a LATIN1 database (its first
#     line in LATIN1, its keys under the prefix 1.1 made by converting the
#     target to UTF-8 twice), with the uploads and objects it names made by
#     regress/s3proxy/S3Forge.java, under the name 1.1 gave its ledger file
#     (the endpoint as written hashed in), which a call adopts: the sweep
#     function undoes it, another such record is swept by the next export
#     into its target, and one through the foreign server named with the
#     word (in LATIN1 in the record) is swept through that server;
#   - SQL_ASCII, which checks no text: a partition value that is not UTF-8 is
#     refused with SQLSTATE 22021 before any folder, object or record is made,
#     into a directory and into s3://, and so is an s3:// target that is not
#     UTF-8, by a message the client can read (it was refused before, but by
#     a message a UTF8 client could not take).
# Nothing races a timer: the harness waits for the pause in
# pg_stat_activity.  Needs a running cluster from tools/cluster.sh with the
# extension installed, Maven (S3Proxy) and a JDK; runs as root.  Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/s3case.sh
source "$here/lib/s3case.sh"

ROWS=2000
export PGCLIENTENCODING=UTF8

# The databases and their words; "postgres" is the cluster's UTF8 database.
DBS=(postgres pep_enc_latin1 pep_enc_euc_jp pep_enc_sql_ascii)
declare -A ENCODING=([pep_enc_latin1]=LATIN1 [pep_enc_euc_jp]=EUC_JP [pep_enc_sql_ascii]=SQL_ASCII)
declare -A WORD=([postgres]=café [pep_enc_latin1]=café [pep_enc_euc_jp]=データ [pep_enc_sql_ascii]=café)

s3case_cleanup() {
	for db in "${!ENCODING[@]}"; do
		sql "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
	done
	sql "DROP TABLE IF EXISTS pep_enc, pep_enc_unused" >/dev/null 2>&1
}
s3case_setup --quiet encoding pep_enc_unused 1
# Object keys, without the folders S3Proxy's file system store lists as keys ending in "/".
keys_of() { state_of "$1" | sed -n 's/^object \(.*[^/]\) [0-9]*$/\1/p'; }
uploads_under() { state_of "$1" | grep -c '^upload '; }
in_db() { PGDATABASE="$1" sql "$2" 2>&1; }
in_db_verbose() { PGDATABASE="$1" psql -X -A -t -q -v VERBOSITY=verbose -c "$2" 2>&1; }

for db in "${!ENCODING[@]}"; do
	sql "DROP DATABASE IF EXISTS $db" >/dev/null
	sql "CREATE DATABASE $db ENCODING '${ENCODING[$db]}' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0" >/dev/null
done
# A foreign server of the LATIN1 database named with its word.
SERVER="regress_enc_${WORD[pep_enc_latin1]}"
for db in "${DBS[@]}"; do
	in_db "$db" "CREATE EXTENSION IF NOT EXISTS parallel_export_parquet;
		DROP TABLE IF EXISTS pep_enc;
		CREATE TABLE pep_enc AS SELECT g AS id,
			CASE WHEN g % 2 = 0 THEN '${WORD[$db]}' ELSE 'plain' END AS p, md5(g::text) AS s
		FROM generate_series(1, $ROWS) g" >/dev/null
done
in_db pep_enc_latin1 "CREATE SERVER \"$SERVER\" FOREIGN DATA WRAPPER parallel_export_parquet_s3
		OPTIONS (endpoint '$PEP_S3_ENDPOINT', region 'us-east-1');
	CREATE USER MAPPING FOR CURRENT_USER SERVER \"$SERVER\"
		OPTIONS (access_key_id '$PEP_S3_IDENTITY', secret_access_key '$PEP_S3_CREDENTIAL')" >/dev/null
[[ "$(in_db pep_enc_latin1 "SELECT octet_length(convert_to(srvname::text, 'UTF8')) > octet_length(srvname::text)
	FROM pg_foreign_server WHERE srvname = '$SERVER'")" == t ]]
ok $? "premise: the LATIN1 database has foreign server $SERVER, whose name is longer in UTF-8 than in LATIN1"
[[ "$(for db in "${DBS[@]}"; do in_db "$db" "SELECT getdatabaseencoding() || ' ' || count(*) FILTER (WHERE p = '${WORD[$db]}') FROM pep_enc"; done)" == \
	"UTF8 1000
LATIN1 1000
EUC_JP 1000
SQL_ASCII 1000" ]]
ok $? "premise: the four databases hold their words in their encodings"

# --- s3:// with partition_by, and a local export with partition_by
for db in "${DBS[@]}"; do
	word="${WORD[$db]}"
	prefix="s3-$db/$word/"
	got=$(in_db "$db" "SELECT parallel_export_parquet('pep_enc', 's3://$BUCKET/${prefix%/}', 2, partition_by => ARRAY['p'])")
	keys=$(keys_of "s3-$db/")
	[[ "$got" == "$ROWS" && -n "$keys" ]] && ! grep -v "^${prefix}" <<<"$keys" >/dev/null &&
		grep -q "^${prefix}p=$word/part-[0-9]*-[0-9a-f]*\.parquet$" <<<"$keys" &&
		grep -qx "${prefix}_SUCCESS" <<<"$keys"
	ok $? "$db: every object key is under the UTF-8 prefix, the partition folder p=$word among them" \
		"returned: $got"$'\n'"$keys"
	[[ "$(look manifest "$BUCKET" "${prefix}_SUCCESS" | sed -n 's/^partition //p' | LC_ALL=C sort -u)" == \
		"$(printf 'p=%s\n' "$word" plain | LC_ALL=C sort)" ]]
	ok $? "$db: the _SUCCESS manifest names the partition p=$word in UTF-8" \
		"$(look manifest "$BUCKET" "${prefix}_SUCCESS" 2>&1)"

	dir="$WORK/local-$db"
	got=$(in_db "$db" "SELECT parallel_export_parquet('pep_enc', '$dir', 2, partition_by => ARRAY['p'])")
	folders=$(find "$dir" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' 2>/dev/null | LC_ALL=C sort)
	[[ "$got" == "$ROWS" && "$folders" == "$(printf 'p=%s\n' "$word" plain | LC_ALL=C sort)" ]]
	ok $? "$db: the local partition folder's name is p=$word in UTF-8" \
		"returned: $got"$'\n'"$(printf '%q\n' "$folders")"
done

# --- a crash before publication, then the sweep
# Start an export into s3://$BUCKET/PREFIX in DB (through foreign server
# SERVER, if given) paused before publication, check its record, kill its
# caller, and wait for the server.
crash() {
	local db="$1" prefix="$2" server="${3:-}" app="pep_enc_crash" record url tab=$'\t' via=""
	[[ -n "$server" ]] && via=", s3_server => '$server'"
	PGDATABASE="$db" start_export "$app" "SET parallel_export_parquet.fault_injection = 'pause:publishing';" \
		"SELECT parallel_export_parquet('pep_enc', 's3://$BUCKET/${prefix%/}', 2$via)"
	wait_until "[[ \$(sql \"SELECT count(*) FROM pg_stat_activity WHERE application_name = '$app'
		AND query = '$PAUSE_MARK publishing'\") == 1 ]] || ! kill -0 \$(cat '$WORK/$app.pid') 2>/dev/null"
	record=$(cat "$(ledger_files)" 2>&1)
	url="s3://$BUCKET/$prefix"
	[[ $(uploads_under "$prefix") -ge 1 && $(ledger_files | wc -l) == 1 ]]
	ok $? "$db crash: premise: paused before publication with its uploads pending" \
		"$(state_of "$prefix")"$'\n'"$(cat "$WORK/$app.out")"
	[[ "$(head -n 1 <<<"$record")" == "export${tab}"*"Z${tab}${url}${tab}${server}${tab}utf8" ]] &&
		iconv -f UTF-8 -t UTF-8 <<<"$record" >/dev/null 2>&1 && grep -q "^key ${prefix}part-" <<<"$record" &&
		! sed -n 's/^\(key\|upload\) //p' <<<"$record" | grep -qv "^${prefix}part-"
	ok $? "$db crash: the ledger record is UTF-8, says so, and names the target and keys in UTF-8" "$record"
	kill -9 "$(caller_pid "$app")"
	finish_export "$app"
	wait_until "sql 'SELECT 1' >/dev/null 2>&1"
	DEAD=$(uploads_under "$prefix")
	[[ $DEAD -ge 1 ]] && lock_free "$(ledger_files)"
	ok $? "$db crash: premise: after SIGKILL of the caller its $DEAD upload(s) are pending, its record's lock free" \
		"$(state_of "$prefix")"
}

for db in "${DBS[@]}"; do
	prefix="crash-$db/${WORD[$db]}/"
	crash "$db" "$prefix"
	out=$(in_db "$db" "SELECT * FROM parallel_export_parquet_sweep('s3://$BUCKET/${prefix%/}')")
	[[ "$out" == "s3://$BUCKET/$prefix|t|$DEAD|0" && -z "$(state_of "$prefix")" && -z "$(ledger_files)" ]]
	ok $? "$db crash: the sweep function aborts the $DEAD upload(s) and removes the record" \
		"$out"$'\n'"$(state_of "$prefix")"$'\n'"$(ledger_files)"
done

db=pep_enc_latin1
prefix="crash-next/${WORD[$db]}/"
crash "$db" "$prefix"
got=$(in_db "$db" "SELECT parallel_export_parquet('pep_enc', 's3://$BUCKET/${prefix%/}', 2)")
[[ "$got" == "$ROWS" && $(uploads_under "$prefix") == 0 && -z "$(ledger_files)" ]] &&
	grep -qx "${prefix}_SUCCESS" <<<"$(keys_of "$prefix")"
ok $? "$db crash: the next export into the target sweeps the record and succeeds" \
	"returned: $got"$'\n'"$(state_of "$prefix")"

prefix="crash-served/${WORD[$db]}/"
crash "$db" "$prefix" "$SERVER"
out=$(in_db_verbose "$db" "SELECT * FROM parallel_export_parquet_sweep('s3://$BUCKET/${prefix%/}', s3_server => '$SERVER')")
[[ "$out" == "s3://$BUCKET/$prefix|t|$DEAD|0" && -z "$(state_of "$prefix")" && -z "$(ledger_files)" ]]
ok $? "$db crash through server $SERVER: the sweep through that server aborts the $DEAD upload(s) and removes the record" \
	"$out"$'\n'"$(state_of "$prefix")"$'\n'"$(ledger_files)"

# --- a record as version 1.1 wrote it in a LATIN1 database: the first
# line (and the owner line, as the caller wrote it) in LATIN1, with four
# fields (its server, if SERVER is given, in LATIN1 too), under the name 1.1
# gave the file (the server's endpoint as written hashed in), and keys under
# the prefix 1.1 used, the target's UTF-8 converted to UTF-8 once more.
old_record() {
	local target="$1" server="${2:-}" ledger owner endpoint=""
	[[ -n "$server" ]] && endpoint="$PEP_S3_ENDPOINT"
	ledger="$(old_ledger_of "$target" "$endpoint")"
	install -d -m 700 -o postgres "$LEDGERS"
	runuser -u postgres -- bash -c "umask 077; : >'$ledger'"
	owner="$(sql "SELECT system_identifier FROM pg_control_system()")/$(stat -c '%i/%W' "$ledger")"
	printf 'export\t%s\ts3://%s/%s\t%s\nowner %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$BUCKET" \
		"$(iconv -f UTF-8 -t LATIN1 <<<"$target")" "$(iconv -f UTF-8 -t LATIN1 <<<"$server")" "$owner" >>"$ledger"
	OLD_PREFIX="$(iconv -f LATIN1 -t UTF-8 <<<"$target")"
	forge dead "$ledger" "$OLD_PREFIX" >/dev/null
	OLD_STATE="$(state_of "$OLD_PREFIX")"
	[[ $(grep -c '^upload ' <<<"$OLD_STATE") == 2 && $(grep -c '^object .*[^/] [0-9]*$' <<<"$OLD_STATE") == 2 ]] &&
		! iconv -f UTF-8 -t UTF-8 <<<"$(head -n 1 "$ledger")" >/dev/null 2>&1 && grep -q "^key $OLD_PREFIX" "$ledger"
	ok $? "old record $target: premise: its first line is LATIN1, its uploads and objects under $OLD_PREFIX are there" \
		"$OLD_STATE"$'\n'"$(cat -v "$ledger")"
}

old_record "old/café/"
out=$(in_db_verbose pep_enc_latin1 "SELECT * FROM parallel_export_parquet_sweep('s3://$BUCKET/old/café')")
[[ "$out" == "s3://$BUCKET/old/café/|t|2|2" && -z "$(keys_of "$OLD_PREFIX")" && $(uploads_under "$OLD_PREFIX") == 0 &&
	-z "$(ledger_files)" ]]
ok $? "old record: the sweep function undoes it (2 uploads aborted, 2 objects deleted) and removes it" \
	"$out"$'\n'"$(state_of "$OLD_PREFIX")"

old_record "old-next/café/"
got=$(in_db pep_enc_latin1 "SELECT parallel_export_parquet('pep_enc', 's3://$BUCKET/old-next/café', 2)")
[[ "$got" == "$ROWS" && -z "$(keys_of "$OLD_PREFIX")" && $(uploads_under "$OLD_PREFIX") == 0 && -z "$(ledger_files)" ]] &&
	grep -qx "old-next/café/_SUCCESS" <<<"$(keys_of "old-next/café/")"
ok $? "old record: the next export into its target sweeps it and succeeds" \
	"returned: $got"$'\n'"$(state_of "$OLD_PREFIX")"

old_record "old-served/café/" "$SERVER"
out=$(in_db_verbose pep_enc_latin1 "SELECT * FROM parallel_export_parquet_sweep('s3://$BUCKET/old-served/café', s3_server => '$SERVER')")
[[ "$out" == "s3://$BUCKET/old-served/café/|t|2|2" && -z "$(keys_of "$OLD_PREFIX")" && $(uploads_under "$OLD_PREFIX") == 0 &&
	-z "$(ledger_files)" ]]
ok $? "old record through server $SERVER: the sweep through that server undoes it and removes it" \
	"$out"$'\n'"$(state_of "$OLD_PREFIX")"

# --- SQL_ASCII: bytes that are not UTF-8 in a name
db=pep_enc_sql_ascii
in_db "$db" "DROP TABLE IF EXISTS pep_enc_bad;
	CREATE TABLE pep_enc_bad AS SELECT g AS id, CASE WHEN g = 7 THEN E'caf\\xe9' ELSE 'plain' END AS p
	FROM generate_series(1, 100) g" >/dev/null
[[ "$(in_db "$db" "SELECT count(*) FROM pep_enc_bad WHERE octet_length(p) = 4")" == 1 ]]
ok $? "SQL_ASCII: premise: one partition value is the LATIN1 bytes of café"
dir="$WORK/bad-local"
out=$(in_db_verbose "$db" "SELECT parallel_export_parquet('pep_enc_bad', '$dir', 2, partition_by => ARRAY['p'])")
grep -q '22021: a value of partition column "p" is not valid UTF-8' <<<"$out"
ok $? "SQL_ASCII: a partition value that is not UTF-8 is refused (22021) in a local export" "$out"
assert_clean "$dir" "SQL_ASCII: the refused local export"
out=$(in_db_verbose "$db" "SELECT parallel_export_parquet('pep_enc_bad', 's3://$BUCKET/bad', 2, partition_by => ARRAY['p'])")
grep -q '22021: a value of partition column "p" is not valid UTF-8' <<<"$out"
ok $? "SQL_ASCII: a partition value that is not UTF-8 is refused (22021) into s3://" "$out"
[[ -z "$(state_of bad/)" && -z "$(ledger_files)" ]]
ok $? "SQL_ASCII: the refused s3:// export left no object, upload or record" "$(state_of bad/)"
out=$(in_db_verbose "$db" "SELECT parallel_export_parquet('pep_enc_bad', 's3://$BUCKET/bad' || E'\\xe9', 2)")
grep -q '22021: object storage target is not valid UTF-8' <<<"$out"
ok $? "SQL_ASCII: a target that is not UTF-8 is refused (22021)" "$out"
[[ -z "$(state_of bad)" && -z "$(ledger_files)" ]]
ok $? "SQL_ASCII: the refused target left no object, upload or record" "$(state_of bad)"

s3look_done
tap_done
