#!/usr/bin/env bash
# tools/deps.sh: install what building and testing parallel_export_parquet
# needs on Debian bookworm (PostgreSQL 15 server and headers, pgTAP, pg_prove,
# a C toolchain, JDK 17, Maven, Node.js with npm for the reader matrix,
# ShellCheck and clang-format for tools/gates.sh, and IPC::Run for
# PostgreSQL's TAP framework, regress/tap).
#
# Idempotent and quick when everything is present: each package is checked
# with `dpkg -s` first, and `apt-get update` runs only when something is
# missing. Runs as root (CI does); otherwise through sudo.
#
# Usage: tools/deps.sh
set -euo pipefail

PG_MAJOR="${PG_MAJOR:-15}"

packages=(
	"postgresql-${PG_MAJOR}"
	"postgresql-server-dev-${PG_MAJOR}"
	"postgresql-${PG_MAJOR}-pgtap"
	libtap-parser-sourcehandler-pgtap-perl
	build-essential
	openjdk-17-jdk-headless
	maven
	shellcheck
	clang-format
	libipc-run-perl
)

installed() {
	dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null | grep -qx installed
}

missing=()
for p in "${packages[@]}"; do
	installed "$p" || missing+=("$p")
done

# The reader matrix needs npm only to install its lockfile, which pins the
# Node.js release that runs the readers (regress/matrix/js), so any node and
# npm do: Debian's, or another vendor's already present (whose nodejs package
# bundles npm and conflicts with Debian's npm package).
if ! command -v npm >/dev/null; then
	missing+=(nodejs npm)
fi

if [[ ${#missing[@]} -eq 0 ]]; then
	echo "deps: all ${#packages[@]} packages already installed"
	exit 0
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
	sudo_cmd=(sudo)
fi

echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"

for p in "${packages[@]}"; do
	if ! installed "$p"; then
		echo "deps: $p is still not installed" >&2
		exit 1
	fi
done
if ! command -v npm >/dev/null; then
	echo "deps: npm is still not installed" >&2
	exit 1
fi
echo "deps: done"
