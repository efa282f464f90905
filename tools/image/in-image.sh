#!/usr/bin/env bash
# tools/image/in-image.sh: the extension at work in a container of the built
# image. tools/image/run.sh starts it with buildah run, as the image's
# postgres user with the image's environment; prints TAP.
#
#   in-image.sh WORK CMD...
#
# CMD is the image's command (its CMD), run as the server the way the
# official image's entrypoint runs it after initdb, with listen_addresses=''
# added: a chroot container shares the host's network, and the Unix socket in
# the image's /run/postgresql is all this needs. WORK, a directory of the
# host's, receives the server log (server.log), the workers' class loading
# logs (cds/, cds-off/), and for the host's DuckDB read-back the select
# list of the table's fingerprint (fingerprint.sql) and PostgreSQL's value of
# it (postgres.fingerprint). The export goes to /exports/pep_image, the
# image's volume.
#
# The class cache, on this JDK 25 the AOT cache (tools/train-cache.sh;
# hygiene.sh checks that it is the file installed): every worker's JVM logs
# its class loading (-Xlog:class+load to the server log, through
# parallel_export_parquet.jvm_options); the writer's classes must come from
# the cache ("shared objects file"), and a control export with -Xshare:off
# must show them coming from the jar, so the check can tell the two apart.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../tap.sh
source "$here/../tap.sh"

work="$1"
shift
rows=400000
out=/exports/pep_image
control=/exports/pep_image_control
# id and a text with NULLs: a checksum both PostgreSQL and DuckDB compute the
# same way from the values.
fingerprint="count(*), count(t), sum(id), md5(string_agg(t, '|' ORDER BY id))"
# Objects a CREATE EXTENSION could leave behind after DROP EXTENSION.
catalog="SELECT 'class ' || oid::regclass FROM pg_class
	UNION ALL SELECT 'proc ' || oid::regprocedure FROM pg_proc
	UNION ALL SELECT 'type ' || oid::regtype FROM pg_type
	UNION ALL SELECT 'namespace ' || nspname FROM pg_namespace
	UNION ALL SELECT 'cast ' || oid FROM pg_cast
	UNION ALL SELECT 'operator ' || oid::regoperator FROM pg_operator
	UNION ALL SELECT 'event trigger ' || evtname FROM pg_event_trigger
	UNION ALL SELECT 'role ' || rolname FROM pg_roles
	ORDER BY 1"

sql() {
	psql -X -A -t -q -v ON_ERROR_STOP=1 "$@" 2>&1
}

# export_logged LOGS TARGET WORKERS SOURCE JVM-OPTIONS: an export whose
# workers' JVMs log their class loading into LOGS, one file per JVM. They log
# to stdout, which is the server log's (jvm_options may write no file), each
# line with the JVM's PID, and the lines are split from the server log here.
export_logged() {
	local from
	mkdir -p "$1"
	from=$(stat -c %s "$work/server.log")
	sql <<-EOF
		LOAD 'parallel_export_parquet';
		SELECT set_config('parallel_export_parquet.jvm_options',
			current_setting('parallel_export_parquet.jvm_options') || ' $5 -Xlog:class+load=info:stdout:pid',
			false) \gset
		SELECT parallel_export_parquet('$4', '$2', $3);
	EOF
	tail -c +"$((from + 1))" "$work/server.log" |
		awk -v dir="$1" 'match($0, /^\[[0-9]+\] /) { print > (dir "/" substr($0, 2, RLENGTH - 3) ".log") }'
}

# from_archive LOG / from_elsewhere LOG: the writer's classes a JVM loaded
# from the class cache, and from anywhere else (the jar).
from_archive() {
	grep -c 'org\.parallelexport\..* source: shared objects file' "$1"
}
from_elsewhere() {
	grep 'org\.parallelexport\.' "$1" | grep -vc 'source: shared objects file'
}

echo "1..16"

pm=""
stop_server() {
	if [[ -n "$pm" ]] && kill -0 "$pm" 2>/dev/null; then
		pg_ctl stop -m fast -w >/dev/null 2>&1 || kill -INT "$pm"
		wait "$pm"
	fi
}
trap stop_server EXIT

o="$(initdb --username=postgres --auth=trust --encoding=UTF8 2>&1)"
ok $? "initdb as $(id -un) into the image's PGDATA $PGDATA" "$o"

