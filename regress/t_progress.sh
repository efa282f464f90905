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
# Then the directory and source come from the export's shared memory, not
# from display text: an export into a directory whose name holds newlines
# and text shaped like the workers' activity lines, held still by the hang
# fault, shows that name verbatim and the right source; a role without
# pg_read_all_stats sees no other role's export in
# parallel_export_parquet_progress_targets(), a member of it does.
#
# No timer decides anything: the watched export is held after its commit
# point (the pause:published fault) until the harness, having seen the rows
# counter at two different non-zero values, releases it with a cancel, which
# after the commit point ends the pause and lets the export return its
# success. So it still runs at the second value however slow the polls are;
# the first value must come while it writes (fewer than all rows), else the
# check fails instead of passing. Needs a running cluster from
# tools/cluster.sh with the extension installed. Prints TAP.

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

PAUSE_MARK='parallel_export_parquet fault injection: pause published'
PGAPPNAME=pep_progress psql -X -A -t -q -v ON_ERROR_STOP=1 \
	-c "SET parallel_export_parquet.fault_injection = 'pause:published'" \
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
			# Seen only once it had written everything: it cannot rise any more.
			((first < ROWS)) || break
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
# Release the export once its leader holds at the pause.
deadline=$((SECONDS + 300))
until [[ "$(sql "SELECT count(*) FROM pg_stat_activity
		WHERE application_name = 'pep_progress' AND query = '$PAUSE_MARK'")" == 1 ]]; do
	kill -0 "$export_pid" 2>/dev/null && ((SECONDS < deadline)) || break
	sleep 0.05
done
sql "SELECT pg_cancel_backend(pid) FROM pg_stat_activity
	WHERE application_name = 'pep_progress' AND query = '$PAUSE_MARK'" >/dev/null
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

# A directory name that the 1.0 view, which split the workers' activity
# text at newlines, would have read as '$WORK/spoof', with the source
# 'public.not_this...'.
spoof="$WORK/spoof"$'\n'"directory: elsewhere"$'\n'"source: public.not_this"
# psql interpolates :'dir' only in what it reads, not in -c.
printf '%s\n' "SET parallel_export_parquet.fault_injection = 'hang:0:1';" \
	"SELECT parallel_export_parquet('pep_progress_t', :'dir', 1);" |
	PGAPPNAME=pep_spoof psql -X -A -t -q -v ON_ERROR_STOP=1 -v dir="$spoof" >"$WORK/spoof.out" 2>&1 &
spoof_pid=$!
held=""
deadline=$((SECONDS + 300))
while kill -0 "$spoof_pid" 2>/dev/null && ((SECONDS < deadline)); do
	held=$(sql "SELECT l.pid FROM pg_stat_activity w JOIN pg_stat_activity l ON w.leader_pid = l.pid
		WHERE l.application_name = 'pep_spoof'
		  AND w.query = 'parallel_export_parquet fault injection: hang'")
	[[ -n "$held" ]] && break
	sleep 0.1
done
[[ -n "$held" ]]
ok $? "premise: the export into the newline directory is held at the hang fault"
seen=$(echo "SELECT directory = :'dir', source, phase FROM parallel_export_parquet_progress
	WHERE pid = ${held:-0};" | psql -X -A -t -q -v ON_ERROR_STOP=1 -v dir="$spoof")
[[ "$seen" == "t|public.pep_progress_t|writing" ]]
ok $? "a directory name with newlines shows verbatim, with the right source" \
	"$(sql "SELECT directory, source FROM parallel_export_parquet_progress")"
visible=$(sql "DROP ROLE IF EXISTS regress_pep_watcher;
	CREATE ROLE regress_pep_watcher;
	SET ROLE regress_pep_watcher;
	SELECT count(*) FROM parallel_export_parquet_progress_targets();
	RESET ROLE;
	GRANT pg_read_all_stats TO regress_pep_watcher;
	SET ROLE regress_pep_watcher;
	SELECT count(*) FROM parallel_export_parquet_progress_targets() WHERE pid = ${held:-0};
	RESET ROLE;
	DROP ROLE regress_pep_watcher" | tr '\n' ' ')
[[ "$visible" == "0 1 " ]]
ok $? "another role's export shows only to members of pg_read_all_stats (saw counts $visible)"
sql "SELECT pg_cancel_backend(${held:-0})" >/dev/null
wait "$spoof_pid"

sql "DROP TABLE pep_progress_t" >/dev/null
rm -rf "$WORK"
tap_done
