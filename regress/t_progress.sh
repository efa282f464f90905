#!/usr/bin/env bash
# regress/t_progress.sh: a second session watches an export move.
#
# While an export runs, another session must see it in
# parallel_export_parquet_progress (phase, workers, rows rising, blocks and
# fraction_done) and in pg_stat_progress_copy, and see its workers in
# pg_stat_activity under their application name. Afterwards the
# view is empty again, parallel_export_parquet_last() in the exporting
# session has the summary, and the server log has the export's LOG line.
#
# Then the directory and source come from the export's shared memory, not
# from display text: an export into a directory whose name holds newlines
# and text shaped like the workers' activity lines, held still by the hang
# fault, shows that name verbatim and the right source; a role without
# pg_read_all_stats sees no other role's export in
# parallel_export_parquet_progress_targets(), a member of it does. And an
# export that a pooler's login role runs after SET ROLE to a tenant it has
# no privileges of (NOINHERIT), held at a gate: the login role sees its
# row but not its directory and source, in the view nor in the workers'
# activity; a superuser sees them; the tenant sees its summary afterwards,
# the login role does not.
#
# No timer decides anything. Three exports are held where what is checked
# must show, by events the harness waits for in pg_stat_activity:
#   - a table export, held after its commit point (the pause:published
#     fault): the view names it, with its workers, blocks and fraction, and
#     pg_stat_progress_copy shows it; a cancel then ends the pause and the
#     export returns its success;
#   - the same export with one worker held after its first batch (the
#     hang fault's worker any): the view counts more than half the rows, so
#     the other worker took the blocks the held one did not;
#   - a query export whose source stops at a gate (regress/lib/gate.sh) after
#     half its rows: the workers write what came before, and the view shows
#     it writing with fewer rows than the source has; the harness opens the
#     gate, the export goes on to the same pause, and the view shows every
#     row. The caller copies the workers' counts into the view after every
#     2 MB it sends, and the gate comes some 14 MB in, past what the workers'
#     queues (2 MB each) and unwritten batches can hold back, so the last
#     copy before it already counts rows.
# Needs a running cluster from tools/cluster.sh with the extension
# installed. Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/tap.sh
source "$here/lib/tap.sh"
# shellcheck source=lib/export.sh
source "$here/lib/export.sh"
# shellcheck source=lib/gate.sh
source "$here/lib/gate.sh"

WORK="${PEP_HARNESS_OUT:-$PEP_OUT}/progress"
ROWS=400000
GATE_KEY=4343
PAUSE_MARK='parallel_export_parquet fault injection: pause published'

rm -rf "$WORK"
mkdir -p "$WORK"
chown postgres "$WORK"
sql "CREATE EXTENSION IF NOT EXISTS parallel_export_parquet;
	DROP TABLE IF EXISTS pep_progress_t;
	CREATE TABLE pep_progress_t AS
	SELECT g::bigint AS id, md5(g::text) AS s, now() AS ts FROM generate_series(1, $ROWS) AS g;
	ANALYZE pep_progress_t" >/dev/null
log_before=$(wc -l <"$PEP_LOG")

# APP's export as the view shows it: phase, workers, rows, blocks, fraction, directory, source.
seen() {
	sql "SELECT phase, workers_launched, rows_written, blocks_total, blocks_scanned, fraction_done, directory, source
		FROM parallel_export_parquet_progress p JOIN pg_stat_activity a USING (pid)
		WHERE a.application_name = '$1'"
}
paused() {
	[[ $(sql "SELECT count(*) FROM pg_stat_activity WHERE application_name = '$1' AND query = '$PAUSE_MARK'") == 1 ]]
}
# Release APP's export from the pause after its commit point, and wait for its client.
release() {
	sql "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = '$1' AND query = '$PAUSE_MARK'" >/dev/null
	finish_export "$1"
}

# The table export, held after its commit point.
start_export pep_progress "SET parallel_export_parquet.fault_injection = 'pause:published';" \
	"SELECT parallel_export_parquet('pep_progress_t', '$WORK/out', 2)" \
	"SELECT rows, parts, workers FROM parallel_export_parquet_last()"
