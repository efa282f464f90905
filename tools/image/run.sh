#!/usr/bin/env bash
# tools/image/run.sh: the image leg: builds the real Dockerfile with buildah
# and runs the image it makes, without Docker.
#
# No Docker engine runs on the CI machine and the official postgres:18 image
# cannot be pulled, so:
#   base     a stand-in for postgres:18: Debian forky's PostgreSQL 18 in a
#            debootstrap root with the layout the Dockerfile relies on (see
#            base_setup below), imported as $BASE_IMAGE; root and image are
#            kept between runs in $PEP_ROOT_CACHE/pep-image-base and
#            $PEP_ROOT_CACHE/pep-image-storage (buildah's own storage), made
#            anew when missing or when the package list changes
#   maven    the host's Maven fills its repository (/root/.m2) with what the
#            image's build and the read-back need: Maven inside the build
#            cannot reach Maven Central here (TLS that only the host trusts)
#   build    buildah bud --isolation chroot --layers of ./Dockerfile with
#            --build-arg BASE=$BASE_IMAGE; the host's /root/.m2 is bound
#            where buildah keeps the Dockerfile's cache mount for /root/.m2,
#            so it is there for that one RUN step and never in a layer
#   run      tools/image/in-image.sh in a container of the image (buildah
#            run --isolation chroot, the image's own filesystem, user,
#            environment and command): a cluster, the server, an export
#            with 4 workers into /exports, the AppCDS archive used, DROP
#            EXTENSION; the parts are read back on the host with DuckDB
#   hygiene  the image's size; no compiler, Maven, JDK or Maven repository in
#            it; no file of an unknown owner; the extension's files where
#            pg_config says and nowhere else; LICENSE and NOTICE as in the
#            repository, and every Debian package's copyright file
#
# What this proves and what it cannot: docs/install.md, "The Docker image".
#
# Ends with "image: N passed, N failed, N skipped" and exits non-zero on any
# failure. Runs as root (debootstrap, buildah, mounts), in a private mount
# namespace of its own like tools/pgroot/run.sh.
#
# Environment: PEP_ROOT_CACHE (default /var/cache), PEP_ROOT_MIRROR (default
# http://deb.debian.org/debian), PEP_ROOT_REFRESH=1 (base made anew),
# PEP_IMAGE_PORT (the server's port in the container, default 54416),
# PEP_ROOT_LOGS (logs go to pep-image-logs under it, default /tmp).

# shellcheck disable=SC2317 # cleanup() runs from the EXIT trap
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PG_MAJOR=18
L=image
CACHE="${PEP_ROOT_CACHE:-/var/cache}"
R="$CACHE/pep-image-base"
STORAGE="$CACHE/pep-image-storage"
MIRROR="${PEP_ROOT_MIRROR:-http://deb.debian.org/debian}"
PORT="${PEP_IMAGE_PORT:-54416}"
LOGS="${PEP_ROOT_LOGS:-/tmp}/pep-image-logs"
BASE_IMAGE="localhost/pep-postgres-stand-in:$PG_MAJOR"
IMAGE="localhost/parallel-export-parquet:$PG_MAJOR"
# The official image's layout (docker-library/postgres, 18/trixie).
PG_UID=999
PGDATA="/var/lib/postgresql/$PG_MAJOR/docker"
PG_BIN="/usr/lib/postgresql/$PG_MAJOR/bin"

PACKAGES=("postgresql-$PG_MAJOR")
STAMP="$R/.pep-root-complete"
STAMP_TEXT="forky uid $PG_UID ${PACKAGES[*]}"
RUNROOT=/run/pep-image-storage
# buildah's temporary files, and where it keeps the Dockerfile's cache mounts.
BTMP="$STORAGE.tmp"
WORK=/tmp/pep-image-work

if [[ $(id -u) -ne 0 ]]; then
	echo "$L: must run as root (debootstrap, buildah, mounts)" >&2
	exit 2
fi
case "$CACHE" in
/bin* | /boot* | /dev* | /etc* | /lib* | /proc* | /sbin* | /sys* | /usr* | "$REPO"*)
	echo "$L: refusing the cache directory $CACHE (PEP_ROOT_CACHE)" >&2
	exit 2
	;;
esac

# shellcheck source=../leg.sh
source "$REPO/tools/leg.sh"
# Everything below runs in a private mount namespace.
leg_private_ns "$@"

