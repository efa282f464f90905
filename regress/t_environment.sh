#!/usr/bin/env bash
# regress/t_environment.sh: what an export does to the machine around it.
#
# Checks that need root or statements outside a transaction, so not pgTAP:
#   - part files and _SUCCESS are created with mode 0600 (the server's umask),
#     never readable by other OS users;
#   - more workers than max_parallel_workers are lowered with a NOTICE;
#   - a tablespace's directory, and a directory inside one, are refused;
#   - a missing jar is a clear error naming the path and what to do, found
#     before anything is created (the jar is moved aside and always put
#     back);
#   - a worker's JVM leaves no files behind (no /tmp/hsperfdata_postgres, no
#     native library copies of the codecs in /tmp),
#     and DROP EXTENSION leaves no staging, lock or JVM files.
# Needs a running cluster from tools/cluster.sh with the extension
# installed. Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/tap.sh
source "$here/lib/tap.sh"

WORK="${PEP_HARNESS_OUT:-$PEP_OUT}/environment"
JAR="$("$PG_CONFIG" --sharedir)/extension/parallel_export_parquet.jar"

restore_jar() {
	[[ -f "$JAR.moved-by-test" ]] && mv "$JAR.moved-by-test" "$JAR"
}
trap restore_jar EXIT

rm -rf "$WORK"
mkdir -p "$WORK/tablespace"
chown -R postgres "$WORK"
rm -rf /tmp/hsperfdata_postgres
tmp_before=$(find /tmp -maxdepth 1 -user postgres | sort)
sql "CREATE EXTENSION IF NOT EXISTS parallel_export_parquet;
	DROP TABLE IF EXISTS pep_env_t;
	CREATE TABLE pep_env_t AS SELECT g AS id, md5(g::text) AS s FROM generate_series(1, 50000) AS g" >/dev/null

# File modes
sql "SELECT parallel_export_parquet('pep_env_t', '$WORK/modes', 2)" >/dev/null
modes=$(stat -c '%a %n' "$WORK/modes"/* | awk '{print $1}' | sort -u | tr '\n' ' ')
[[ "$modes" == "600 " ]]
ok $? "parts and _SUCCESS are created with mode 0600 (saw: $modes)"
[[ $(find "$WORK/modes" -name 'part-*.parquet' | wc -l) -ge 1 ]]
ok $? "premise: the export wrote parts to look at"

# More workers than may run: lowered, and said so.
out=$(PGOPTIONS="-c client_min_messages=notice -c max_parallel_workers=2" \
	sql "SELECT parallel_export_parquet('pep_env_t', '$WORK/clamped', 5)" 2>&1)
grep -q 'NOTICE:  export uses 2 workers instead of 5 requested' <<<"$out" && grep -q '^50000$' <<<"$out"
ok $? "workers above max_parallel_workers are lowered with a NOTICE, and the export completes" "$out"

# Tablespaces
sql "DROP TABLESPACE IF EXISTS pep_env_ts" >/dev/null
sql "CREATE TABLESPACE pep_env_ts LOCATION '$WORK/tablespace'" >/dev/null
ok $? "premise: a tablespace exists at $WORK/tablespace"
out=$(sql "SELECT parallel_export_parquet('pep_env_t', '$WORK/tablespace/out', 1)" 2>&1)
grep -q "cannot export into a tablespace's directory or a directory containing one" <<<"$out"
ok $? "a directory inside a tablespace is refused" "$out"
[[ ! -e "$WORK/tablespace/out" ]]
ok $? "and nothing was created there"
out=$(sql "SELECT parallel_export_parquet('pep_env_t', '$WORK/tablespace', 1)" 2>&1)
grep -q "cannot export into a tablespace's directory" <<<"$out"
ok $? "the tablespace's own directory is refused" "$out"
sql "DROP TABLESPACE pep_env_ts" >/dev/null
# Without a checkpoint, a crash restart in a later harness would replay the
# tablespace's creation and find its directory gone.
sql "CHECKPOINT" >/dev/null

# A missing jar is found before the export creates anything: the target's
# parent keeps the modification time it is given here, which a lock file or
# staging directory made and removed again would move to now (premise: an
# export failing in its worker, after its staging exists, moves it).
PARENT="$WORK/nojar"
mkdir "$PARENT" && chown postgres "$PARENT" && touch -d @978307200 "$PARENT"
out=$(PGOPTIONS="$PGOPTIONS -c parallel_export_parquet.fault_injection=open_error:0" \
	sql "SELECT parallel_export_parquet('pep_env_t', '$PARENT/out', 1)" 2>&1)
[[ -z "$(ls -A "$PARENT")" && "$(stat -c %Y "$PARENT")" != 978307200 ]]
ok $? "premise: an export failing in its worker leaves nothing but moves the parent's time" "$out"
touch -d @978307200 "$PARENT"
mv "$JAR" "$JAR.moved-by-test"
out=$(sql "SELECT parallel_export_parquet('pep_env_t', '$PARENT/out', 1)" 2>&1)
restore_jar
grep -q "could not access the extension's jar \"$JAR\": No such file or directory" <<<"$out" &&
	grep -q "make install" <<<"$out"
ok $? "a missing jar is a clear error with a hint" "$out"
[[ -z "$(ls -A "$PARENT")" && "$(stat -c %Y "$PARENT")" == 978307200 ]]
ok $? "and nothing was created: no target, lock or staging, not even for a moment"
[[ "$(sql "SELECT parallel_export_parquet('pep_env_t', '$PARENT/out', 1)")" == 50000 ]]
ok $? "with the jar back, the same export succeeds"

# What the JVMs and the extension leave behind
[[ ! -e /tmp/hsperfdata_postgres ]]
ok $? "worker JVMs created no /tmp/hsperfdata_postgres"
sql "SELECT parallel_export_parquet('pep_env_t', '$WORK/codecs-snappy', 2, compression => 'snappy')" >/dev/null &&
	sql "SELECT parallel_export_parquet('pep_env_t', '$WORK/codecs-zstd', 2, compression => 'zstd')" >/dev/null &&
	sql "SELECT parallel_export_parquet('pep_env_t', '$WORK/codecs-brotli', 2, compression => 'brotli')" >/dev/null
ok $? "premise: exports with snappy, zstd and brotli, whose native libraries workers load, ran"
new_tmp=$(comm -13 <(echo "$tmp_before") <(find /tmp -maxdepth 1 -user postgres | sort))
[[ -z "$new_tmp" ]]
ok $? "the exports left no file of the server's OS user in /tmp" "$new_tmp"
sql "DROP TABLE pep_env_t; DROP EXTENSION parallel_export_parquet; CREATE EXTENSION parallel_export_parquet" >/dev/null
left=$(find "$WORK" -name '.*.pep-*' 2>/dev/null)
[[ -z "$left" ]]
ok $? "no staging or lock file is left after the exports and DROP EXTENSION" "$left"

rm -rf "$WORK"
tap_done
