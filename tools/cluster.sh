#!/usr/bin/env bash
# tools/cluster.sh: a throwaway PostgreSQL cluster for tests and the demo.
#
# The server runs as OS user postgres (PostgreSQL refuses root) with its data
# directory, socket, log and an exports scratch directory under $PEP_TMP:
#
#   $PEP_TMP/data             data directory (initdb, trust auth, UTF8, C locale)
#   $PEP_TMP/sock             unix socket directory
#   $PEP_TMP/postgresql.log   server log (log_line_prefix has the pid)
#   $PEP_TMP/out              scratch directory for exports, owned by postgres
#
# It listens on the unix socket and 127.0.0.1 only, port $PEP_PORT.
# Binaries come from `$PG_CONFIG --bindir` (PG_CONFIG defaults to pg_config).
# Extra postgresql.conf lines can be passed in $PEP_EXTRA_CONF.
#
# CLI:      tools/cluster.sh start|stop|restart|status|psql [args]|env
# Library:  source tools/cluster.sh   (defines pep_* functions and exports
#           PGHOST, PGPORT, PGUSER=postgres, PGDATABASE=postgres)
#
# `start` is idempotent: a running healthy cluster is kept; a stale one (dead
# server, half-made directory) is stopped, removed and made anew.
# `stop` shuts down fast and removes $PEP_TMP.
# `restart` restarts a running cluster's server and keeps its data (a rebuilt
# library, settings that need a restart); with none running it is `start`.

PEP_TMP="${PEP_TMP:-/tmp/pep-cluster}"
PEP_PORT="${PEP_PORT:-54329}"
PG_CONFIG="${PG_CONFIG:-pg_config}"
PEP_DATA="$PEP_TMP/data"
PEP_SOCK="$PEP_TMP/sock"
PEP_LOG="$PEP_TMP/postgresql.log"
PEP_OUT="$PEP_TMP/out"
# Marks a directory made by this script, so stop never removes anything else.
PEP_MARKER="$PEP_TMP/.pep-cluster"

export PEP_TMP PEP_PORT PEP_DATA PEP_SOCK PEP_LOG PEP_OUT
export PGHOST="$PEP_SOCK" PGPORT="$PEP_PORT" PGUSER=postgres PGDATABASE=postgres

pep_bindir() {
	"$PG_CONFIG" --bindir
}

# Run a command as the postgres OS user, from a directory it can read.
pep_as_postgres() {
	if [[ $(id -un) == postgres ]]; then
		(cd / && "$@")
	elif [[ $(id -u) -eq 0 ]]; then
		(cd / && runuser -u postgres -- "$@")
	else
		(cd / && sudo -n -u postgres -- "$@")
	fi
}

pep_pg_ctl() {
	pep_as_postgres "$(pep_bindir)/pg_ctl" -D "$PEP_DATA" "$@"
}

# True when the server of $PEP_DATA runs and accepts connections.
pep_running() {
	[[ -f "$PEP_DATA/postmaster.pid" ]] || return 1
	pep_pg_ctl status >/dev/null 2>&1 || return 1
	"$(pep_bindir)/pg_isready" -q -h "$PEP_SOCK" -p "$PEP_PORT" -U postgres
}

pep_stop() {
	if [[ -f "$PEP_DATA/postmaster.pid" ]] && pep_pg_ctl status >/dev/null 2>&1; then
		pep_pg_ctl -m fast -w -t 60 stop >/dev/null ||
			pep_pg_ctl -m immediate -w -t 30 stop >/dev/null || true
	fi
	if [[ -e "$PEP_TMP" ]]; then
		if [[ -f "$PEP_MARKER" ]]; then
			rm -rf -- "$PEP_TMP"
		else
			echo "cluster: $PEP_TMP was not made by tools/cluster.sh, not removing it" >&2
			return 1
		fi
	fi
	echo "cluster: stopped, $PEP_TMP removed"
}

