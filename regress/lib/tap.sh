# shellcheck shell=bash
# regress/lib/tap.sh: what every shell harness in regress/ shares.
#
# Sourced by regress/t_*.sh after `set -uo pipefail`. It sources
# tools/cluster.sh (PGHOST, PGPORT, PEP_OUT, PEP_LOG...), quiets NOTICEs, and
# gives the TAP helpers: ok STATUS DESCRIPTION [DIAGNOSTICS] and is (from
# tools/tap.sh, shared with the checks under tools/), sql QUERY (one psql
# call, unaligned, tuples only, stop on error) and tap_done, which prints the
# plan and returns non-zero if any check failed.

# shellcheck source=../../tools/cluster.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../tools/cluster.sh"

# shellcheck source=../../tools/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../tools/tap.sh"

export PGOPTIONS="-c client_min_messages=warning"

sql() {
	psql -X -A -t -q -v ON_ERROR_STOP=1 -c "$1"
}

tap_done() {
	echo "1..$ntest"
	[[ $nfail == 0 ]]
}
