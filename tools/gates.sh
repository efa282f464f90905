#!/usr/bin/env bash
# tools/gates.sh: the static gates a maintainer's tools would apply, run by
# tools/test.sh before anything is built, so a formatting slip or a shell
# error fails CI in its first minute instead of after the suites.
#
#   1. shellcheck --severity=error over every shell script in the tree (the
#      *.sh files and every file whose shebang names a shell): an error fails
#      the gate. Warnings are printed as diagnostics but do not fail it: most
#      (SC2034, SC2154) are variables a harness sets for the library it
#      sources or the reverse, which shellcheck cannot see across files.
#   2. clang-format --dry-run -Werror over the C under extension/ and
#      pljava-glue/, against .clang-format (PostgreSQL's layout: tabs of 4,
#      BSD braces, return type on its own line). tools/format.sh applies it.
#   3. mvn spotless:check over every Maven module (google-java-format), and
#      mvn clean test-compile, in which javac runs with -Xlint:all -Werror
#      (the parent pom.xml), so a compiler warning in any module fails the
#      gate (the build stage after it compiles again, into the clean tree).
#
# Output is TAP, one check per gate, each with its cost in seconds as a
# diagnostic. Exits non-zero if any gate failed.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1
# shellcheck source=tools/tap.sh
source "$ROOT/tools/tap.sh"

echo "1..4"

# Every tracked shell script: *.sh, and files whose first line runs a shell.
shell_scripts() {
	git ls-files -z | while IFS= read -r -d '' f; do
		[[ -f "$f" ]] || continue
		if [[ "$f" == *.sh ]] || head -n 1 "$f" | grep -qE '^#!.*\b(ba|da|)sh\b'; then
			echo "$f"
		fi
	done
}

t=$SECONDS
mapfile -t scripts < <(shell_scripts)
out="$(shellcheck --external-sources --severity=warning --format=gcc "${scripts[@]}" 2>&1)"
errors="$(grep -v ': warning:' <<<"$out" | grep .)"
[[ -z "$errors" ]]
ok $? "shellcheck finds no error in ${#scripts[@]} shell scripts ($((SECONDS - t)) s)" "$errors"
echo "# shellcheck: $(grep -c ': warning:' <<<"$out") warnings (not a failure; shellcheck -x --severity=warning to see them)"

t=$SECONDS
mapfile -t csrc < <(git ls-files 'extension/*.c' 'extension/*.h' 'pljava-glue/*.c' 'pljava-glue/*.h')
out="$(clang-format --dry-run -Werror "${csrc[@]}" 2>&1 | grep -E '^[^ ].*: error:' | head -n 40)"
[[ -z "$out" ]]
ok $? "clang-format: the layout of ${#csrc[@]} C files is .clang-format's ($((SECONDS - t)) s)" \
	"$out"$'\n'"tools/format.sh applies it"

t=$SECONDS
out="$(mvn -B -ntp -q -Dstyle.color=never spotless:check 2>&1)"
rc=$?
ok "$rc" "spotless: every Maven module's Java is google-java-format's ($((SECONDS - t)) s)" \
	"$(grep -E 'ERROR|violations|\.java' <<<"$out" | head -n 40)"$'\n'"tools/format.sh applies it"

t=$SECONDS
# clean first: javac recompiles only what changed, so classes compiled before
# a warning became an error would otherwise pass unseen.
out="$(mvn -B -ntp -q -Dstyle.color=never clean test-compile 2>&1)"
rc=$?
ok "$rc" "javac -Xlint:all -Werror compiles every Maven module ($((SECONDS - t)) s)" \
	"$(grep -E 'WARNING|ERROR|warning:|error:' <<<"$out" | head -n 40)"

[[ $nfail == 0 ]]