# Says that the server did not $1 (start, restart), with the log's last lines; fails.
pep_failed() {
	echo "cluster: server did not $1; last log lines:" >&2
	tail -n 30 "$PEP_LOG" >&2 || true
	return 1
}

pep_start() {
	if pep_running; then
		if [[ "$(cat "$PEP_DATA/PG_VERSION")" == "$("$(pep_bindir)/postgres" -V | awk '{ split($3, v, "."); print v[1] }')" ]]; then
			echo "cluster: already running (port $PEP_PORT, data $PEP_DATA)"
			return 0
		fi
	fi
	# Anything left over is stale: stop it and start from nothing.
	if [[ -e "$PEP_TMP" ]]; then
		echo "cluster: removing stale $PEP_TMP"
		pep_stop >/dev/null
	fi
	mkdir -p "$PEP_TMP"
	touch "$PEP_MARKER"
	mkdir -p "$PEP_SOCK" "$PEP_OUT"
	chown postgres: "$PEP_TMP" "$PEP_SOCK" "$PEP_OUT"
	chmod 755 "$PEP_TMP" "$PEP_SOCK"
	chmod 775 "$PEP_OUT"

	# --no-sync only speeds up initdb itself; the server keeps fsync on.
	pep_as_postgres "$(pep_bindir)/initdb" -D "$PEP_DATA" -U postgres -A trust \
		-E UTF8 --locale=C --no-sync >"$PEP_TMP/initdb.log" 2>&1 || {
		cat "$PEP_TMP/initdb.log" >&2
		return 1
	}
	pep_as_postgres tee -a "$PEP_DATA/postgresql.conf" >/dev/null <<-EOF

		# tools/cluster.sh
		port = $PEP_PORT
		listen_addresses = '127.0.0.1'
		unix_socket_directories = '$PEP_SOCK'
		max_worker_processes = 32
		max_parallel_workers = 16
		fsync = on
		log_line_prefix = '%m [%p] %q%u@%d '
		log_min_messages = info
		lc_messages = 'C'
		${PEP_EXTRA_CONF:-}
	EOF
	pep_pg_ctl -l "$PEP_LOG" -w -t 60 start >/dev/null || pep_failed start || return 1
	echo "cluster: started (port $PEP_PORT, socket $PEP_SOCK, log $PEP_LOG)"
}

pep_restart() {
	if ! pep_running; then
		pep_start
		return
	fi
	pep_pg_ctl -l "$PEP_LOG" -m fast -w -t 60 restart >/dev/null || pep_failed restart || return 1
	echo "cluster: restarted (port $PEP_PORT, data $PEP_DATA kept)"
}

pep_status() {
	if pep_running; then
		echo "cluster: running"
		echo "  data   $PEP_DATA"
		echo "  log    $PEP_LOG"
		echo "  out    $PEP_OUT"
		echo "  psql   PGHOST=$PEP_SOCK PGPORT=$PEP_PORT PGUSER=postgres psql"
		echo "  jdbc   jdbc:postgresql://127.0.0.1:$PEP_PORT/postgres?user=postgres"
	else
		echo "cluster: not running ($PEP_DATA)"
		return 1
	fi
}

pep_psql() {
	"$(pep_bindir)/psql" -X "$@"
}

pep_env() {
	printf 'export PGHOST=%q PGPORT=%q PGUSER=postgres PGDATABASE=postgres\n' "$PEP_SOCK" "$PEP_PORT"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
	set -euo pipefail
	cmd="${1:-}"
	shift || true
	case "$cmd" in
	start) pep_start ;;
	stop) pep_stop ;;
	restart) pep_restart ;;
	status) pep_status ;;
	psql) pep_psql "$@" ;;
	env) pep_env ;;
	*)
		echo "usage: $0 start|stop|restart|status|psql [psql args]|env" >&2
		exit 2
		;;
	esac
fi
