#!/usr/bin/env bash
# regress/t_soak.sh: many exports with random cancels and terminates; no
# partial export, no leftover, no outcome that contradicts the disk.
#
# PEP_SOAK_EXPORTS exports (default 200) run in two lanes side by side,
# each export from a table or a query with 1 to 4 workers into its own
# directory.  Worker JVM start-up dominates the time: 200 took 421 s on 2
# cores under a load average of 25 (five other test runs beside it).
# The lanes:
#   long   one session that lives for the whole run: each export is left
#          alone or cancelled at a random moment; the backend's RssAnon
#          after a warm-up export and at the end bounds its memory growth;
#   short  one session per export: left alone, cancelled or terminated at a
#          random moment.
# The moments are random (up to 1.3 times a calibrated export's duration, so
# they fall in every phase) because what is checked is an invariant, not a
# phase: t_phases.sh drives each phase deterministically. The schedule comes
# from a seed printed first and the calibrated duration printed next;
# PEP_SOAK_SEED and PEP_SOAK_CALIBRATED_MS replay it.
#
# After each export: a row count means a complete export (_SUCCESS, parts
# numbered densely from 00000, each with Parquet's magic at both ends, as
# many as parallel_export_parquet_last() reports); an error means nothing at
# the target, no staging, no lock, and a summary that is not this export's;
# a terminated session may have either outcome but nothing in between. At
# the end: no staging directory or lock file anywhere, every target still
# absent or complete, no parallel worker, no new /tmp file of the server's
# OS user, and the long session's RssAnon growth under PEP_SOAK_RSS_KB
# (default 4096).
#
# Needs a running cluster from tools/cluster.sh with the extension installed.
# Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/tap.sh
source "$here/lib/tap.sh"
# shellcheck source=lib/export.sh
source "$here/lib/export.sh"

WORK="${PEP_HARNESS_OUT:-$PEP_OUT}/soak"
EXPORTS="${PEP_SOAK_EXPORTS:-200}"
SEED="${PEP_SOAK_SEED:-$(($(date +%s%N) % 32768))}"
RSS_BOUND_KB="${PEP_SOAK_RSS_KB:-4096}"
ROWS=20000
QUERY="SELECT id, s FROM pep_soak WHERE id > 0"
LONG_APP=pep_soak_long

echo "# seed $SEED (replay with PEP_SOAK_SEED=$SEED), $EXPORTS exports"

# Pick the next export of a lane: SOURCE, WORKERS, and DELAY in seconds (up
# to 1.3 calibrated durations).  It sets globals, since bash reseeds RANDOM
# in every subshell and $(...) would break the replay.
pick_export() {
	local ms
	SOURCE=pep_soak
	((RANDOM % 2)) && SOURCE=$QUERY
	WORKERS=$((RANDOM % 4 + 1))
	ms=$(((RANDOM * 32768 + RANDOM) % (CALIBRATED_MS * 13 / 10) + 1))
	DELAY=$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))
}

# Is DIR a complete export of PARTS parts (any number if empty)?  Prints the
# problem if not.
whole_export() {
	local dir="$1" parts="${2:-}" n i f
	[[ -f "$dir/_SUCCESS" ]] || { echo "no _SUCCESS in $dir"; return 1; }
	n=$(find "$dir" -maxdepth 1 -name 'part-*.parquet' | wc -l)
	[[ -z "$parts" || "$n" == "$parts" ]] || { echo "$n parts in $dir, the summary says $parts"; return 1; }
	[[ $(find "$dir" -mindepth 1 -maxdepth 1 | wc -l) == $((n + 1)) ]] || { echo "unexpected files in $dir"; return 1; }
	for ((i = 0; i < n; i++)); do
		f=$(printf '%s/part-%05d.parquet' "$dir" "$i")
		[[ -f "$f" && "$(head -c 4 "$f")" == PAR1 && "$(tail -c 4 "$f")" == PAR1 ]] ||
			{ echo "$f is missing or not Parquet"; return 1; }
	done
}

# Nothing of the export into DIR: no target, no staging, no lock.
no_export() {
	local dir="$1"
	[[ ! -e "$dir" && ! -e "$(staging_of "$dir")" && ! -e "$(lock_of "$dir")" ]] ||
		{ echo "leftover of $dir: $(ls -A "$(dirname "$dir")" | grep -F "$(basename "$dir")" | tr '\n' ' ')"; return 1; }
}

