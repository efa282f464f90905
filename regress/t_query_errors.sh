#!/usr/bin/env bash
# regress/t_query_errors.sh: an error in a query source points into its text.
#
# A query source is parsed apart from the statement that calls the export,
# so a position the parser reports is a position in the source's text.
# psql must show that text as the error's QUERY, with the cursor under the
# offending token, not a cursor somewhere in the calling statement; an
# error without a position names the source query in its CONTEXT.  The
# control: an error in the calling statement itself still points there.
# pgTAP cannot see error positions, so this reads psql's own report.  Needs
# a running cluster from tools/cluster.sh with the extension installed.
# Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/tap.sh
source "$here/lib/tap.sh"

WORK="${PEP_HARNESS_OUT:-$PEP_OUT}/query_errors"

rm -rf "$WORK"
mkdir -p "$WORK"
chown postgres "$WORK"
sql "CREATE EXTENSION IF NOT EXISTS parallel_export_parquet" >/dev/null

# psql's report of a statement that fails: everything it prints.
report() {
	psql -X -q <<<"$1" 2>&1
}

# The column (1-based) of the caret on the line after LINE_TEXT in REPORT,
# and the column where TOKEN starts in LINE_TEXT; prints "caret token".
caret_and_token() {
	awk -v line="$2" -v token="$3" '
		found { print index($0, "^"), index(line, token); exit }
		$0 == line { found = 1 }' <<<"$1"
}

# A syntax error, the call spread over lines as in a script.
out=$(report "SELECT
  parallel_export_parquet('SELECT id, s FROMM pep_t',
                          '$WORK/syntax', 1);")
[[ "$out" == *"syntax error at or near \"pep_t\""* && "$out" == *"QUERY:  SELECT id, s FROMM pep_t"* ]]
ok $? "a syntax error in a query source shows the source as its QUERY" "$out"
read -r caret token <<<"$(caret_and_token "$out" "LINE 1: SELECT id, s FROMM pep_t" "pep_t")"
[[ -n "$caret" && "$caret" == "$token" ]]
ok $? "the cursor stands under the offending token of the source (column ${caret:-none} for ${token:-none})" "$out"

# An error of analysis, with a position too.
out=$(report "SELECT parallel_export_parquet('SELECT relname, nocol FROM pg_class', '$WORK/column', 1);")
read -r caret token <<<"$(caret_and_token "$out" "LINE 1: SELECT relname, nocol FROM pg_class" "nocol")"
[[ "$out" == *"column \"nocol\" does not exist"* && -n "$caret" && "$caret" == "$token" ]]
ok $? "an unknown column in a query source is pointed at in the source" "$out"

# No position: the context names the source query.
out=$(report "SELECT parallel_export_parquet('SELECT 1; SELECT 2', '$WORK/two', 1);")
[[ "$out" == *"source query must be a single statement"* && "$out" == *'CONTEXT:  source query "SELECT 1; SELECT 2"'* ]]
ok $? "an error without a position names the source query in its context" "$out"

# Control: an error in the calling statement points into the calling statement.
# (A short line: psql elides the middle of long ones.)
out=$(report "SELECT parallel_export_parquet('SELECT 1', 'd', 1) FROMM x;")
read -r caret token <<<"$(caret_and_token "$out" "LINE 1: SELECT parallel_export_parquet('SELECT 1', 'd', 1) FROMM x;" "x;")"
[[ "$out" != *"QUERY:"* && -n "$caret" && "$caret" == "$token" ]]
ok $? "control: an error in the calling statement still points there" "$out"

[[ -z "$(ls -A "$WORK")" ]]
ok $? "nothing was written" "$(ls -A "$WORK")"

rm -rf "$WORK"
tap_done
