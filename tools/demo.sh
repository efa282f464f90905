#!/usr/bin/env bash
# tools/demo.sh: the README's first command. Installs what is needed, builds
# and installs the extension, starts the throwaway cluster (tools/cluster.sh),
# creates a sample table `events` of 1,000,000 rows, exports it with 4 workers
# into $PEP_TMP/out/events, shows the row count, the time taken, the part
# files and 5 rows read back with DuckDB, and leaves the cluster running.
#
# Environment: PEP_TMP, PEP_PORT, PG_CONFIG (see tools/cluster.sh);
# PEP_SKIP_DEPS=1 / PEP_SKIP_BUILD=1 skip installing packages / building.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PG_CONFIG="${PG_CONFIG:-pg_config}"
export PG_CONFIG

step() { printf '\n== %s\n' "$*"; }

if [[ "${PEP_SKIP_DEPS:-0}" != 1 ]]; then
	step "installing packages (tools/deps.sh)"
	tools/deps.sh
fi
if [[ "${PEP_SKIP_BUILD:-0}" != 1 ]]; then
	step "building (mvn package, make -C extension install)"
	mvn -B -ntp -q -Dstyle.color=never -DskipTests package
	make -s -C extension PG_CONFIG="$PG_CONFIG"
	make -s -C extension install PG_CONFIG="$PG_CONFIG"
fi

step "starting the throwaway cluster"
# shellcheck source=tools/cluster.sh
source "$ROOT/tools/cluster.sh"
pep_start

step "creating table events (1,000,000 rows)"
pep_psql -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS parallel_export_parquet;
DROP TABLE IF EXISTS events;
CREATE TABLE events AS
SELECT g::bigint AS id,
       TIMESTAMPTZ '2024-01-01 00:00:00+00' + g * interval '2.5 seconds' AS ts,
       (ARRAY['view', 'click', 'cart', 'buy'])[1 + g % 4] AS kind,
       ((g::bigint * 7919) % 100000 / 100.0)::numeric(12,2) AS amount,
       jsonb_build_object('user', g % 50000, 'page', '/p/' || g % 997, 'mobile', g % 3 = 0) AS payload
FROM generate_series(1, 1000000) AS g;
ANALYZE events;
SQL
pep_psql -Atc "SELECT 'events: ' || count(*) || ' rows, ' || pg_size_pretty(pg_relation_size('events')) FROM events"

out="$PEP_OUT/events"
rm -rf -- "$out"
step "exporting: SELECT parallel_export_parquet('events', '$out', 4)"
t0=$(date +%s%N)
rows=$(pep_psql -Atc "SELECT parallel_export_parquet('events', '$out', 4)")
t1=$(date +%s%N)
echo "rows exported: $rows"
echo "elapsed:       $(((t1 - t0) / 1000000)) ms"
echo "files:"
(cd "$out" && stat -c '  %8s bytes  %n' -- *)

step "reading back with DuckDB"
mvn -B -ntp -q -Dstyle.color=never -pl regress/readback exec:java -Dexec.args="$out 5"

step "the cluster keeps running"
envp=""
if [[ "$PEP_TMP" != /tmp/pep-cluster || "$PEP_PORT" != 54329 ]]; then
	envp="PEP_TMP=$PEP_TMP PEP_PORT=$PEP_PORT "
fi
cat <<EOF2
connect:  PGHOST=$PEP_SOCK PGPORT=$PEP_PORT PGUSER=postgres psql
          (or: ${envp}tools/cluster.sh psql)
jdbc:     jdbc:postgresql://127.0.0.1:$PEP_PORT/postgres?user=postgres
exports:  $PEP_OUT (writable by the server)
log:      $PEP_LOG
stop:     ${envp}tools/cluster.sh stop   (removes $PEP_TMP)
EOF2