mkdir -p "$CACHE"
# One run at a time: the base root and the storage are this leg's own.
exec 9>"$STORAGE.lock"
if ! flock -w 1800 9; then
	echo "$L: $STORAGE is in use by another run" >&2
	exit 2
fi
rm -rf --one-file-system -- "$LOGS" "$WORK" "$BTMP"
mkdir -p "$LOGS" "$WORK" "$BTMP"

FINAL=""
passed=0
failed=0
# fail WHAT LOG: one failure; the leg goes on where it can.
fail() {
	failed=$((failed + 1))
	echo "$L: FAILED: $1${2:+ (log: $2)}"
	[[ -n "${2:-}" ]] && tail -n 30 "$2"
	return 0
}
# tap LOG RC: adds LOG's TAP results to the counts; a run that failed without
# a "not ok" (a bail-out, a crash) counts once.
tap() {
	local p f
	p=$(grep -c '^ok ' "$1" || true)
	f=$(grep -c '^not ok ' "$1" || true)
	[[ "$2" -ne 0 && "$f" -eq 0 ]] && f=1
	passed=$((passed + p))
	failed=$((failed + f))
	grep -E '^(not )?ok |^#|^Bail' "$1" || true
}

bh() {
	TMPDIR="$BTMP" buildah --root "$STORAGE" --runroot "$RUNROOT" --storage-driver overlay "$@"
}

# Processes whose root directory is the mount point $1 (a container's
# filesystem): the server and its children if a run ended early.
pids_in() {
	local p
	for p in /proc/[0-9]*; do
		[[ "$(readlink "$p/root" 2>/dev/null)" == "$1" ]] && echo "${p#/proc/}"
	done
	return 0
}

