#!/usr/bin/env bash
# tools/train-cache.sh: the class cache a worker's JVM maps at start, trained
# for the installed jar by the JVM that will run it.
#
#   tools/train-cache.sh JAVA DIR
#
# DIR holds parallel_export_parquet.jar at its final path (the cache records
# the path and the jar's time). JAVA runs the writer's training class Warmup
# (a part of every kind, every codec, an S3 export on loopback) once, and
# what it loaded is kept:
#   - a JDK that takes -XX:AOTCacheOutput (25 and later; JEPs 483, 514)
#     writes DIR/parallel_export_parquet.aot, an AOT cache: the JDK's classes
#     and the writer's, loaded and linked ahead of time, in one file;
#   - an older one (17, 21) writes DIR/parallel_export_parquet.jsa, a dynamic
#     AppCDS archive on top of the JDK's own.
# extension/src/jvm/pep_java.c gives the workers whichever of the two exists. Both
# are removed first, so a JDK change never leaves a stale one beside the
# new. Both train with the workers' collector; the AOT cache also with
# their heap sizes (its archived heap objects are laid out for them) and
# with --enable-native-access=ALL-UNNAMED, which pep_java.c always passes
# (a cache dumped without it costs the JVM its archived module graph).
# Method profiles are not recorded into the AOT cache: replayed, the
# training's profiles made the JIT compile more in a 1-row export and no less
# in a 2M-row one (bench/results/startup.md).
#
# brotli4j loads the library make install unpacked beside the jar, as the
# workers do, rather than extract a copy into /tmp.
#
# Run by `make install` (extension/Makefile) and `tools/build.sh runtime`.
set -euo pipefail

java="${1:?usage: tools/train-cache.sh JAVA DIR}"
dir="${2:?usage: tools/train-cache.sh JAVA DIR}"
name=parallel_export_parquet

rm -f "$dir/$name.aot" "$dir/$name.jsa"
opts=(-XX:+UseSerialGC -XX:-UsePerfData -Dbrotli4j.library.path="$dir/$name-brotli.so")
if "$java" -XX:+PrintFlagsFinal -version 2>/dev/null | grep -q ' AOTCacheOutput '; then
	out="$dir/$name.aot"
	opts+=(-Xmx512m -Xmn16m --enable-native-access=ALL-UNNAMED -Xlog:cds=error,aot=error
		-XX:+UnlockDiagnosticVMOptions -XX:-AOTRecordTraining -XX:AOTCacheOutput="$out")
else
	out="$dir/$name.jsa"
	opts+=(-Xlog:cds=error -XX:ArchiveClassesAtExit="$out")
fi
"$java" "${opts[@]}" -cp "$dir/$name.jar" org.parallelexport.parquet.Warmup
test -s "$out"
echo "train-cache: $out trained by $("$java" -version 2>&1 | head -n 1)"
