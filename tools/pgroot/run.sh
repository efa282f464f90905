#!/usr/bin/env bash
# tools/pgroot/run.sh: a test leg on a newer PostgreSQL, without Docker.
#
#   tools/pgroot/run.sh 18    PostgreSQL 18, OpenJDK 25, Debian forky
#   tools/pgroot/run.sh 17    PostgreSQL 17, OpenJDK 21, Debian trixie
#
# Builds (or reuses) a Debian root with debootstrap, which carries that
# PostgreSQL, its server headers, pgTAP and that OpenJDK; copies this
# repository into it; builds the extension there with tools/build.sh (the
# steps the Dockerfile runs) and runs the whole suite with tools/test.sh
# against that PostgreSQL. Then checks that DROP EXTENSION leaves nothing.
#
# Phases, each timed:
#   debootstrap  minbase root at $PEP_ROOT_CACHE/pep-SUITE (kept between runs)
#   packages     apt-get install of the packages below into the root
#   build        tools/build.sh, then tools/build.sh runtime, in the root: the
#                Dockerfile's build-stage and final-stage steps (COPT=-Werror)
#   tests        tools/test.sh in the root (pgTAP, TAP, DuckDB read-back, harnesses)
#   checks       tools/pgroot/checks.sh on the suite's cluster (DROP EXTENSION)
#
# The root is reused when its stamp says it is complete for this package
# list; PEP_ROOT_REFRESH=1 builds it anew. Everything is mounted in a private
# mount namespace of this script (unshare), so no mount is ever visible
# outside it and all vanish when it ends; the EXIT trap also stops the
# cluster, ends what still runs inside the root, and unmounts, in that order.
#
# The sources are copied (tracked and untracked files, not what .gitignore
# ignores) into ROOT/work/pep rather than built in place: a build against
# another PostgreSQL in the work tree would leave objects that a later
# PostgreSQL 15 `make` takes for up to date. Host mounts into the root: /proc,
# /sys, /dev, a private tmpfs on /dev/shm (dynamic shared memory of parallel
# workers), /root/.m2 (Maven's repository, shared with the host and the other
# root leg, read-write: their Maven processes take file locks there, see ENV).
#
# Ends with "pgNN: N passed, N failed, N skipped" (the suite's counts plus the
# checks) and exits non-zero on any failure.
#
# Environment, the same for both legs: PEP_ROOT_CACHE (directory of the roots,
# default /var/cache), PEP_ROOT_MIRROR (default http://deb.debian.org/debian),
# PEP_ROOT_REFRESH, PEP_ROOT_PORT (default 254NN: 25418, 25417), PEP_ROOT_SHM
# (tmpfs size, default 1g), PEP_ROOT_LOGS (host directory under which the
# leg's logs go to pep-pgNN-logs, default /tmp); PEP_SUITES (default
# "pgtap installcheck tap readback harness": the reader matrix runs in the PostgreSQL 15 leg
# only, where tools/deps.sh installed npm), PEP_FAILURE_RUNS, PEP_SOAK_EXPORTS
# and PEP_HARNESSES (passed to tools/test.sh); PEP_ROOT_STARVE_WORKER=K runs
# the suite as tools/split_audit.sh does, worker K starved of every table
# scan (parallel_export_parquet.starve_worker in the cluster's
# postgresql.conf, which checks.sh confirms).

# shellcheck disable=SC2317 # cleanup() and what it calls run from the EXIT trap
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PG_MAJOR="${1:-}"
case "$PG_MAJOR" in
18)
	SUITE=forky
	JAVA_MAJOR=25
	# bookworm's debootstrap has no forky script; sid's serves.
	SUITE_SCRIPT=/usr/share/debootstrap/scripts/sid
	;;
17)
	SUITE=trixie
	JAVA_MAJOR=21
	# bookworm's debootstrap knows trixie (its script is sid's).
	SUITE_SCRIPT=""
	;;
*)
	echo "usage: tools/pgroot/run.sh 18|17" >&2
	exit 2
	;;
esac
L="pg$PG_MAJOR"
R="${PEP_ROOT_CACHE:-/var/cache}/pep-$SUITE"
MIRROR="${PEP_ROOT_MIRROR:-http://deb.debian.org/debian}"
# The legs share the host's network: the server listens on PORT, the suite's
# S3Proxy on PORT + 1000 and t_s3_sweep's standby on PORT + 2000. All lie below
# the kernel's ephemeral ports (32768 and up by default), which any outgoing
# connection of either leg (Maven, JDBC, the S3 client) may be given, and
# then holds against a server that starts listening there.
PORT="${PEP_ROOT_PORT:-254$PG_MAJOR}"
SHM_SIZE="${PEP_ROOT_SHM:-1g}"
LOGS="${PEP_ROOT_LOGS:-/tmp}/pep-$L-logs"
# The suite's cluster and stage logs, inside the root.
IN_TMP="/tmp/pep-$L"
IN_LOGS="/tmp/pep-$L-logs"