CONTAINERS=()
cleanup() {
	local rc=$? c m pids
	trap - EXIT INT TERM
	for c in "${CONTAINERS[@]}"; do
		m="$(bh inspect --format '{{.MountPoint}}' "$c" 2>/dev/null || true)"
		if [[ -n "$m" ]]; then
			pids="$(pids_in "$m")"
			[[ -z "$pids" ]] || kill -KILL $pids 2>/dev/null || true
		fi
		bh rm "$c" >/dev/null 2>&1 || true
	done
	times
	if [[ -n "$FINAL" ]]; then
		echo "$FINAL"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# finish: the summary line, then the exit status.
finish() {
	FINAL="$L: $passed passed, $failed failed, 0 skipped"
	[[ "$failed" -eq 0 && "$passed" -gt 0 ]]
	exit $?
}

# --- 1. tools ----------------------------------------------------------------

phase "tools: buildah, debootstrap, the host's JDK and Maven"
need=()
command -v buildah >/dev/null || need+=(buildah)
command -v debootstrap >/dev/null || need+=(debootstrap)
if ((${#need[@]})); then
	if ! { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}"; } \
		>"$LOGS/tools.log" 2>&1; then
		fail "apt-get install ${need[*]}" "$LOGS/tools.log"
		finish
	fi
fi
if ! command -v mvn >/dev/null || ! command -v javac >/dev/null; then
	"$REPO/tools/deps.sh" >>"$LOGS/tools.log" 2>&1 || {
		fail "tools/deps.sh" "$LOGS/tools.log"
		finish
	}
fi
buildah --version
# Containers of a run that was killed.
bh rm --all >/dev/null 2>&1 || true
phase_end tools

# --- 2. the stand-in base ------------------------------------------------------

# The official image's layout that the Dockerfile relies on: PostgreSQL under
# /usr/lib/postgresql/18 with pg_config, the postgres user and group (999),
# PG_MAJOR and PATH in the environment, an apt source serving
# postgresql-server-dev-18 and the JDK, no apt lists, no cluster made by the
# package. Also as there: PGDATA, the /var/lib/postgresql volume, the
# /var/run/postgresql socket directory, CMD postgres, STOPSIGNAL SIGINT.
# Not there: the official entrypoint and gosu, the en_US.UTF-8 locale.
base_setup() {
	mount -t proc proc "$R/proc"
	mount --rbind /dev "$R/dev"
	mount --rbind /sys "$R/sys"
	cp -L /etc/resolv.conf "$R/etc/resolv.conf"
	echo "deb $MIRROR forky main" >"$R/etc/apt/sources.list"
	# Testing's Release file is valid for a week only; a mirror may serve
	# one that has expired.
	echo 'Acquire::Check-Valid-Until "false";' >"$R/etc/apt/apt.conf.d/90pep-stand-in"
	printf '#!/bin/sh\nexit 101\n' >"$R/usr/sbin/policy-rc.d"
	chmod 755 "$R/usr/sbin/policy-rc.d"
	mkdir -p "$R/etc/postgresql-common"
	echo "create_main_cluster = false" >"$R/etc/postgresql-common/createcluster.conf"
	in_root getent group postgres >/dev/null ||
		in_root groupadd --system --gid "$PG_UID" postgres
	in_root getent passwd postgres >/dev/null ||
		in_root useradd --system --gid postgres --uid "$PG_UID" --home-dir /var/lib/postgresql \
			--shell /bin/bash postgres
	in_root apt-get update -q
	in_root apt-get install -y -q --no-install-recommends "${PACKAGES[@]}"
	in_root apt-get clean
	rm -rf "$R"/var/lib/apt/lists/*
	install -d -o "$PG_UID" -g "$PG_UID" "$R/var/run/postgresql" "$R/var/lib/postgresql"
	chmod 3777 "$R/var/run/postgresql"
	chmod 1777 "$R/var/lib/postgresql"
	umount -R "$R/proc" "$R/dev" "$R/sys"
}

if [[ "${PEP_ROOT_REFRESH:-0}" == 1 ]]; then
	rm -f "$STAMP" "$R/.pep-debootstrap-done"
fi
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$STAMP_TEXT" ]]; then
	echo "$L: reusing the stand-in root $R (built $(stat -c %y "$STAMP" | cut -d. -f1))"
else
	phase "base: debootstrap forky into $R, ${PACKAGES[*]}"
	if [[ ! -f "$R/.pep-debootstrap-done" ]]; then
		rm -rf --one-file-system -- "$R"
		if ! debootstrap --variant=minbase --include=ca-certificates forky "$R" "$MIRROR" \
			/usr/share/debootstrap/scripts/sid >"$LOGS/debootstrap.log" 2>&1; then
			fail "debootstrap" "$LOGS/debootstrap.log"
			finish
		fi
		touch "$R/.pep-debootstrap-done"
	fi
	if ! (set -e && base_setup) >"$LOGS/base.log" 2>&1; then
		fail "the stand-in base's packages" "$LOGS/base.log"
		finish
	fi
	echo "$STAMP_TEXT" >"$STAMP"
	phase_end base
fi

# The image is made anew from the root when the root was.
base_label="$(cat "$STAMP") $(stat -c %Y "$STAMP")"
if [[ "$(bh inspect --type image --format '{{index .OCIv1.Config.Labels "pep.stand-in"}}' "$BASE_IMAGE" 2>/dev/null)" != "$base_label" ]]; then
	phase "base: import $R as $BASE_IMAGE"
	if ! (
		set -e
		c="$(bh from --quiet scratch)"
		m="$(bh mount "$c")"
		tar -C "$R" --exclude=./.pep-debootstrap-done --exclude=./.pep-root-complete -cf - . | tar -C "$m" -xpf -
		bh umount "$c"
		bh config --env "PG_MAJOR=$PG_MAJOR" \
			--env "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PG_BIN" \
			--env "PGDATA=$PGDATA" --env LANG=C.UTF-8 --volume /var/lib/postgresql \
			--port 5432 --stop-signal SIGINT --cmd postgres --label "pep.stand-in=$base_label" "$c"
		bh commit --quiet --rm "$c" "$BASE_IMAGE"
	) >"$LOGS/import.log" 2>&1; then
		fail "importing the stand-in base" "$LOGS/import.log"
		finish
	fi
	phase_end import
fi

# --- 3. Maven ----------------------------------------------------------------

phase "maven: the host's /root/.m2 for the image's build and the read-back"
if ! (cd "$REPO" && mvn -B -ntp -q -Dstyle.color=never -DskipTests -pl parquet-writer,regress/readback -am package) \
	>"$LOGS/maven.log" 2>&1; then
	fail "mvn package (parquet-writer, regress/readback)" "$LOGS/maven.log"
	finish
fi
phase_end maven

# --- 4. build ----------------------------------------------------------------

phase "build: buildah bud --isolation chroot --layers, BASE=$BASE_IMAGE"
# The Dockerfile's RUN --mount=type=cache,target=/root/.m2 is
# $TMPDIR/buildah-cache/root/.m2 to buildah 1.28: the host's repository is
# bound there for this build only, and a cache mount is never in a layer.
mkdir -p "$BTMP/buildah-cache/root/.m2" /root/.m2
mount --bind /root/.m2 "$BTMP/buildah-cache/root/.m2"
# The build stage is tagged too (the second bud takes it from the layer
# cache), so that the pruning below keeps its layers for the next run.
rc=0
for target in build ""; do
	bh bud --isolation chroot --layers --pull-never --build-arg "BASE=$BASE_IMAGE" \
		${target:+--target "$target"} -t "$IMAGE${target:+-$target}" \
		-f "$REPO/Dockerfile" "$REPO" >>"$LOGS/build.log" 2>&1 || rc=$?
	[[ "$rc" -eq 0 ]] || break
done
umount "$BTMP/buildah-cache/root/.m2"
# Only the newest chains of layers are kept: each pass drops the images
# nothing uses, which frees their parents for the next.
for _ in $(seq 30); do
	[[ -n "$(bh images --quiet --filter dangling=true)" ]] || break
	bh rmi --prune >/dev/null 2>&1 || break
done
phase_end build
if [[ "$rc" -ne 0 ]]; then
	fail "buildah bud" "$LOGS/build.log"
	finish
fi
passed=$((passed + 1))
echo "ok - the Dockerfile builds"

# --- 5. hygiene ----------------------------------------------------------------

phase "hygiene: what the image holds"
echo "$L: image size: $(bh images --format '{{.Size}}' "$IMAGE") (the stand-in base: $(bh images --format '{{.Size}}' "$BASE_IMAGE"))"
c="$(bh from --quiet --pull-never --name pep-image-hygiene "$IMAGE")"
CONTAINERS+=("$c")
rc=0
bh run --isolation chroot --user root -v "$REPO/tools:/pep/tools:ro" \
	-v "$REPO/LICENSE:/pep/LICENSE:ro" -v "$REPO/NOTICE:/pep/NOTICE:ro" "$c" -- \
	bash /pep/tools/image/hygiene.sh >"$LOGS/hygiene.log" 2>&1 || rc=$?
tap "$LOGS/hygiene.log" "$rc"
phase_end hygiene

# --- 6. run ------------------------------------------------------------------

phase "run: the image's server, an export with 4 workers, DuckDB read-back"
c="$(bh from --quiet --pull-never --name pep-image-run "$IMAGE")"
CONTAINERS+=("$c")
# The /exports volume is this one, as with docker run -v VOLUME:/exports (a
# bind at the path of the image's own volume would win or lose at random).
bh config --volume /exports- "$c"
m="$(bh mount "$c")"
mapfile -t cmd < <(bh inspect --type image --format '{{range .OCIv1.Config.Cmd}}{{println .}}{{end}}' "$IMAGE")
# It starts as a new named volume starts in Docker: with the owner and mode
# of the image's directory.
mkdir -p "$WORK/exports" "$WORK/work"
chown --reference="$m/exports" "$WORK/exports"
chmod --reference="$m/exports" "$WORK/exports"
chown "$PG_UID:$PG_UID" "$WORK/work"
rc=0
bh run --isolation chroot --user postgres -v "$REPO/tools:/pep/tools:ro" \
	-v "$WORK/exports:/exports" -v "$WORK/work:/pep-work" "$c" -- \
	bash /pep/tools/image/in-image.sh /pep-work "${cmd[@]}" >"$LOGS/run.log" 2>&1 || rc=$?
tap "$LOGS/run.log" "$rc"
cp -r "$WORK/work" "$LOGS/run"

if [[ -s "$WORK/work/fingerprint.sql" ]]; then
	want="$(cat "$WORK/work/postgres.fingerprint")"
	got=""
	# Maven 3.8's batch mode still starts its output with colour resets.
	if (cd "$REPO" && mvn -B -ntp -q -Dstyle.color=never -pl regress/readback exec:java \
		-Dpep.main=org.parallelexport.readback.Query \
		-Dexec.args="$WORK/exports/pep_image \"SELECT $(cat "$WORK/work/fingerprint.sql") FROM parts\"") \
		>"$LOGS/readback.log" 2>&1; then
		got="$(sed 's/\x1b\[[0-9;]*m//g' "$LOGS/readback.log" | tail -n 1)"
	fi
	if [[ -n "$want" && "$got" == "$want" ]]; then
		passed=$((passed + 1))
		echo "ok - DuckDB reads the parts as PostgreSQL has the table (rows, non-null texts, sum of ids, md5 of the texts): $got"
	else
		fail "DuckDB read-back: got \"$got\", PostgreSQL has \"$want\"" "$LOGS/readback.log"
	fi
fi
phase_end run

finish