# Check one export's outcome against the disk.  OUT is what the client got;
# EVENT what the harness did.  Records a failure line in $WORK/failures.
check_outcome() {
	local lane="$1" i="$2" dir="$3" event="$4" out="$5" problem="" parts last
	last=$(grep '^last ' <<<"$out" | tail -n 1)
	if grep -qx "$ROWS" <<<"$out"; then
		parts=$(awk '{print $2}' <<<"$last")
		# A cancel that came after the export may have struck the summary query.
		if [[ -z "$last" ]] && grep -qE "canceling statement|terminating connection" <<<"$out"; then
			parts=""
		elif [[ "$last" != "last $parts $dir" ]]; then
			problem="the summary is not this export's: '$last'"
		fi
		[[ -z "$problem" ]] && problem=$(whole_export "$dir" "$parts")
		echo success >>"$WORK/$lane.outcomes"
	elif grep -q "terminating connection due to administrator command" <<<"$out"; then
		[[ -e "$dir" ]] && problem=$(whole_export "$dir") || problem=$(no_export "$dir")
		echo terminated >>"$WORK/$lane.outcomes"
	elif grep -q "canceling statement due to user request" <<<"$out"; then
		problem=$(no_export "$dir")
		[[ -z "$problem" && "$last" == *" $dir" ]] && problem="the summary names the cancelled export"
		echo cancelled >>"$WORK/$lane.outcomes"
	else
		problem="unexpected outcome"
	fi
	[[ -z "$problem" ]] || echo "$lane $i ($event): $problem; client got: $(tr '\n' ' ' <<<"$out")" >>"$WORK/failures"
}

# The long lane: one session, coprocess psql; cancels only.
lane_long() {
	local n="$1" i dir event out line="" partial
	RANDOM=$SEED
	for ((i = 1; i <= n; i++)); do
		pick_export
		dir="$WORK/long-$i" event=none
		((RANDOM % 10 >= 3)) && event=cancel
		printf "SELECT parallel_export_parquet('%s', '%s', %d);\n" "$SOURCE" "$dir" "$WORKERS" >&"${LONG[1]}"
		printf "SELECT 'last ' || parts || ' ' || directory FROM parallel_export_parquet_last();\n\\\\echo DONE %d\n" "$i" >&"${LONG[1]}"
		out="" partial=""
		if [[ $event == cancel ]]; then
			while read -r -t "$DELAY" -u "${LONG[0]}" line; do
				[[ "$line" == "DONE $i" ]] && break
				out+="$line"$'\n'
			done
			if [[ "$line" != "DONE $i" ]]; then
				# A read that times out keeps what it got of an unfinished
				# line in $line and takes it off the stream.
				partial="$line"
				sql "SELECT pg_cancel_backend($LONG_BACKEND)" >/dev/null
				event="cancel after ${DELAY}s"
			else
				event="cancel too late"
			fi
		fi
		while [[ "$line" != "DONE $i" ]] && read -r -t "$CEILING" -u "${LONG[0]}" line; do
			line="$partial$line" partial=""
			[[ "$line" == "DONE $i" ]] && break
			out+="$line"$'\n'
		done
		check_outcome long "$i" "$dir" "$event ($SOURCE, $WORKERS)" "$out"
	done
}

# The short lane: a session per export; cancels and terminates.
lane_short() {
	local n="$1" i dir event app r
	RANDOM=$((SEED + 1))
	for ((i = 1; i <= n; i++)); do
		pick_export
		dir="$WORK/short-$i" app="pep_soak_short_$i" event=none
		r=$((RANDOM % 10))
		((r >= 3)) && event=cancel
		((r >= 7)) && event=terminate
		start_export "$app" "" "SELECT parallel_export_parquet('$SOURCE', '$dir', $WORKERS)" \
			"SELECT 'last ' || parts || ' ' || directory FROM parallel_export_parquet_last()"
		if [[ $event != none ]]; then
			sleep "$DELAY"
			sql "SELECT pg_${event}_backend(pid) FROM pg_stat_activity
				WHERE application_name = '$app' AND backend_type = 'client backend'" >/dev/null
			event="$event after ${DELAY}s"
		fi
		finish_export "$app"
		# A FATAL reaches the client before the dying backend's cleanup has run.
		wait_until "[[ \$(sql \"SELECT count(*) FROM pg_stat_activity WHERE application_name = '$app'\") == 0 ]]"
		check_outcome short "$i" "$dir" "$event ($SOURCE, $WORKERS)" "$OUT"
		rm -f "$WORK/$app.out" "$WORK/$app.pid"
	done
}

