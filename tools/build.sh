#!/usr/bin/env bash
# tools/build.sh: the build steps of parallel_export_parquet, in one place.
#
# The Dockerfile's build stage and the PostgreSQL 18 and 17 legs
# (tools/pgroot/run.sh) all run this script, so the image and the tested
# build cannot drift apart.
#
#   tools/build.sh            make -C extension (warnings are errors), then
#                             make -C extension install: the C library, the SQL
#                             scripts, the Java writer's jar (Maven) and the
#                             class cache trained by the installed JDK
#   tools/build.sh runtime    on the machine or image that runs the server,
#                             after the installed files were copied there
#                             (the Dockerfile's final stage): checks that the
#                             library's default libjvm_path exists, and trains
#                             the class cache again with the java there
#                             (JAVA_HOME's, else the one on PATH) for the jar
#                             at its final path (tools/train-cache.sh: an AOT
#                             cache on JDK 25 and later, else an AppCDS
#                             archive); the cache records both
#
# Environment: PG_CONFIG (default pg_config); JAVA_HOME (default: the JDK of
# the javac on PATH); DESTDIR (staged install, as with make); PEP_WERROR=0
# drops COPT=-Werror.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

PG_CONFIG="${PG_CONFIG:-pg_config}"

if [[ "${1:-}" == runtime ]]; then
	lib="$("$PG_CONFIG" --pkglibdir)/parallel_export_parquet.so"
	dir="$("$PG_CONFIG" --sharedir)/extension"
	java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
	# The library's built-in libjvm_path (PEP_DEFAULT_LIBJVM) must exist here.
	libjvm="$(grep -a -o '/[^[:cntrl:]]*/libjvm\.so' "$lib" | head -n 1)"
	if [[ ! -f "$libjvm" ]]; then
		echo "build: $lib defaults to libjvm_path \"$libjvm\", which does not exist here" >&2
		exit 1
	fi
	echo "build: default libjvm_path $libjvm exists"
	"$(dirname "${BASH_SOURCE[0]}")/train-cache.sh" "$java" "$dir"
	exit 0
fi

if [[ -z "${JAVA_HOME:-}" ]]; then
	JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
fi
export PG_CONFIG JAVA_HOME

copt=()
if [[ "${PEP_WERROR:-1}" == 1 ]]; then
	copt=("COPT=-Werror -Wshadow=compatible-local")
fi

echo "build: $("$PG_CONFIG" --version), $("$JAVA_HOME/bin/javac" -version 2>&1), $(mvn -B -v 2>/dev/null | head -n 1), $(${CC:-cc} --version | head -n 1)"
make -C extension PG_CONFIG="$PG_CONFIG" JAVA_HOME="$JAVA_HOME" "${copt[@]}"
make -C extension install PG_CONFIG="$PG_CONFIG" JAVA_HOME="$JAVA_HOME"
