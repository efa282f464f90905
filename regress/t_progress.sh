#!/usr/bin/env bash
# regress/t_progress.sh: a second session watches an export move.
#
# While an export runs, another session must see it in
# parallel_export_parquet_progress (phase, workers, rows and blocks rising,
# fraction_done between 0 and 1) and in pg_stat_progress_copy, and see its
# workers in pg_stat_activity under their application name. Afterwards the
# view is empty again, parallel_export_parquet_last() in the exporting
# session has the summary, and the server log has the export's LOG line.
#
# No timer decides anything: the harness polls until it has seen the rows
# counter at two different non-zero values while the export still runs; the
# table is large enough (2,000,000 rows) that it cannot finish between two
# polls on any machine this runs on, and if it somehow did, the check fails
# instead of passing. Needs a running cluster from tools/cluster.sh with the
# extension installed. Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/tap.sh
source "$here/lib/tap.sh"

WORK="${PEP_HARNESS_OUT:-$PEP_OUT}/progress"
ROWS=2000000

rm -rf "$WORK"
mkdir -p "$WORK"
chown postgres "$WORK"
sql "CREATE EXTENSION IF NOT EXISTS parallel_export_parquet;
	DROP TABLE IF EXISTS pep_progress_t;
	CREATE TABLE pep_progress_t AS
	SELECT g::bigint AS id, md5(g::text) AS s, now() AS ts FROM generate_series(1, $ROWS) AS g;
	ANALYZE pep_progress_t" >/dev/null
log_before=$(wc -l <"$PEP_LOG")

PGAPPNAME=pep_progress psql -X -A -t -q -v ON_ERROR_STOP=1 \
	-c "SELECT parallel_export_parquet('pep_progress_t', '$WORK/out', 2)" \
	-c "SELECT rows, parts, workers FROM parallel_export_parquet_last()" >"$WORK/export.out" 2>&1 &
export_pid=$!

# Poll the view until the rows counter has moved between two non-zero values.
first="" second="" phase="" fraction="" apps="" copy_rows="" seen_directory="" seen_source=""
deadline=$((SECONDS + 300))
while kill -0 "$export_pid" 2>/dev/null && ((SECONDS < deadline)); do
	row=$(sql "SELECT phase, workers_launched, rows_written, blocks_total, blocks_scanned, fraction_done,
			directory, source
		FROM parallel_export_parquet_progress p JOIN pg_stat_activity a USING (pid)
		WHERE a.application_name = 'pep_progress'")
	IFS='|' read -r ph workers rows blocks_total blocks_scanned frac directory source <<<"$row"
	if [[ -n "$row" && "${rows:-0}" -gt 0 ]]; then
		if [[ -z "$first" ]]; then
			first=$rows
			phase=$ph
			seen_directory=$directory
			seen_source=$source
			apps=$(sql "SELECT count(*) FROM pg_stat_activity
				WHERE backend_type = 'parallel worker' AND application_name LIKE 'parallel_export_parquet worker %'")
			copy_rows=$(sql "SELECT count(*) FROM pg_stat_progress_copy c JOIN pg_stat_activity a USING (pid)
				WHERE a.application_name = 'pep_progress' AND c.command = 'COPY TO' AND c.type = 'FILE'")
		elif [[ "$rows" -gt "$first" ]]; then
			second=$rows
			fraction=$frac
			break
		fi
	fi
	sleep 0.1
done
running_at_second=$(kill -0 "$export_pid" 2>/dev/null && echo yes || echo no)
wait "$export_pid"
export_rc=$?

[[ -n "$first" && -n "$second" && "$running_at_second" == yes ]]
ok $? "a second session saw rows_written rise ($first, then $second) while the export ran"
[[ "$phase" == writing && "$workers" == 2 ]]
ok $? "the view showed phase 'writing' with 2 workers launched (saw '$phase', '$workers')"
[[ "${blocks_total:-0}" -gt 0 && "${blocks_scanned:-0}" -gt 0 ]] &&
	awk -v f="$fraction" 'BEGIN { exit !(f > 0 && f <= 1) }'
ok $? "blocks and fraction_done reported ($blocks_scanned of $blocks_total, $fraction)"
[[ "$seen_directory" == "$WORK/out" && "$seen_source" == public.pep_progress_t ]]
ok $? "the view named the directory and the source (saw '$seen_directory', '$seen_source')"
[[ "$apps" == 2 ]]
ok $? "both workers showed in pg_stat_activity as 'parallel_export_parquet worker N' (saw $apps)"
[[ "$copy_rows" == 1 ]]
ok $? "the export showed in pg_stat_progress_copy as COPY TO FILE"

out=$(cat "$WORK/export.out")
[[ $export_rc == 0 && "$(head -1 <<<"$out")" == "$ROWS" ]]
ok $? "the watched export completed with every row" "$out"
[[ "$(sed -n 2p <<<"$out")" =~ ^$ROWS\|[0-9]+\|2$ ]]
ok $? "parallel_export_parquet_last() in the exporting session summarized it" "$out"
[[ "$(sql 'SELECT count(*) FROM parallel_export_parquet_progress')" == 0 ]]
ok $? "the view is empty once the export ended"
tail -n +"$((log_before + 1))" "$PEP_LOG" | grep -q "exported $ROWS rows of public.pep_progress_t to \"$WORK/out\": [0-9]* parts, [0-9]* bytes, 2 workers"
ok $? "the export's LOG line names source, directory, rows, parts, bytes and workers"

sql "DROP TABLE pep_progress_t" >/dev/null
rm -rf "$WORK"
tap_done