rss_kb() { awk '/^RssAnon:/ {print $2}' "/proc/$1/status"; }

tmp_before=$(tmp_files)
fresh_work pep_soak "$ROWS"
: >"$WORK/failures"
started=$SECONDS

# The long session, and a warm-up export that calibrates the delays.
coproc LONG { PGAPPNAME=$LONG_APP stdbuf -oL psql -X -A -t -q 2>&1; }
long_psql=$LONG_PID # bash unsets LONG_PID once the coprocess has ended
printf 'SELECT pg_backend_pid();\n' >&"${LONG[1]}"
read -r -t "$CEILING" -u "${LONG[0]}" LONG_BACKEND
t0=$(date +%s%N)
printf "SELECT parallel_export_parquet('pep_soak', '%s', 2);\n" "$WORK/warm-up" >&"${LONG[1]}"
read -r -t "$CEILING" -u "${LONG[0]}" line
CALIBRATED_MS=$((($(date +%s%N) - t0) / 1000000))
[[ "$line" == "$ROWS" ]]
ok $? "warm-up export in the long session completes in $CALIBRATED_MS ms" "$line"
CALIBRATED_MS="${PEP_SOAK_CALIBRATED_MS:-$CALIBRATED_MS}"
echo "# delays up to 1.3 times $CALIBRATED_MS ms (replay with PEP_SOAK_CALIBRATED_MS=$CALIBRATED_MS)"
rss_before=$(rss_kb "$LONG_BACKEND")

lane_short $((EXPORTS - EXPORTS / 2)) &
short_pid=$!
# If this script dies, its lane must not run on into the next harness.
trap 'kill "$short_pid" 2>/dev/null' EXIT
lane_long $((EXPORTS / 2))
wait "$short_pid"
rss_after=$(rss_kb "$LONG_BACKEND")
elapsed=$((SECONDS - started))

for lane in long short; do
	echo "# $lane lane: $(sort "$WORK/$lane.outcomes" 2>/dev/null | uniq -c | awk '{printf "%s %s, ", $1, $2}')"
done
[[ $(cat "$WORK"/*.outcomes | wc -l) == "$EXPORTS" ]]
ok $? "$EXPORTS exports ran, $(grep -c -v success "$WORK"/long.outcomes "$WORK"/short.outcomes | awk -F: '{s += $2} END {print s}') cancelled or terminated"
[[ ! -s "$WORK/failures" ]]
ok $? "every client outcome matches the disk" "$(cat "$WORK/failures")"

leftovers=$(find "$WORK" -maxdepth 1 \( -name '.*.pep-staging' -o -name '.*.pep-lock' \))
[[ -z "$leftovers" ]]
ok $? "no staging directory or lock file left" "$leftovers"
partial=""
for dir in "$WORK"/long-* "$WORK"/short-*; do
	[[ -e "$dir" ]] || continue
	problem=$(whole_export "$dir") || partial+="$problem"$'\n'
done
[[ -z "$partial" ]]
ok $? "every target is absent or a complete export ($(find "$WORK" -maxdepth 2 -name _SUCCESS | wc -l) complete)" "$partial"
[[ -z "$(live_workers)" && "$(sql 'SELECT 1')" == 1 ]]
ok $? "no parallel worker left, the server answers" "$(live_workers)"
echo "# long session RssAnon: $rss_before kB after warm-up, $rss_after kB after $((EXPORTS / 2)) exports"
(((rss_after - rss_before) < RSS_BOUND_KB))
ok $? "long session memory growth $((rss_after - rss_before)) kB is under $RSS_BOUND_KB kB"
echo "# soak took $elapsed s"

printf '\\q\n' >&"${LONG[1]}"
wait "$long_psql" 2>/dev/null
rm -rf "$WORK"
assert_no_new_tmp "$tmp_before" "the soak"
tap_done
