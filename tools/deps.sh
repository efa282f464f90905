#!/usr/bin/env bash
# tools/deps.sh: install what building and testing parallel_export_parquet
# needs on Debian bookworm (PostgreSQL 15 server and headers, pgTAP, pg_prove,
# a C toolchain, JDK 17, Maven).
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
)

installed() {
	dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null | grep -qx installed
}

missing=()
for p in "${packages[@]}"; do
	installed "$p" || missing+=("$p")
done

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
echo "deps: done"
