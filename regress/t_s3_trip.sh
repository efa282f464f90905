#!/usr/bin/env bash
# regress/t_s3_trip.sh: what an export into s3:// publishes, against S3Proxy
# (the setup is regress/lib/s3case.sh's; t_s3_failures.sh, t_s3_exit.sh and
# t_s3_partition.sh hold the other object-store cases split from t_s3.sh).
#
# Cases:
#   round trip   a table and a query (several parts, zstd, field_ids and
#                kv_metadata in every part) read back; the
#                manifest in _SUCCESS lists exactly the parts, with their rows;
#                parallel_export_parquet_last() and the LOG line name the URL;
#                the table's workers load every class of the S3 client (the
#                SDK's and the extension's) from the AppCDS archive;
#   not empty    a prefix holding someone else's object is refused, with and
#                without overwrite, and the object is untouched;
#   overwrite    a replacing export paused before PUBLISH, and one paused
#                after its _SUCCESS was written, are cancelled: the old export
#                is whole and readable both times; one that commits replaces
#                it, and the old parts are gone;
#   no conditions a server that answers the conditional _SUCCESS PUT with 501:
#                the plain PUT publishes the export whole, overwrite too;
#   part limit   with s3_small_uploads (uploads of 3 parts of 5 MiB) a
#                worker ends each part before its upload runs out of part
#                numbers, and the parts read back whole (control: without
#                it, one part larger than such an upload holds).
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
s3case_setup --duck s3_trip pep_s3 "$ROWS"
sql "DROP TABLE IF EXISTS pep_s3_types;
	CREATE TABLE pep_s3_types AS
	SELECT g AS id,
		CASE WHEN g % 7 = 0 THEN NULL ELSE 'välue ' || g END AS t,
		(g * 1.25)::numeric(12, 2) AS n,
		g % 3 = 0 AS b,
		date '2026-01-01' + g % 400 AS d,
		timestamp '2026-01-01 00:00:00' + g * interval '1 minute' AS ts
	FROM generate_series(1, 50000) g" >/dev/null

# --- Round trip: a table and a query, read back by DuckDB value by value.
pg_rows="$(psql -X -A -t -q -F $'\t' -c "SELECT id, t, n, CASE WHEN b THEN 'true' ELSE 'false' END, d, ts FROM pep_s3_types ORDER BY id")"
# One session: parallel_export_parquet_last() is the session's last export.
# Its workers log where each class came from (-Xlog:class+load to stdout,
# which is the server log's, each line with the worker's PID; jvm_options
# may write no file), split into one file per worker.
classes_from=$(stat -c %s "$PEP_LOG")
out=$(psql -X -A -t -q -c "LOAD 'parallel_export_parquet'" \
	-c "SELECT set_config('parallel_export_parquet.jvm_options', current_setting('parallel_export_parquet.jvm_options')
		|| ' -Xlog:class+load=info:stdout:pid', false)" \
	-c "SELECT parallel_export_parquet('pep_s3_types', 's3://$BUCKET/trip/table', 2)" \
	-c "SELECT directory, rows, parts FROM parallel_export_parquet_last()" 2>&1)
tail -c +"$((classes_from + 1))" "$PEP_LOG" |
	awk -v dir="$WORK" 'match($0, /^\[[0-9]+\] /) { print > (dir "/classes-" substr($0, 2, RLENGTH - 3) ".log") }'
got=$(sed -n 2p <<<"$out")
last=$(tail -n 1 <<<"$out")
assert_s3_whole "trip/table/" 50000 "$got" "round trip table: whole export, manifest matches the parts"
duck_rows="$(duck trip/table "SELECT id, t, n, b, d::VARCHAR, ts::VARCHAR FROM parts ORDER BY id")"
[[ -n "$duck_rows" && "$duck_rows" == "$pg_rows" ]]
ok $? "round trip table: DuckDB reads every value PostgreSQL holds" \
	"$(diff <(echo "$pg_rows") <(echo "$duck_rows") | head -5)"
[[ "$last" == "s3://$BUCKET/trip/table/|50000|$(look manifest "$BUCKET" trip/table/_SUCCESS | grep -c '^part ')" ]]
ok $? "round trip table: parallel_export_parquet_last() names the URL and the parts" "$last"
grep -q "exported 50000 rows of public.pep_s3_types to \"s3://$BUCKET/trip/table/\"" "$PEP_LOG"
ok $? "round trip table: the LOG line names the URL"
# Premise: both workers logged, and loaded classes from the archive.
archived=$(cat "$WORK"/classes-*.log 2>/dev/null | grep -c 'source: shared objects file')
[[ $(ls "$WORK"/classes-*.log 2>/dev/null | wc -l) == 2 && $archived -gt 1000 ]]
ok $? "round trip table: both workers logged their class loading, $archived classes from the AppCDS archive"
outside=$(cat "$WORK"/classes-*.log 2>/dev/null | grep -F 'parallel_export_parquet.jar' |
	grep -E ' (software\.amazon\.awssdk|org\.parallelexport\.parquet\.s3)\.')
