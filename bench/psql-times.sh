# bench/psql-times.sh: sourced by bench/cpu.sh and bench/ab.sh. Reads the
# output of a timed psql export (ticks_before/ticks_after lines of the
# postmaster's children, the "rows|N" line, \timing's "Time:") on stdin and
# prints "SECONDS CPU_SECONDS ROWS"; $1 is the clock's ticks per second.
# shellcheck shell=bash

bench_psql_times() {
	awk -v hz="$1" '
		$1 == "ticks_before" { b = $2 }
		$1 == "ticks_after" { a = $2 }
		/^rows\|/ { split($0, f, "|"); rows = f[2] }
		/^Time: / { secs = $2 / 1000 }
		END { printf "%.3f %.2f %d\n", secs, (a - b) / hz, rows }'
}
