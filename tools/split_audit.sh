#!/usr/bin/env bash
# tools/split_audit.sh: the suites run with one worker starved of every table
# scan, to find the checks that count on how a parallel scan shares a
# table's blocks between the workers (DESIGN.md, "What a test may depend on").
#
# The test cluster's postgresql.conf gets parallel_export_parquet.starve_worker
# = K (extension/src/testhooks/pep_fault.c): worker K begins its share of a table's scan
# only after the other workers have finished theirs, so it gets no block, as
# a worker starved of CPU on a busy machine may. A check that fails here and
# passes in tools/test.sh depends on the split: make the split certain (one
# worker, a query source, whose rows are dealt in turn) or assert what the
# test got. CI's PostgreSQL 17 leg runs its suites the same way
# (tools/pgroot/run.sh with PEP_ROOT_STARVE_WORKER=1); this script does it
# on the host (about 12 minutes), for a quicker answer after changing tests
# that export with several workers.
#
# Its premise, checked last: the cluster the suites ran on had the setting.
#
# Environment: PEP_STARVE_WORKER (default 1); the rest is tools/test.sh's,
# with the failure harness run once (PEP_FAILURE_RUNS) unless set.

set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
starve="${PEP_STARVE_WORKER:-1}"
PEP_EXTRA_CONF="${PEP_EXTRA_CONF:-}
parallel_export_parquet.starve_worker = $starve"
export PEP_EXTRA_CONF
export PEP_FAILURE_RUNS="${PEP_FAILURE_RUNS:-1}"
keep="${PEP_KEEP_CLUSTER:-}"
rc=0
PEP_KEEP_CLUSTER=1 tools/test.sh "$@" || rc=$?

# shellcheck source=cluster.sh
source tools/cluster.sh
seen=$(psql -X -A -t -q -c "LOAD 'parallel_export_parquet'" \
	-c "SHOW parallel_export_parquet.starve_worker" 2>&1) || true
[[ -n "$keep" ]] || pep_stop >/dev/null
if [[ "$seen" != "$starve" ]]; then
	echo "split audit: premise failed: the suites' cluster had starve_worker '$seen', not $starve" >&2
	exit 1
fi
echo "split audit: the suites ran with worker $starve starved of every table scan"
exit "$rc"