[[ -z "$outside" ]]
ok $? "round trip table: no class of the S3 client was loaded from outside the AppCDS archive" \
	"$(wc -l <<<"$outside") loaded from the jar, among them:"$'\n'"$(head -n 10 <<<"$outside")"

got=$(s3_export "'SELECT id, t, n FROM pep_s3_types WHERE id % 2 = 0', 's3://$BUCKET/trip/query', 2,
	compression => 'zstd', file_size_bytes => 65536,
	field_ids => '{\"id\": 11, \"n\": 13}', kv_metadata => '{\"lake.run\": \"trip\"}'")
assert_s3_whole "trip/query/" 25000 "$got" "round trip query: whole export"
parts=$(objects_of "$(state_of trip/query/)")
[[ $parts -ge 4 ]]
ok $? "round trip query: file_size_bytes made several parts ($((parts - 1)) and _SUCCESS)"
pg_q="$(psql -X -A -t -q -F $'\t' -c "SELECT id, t, n FROM pep_s3_types WHERE id % 2 = 0 ORDER BY id")"
duck_q="$(duck trip/query "SELECT id, t, n FROM parts ORDER BY id")"
[[ -n "$duck_q" && "$duck_q" == "$pg_q" ]]
ok $? "round trip query: DuckDB reads every value PostgreSQL holds" \
	"$(diff <(echo "$pg_q") <(echo "$duck_q") | head -5)"
[[ "$(duck trip/query "SELECT DISTINCT compression FROM parquet_metadata('$PEP_S3_DATA/$BUCKET/trip/query/*.parquet')")" == ZSTD ]]
ok $? "round trip query: the parts are zstd-compressed"
ids="$(duck trip/query "SELECT DISTINCT name || ':' || coalesce(field_id::VARCHAR, '-') FROM parquet_schema('$PEP_S3_DATA/$BUCKET/trip/query/*.parquet') ORDER BY 1")"
[[ "$ids" == $'id:11\nn:13\nschema:-\nt:-' ]]
ok $? "round trip query: every part has the field ids field_ids gave" "$ids"
runs="$(duck trip/query "SELECT count(*) || ' ' || count(DISTINCT file_name) FROM parquet_kv_metadata('$PEP_S3_DATA/$BUCKET/trip/query/*.parquet') WHERE decode(key) = 'lake.run' AND decode(value) = 'trip'")"
[[ "$runs" == "$((parts - 1)) $((parts - 1))" ]]
ok $? "round trip query: every part's footer has the kv_metadata pair" "$runs of $((parts - 1)) parts"

# --- A prefix that holds someone else's object is refused, and kept.
look put "$BUCKET" busy/theirs.csv "a,b"
for overwrite in false true; do
	out=$(s3_export "'pep_s3', 's3://$BUCKET/busy', 2, overwrite => $overwrite")
	case $overwrite in
	false) expect='"s3://lake/busy/" is not empty' ;;
	true) expect='"s3://lake/busy/" does not hold only a previous export' ;;
	esac
	grep -qF "$expect" <<<"$out"
	ok $? "not empty, overwrite => $overwrite: refused ($expect)" "$out"
	state=$(state_of busy/)
	[[ "$state" == "object busy/theirs.csv 3" ]]
	ok $? "not empty, overwrite => $overwrite: their object is untouched, nothing else there" "$state"
done

# --- Overwrite keeps the old export whole until the new one commits.
got=$(s3_export "'pep_s3', 's3://$BUCKET/ow', 2")
assert_s3_whole ow/ "$ROWS" "$got" "overwrite: the first export is whole"
old_id=$(export_id_of ow/_SUCCESS)
for pause in publishing committing; do
	app="pep_s3_ow_$pause"
	start_export "$app" "SET parallel_export_parquet.fault_injection = 'pause:$pause';" \
		"SELECT parallel_export_parquet('SELECT * FROM pep_s3 WHERE id <= 1000', 's3://$BUCKET/ow', 2, overwrite => true)"
	wait_mark "$app" "$PAUSE_MARK $pause"
	state=$(state_of ow/)
	case $pause in
	publishing) premise=$(uploads_of "$state") ;;
	committing) premise=$(look manifest "$BUCKET" ow/_SUCCESS | awk '$1 == "rows" { print $2 }') ;;
	esac
	[[ "$pause" == publishing && "$premise" -ge 1 || "$pause" == committing && "$premise" == 1000 ]]
	ok $? "overwrite paused at $pause: the new export got that far (uploads pending, or its _SUCCESS in place)" "$state"
	[[ "$pause" == committing ]] ||
		[[ "$(duck ow "SELECT count(*) FROM parts")" == "$ROWS" ]]
	ok $? "overwrite paused at $pause: the old export is still readable whole"
	sql "SELECT pg_cancel_backend($(caller_pid "$app"))" >/dev/null
	finish_export "$app"
	grep -q "canceling statement due to user request" <<<"$OUT"
	ok $? "overwrite paused at $pause: cancelled" "$OUT"
	assert_s3_whole ow/ "$ROWS" "$ROWS" "overwrite cancelled at $pause: the old export is whole"
	[[ "$(export_id_of ow/_SUCCESS)" == "$old_id" &&
		"$(duck ow "SELECT count(*) FROM parts")" == "$ROWS" ]]
	ok $? "overwrite cancelled at $pause: _SUCCESS is the old export's, DuckDB reads it whole"