wait_until "paused pep_progress"
ok $? "premise: the table export is held after its commit point"
IFS='|' read -r _ workers rows blocks_total blocks_scanned fraction directory source <<<"$(seen pep_progress)"
copy_rows=$(sql "SELECT count(*) FROM pg_stat_progress_copy c JOIN pg_stat_activity a USING (pid)
	WHERE a.application_name = 'pep_progress' AND c.command = 'COPY TO' AND c.type = 'FILE'")
[[ "$workers" == 2 && "$rows" == "$ROWS" ]]
ok $? "the view showed 2 workers launched and every row written (saw '$workers', '$rows')"
[[ "${blocks_total:-0}" -gt 0 && "$blocks_scanned" == "$blocks_total" ]] &&
	awk -v f="$fraction" 'BEGIN { exit !(f == 1) }'
ok $? "blocks and fraction_done reported, every block scanned ($blocks_scanned of $blocks_total, $fraction)"
[[ "$directory" == "$WORK/out" && "$source" == public.pep_progress_t ]]
ok $? "the view named the directory and the source (saw '$directory', '$source')"
[[ "$copy_rows" == 1 ]]
ok $? "the export showed in pg_stat_progress_copy as COPY TO FILE"
release pep_progress
[[ "$(head -1 <<<"$OUT")" == "$ROWS" ]]
ok $? "the watched export completed with every row" "$OUT"
[[ "$(sed -n 2p <<<"$OUT")" =~ ^$ROWS\|[0-9]+\|2$ ]]
ok $? "parallel_export_parquet_last() in the exporting session summarized it" "$OUT"
tail -n +"$((log_before + 1))" "$PEP_LOG" | grep -q "exported $ROWS rows of public.pep_progress_t to \"$WORK/out\": [0-9]* parts, [0-9]* bytes, 2 workers"
ok $? "the export's LOG line names source, directory, rows, parts, bytes and workers"

# A table's heap scan is shared, whatever the scheduler does: one worker is
# held after its first batch (the worker any, the first to write one), and
# the other then takes every block the held one has not claimed. More than
# half the rows written cannot be the held worker's one batch.
start_export pep_progress_shared "SET parallel_export_parquet.fault_injection = 'hang:any:1';" \
	"SELECT parallel_export_parquet('pep_progress_t', '$WORK/shared', 2)"
wait_until "[[ \$(sql \"SELECT count(*) FROM pg_stat_activity w JOIN pg_stat_activity l ON w.leader_pid = l.pid
	WHERE l.application_name = 'pep_progress_shared' AND w.query = '$HANG_MARK'\") == 1 ]]"
ok $? "premise: one worker of a 2-worker table export is held after its first batch"
wait_until "[[ \$(sql \"SELECT rows_written FROM parallel_export_parquet_progress p JOIN pg_stat_activity a USING (pid)
	WHERE a.application_name = 'pep_progress_shared'\") -gt $((ROWS / 2)) ]]"
ok $? "the other worker wrote the rest of the table: the heap scan is shared" \
	"rows_written: $(seen pep_progress_shared | cut -d'|' -f3) of $ROWS"
sql "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'pep_progress_shared'
	AND backend_type = 'client backend'" >/dev/null
finish_export pep_progress_shared

# The query export, held at the gate, then after its commit point.
gate_close pep_progress_gate "$GATE_KEY"
start_export pep_progress_q "SET parallel_export_parquet.fault_injection = 'pause:published';" \
	"SELECT parallel_export_parquet('$(gate_query pep_progress_t 'id, s, ts' $((ROWS / 2)) "$GATE_KEY")', '$WORK/outq', 2)"
wait_until "at_gate pep_progress_q"
ok $? "premise: the query export waits at the gate"
IFS='|' read -r phase workers first _ <<<"$(seen pep_progress_q)"
apps=$(sql "SELECT count(*) FROM pg_stat_activity w JOIN pg_stat_activity l ON w.leader_pid = l.pid
	WHERE l.application_name = 'pep_progress_q' AND w.backend_type = 'parallel worker'
	AND w.application_name LIKE 'parallel_export_parquet worker %'")
[[ "$phase" == writing && "$workers" == 2 ]]
ok $? "the view showed phase 'writing' with 2 workers launched (saw '$phase', '$workers')"
[[ "$apps" == 2 ]]
ok $? "both workers showed in pg_stat_activity as 'parallel_export_parquet worker N' (saw $apps)"
gate_open pep_progress_gate
wait_until "paused pep_progress_q"
IFS='|' read -r _ _ second _ <<<"$(seen pep_progress_q)"
release pep_progress_q
[[ "${first:-0}" -gt 0 && "$first" -lt "$ROWS" && "$second" == "$ROWS" ]]
ok $? "a second session saw rows_written rise while the export ran ($first at the gate, then $second)"
[[ "$OUT" == "$ROWS" ]]
ok $? "the gated export completed with every row" "$OUT"
[[ "$(sql 'SELECT count(*) FROM parallel_export_parquet_progress')" == 0 ]]
ok $? "the view is empty once the exports ended"

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

# A pooler's session exports as a tenant role. Its login role may SET ROLE
# to the tenant but has none of its privileges (NOINHERIT, as PostgREST's
# authenticator). PostgreSQL shows the export's progress row to the login
# role's sessions; the directory and source, in the view and in the
# workers' activity, only to roles with the tenant's privileges. The export
# is held at a gate, its workers waiting for rows.
secret="tenant-secret-$$"
sql "DROP ROLE IF EXISTS regress_pep_pooler; DROP ROLE IF EXISTS regress_pep_tenant;
	CREATE ROLE regress_pep_tenant;
	CREATE ROLE regress_pep_pooler LOGIN NOINHERIT;
	GRANT regress_pep_tenant TO regress_pep_pooler;
	GRANT pg_write_server_files TO regress_pep_tenant;
	GRANT SELECT ON pep_progress_t TO regress_pep_tenant;
	DO \$\$ DECLARE f regprocedure; BEGIN
		FOR f IN SELECT oid FROM pg_proc WHERE proname = 'parallel_export_parquet' LOOP
			EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO regress_pep_tenant', f);
		END LOOP; END \$\$" >/dev/null
gate_close pep_tenant_gate "$GATE_KEY"
tenant_q="$(gate_query pep_progress_t 'id, s' $((ROWS / 2)) "$GATE_KEY") AND s <> ''$secret''"
PGAPPNAME=pep_tenant psql -X -A -t -q -U regress_pep_pooler -c "SET ROLE regress_pep_tenant" \
	-c "SELECT parallel_export_parquet('$tenant_q', '$WORK/tenant', 2)" \
	-c "SELECT (parallel_export_parquet_last()).rows" \
	-c "RESET ROLE" -c "SELECT parallel_export_parquet_last() IS NULL" >"$WORK/pep_tenant.out" 2>&1 &
tenant_pid=$!
wait_until "at_gate pep_tenant"
ok $? "premise: the tenant's export waits at the gate"
leader=$(caller_pid pep_tenant)
as_pooler=$(psql -X -A -t -q -U regress_pep_pooler -c "SELECT count(*), count(directory), count(source)
	FROM parallel_export_parquet_progress WHERE pid = ${leader:-0}")
[[ "$as_pooler" == "1|0|0" ]]
ok $? "the login role sees the export's row without directory or source (saw $as_pooler)"
workers=$(psql -X -A -t -q -U regress_pep_pooler -c "SELECT count(*) FILTER (WHERE query LIKE 'parallel_export_parquet worker %'),
	count(*) FILTER (WHERE query LIKE '%$WORK/tenant%' OR query LIKE '%pep_progress_t%')
	FROM pg_stat_activity WHERE leader_pid = ${leader:-0}")
[[ "$workers" == "2|0" ]]
ok $? "it sees both workers' activity, naming neither directory nor source (saw $workers)"
as_super=$(sql "SELECT directory = '$WORK/tenant', strpos(source, '$secret') > 0
	FROM parallel_export_parquet_progress WHERE pid = ${leader:-0}")
[[ "$as_super" == "t|t" ]]
ok $? "a superuser sees the tenant's directory and source (saw $as_super)"
gate_open pep_tenant_gate
wait "$tenant_pid"
[[ "$(tr '\n' ' ' <"$WORK/pep_tenant.out")" == "$ROWS $ROWS t " ]]
ok $? "the tenant's export completed, the tenant saw its summary, the login role did not" \
	"$(cat "$WORK/pep_tenant.out")"
sql "DROP ROLE regress_pep_pooler; DROP OWNED BY regress_pep_tenant; DROP ROLE regress_pep_tenant" >/dev/null

sql "DROP TABLE pep_progress_t" >/dev/null
rm -rf "$WORK"
tap_done