"$@" -c listen_addresses= >"$work/server.log" 2>&1 &
pm=$!
# Ready when it accepts connections; given up on if the server exits.
for _ in $(seq 600); do
	pg_isready -q && break
	kill -0 "$pm" 2>/dev/null || break
	sleep 0.1
done
pg_isready -q
ok $? "the server runs with the image's command: $*" "$(tail -n 20 "$work/server.log")"
if ! pg_isready -q; then
	echo "Bail out! no server"
	exit 1
fi

sql -c "CREATE TABLE pep_image AS SELECT g::bigint AS id,
	CASE WHEN g % 7 <> 0 THEN md5(g::text) END AS t FROM generate_series(1, $rows) g" >/dev/null
sql -c "$catalog" >"$work/catalog.before"
o="$(sql -c "CREATE EXTENSION parallel_export_parquet")"
ok $? "CREATE EXTENSION" "$o"
is "$(sql -c "SELECT extversion = default_version FROM pg_extension e
	JOIN pg_available_extensions a ON a.name = e.extname WHERE e.extname = 'parallel_export_parquet'")" \
	"t" "the installed version is the default version"

# A query of the table, not the table: the caller deals a query's rows
# round-robin in 64 kB chunks, so each of the 4 workers writes a part; of a
# table's shared heap scan a worker that runs late may get no block.
is "$(export_logged "$work/cds" "$out" 4 'SELECT * FROM pep_image' "")" "$rows" \
	"an export with 4 workers into $out returns the row count"
parts="$(find "$out" -name 'part-*.parquet' -user postgres | wc -l)"
[[ "$parts" -eq 4 && -f "$out/_SUCCESS" ]]
ok $? "4 parts and _SUCCESS in the /exports volume, owned by postgres" "$(ls -la "$out" 2>&1)"
sql -F $'\t' -c "SELECT $fingerprint FROM pep_image" >"$work/postgres.fingerprint"
echo "$fingerprint" >"$work/fingerprint.sql"

logs=("$work"/cds/*.log)
is "${#logs[@]}" "4" "each of the 4 workers' JVMs logged its class loading"
bad=""
for f in "${logs[@]}"; do
	[[ "$(from_archive "$f")" -gt 0 && "$(from_elsewhere "$f")" -eq 0 ]] ||
		bad+="$f: $(from_archive "$f") from the archive, $(from_elsewhere "$f") from elsewhere"$'\n'
done
is "$bad" "" "every worker loaded the writer's classes from the AOT cache, none from the jar"
is "$(export_logged "$work/cds-off" "$control" 1 'SELECT 1 AS id' -Xshare:off)" "1" "control: an export with -Xshare:off"
f="$(find "$work/cds-off" -name '*.log' | head -n 1)"
[[ -n "$f" && "$(from_archive "$f")" -eq 0 && "$(from_elsewhere "$f")" -gt 0 ]]
ok $? "control: without the cache the log shows the writer's classes loaded from the jar" \
	"${f:-no log}: $(from_archive "$f") from the archive, $(from_elsewhere "$f") from elsewhere"

o="$(sql -c "DROP EXTENSION parallel_export_parquet")"
ok $? "DROP EXTENSION" "$o"
sql -c "$catalog" >"$work/catalog.after"
o="$(diff "$work/catalog.before" "$work/catalog.after")"
ok $? "DROP EXTENSION leaves no object behind (catalogs as before CREATE EXTENSION)" "$o"

o="$(find /tmp /exports -mindepth 1 -user postgres ! -path "$out" ! -path "$out/*" \
	! -path "$control" ! -path "$control/*" 2>&1)"
is "$o" "" "the exports left no file of the server's OS user in /tmp, nor any beside the exports"

pg_ctl stop -m fast -w >/dev/null 2>&1
wait "$pm"
ok $? "the server shuts down cleanly" "$(tail -n 20 "$work/server.log")"
pm=""
o="$(grep -E 'PANIC|terminated by signal' "$work/server.log")"
is "$o" "" "no crashed process in the server log"
# None at all: the AOT cache is trained with --enable-native-access=ALL-UNNAMED
# as the workers run (pep_java.c), so no worker logs the "Mismatched values
# for property jdk.module.enable.native.access" errors that the JDK's own
# base archive under a dynamic one gave at every start.
o="$(grep -F '][error][' "$work/server.log" | sed 's/^\[[^]]*\]//' | sort | uniq -c)"
is "$o" "" "the workers' JVMs logged no error in the server log"

[[ "$nfail" -eq 0 ]]
