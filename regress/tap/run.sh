#!/usr/bin/env bash
# regress/tap/run.sh: runs the TAP suite in regress/tap/t with prove, as
# PostgreSQL's own TAP tests run (its PGXS prove_installcheck): the
# PostgreSQL::Test perl modules that $PG_CONFIG's PGXS ships on PERL5LIB,
# that installation's binaries first on PATH, PG_REGRESS set, and each test's
# clusters and logs under TESTDIR (TESTDATADIR and TESTLOGDIR for
# PostgreSQL 17 and later). Each test file makes its own clusters, so
# it needs no cluster from tools/cluster.sh; the extension must be installed
# into $PG_CONFIG's PostgreSQL (tools/build.sh).
#
# PostgreSQL refuses to run as root, so as root the tests run as OS user
# postgres (tools/cluster.sh's pep_as_postgres), from a copy of this folder
# in the scratch directory: the checkout may sit where postgres cannot read
# (a root-only clone under mktemp -d or /root). PEP_EXTRA_CONF, if set, is
# appended to every test cluster's postgresql.conf through the framework's
# TEMP_CONFIG, as tools/cluster.sh appends it to its own.
#
# Usage: regress/tap/run.sh [t/NNN_name.pl ...]   (default: every t/*.pl)
# Environment: PG_CONFIG; PEP_TAP_DIR (scratch and logs, default
# $PEP_TMP/tap or /tmp/pep-tap; removed first); PG_TEST_NOCLEAN=1 keeps the
# clusters' data directories.
# Prints prove's verbose TAP; exits non-zero if a test failed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../../tools/cluster.sh
source "$here/../../tools/cluster.sh"

pgxs="$(dirname "$("$PG_CONFIG" --pgxs)")/.."
perl_lib="$pgxs/test/perl"
if [[ ! -f "$perl_lib/PostgreSQL/Test/Cluster.pm" ]]; then
	echo "tap: no PostgreSQL::Test::Cluster under $perl_lib (postgresql-client of this version ships it)" >&2
	exit 1
fi
work="${PEP_TAP_DIR:-${PEP_TMP:-/tmp/pep}-tap}"
rm -rf "$work"
mkdir -p "$work/tmp_check/log" "$work/suite"
cp -R "$here/PepTap.pm" "$here/t" "$work/suite/"
if [[ -n "${PEP_EXTRA_CONF:-}" ]]; then
	printf '%s\n' "$PEP_EXTRA_CONF" >"$work/extra.conf"
fi
[[ $(id -u) -eq 0 ]] && chown -R postgres: "$work"

cd "$work/suite"
tests=("$@")
[[ ${#tests[@]} -gt 0 ]] || tests=(t/*.pl)
rc=0
# The inner bash expands $0 and $@: pep_as_postgres starts in /.
# shellcheck disable=SC2016
pep_as_postgres env \
	PATH="$("$PG_CONFIG" --bindir):$PATH" \
	PERL5LIB="$perl_lib${PERL5LIB:+:$PERL5LIB}" \
	PG_REGRESS="$pgxs/test/regress/pg_regress" \
	TESTDIR="$work" TESTDATADIR="$work/tmp_check" TESTLOGDIR="$work/tmp_check/log" \
	${PEP_EXTRA_CONF:+TEMP_CONFIG="$work/extra.conf"} \
	bash -c 'cd "$0" && exec prove --verbose --nocolor -I . "$@"' "$work/suite" "${tests[@]}" || rc=$?
exit "$rc"
