#!/usr/bin/env bash
# tools/test.sh: the test command of parallel_export_parquet (CI runs it
# through .ci/run).
#
#   0. tools/order_guard.sh               no test sorts an aggregate by a
#                                         constant (under a second; always)
#   1. tools/deps.sh                      system packages
#      tools/gates.sh                     shellcheck, clang-format, Spotless,
#                                         javac -Xlint:all -Werror (PEP_GATES=0
#                                         skips them: the root legs, which
#                                         check the same tree)
#   2. mvn verify; tools/build.sh        Java unit tests (writer, Iceberg commit); make -Werror, install
#   3. tools/cluster.sh start             a fresh throwaway cluster
#   4. pg_prove regress/sql/*.sql         pgTAP suites
#      make -C extension installcheck     pg_regress suite (suite "installcheck")
#      regress/tap/run.sh                 PostgreSQL's TAP framework: multi-session,
#                                         restart and crash tests, each with its
#                                         own clusters (suite "tap")
#   5. mvn -pl regress/readback test      Parquet read back with DuckDB
#      regress/matrix (suite "matrix")    the reader matrix: five readers
#   6. every executable regress/t_*.sh    shell harnesses (TAP-ish output)
#   7. tools/cluster.sh stop
#
# Ends with the line "N passed, N failed, N skipped" summing pgTAP tests,
# TAP tests, Surefire tests and harness checks, and exits non-zero on any failure (or
# when no test ran). Stage logs go to $PEP_LOGS (default /tmp/pep-test-logs),
# the server log included.
#
# Environment: PEP_TMP, PEP_PORT, PG_CONFIG (see tools/cluster.sh);
# PEP_KEEP_CLUSTER=1 leaves the cluster running; PEP_GATES=0 skips the gates;
# PEP_SKIP_DEPS=1 and PEP_SKIP_BUILD=1 skip steps 1 and 2; PEP_SUITES (default
# "pgtap installcheck tap readback matrix harness") picks suites; PEP_HARNESSES
# (default: every regress/t_*.sh) names the harnesses the harness suite runs,
# without directory or .sh (a named one that does not exist fails the run); PEP_MATRIX_UPDATE=1 makes the
# matrix suite write its result into regress/matrix/expected.tsv and docs/types.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

PEP_LOGS="${PEP_LOGS:-/tmp/pep-test-logs}"
PEP_SUITES="${PEP_SUITES:-pgtap installcheck tap readback matrix harness}"
PG_CONFIG="${PG_CONFIG:-pg_config}"
export PG_CONFIG
rm -rf "$PEP_LOGS"
mkdir -p "$PEP_LOGS"

passed=0
failed=0
skipped=0
started=$SECONDS

say() { printf '\n=== %s\n' "$*"; }

summary() {
	say "summary ($((SECONDS - started)) s; logs in $PEP_LOGS)"
	echo "$passed passed, $failed failed, $skipped skipped"
}