PACKAGES=(
	"postgresql-$PG_MAJOR"
	"postgresql-server-dev-$PG_MAJOR"
	"postgresql-$PG_MAJOR-pgtap"
	libtap-parser-sourcehandler-pgtap-perl
	# PostgreSQL's TAP framework (regress/tap): postgresql-client ships its
	# PostgreSQL::Test modules, which need IPC::Run
	libipc-run-perl
	build-essential
	"openjdk-$JAVA_MAJOR-jdk-headless"
	maven
	procps
	ca-certificates
)
STAMP="$R/.pep-root-complete"
STAMP_TEXT="$SUITE ${PACKAGES[*]}"

if [[ $(id -u) -ne 0 ]]; then
	echo "$L: must run as root (debootstrap, chroot, mount)" >&2
	exit 2
fi
case "$R" in
/bin* | /boot* | /dev* | /etc* | /lib* | /proc* | /sbin* | /sys* | /usr* | "$REPO"*)
	echo "$L: refusing the root $R (PEP_ROOT_CACHE=${PEP_ROOT_CACHE:-})" >&2
	exit 2
	;;
esac

# shellcheck source=../leg.sh
source "$REPO/tools/leg.sh"
# Everything below runs in a private mount namespace.
leg_private_ns "$@"

mkdir -p "$LOGS" "$(dirname "$R")"
# One run at a time per root.
exec 9>"$R.lock"
if ! flock -w 1800 9; then
	echo "$L: $R is in use by another run" >&2
	exit 2
fi

FINAL=""

# --- mounts and cleanup ---------------------------------------------------

mounted_under() { # mount points at or under $1, deepest first
	awk -v r="$1" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r
}

mount_all() {
	mountpoint -q "$R/proc" || mount -t proc proc "$R/proc"
	mountpoint -q "$R/sys" || mount --rbind /sys "$R/sys"
	if ! mountpoint -q "$R/dev"; then
		mount --rbind /dev "$R/dev"
		# A tmpfs of the root's own over the host's /dev/shm: PostgreSQL's
		# dynamic shared memory, sized for big parallel contexts, and gone
		# with the namespace.
		mount -t tmpfs -o "size=$SHM_SIZE,mode=1777" tmpfs "$R/dev/shm"
	fi
	mkdir -p /root/.m2 "$R/root/.m2"
	mountpoint -q "$R/root/.m2" || mount --bind /root/.m2 "$R/root/.m2"
	cp -L /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null || true
}

# logged LOG CMD...: CMD's output to the console and LOG; CMD runs in the
# background and is waited for, so that a signal reaches the traps at once.
logged() {
	local log="$1"
	shift
	("$@" 2>&1 | tee "$log"; exit "${PIPESTATUS[0]}") &
	BG_PID=$!
	wait "$BG_PID"
}

# Processes whose root directory is $R: only this script chroots there,
# and the lock makes it one run at a time. With "runners",
# only those not of the server's OS user (test runners, Maven, psql).
root_pids() {
	local p pg_uid=""
	if [[ "${1:-}" == runners ]]; then
		pg_uid="$(awk -F: '$1 == "postgres" { print $3 }' "$R/etc/passwd" 2>/dev/null)"
	fi
	for p in /proc/[0-9]*; do
		[[ "$(readlink "$p/root" 2>/dev/null)" == "$R" ]] || continue
		[[ -n "$pg_uid" && "$(stat -c %u "$p" 2>/dev/null)" == "$pg_uid" ]] && continue
		echo "${p#/proc/}"
	done
	return 0
}

