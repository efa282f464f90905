#!/usr/bin/env bash
# tools/pgroot/checks.sh: what installing, using and dropping the extension
# leaves behind, on a running cluster of tools/cluster.sh (tools/pgroot/run.sh
# runs it on the suite's cluster of each of its legs; it works on any leg).
# Prints TAP.
#
#   - the installed version is 1.2, and 1.0 and 1.1 are there to upgrade from;
#   - the cluster's starve_worker is what the leg asked for (PEP_STARVE_WORKER,
#     default -1: off): the premise of a leg run as a split audit;
#   - libjvm_path names an existing libjvm; the class cache of that JVM is
#     there (an AOT cache on JDK 25 and later, an AppCDS archive before, not
#     both) and that JVM maps it with -Xshare:on (it matches the JVM and the
#     jar path);
#   - an export with 2 workers writes its parts, and leaves no staging
#     directory, no lock file and no parallel worker;
#   - no JVM file anywhere: no /tmp/hsperfdata_postgres (workers run with
#     -XX:-UsePerfData), no hs_err_pid*.log or *.jfr in the data directory,
#     no file of the server's OS user in /tmp outside the cluster's own;
#   - no server process maps libjvm after the export (the leader never
#     loads a JVM, and workers take theirs with them);
#   - DROP EXTENSION leaves no function, no extension row, no file; the
#     extension can be created again and exports again, and dropped again.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../cluster.sh
source "$here/../cluster.sh"
# shellcheck source=../tap.sh
source "$here/../tap.sh"
sql() {
	"$(pep_bindir)/psql" -X -A -t -q -v ON_ERROR_STOP=1 -c "$1" 2>&1
}

echo "1..19"
if ! pep_running; then
	echo "Bail out! no running cluster at $PEP_DATA"
	exit 1
fi

work="$PEP_OUT/checks"
rm -rf -- "$work"
mkdir -p "$work"
chown postgres: "$work"
before_tmp="$(find /tmp -maxdepth 1 -mindepth 1 -user postgres ! -path "$PEP_TMP" | sort)"

sql "SET client_min_messages = warning; DROP EXTENSION IF EXISTS parallel_export_parquet CASCADE;
     CREATE EXTENSION parallel_export_parquet;
     DROP TABLE IF EXISTS pep_checks; CREATE TABLE pep_checks AS
     SELECT g AS id, md5(g::text) AS t FROM generate_series(1, 200000) g;" >/dev/null

is "$(sql "SELECT extversion FROM pg_extension WHERE extname = 'parallel_export_parquet'")" "1.2" \
	"installed version is 1.2, the default"
is "$(sql "SELECT string_agg(version, ',' ORDER BY version) FROM pg_available_extension_versions WHERE name = 'parallel_export_parquet'")" \
	"1.0,1.1,1.2" "1.0, 1.1 and 1.2 are available (1.2 from either through the upgrade scripts)"

is "$(sql "LOAD 'parallel_export_parquet'; SHOW parallel_export_parquet.starve_worker")" "${PEP_STARVE_WORKER:--1}" \
	"the suite's cluster ran with starve_worker ${PEP_STARVE_WORKER:--1}"

share="$("$PG_CONFIG" --sharedir)/extension"
libjvm="$(sql "LOAD 'parallel_export_parquet'; SHOW parallel_export_parquet.libjvm_path")"
[[ -f "$libjvm" ]]
ok $? "libjvm_path names an existing file" "libjvm_path: $libjvm"
java="$(dirname "$(dirname "$(dirname "$libjvm")")")/bin/java"
java_major="$("$java" -version 2>&1 | sed -n '1s/^[^"]*"\([0-9]*\).*/\1/p')"
if [[ "${java_major:-0}" -ge 25 ]]; then
	cache=aot other=jsa
else
	cache=jsa other=aot
fi
[[ -s "$share/parallel_export_parquet.jar" && -s "$share/parallel_export_parquet.$cache" &&
	! -e "$share/parallel_export_parquet.$other" ]]
ok $? "jar and the class cache of JDK ${java_major:-?} (.$cache, no .$other) installed in $share" \
	"$(ls -l "$share"/parallel_export_parquet.* 2>&1)"
