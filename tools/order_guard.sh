#!/usr/bin/env bash
# tools/order_guard.sh: no test sorts an aggregate, a window or a WITHIN
# GROUP by a constant. Prints TAP. tools/test.sh runs it first, so CI runs it
# in its PostgreSQL 15, 18 and 17 legs (under a second each).
#
#   tools/order_guard.sh            the test sources (regress/, extension/test/,
#                                   tools/) and the extension's SQL scripts (sql/)
#   tools/order_guard.sh FILE...    those files only
#
# "ORDER BY 1" names the first output column only in a query's own ORDER BY.
# Inside an aggregate call (array_agg(x ORDER BY 1)), an OVER (...) or a
# WITHIN GROUP (...) the 1 is an expression, a constant: every row sorts
# equal and the result follows whatever order the rows come in. A test that
# compares such a result passes or fails by luck (regress/sql/upgrade.sql did,
# on PostgreSQL 17 only, until 5270f05).
#
# SQL sits in .sql and .psql files and in the string literals of shell
# scripts and Java sources, so this reads each file with the quoting of its
# language and takes every string literal, dollar-quoted body and here-document
# for SQL of its own, with its own parentheses. An ORDER BY inside
# parentheses that do not open a query (SELECT, WITH, VALUES or TABLE) sorts
# an aggregate, a window or a WITHIN GROUP; each of its keys that is a
# numeric literal (before ASC, DESC, NULLS, USING, "::", "," or ")") is
# reported with its file and line. Java strings joined with + are read as one.
#
# A lexer, not PostgreSQL's parser: the parser cannot read SQL that shell and
# Java hold in pieces, with psql variables and host-language quoting around
# it, nor the bodies of PL/pgSQL functions. So the first check runs the lexer
# over tools/order_guard/, whose files end each line it must report with
# ORDER_GUARD_FINDS and hold the spellings it must let pass; the second check
# is the tree itself.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FIXTURES="$ROOT/tools/order_guard"

# Prints "FILE:LINE: text of the line" for every constant sort key in FILEs.
# Byte semantics (LC_ALL=C) whatever the locale, in mawk and gawk alike.
scan() {
	LC_ALL=C awk -f "$ROOT/tools/order_guard.awk" "$@"
}

# shellcheck source=tap.sh
source "$ROOT/tools/tap.sh"

if (($# > 0)); then
	found="$(scan "$@")"
	[[ -z "$found" ]]
	ok $? "no constant sort key in $*" "$found"
	echo "1..$ntest"
	exit "$nfail"
fi

echo "1..2"
mapfile -t fixtures < <(find "$FIXTURES" -type f | LC_ALL=C sort)
want="$(grep -n -H 'ORDER_GUARD_FINDS$' "${fixtures[@]}" | cut -d: -f1,2 | LC_ALL=C sort)"
got="$(scan "${fixtures[@]}" | cut -d: -f1,2 | LC_ALL=C sort)"
[[ -n "$want" && "$got" == "$want" ]]
ok $? "the guard reports exactly the marked lines of its fixtures in tools/order_guard/" \
	"$(diff <(echo "$want") <(echo "$got") | sed -n 's/^</missed:/p; s/^>/reported, not marked:/p')"

mapfile -t sources < <(cd "$ROOT" && find regress extension/test tools sql \
	\( -name target -o -name node_modules -o -path tools/order_guard \) -prune -o \
	-type f \( -name '*.sql' -o -name '*.psql' -o -name '*.sh' -o -name '*.java' \) -print | LC_ALL=C sort)
found="$(cd "$ROOT" && scan "${sources[@]}")"
[[ ${#sources[@]} -gt 50 && -z "$found" ]]
ok $? "no test sorts an aggregate, a window or a WITHIN GROUP by a constant (${#sources[@]} files)" \
	"${found:-no files found}"
exit "$nfail"