# end_pids WHICH: TERM, up to 5 s, then KILL.
end_pids() {
	local -a pids
	mapfile -t pids < <(root_pids "$1")
	((${#pids[@]})) || return 0
	echo "$L: ending processes left in the root: ${pids[*]}"
	kill -TERM "${pids[@]}" 2>/dev/null || true
	for _ in $(seq 10); do
		[[ -z "$(root_pids "$1")" ]] && return 0
		sleep 0.5
	done
	mapfile -t pids < <(root_pids "$1")
	((${#pids[@]} == 0)) || kill -KILL "${pids[@]}" 2>/dev/null || true
}

# The suite's cluster in the root: stop it, remove its directory.
stop_cluster() {
	if [[ -x "$R/usr/lib/postgresql/$PG_MAJOR/bin/pg_ctl" && -d "$R/work/pep" ]] && mountpoint -q "$R/proc"; then
		in_root bash -c "cd /work/pep && PG_CONFIG=/usr/lib/postgresql/$PG_MAJOR/bin/pg_config \
			PEP_TMP=$IN_TMP PEP_PORT=$PORT tools/cluster.sh stop" >/dev/null 2>&1 || true
	fi
}

cleanup() {
	local rc=$? m
	trap - EXIT INT TERM
	# Test runners first, so that nothing recreates files under the
	# cluster's directory while it goes; then the server; then the rest.
	end_pids runners
	stop_cluster
	end_pids all
	for m in $(mounted_under "$R"); do
		umount "$m" 2>/dev/null || umount -l "$m" || true
	done
	if [[ -n "${BG_PID:-}" ]]; then
		wait "$BG_PID" 2>/dev/null || true
	fi
	if [[ -n "$(mounted_under "$R")" ]]; then
		echo "$L: still mounted: $(mounted_under "$R")" >&2
	fi
	times
	if [[ -n "$FINAL" ]]; then
		echo "$FINAL"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- 1. debootstrap --------------------------------------------------------

if [[ "${PEP_ROOT_REFRESH:-0}" == 1 ]]; then
	rm -f "$STAMP"
	rm -f "$R/.pep-debootstrap-done"
fi

if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$STAMP_TEXT" ]]; then
	echo "$L: reusing the $SUITE root $R (built $(stat -c %y "$STAMP" | cut -d. -f1))"
else
	if [[ ! -f "$R/.pep-debootstrap-done" ]]; then
		phase "debootstrap $SUITE into $R"
		if [[ -e "$R" ]]; then
			if [[ -n "$(mounted_under "$R")" ]]; then
				echo "$L: $R has mounts, not removing it: $(mounted_under "$R")" >&2
				exit 1
			fi
			rm -rf --one-file-system -- "$R"
		fi
		# .ci/run starts the 17 and 18 legs together, and on a fresh machine
		# both would install debootstrap at once: apt takes its locks without
		# waiting, so the second leg failed. A lock on apt's own directory
		# (root's, so no one else can put a link in its place, and opened for
		# reading, so nothing is created) serialises them, and the leg that
		# waited finds debootstrap installed.
		if ! (
			flock 9
			command -v debootstrap >/dev/null ||
				{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap; }
		) 9</var/lib/apt; then
			echo "$L: could not install debootstrap on this machine" >&2
			exit 1
		fi
		if ! debootstrap --variant=minbase --include=ca-certificates \
			"$SUITE" "$R" "$MIRROR" ${SUITE_SCRIPT:+"$SUITE_SCRIPT"} \
			>"$LOGS/debootstrap.log" 2>&1; then
			tail -n 30 "$LOGS/debootstrap.log"
			echo "$L: debootstrap failed (log: $LOGS/debootstrap.log)" >&2
			exit 1
		fi
		touch "$R/.pep-debootstrap-done"
		phase_end debootstrap
	fi

	phase "packages: ${PACKAGES[*]}"
	echo "deb $MIRROR $SUITE main" >"$R/etc/apt/sources.list"
	# Testing's (forky's) Release file is valid for a week only, and a
	# mirror may serve one that has expired; stable's (trixie's) has no
	# end date, so the setting changes nothing there.
	cat >"$R/etc/apt/apt.conf.d/90pep" <<-'EOF'
		Acquire::Check-Valid-Until "false";
		APT::Install-Recommends "false";
		Acquire::Languages "none";
	EOF
	# No service starts in the root, and no cluster is made by the package.
	printf '#!/bin/sh\nexit 101\n' >"$R/usr/sbin/policy-rc.d"
	chmod 755 "$R/usr/sbin/policy-rc.d"
	mkdir -p "$R/etc/postgresql-common"
	echo "create_main_cluster = false" >"$R/etc/postgresql-common/createcluster.conf"
	mount_all
	if ! { in_root apt-get update -q && in_root apt-get install -y -q "${PACKAGES[@]}"; } \
		>"$LOGS/packages.log" 2>&1; then
		tail -n 30 "$LOGS/packages.log"
		echo "$L: package install failed (log: $LOGS/packages.log)" >&2
		exit 1
	fi
	in_root apt-get clean
	echo "$STAMP_TEXT" >"$STAMP"
	phase_end packages
fi

mount_all
PG_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config"
JAVA_HOME="/usr/lib/jvm/java-$JAVA_MAJOR-openjdk-$(in_root dpkg --print-architecture)"
in_root dpkg-query -W -f="$L: \${Package} \${Version}\n" "postgresql-$PG_MAJOR" \
	"openjdk-$JAVA_MAJOR-jdk-headless" maven gcc || true

# --- 2. sources ------------------------------------------------------------

rm -rf --one-file-system -- "$R/work/pep"
mkdir -p "$R/work/pep"
if git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$REPO" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [[ -e "$f" || -L "$f" ]] && printf '%s\0' "$f"; done |
		tar --null -T - -cf -) | tar -C "$R/work/pep" -xf -
else
	tar -C "$REPO" --exclude=.git --exclude=target --exclude='*.o' --exclude='*.so' \
		--exclude='*.bc' --exclude=extension/parallel_export_parquet.jar -cf - . |
		tar -C "$R/work/pep" -xf -
fi
# The root's /tmp starts empty: no cluster, log or JVM file of an earlier
# run (one killed hard leaves them) can mask or fake a result.
end_pids all
find "$R/tmp" -mindepth 1 -maxdepth 1 -exec rm -rf --one-file-system -- {} +

# The two legs run Maven at the same time on the one /root/.m2. Maven 3.9's
# resolver locks the repository's files only within its own JVM unless told
# to take file locks, which serialise writers across processes.
ENV=(PG_CONFIG="$PG_CONFIG" JAVA_HOME="$JAVA_HOME"
	MAVEN_OPTS="-Xmx1g -Daether.syncContext.named.factory=file-lock -Daether.syncContext.named.nameMapper=file-gav")

# --- 3. build --------------------------------------------------------------

phase "build: tools/build.sh (PostgreSQL $PG_MAJOR, OpenJDK $JAVA_MAJOR)"
# The Dockerfile's two steps: the build stage's, then the final stage's.
if ! logged "$LOGS/build.log" in_root "${ENV[@]}" bash -c \
	'cd /work/pep && tools/build.sh && env -u JAVA_HOME tools/build.sh runtime'; then
	echo "$L: build failed (log: $LOGS/build.log)"
	phase_end build
	FINAL="$L: 0 passed, 1 failed, 0 skipped"
	exit 1
fi
phase_end build

# --- 4. tests --------------------------------------------------------------

phase "tests: tools/test.sh"
rc=0
logged "$LOGS/tests.log" in_root "${ENV[@]}" PEP_SKIP_DEPS=1 PEP_SKIP_BUILD=1 PEP_GATES=0 PEP_KEEP_CLUSTER=1 \
	PEP_PORT="$PORT" PEP_TMP="$IN_TMP" PEP_LOGS="$IN_LOGS" \
	PEP_SUITES="${PEP_SUITES:-pgtap installcheck tap readback harness}" ${PEP_FAILURE_RUNS:+PEP_FAILURE_RUNS="$PEP_FAILURE_RUNS"} \
	${PEP_SOAK_EXPORTS:+PEP_SOAK_EXPORTS="$PEP_SOAK_EXPORTS"} \
	${PEP_HARNESSES:+PEP_HARNESSES="$PEP_HARNESSES"} \
	${PEP_ROOT_STARVE_WORKER:+PEP_EXTRA_CONF="parallel_export_parquet.starve_worker = $PEP_ROOT_STARVE_WORKER"} \
	bash -c 'cd /work/pep && tools/test.sh' || rc=$?
phase_end tests
rm -rf --one-file-system -- "$LOGS/suite"
cp -r "$R$IN_LOGS" "$LOGS/suite" 2>/dev/null || true
read -r p f s < <(sed -n 's/^\([0-9]\+\) passed, \([0-9]\+\) failed, \([0-9]\+\) skipped$/\1 \2 \3/p' "$LOGS/tests.log" | tail -n 1 | grep . || echo "0 1 0")
if [[ "$rc" -ne 0 && "$f" -eq 0 ]]; then
	f=1
fi

# --- 5. checks on the suite's cluster ----------------------------------------

phase "checks: tools/pgroot/checks.sh"
crc=0
logged "$LOGS/checks.log" in_root "${ENV[@]}" PEP_PORT="$PORT" PEP_TMP="$IN_TMP" \
	${PEP_ROOT_STARVE_WORKER:+PEP_STARVE_WORKER="$PEP_ROOT_STARVE_WORKER"} \
	bash -c 'cd /work/pep && tools/pgroot/checks.sh' || crc=$?
phase_end checks
cpass=$(grep -c '^ok ' "$LOGS/checks.log" || true)
cf=$(grep -c '^not ok ' "$LOGS/checks.log" || true)
if [[ "$crc" -ne 0 && "$cf" -eq 0 ]]; then
	cf=1
fi

echo
echo "$L: suite: $p passed, $f failed, $s skipped; checks: $cpass passed, $cf failed (logs in $LOGS)"
failed=$((f + cf))
FINAL="$L: $((p + cpass)) passed, $failed failed, $s skipped"
# cleanup() (EXIT) stops the cluster, unmounts, prints the times and FINAL last.
if [[ "$failed" -gt 0 || $((p + cpass)) -eq 0 ]]; then
	exit 1
fi
exit 0