# -Xshare:on fails where -Xshare:auto (the workers') would silently go
# without: the cache must match this JVM and the jar at this path, and the
# AOT cache also the workers' heap sizes and native access.
out="$(pep_as_postgres "$java" -Xshare:on -XX:SharedArchiveFile="$share/parallel_export_parquet.$cache" \
	-XX:+UseSerialGC -Xmx512m -Xmn16m -XX:-UsePerfData --enable-native-access=ALL-UNNAMED \
	-cp "$share/parallel_export_parquet.jar" -version 2>&1)"
ok $? "the class cache maps (-Xshare:on) for the server's OS user with $java" "$out"

rows="$(sql "SELECT parallel_export_parquet('pep_checks', '$work/out', 2)")"
is "$rows" "200000" "export with 2 workers returns the row count"
parts="$(find "$work/out" -name 'part-*.parquet' | wc -l)"
[[ "$parts" -ge 1 && -f "$work/out/_SUCCESS" ]]
ok $? "export wrote parts and _SUCCESS" "$(ls -la "$work/out" 2>&1)"
left="$(find "$work" -mindepth 1 -maxdepth 1 ! -name out)"
is "$left" "" "no staging directory or lock file beside the target"
is "$(sql "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'parallel worker'")" "0" \
	"no parallel worker left"

# This cluster's processes (the postmaster and its children; other clusters
# on the machine are none of our business): none may map libjvm once the
# export is over. Workers are reaped before the export returns.
pm="$(head -n 1 "$PEP_DATA/postmaster.pid")"
jvm_maps=""
for pid in "$pm" $(pgrep -P "$pm"); do
	if grep -q 'libjvm' "/proc/$pid/maps" 2>/dev/null; then
		jvm_maps+="$pid $(tr '\0' ' ' <"/proc/$pid/cmdline")"$'\n'
	fi
done
is "$jvm_maps" "" "no server process maps libjvm after the export"

[[ ! -e /tmp/hsperfdata_postgres ]]
ok $? "no /tmp/hsperfdata_postgres (workers run with -XX:-UsePerfData)" "$(ls -la /tmp/hsperfdata_postgres 2>&1)"
jvm_files="$(find "$PEP_DATA" \( -name 'hs_err_pid*' -o -name '*.jfr' -o -name 'replay_pid*' -o -name 'core*' \) 2>/dev/null)"
is "$jvm_files" "" "no JVM crash, recording or core file in the data directory"

sql "DROP EXTENSION parallel_export_parquet" >/dev/null
is "$(sql "SELECT count(*) FROM pg_extension WHERE extname = 'parallel_export_parquet'")" "0" \
	"DROP EXTENSION removes the extension"
is "$(sql "SELECT count(*) FROM pg_proc WHERE proname = 'parallel_export_parquet'")" "0" \
	"DROP EXTENSION leaves no function"

sql "CREATE EXTENSION parallel_export_parquet" >/dev/null
is "$(sql "SELECT parallel_export_parquet('SELECT * FROM pep_checks WHERE id <= 1000', '$work/again', 2)")" \
	"1000" "after DROP, CREATE EXTENSION again exports again"
sql "SET client_min_messages = warning; DROP EXTENSION parallel_export_parquet; DROP TABLE pep_checks" >/dev/null
is "$(sql "SELECT count(*) FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid WHERE e.extname = 'parallel_export_parquet'")" \
	"0" "second DROP EXTENSION leaves no dependent object"

left="$(find "$work" -mindepth 1 -maxdepth 1 ! -name out ! -name again)"
is "$left" "" "nothing but the two exports in the export area"
after_tmp="$(find /tmp -maxdepth 1 -mindepth 1 -user postgres ! -path "$PEP_TMP" | sort)"
new_tmp="$(comm -13 <(echo "$before_tmp") <(echo "$after_tmp"))"
[[ -z "$new_tmp" ]]
ok $? "the exports left no file of the server's OS user in /tmp" \
	"$(grep -c . <<<"$new_tmp") new, e.g.:"$'\n'"$(head -n 5 <<<"$new_tmp")"

rm -rf -- "$work"
[[ "$nfail" -eq 0 ]]