# Counts TAP results on stdin: prints "passed failed skipped". A plan that was
# not fulfilled counts its missing tests as failed; a test file that printed
# no plan counts as one failure. Files are separated by pg_prove's
# "path .. " header lines; plain TAP (one stream) works too. Colour codes a
# tool printed without a newline before a test line (Maven under a TERM
# that has colours) are dropped first, so they cannot hide that line.
tap_count() {
	sed 's/\x1b\[[0-9;]*m//g' | awk '
		function flush() {
			if (!seen) return
			if (plan < 0) f += (nok > 0 ? nok : 1)
			else { miss = plan - (okc + nok + skc); f += nok + (miss > 0 ? miss : 0) }
			p += okc; s += skc
			seen = 0
		}
		function start() { flush(); seen = 1; plan = -1; okc = 0; nok = 0; skc = 0 }
		BEGIN { p = 0; f = 0; s = 0; seen = 0 }
		/^[^ #]+ \.+ *$/ { start(); next }
		/^1\.\.[0-9]+/ { if (!seen || plan >= 0) start(); plan = substr($0, 4) + 0; next }
		/^ok [0-9]+/ || /^ok -/ {
			if (!seen) start()
			if ($0 ~ /# *[Ss][Kk][Ii][Pp]/) skc++; else okc++
			next
		}
		/^not ok/ {
			if (!seen) start()
			if ($0 ~ /# *TODO/) okc++; else nok++
			next
		}
		END { flush(); print p, f, s }
	'
}

# add_counts "p f s" rc: adds a suite's counts; a non-zero rc with no failure
# counted is one failure.
add_counts() {
	local p f s
	read -r p f s <<<"$1"
	if [[ "$2" -ne 0 && "$f" -eq 0 ]]; then
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	echo "--> $p passed, $f failed, $s skipped"
}

# Surefire's XML reports in a directory as "passed failed skipped".
surefire_counts() {
	if ! compgen -G "$1/TEST-*.xml" >/dev/null; then
		echo "0 0 0"
		return
	fi
	sed -n 's/.*<testsuite [^>]*>.*/&/p' "$1"/TEST-*.xml | awk '
		{
			t = 0; f = 0; e = 0; s = 0
			if (match($0, / tests="[0-9]+"/)) t = substr($0, RSTART + 8, RLENGTH - 9)
			if (match($0, / failures="[0-9]+"/)) f = substr($0, RSTART + 11, RLENGTH - 12)
			if (match($0, / errors="[0-9]+"/)) e = substr($0, RSTART + 9, RLENGTH - 10)
			if (match($0, / skipped="[0-9]+"/)) s = substr($0, RSTART + 10, RLENGTH - 11)
			P += t - f - e - s; F += f + e; S += s
		}
		END { print P + 0, F + 0, S + 0 }'
}

# run LOG CMD...: runs CMD with output to the console and LOG; returns its rc.
run() {
	local log="$1"
	shift
	local rc=0
	"$@" </dev/null 2>&1 | tee "$log" || rc=${PIPESTATUS[0]}
	return "$rc"
}

# --- 0. the order guard: static, so before everything else, whatever the suites
say "order guard: tools/order_guard.sh"
rc=0
run "$PEP_LOGS/order-guard.log" tools/order_guard.sh || rc=$?
add_counts "$(tap_count <"$PEP_LOGS/order-guard.log")" "$rc"

# --- 1. deps
if [[ "${PEP_SKIP_DEPS:-0}" != 1 ]]; then
	say "deps"
	if ! run "$PEP_LOGS/deps.log" tools/deps.sh; then
		failed=$((failed + 1))
		summary
		exit 1
	fi
fi

# --- 1b. the static gates: after deps, which installs their tools; before
# the build, so a formatting slip fails in the first minutes
if [[ "${PEP_GATES:-1}" != 0 ]]; then
	say "gates: tools/gates.sh"
	rc=0
	run "$PEP_LOGS/gates.log" tools/gates.sh || rc=$?
	add_counts "$(tap_count <"$PEP_LOGS/gates.log")" "$rc"
fi

# --- 2. build
if [[ "${PEP_SKIP_BUILD:-0}" != 1 ]]; then
	say "build: mvn verify (the Java writer's unit tests, its shaded-jar test, the Iceberg commit's tests, formatting)"
	rm -rf parquet-writer/target/surefire-reports parquet-writer/target/failsafe-reports \
		iceberg-commit/target/surefire-reports
	rc=0
	run "$PEP_LOGS/build-mvn.log" mvn -B -ntp -q -Dstyle.color=never verify || rc=$?
	add_counts "$(surefire_counts parquet-writer/target/surefire-reports)" 0
	add_counts "$(surefire_counts iceberg-commit/target/surefire-reports)" 0
	add_counts "$(surefire_counts parquet-writer/target/failsafe-reports)" "$rc"
	if [[ $rc != 0 ]]; then
		echo "build failed: mvn verify (see $PEP_LOGS/build-mvn.log)"
		summary
		exit 1
	fi
	say "build: tools/build.sh (make with warnings as errors, make install)"
	if ! run "$PEP_LOGS/build-make.log" tools/build.sh; then
		echo "build failed: tools/build.sh (see $PEP_LOGS/build-make.log)"
		failed=$((failed + 1))
		summary
		exit 1
	fi
fi

# --- 3. cluster
# shellcheck source=tools/cluster.sh
source "$ROOT/tools/cluster.sh"

finish() {
	local rc=$?
	if [[ -f "$PEP_LOG" ]]; then
		cp "$PEP_LOG" "$PEP_LOGS/postgresql.log" || true
	fi
	if [[ "${PEP_KEEP_CLUSTER:-0}" == 1 ]]; then
		echo "cluster left running: $(pep_env)"
	else
		pep_stop >/dev/null 2>&1 || true
	fi
	return "$rc"
}
trap finish EXIT

say "cluster"
if [[ -e "$PEP_TMP" ]] && ! pep_stop; then
	failed=$((failed + 1))
	summary
	exit 1
fi
if ! pep_start; then
	failed=$((failed + 1))
	summary
	exit 1
fi

# A fresh export area per suite, owned by the server's OS user.
outdir() {
	local d="$PEP_OUT/$1"
	mkdir -p "$d"
	chown postgres: "$d"
	chmod 777 "$d"
	echo "$d"
}

suite_on() { [[ " $PEP_SUITES " == *" $1 "* ]]; }

# --- 4. pgTAP
if suite_on pgtap; then
	say "pgTAP: pg_prove regress/sql/*.sql"
	rc=0
	run "$PEP_LOGS/pgtap.log" timeout --kill-after=30 "${PEP_PGTAP_TIMEOUT:-900}" \
		pg_prove --verbose --nocolor --set outdir="$(outdir pgtap)" regress/sql/*.sql || rc=$?
	add_counts "$(tap_count <"$PEP_LOGS/pgtap.log")" "$rc"
fi

# --- 4b. make installcheck: the pg_regress suite, as a PGXS user runs it
# pg_regress prints "test NAME ... ok" (PostgreSQL 15) or TAP (16 and later).
regress_counts() {
	awk '
		/^test .* \.\.\. +ok/ || /^ok [0-9]+ / { p++ }
		/^test .* \.\.\. +FAILED/ || /^not ok [0-9]+ / { f++ }
		END { print p + 0, f + 0, 0 }'
}
if suite_on installcheck; then
	say "installcheck: make -C extension installcheck"
	pg_regress="$(dirname "$("$PG_CONFIG" --pgxs)")/../../src/test/regress/pg_regress"
	if [[ ! -x "$pg_regress" ]]; then
		echo "installcheck: no pg_regress in $("$PG_CONFIG" --pgxs), skipped"
		add_counts "0 0 1" 0
	else
		rc=0
		PEP_REGRESS_OUTDIR="$(outdir installcheck)"
		export PEP_REGRESS_OUTDIR
		run "$PEP_LOGS/installcheck.log" timeout --kill-after=30 "${PEP_INSTALLCHECK_TIMEOUT:-600}" \
			make -C extension installcheck PG_CONFIG="$PG_CONFIG" || rc=$?
		if [[ -f extension/regression.diffs ]]; then
			cp extension/regression.diffs "$PEP_LOGS/installcheck.diffs"
		fi
		add_counts "$(regress_counts <"$PEP_LOGS/installcheck.log")" "$rc"
	fi
fi

# --- 4c. the TAP suite: prove, as PostgreSQL's own TAP tests run; its clusters
# are its own (regress/tap/run.sh), their logs copied to $PEP_LOGS/tap
if suite_on tap; then
	say "TAP: regress/tap/run.sh (prove regress/tap/t/*.pl)"
	rc=0
	tap_started=$SECONDS
	PEP_TAP_DIR="$PEP_TMP-tap"
	export PEP_TAP_DIR
	run "$PEP_LOGS/tap.log" timeout --kill-after=30 "${PEP_TAP_TIMEOUT:-900}" regress/tap/run.sh || rc=$?
	cp -r "$PEP_TAP_DIR/tmp_check/log" "$PEP_LOGS/tap" 2>/dev/null || true
	echo "TAP: $((SECONDS - tap_started)) s"
	add_counts "$(tap_count <"$PEP_LOGS/tap.log")" "$rc"
fi

# --- 5. read-back (Maven Surefire)
if suite_on readback; then
	say "read-back: mvn -pl regress/readback test"
	reports=regress/readback/target/surefire-reports
	rm -rf "$reports"
	rc=0
	run "$PEP_LOGS/readback.log" timeout --kill-after=30 "${PEP_READBACK_TIMEOUT:-1200}" \
		mvn -B -ntp -Dstyle.color=never -pl regress/readback test -Dpep.readback=true \
		-Dpep.jdbc.url="jdbc:postgresql://127.0.0.1:$PEP_PORT/postgres?user=postgres" \
		-Dpep.outdir="$(outdir readback)" || rc=$?
	counts="$(surefire_counts "$reports")"
	add_counts "$counts" "$rc"
fi

# --- 5b. the reader matrix (Maven Surefire; JavaScript readers from npm's lockfile)
if suite_on matrix; then
	say "reader matrix: npm ci; mvn -pl regress/readback,regress/matrix test"
	reports=regress/matrix/target/surefire-reports
	rm -rf "$reports" regress/matrix/target/observed.tsv
	rc=0
	matrix_started=$SECONDS
	run "$PEP_LOGS/matrix-npm.log" npm ci --prefix regress/matrix/js --no-audit --no-fund || rc=$?
	if [[ $rc == 0 ]]; then
		run "$PEP_LOGS/matrix.log" timeout --kill-after=30 "${PEP_MATRIX_TIMEOUT:-900}" \
			mvn -B -ntp -Dstyle.color=never -pl regress/readback,regress/matrix test \
			-Dpep.matrix=true -Dpep.matrix.update="$([[ ${PEP_MATRIX_UPDATE:-0} == 1 ]] && echo true || echo false)" \
			-Dpep.jdbc.url="jdbc:postgresql://127.0.0.1:$PEP_PORT/postgres?user=postgres" \
			-Dpep.outdir="$(outdir matrix)" || rc=$?
	fi
	add_counts "$(surefire_counts "$reports")" "$rc"
	if [[ $rc != 0 && -f regress/matrix/target/observed.tsv ]]; then
		echo "reader matrix: committed (-) and observed (+) cells:"
		diff -u regress/matrix/expected.tsv regress/matrix/target/observed.tsv || true
	fi
	echo "reader matrix: $((SECONDS - matrix_started)) s"
fi

# --- 6. shell harnesses
if suite_on harness; then
	# The failure harness must pass three runs in a row.
	export PEP_FAILURE_RUNS="${PEP_FAILURE_RUNS:-3}"
	harnesses=(regress/t_*.sh)
	if [[ -n "${PEP_HARNESSES:-}" ]]; then
		harnesses=()
		for name in $PEP_HARNESSES; do
			harnesses+=("regress/$name.sh")
		done
	fi
	for h in "${harnesses[@]}"; do
		if [[ ! -e "$h" ]]; then
			echo "harness $h does not exist"
			failed=$((failed + 1))
			continue
		fi
		if [[ ! -x "$h" ]]; then
			echo "warning: $h is not executable, not run"
			continue
		fi
		name="$(basename "$h" .sh)"
		say "harness: $h"
		rc=0
		harness_started=$SECONDS
		PEP_HARNESS_OUT="$(outdir "$name")"
		export PEP_HARNESS_OUT
		run "$PEP_LOGS/$name.log" \
			timeout --kill-after=30 "${PEP_HARNESS_TIMEOUT:-1800}" "$h" || rc=$?
		echo "harness $name: $((SECONDS - harness_started)) s"
		counts="$(tap_count <"$PEP_LOGS/$name.log")"
		if [[ "$counts" == "0 0 0" && "$rc" -eq 0 ]]; then
			counts="1 0 0" # no TAP output: the script's exit status is its one check
		fi
		add_counts "$counts" "$rc"
	done
fi

# --- 7. the cluster stops in finish()
if [[ "$failed" -gt 0 && -f "$PEP_LOG" ]]; then
	say "last server log lines"
	tail -n 40 "$PEP_LOG" || true
fi
summary
if [[ "$failed" -gt 0 || "$passed" -eq 0 ]]; then
	exit 1
fi