done
got=$(s3_export "'SELECT * FROM pep_s3 WHERE id <= 1000', 's3://$BUCKET/ow', 2, overwrite => true")
assert_s3_whole ow/ 1000 "$got" "overwrite: the replacing export is whole and the old parts are gone"
[[ "$(export_id_of ow/_SUCCESS)" != "$old_id" ]]
ok $? "overwrite: _SUCCESS is the new export's"

# --- A server without conditional writes answers the conditional _SUCCESS PUT
# with 501 Not Implemented (s3_conditions_501 sends it with a header S3Proxy
# does not implement, which it refuses so, writing nothing): the export falls
# back to the plain PUT and publishes whole, and so does an overwrite
# (If-Match).  The control: no export before sent anything S3Proxy refused.
unknown=$(grep 'Unknown header' "$S3DIR/s3proxy.log")
[[ -z "$unknown" ]]
ok $? "no conditions: control: S3Proxy refused no header of the exports so far" "$unknown"
refusals() { grep -c "Unknown header x-amz-pep-injected-fault with URI /$BUCKET/no-cond/_SUCCESS\$" "$S3DIR/s3proxy.log"; }
for overwrite in false true; do
	before=$(refusals)
	got=$(psql -X -A -t -q -c "SET parallel_export_parquet.fault_injection = 's3_conditions_501'" \
		-c "SELECT parallel_export_parquet('SELECT * FROM pep_s3 WHERE id <= 1000', 's3://$BUCKET/no-cond', 2, overwrite => $overwrite)" 2>&1)
	# A refusal before the body was read may reset the connection, which the SDK retries.
	[[ $(refusals) -gt $before ]]
	ok $? "no conditions, overwrite => $overwrite: premise: S3Proxy answered the conditional _SUCCESS PUT with 501" \
		"$(grep 'Unknown header' "$S3DIR/s3proxy.log")"
	assert_s3_whole no-cond/ 1000 "$got" "no conditions, overwrite => $overwrite: the plain PUT published the export whole"
done

# A part ends before its upload runs out of part numbers. S3 takes 10,000
# parts per upload, and a worker ends its part at nine tenths of that room
# (70.3 GiB of 8 MiB parts); s3_small_uploads gives worker 0's uploads 3 parts
# of 5 MiB, so the same rule ends its parts at 13.5 MiB. Control: the same
# export without it is one part larger than that.
MIB=$((1024 * 1024))
LIMIT=$((3 * 5 * MIB / 10 * 9))
sql "DROP TABLE IF EXISTS pep_s3_big;
	CREATE TABLE pep_s3_big AS SELECT g AS id, md5(g::text) || md5((-g)::text) AS t
	FROM generate_series(1, 600000) g" >/dev/null
part_sizes() { sed -n "s|^object $1part-[^ ]* \([0-9]*\)\$|\1|p" <<<"$2"; }
got=$(s3_export "'pep_s3_big', 's3://$BUCKET/big-control', 1")
state=$(state_of big-control/)
sizes=$(part_sizes big-control/ "$state")
[[ "$got" == 600000 && $(wc -l <<<"$sizes") == 1 && "$sizes" -gt $((3 * 5 * MIB)) ]]
ok $? "part limit, control: without the fault one part of more than 3 x 5 MiB" "$state"
got=$(psql -X -A -t -q -c "SET parallel_export_parquet.fault_injection = 's3_small_uploads'" \
	-c "SELECT parallel_export_parquet('pep_s3_big', 's3://$BUCKET/big', 1)" 2>&1)
assert_s3_whole big/ 600000 "$got" "part limit: the export with small uploads is whole"
state=$(state_of big/)
sizes=$(part_sizes big/ "$state")
[[ $(wc -l <<<"$sizes") -ge 3 && $(sort -n <<<"$sizes" | tail -n 1) -le $((3 * 5 * MIB)) &&
	$(sort -n <<<"$sizes" | sed -n 2p) -ge $((LIMIT - 2 * MIB)) ]]
ok $? "part limit: 3 or more parts, each within its upload's 3 x 5 MiB, all but the last ended near $LIMIT bytes" "$state"
[[ "$(duck big/ "SELECT count(*), sum(id), count(DISTINCT t) FROM parts")" == "$(sql "SELECT count(*), sum(id), count(DISTINCT t) FROM pep_s3_big" | tr '|' '\t')" ]]
ok $? "part limit: DuckDB reads every row of the parts"

s3look_done
tap_done
