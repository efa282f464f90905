#!/usr/bin/env bash
# tools/format.sh: applies the layouts tools/gates.sh checks: clang-format
# (.clang-format) to the C under extension/ and pljava-glue/, and Spotless
# (google-java-format) to every Maven module's Java. Run it before a commit,
# or after a merge that brought in unformatted code.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
git ls-files -z 'extension/*.c' 'extension/*.h' 'pljava-glue/*.c' 'pljava-glue/*.h' |
	xargs -0 clang-format -i
mvn -B -ntp -q spotless:apply
