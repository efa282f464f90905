#!/usr/bin/env bash
# regress/t_jvm.sh: a worker's JVM never takes the server down, and its heap
# follows the documented options.
#
#   - parallel_export_parquet.jvm_options refuses at SET and ALTER SYSTEM
#     what HotSpot would refuse or abort on (sizes, their relations, two
#     collectors, options that end a worker other than with an error), and
#     anything not on its allow-list, with a detail naming the option; sound
#     values are accepted (every spelling: regress/sql/jvm_options.sql);
#   - every option the table "What jvm_options allows" of docs/settings.md
#     names is accepted;
#   - the options of issue 42 that passed the old deny-list (an abort on an
#     export's exception, a pause at start, snappy-java loading another
#     library, -Xlog into the data directory) are refused, and a session
#     that tries them and exports anyway gets no crash restart, no worker
#     that waits past the export, no file in the data directory and no
#     foreign library loaded;
#   - diagnostic options are unlocked only around the flags the extension
#     sets or vouches for, and -XX:-UsePerfData is always added;
#   - its built-in default is the one the settings table of docs/settings.md shows;
#   - a bad value set before the library is loaded, or in postgresql.conf,
#     is dropped with a WARNING when the library loads, and the export runs
#     with the default;
#   - a JVM that fails to start anyway (options the check cannot foresee, a
#     library that is no JVM) fails the export with a clear error carrying
#     the JVM's own message;
#   - through all of it, no crash restart: the checkpointer's PID and a
#     witness session survive, and the server log shows no worker killed by
#     a signal;
#   - with the default options a worker's old generation is collected once
#     row groups have filled it with their dead dictionaries, so the heap
#     holds what the export keeps (an initial heap of HotSpot's own size
#     keeps it all: the control);
#   - a worker expected to encode few values compiles with C1 only, one
#     expected to encode many keeps C2, and the user's JIT options win;
#   - with the default options C2 compiles the part writer's row loops
#     once, whole, never on stack (OSR);
#   - rows of 1, 2, 10 and 50 MB export with the default heap, and a row too
#     big for the heap fails with SQLSTATE 53200, the OutOfMemoryError in the
#     detail and a hint naming the setting, also when the heap runs out while
#     the part is closed.
# Needs a running cluster from tools/cluster.sh with the extension
# installed. Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/tap.sh
source "$here/lib/tap.sh"

WORK="${PEP_HARNESS_OUT:-$PEP_OUT}/jvm"
rm -rf "$WORK"
mkdir -p "$WORK"
chown postgres "$WORK"
log_start=$(stat -c %s "$PEP_LOG")

# psql with the SQLSTATE in every error line; prints stdout and stderr.
vsql() {
	psql -X -A -t -q -v VERBOSITY=verbose "$@" 2>&1
}

checkpointer() {
	sql "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'"
}

witness() {
	sql "SELECT pid || ' ' || backend_start FROM pg_stat_activity
		WHERE application_name = 'pep_jvm_witness' AND state = 'active'"
}

sql "CREATE EXTENSION IF NOT EXISTS parallel_export_parquet;
	DROP FUNCTION IF EXISTS pep_jvm_many();
	DROP TABLE IF EXISTS pep_jvm_t;
	CREATE TABLE pep_jvm_t AS SELECT g AS id, md5(g::text) AS s FROM generate_series(1, 1000) AS g" >/dev/null

# jvm_lines FILE FROM: what workers' JVMs printed to the server log (their
# stdout and stderr are the server's) since byte FROM, the lines that -Xlog
# decorates ("[0.012s][info][gc] ..."), into FILE. jvm_options may send -Xlog
# nowhere else.
jvm_lines() {
	tail -c +"$(($2 + 1))" "$PEP_LOG" | grep '^\[' >"$1"
}

# A session that a crash restart would end.
PGAPPNAME=pep_jvm_witness psql -X -q -c "SELECT pg_sleep(3600)" >/dev/null 2>&1 &
witness_job=$!
stop_witness() {
	sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE application_name = 'pep_jvm_witness'" >/dev/null 2>&1
	wait "$witness_job" 2>/dev/null
}
trap stop_witness EXIT
for _ in $(seq 1 100); do
	[[ -n "$(witness)" ]] && break
	sleep 0.1
done
witness_before=$(witness)
checkpointer_before=$(checkpointer)
[[ -n "$witness_before" && -n "$checkpointer_before" ]]
ok $? "premise: a witness session ($witness_before) and the checkpointer ($checkpointer_before) run"

# Control: the default options export.
[[ "$(sql "SELECT parallel_export_parquet('pep_jvm_t', '$WORK/control', 1)")" == 1000 ]]
ok $? "control: with the default options the export succeeds"

# The default is the one the settings table of docs/settings.md documents, word for
# word (the compiled-in value: boot_val, whatever postgresql.conf says).
doc_default=$(awk -F'|' '$2 ~ /^ `parallel_export_parquet\.jvm_options` $/ { gsub(/^ `|` $/, "", $3); print $3 }' \
	"$here/../docs/settings.md")
boot_default=$(sql "LOAD 'parallel_export_parquet';
	SELECT boot_val FROM pg_settings WHERE name = 'parallel_export_parquet.jvm_options'")
[[ -n "$doc_default" && "$boot_default" == "$doc_default" ]]
ok $? "the default jvm_options are docs/settings.md's" "built in: $boot_default
docs:     $doc_default"

# --- The check hook, with the library loaded so that SET runs it.
refused() {
	local value="$1" detail="$2" out
	out=$(vsql -c "LOAD 'parallel_export_parquet'" \
		-c "SET parallel_export_parquet.jvm_options = '$value'")
	grep -q 'ERROR:  22023: invalid value for parameter "parallel_export_parquet.jvm_options"' <<<"$out" &&
		grep '^DETAIL:  ' <<<"$out" | grep -qF "$detail"
	ok $? "SET refuses '$value'" "$out"
}
refused "-Xmx192" 'The option "-Xmx192" is below the Java virtual machine'"'"'s minimum of 4096 kB.'
out=$(vsql -c "LOAD 'parallel_export_parquet'" -c "SET parallel_export_parquet.jvm_options = '-Xmx192'")
grep -qF 'HINT:  A size without a unit is in bytes; add k, m or g, as in "-Xmx192m".' <<<"$out"
ok $? "and hints at the missing unit" "$out"
refused "-Xmx1k" 'The option "-Xmx1k" is below'
refused "-Xmx3m -XX:+UseG1GC" 'The option "-Xmx3m" is below'
refused "-XX:MaxHeapSize=1" 'The option "-XX:MaxHeapSize=1" is below'
refused "-Xms512k" 'The option "-Xms512k" is below the Java virtual machine'"'"'s minimum of 1024 kB (or 0 for its default).'
refused "-Xss100k" 'The option "-Xss100k" is below the Java virtual machine'"'"'s minimum of 136 kB'
refused "-XX:ThreadStackSize=100" 'The option "-XX:ThreadStackSize=100" is below'
refused "-Xmn0" 'The option "-Xmn0" is below'
refused "-Xmx1q" 'The option "-Xmx1q" does not give a size: "1q" is not a decimal number with an optional unit k, m, g or t.'
refused "-Xmx99999999999999999999m" 'does not give a size'
refused "-Xms512m -Xmx256m" 'The initial heap size (-Xms) is larger than the maximum heap size (-Xmx).'
refused "-XX:InitialHeapSize=512m -XX:MaxHeapSize=256m" 'The initial heap size (-Xms) is larger'
refused "-Xmx256m -XX:MinHeapSize=512m" 'The minimum heap size (-XX:MinHeapSize) is larger than the maximum heap size (-Xmx).'
refused "-Xms16m -XX:MinHeapSize=32m" 'The minimum heap size (-XX:MinHeapSize) is larger than the initial heap size (-Xms).'
refused "-XX:+UseSerialGC -XX:+UseG1GC" 'The options "-XX:+UseSerialGC" and "-XX:+UseG1GC" select two garbage collectors.'
refused "-Xmx64m Xmx128m" '"Xmx128m" is not a Java virtual machine option: options start with "-".'
refused "-XX:-ReduceSignalUsage" 'would undo -Xrs'
refused "-Djava.class.path=/tmp" "would replace the extension's jar"
refused "-XX:+ExitOnOutOfMemoryError" 'would end the worker'
refused "-XX:+CrashOnOutOfMemoryError" 'would crash the worker'
refused "-XX:OnOutOfMemoryError=kill" 'would run a shell command'
refused "-XX:OnError=ls" 'would run a shell command'
refused "-agentpath:/nonexistent.so" 'would load native agent code'
refused "-agentlib:jdwp=transport=dt_socket" 'would load native agent code'
refused "-javaagent:/tmp/a.jar" 'would load an instrumentation agent'
refused "-XX:VMOptionsFile=/tmp/options" 'would read more options from a file'
refused "-XX:+ShowMessageBoxOnError" 'wait for a keypress'
refused "-Djava.system.class.loader=NoSuch" 'The option "-Djava.system.class.loader=NoSuch" is not one the extension allows: of the system properties only a few'
refused "-XX:NoSuchOption" 'The option "-XX:NoSuchOption" is not one the extension allows.'
refused "-Xfoo" 'The option "-Xfoo" is not one the extension allows.'
refused "-XX:MaxRAMPercentage=abc" 'The option "-XX:MaxRAMPercentage=abc" does not give a number'
refused "-Xshare:on" 'The option "-Xshare:on" is not one the extension allows.'
refused "$(printf -- '-Xrs %.0s' $(seq 1 49))" 'At most 48 options may be given.'

out=$(vsql -c "LOAD 'parallel_export_parquet'" \
	-c "ALTER SYSTEM SET parallel_export_parquet.jvm_options = '-Xmx192'")
grep -q 'ERROR:  22023: invalid value for parameter' <<<"$out" &&
	! grep -q jvm_options "$PEP_DATA/postgresql.auto.conf"
ok $? "ALTER SYSTEM refuses it too, and writes nothing" "$out"

accepted() {
	local out
	out=$(vsql -c "LOAD 'parallel_export_parquet'" -c "SET parallel_export_parquet.jvm_options = '$1'" \
		-c "SHOW parallel_export_parquet.jvm_options")
	[[ "$out" == "$1" ]]
	ok $? "SET accepts '$1'" "$out"
}
accepted "-Xmx4m"
accepted "-Xmx1g -Xms0 -Xss0 -Xmn1k -XX:+UseSerialGC -XX:+UseSerialGC"
accepted "-XX:MaxHeapSize=64M -XX:InitialHeapSize=64M -XX:MinHeapSize=1m -XX:ThreadStackSize=1024"
accepted "-Xms512m -Xmx256m -Xmx1g"
accepted "-Xcheck:jni -Xrs"
# Attach stays possible for a diagnosis (bench/profile.sh): refusing it would
# not keep a SIGQUIT from ending a worker (docs/settings.md, "Attaching a JVM tool").
accepted "-XX:-DisableAttachMechanism -XX:+StartAttachListener"
accepted ""

# Every option the table of allowed options in docs/settings.md names (its first
# column, one option or a pattern per row, the example value in it) is
# accepted, so the table promises nothing the check refuses.
doc_allowed=$(awk '/^\*\*What `jvm_options` allows\.\*\*/ { on = 1; next }
	on && /^\| `-/ { split($0, f, "|"); gsub(/^ *`|` *$/, "", f[2]); print f[2]; next }
	on && /^\*\*/ { exit }' "$here/../docs/settings.md")
[[ $(wc -l <<<"$doc_allowed") -ge 10 ]]
ok $? "premise: the table of allowed options in docs/settings.md has rows" "$doc_allowed"
while read -r example; do
	out=$(vsql -c "LOAD 'parallel_export_parquet'" -c "SET parallel_export_parquet.jvm_options = '$example'")
	[[ "$out" == "" ]]
	ok $? "the documented allowed '$example' is accepted" "$out"
done <<<"$doc_allowed"
# And the other way: every flag, option and property on the code's list
# (extension/src/jvm/pep_jvmopts.c: pep_flags, pep_exact, pep_properties, the
# collectors and sizes; not pep_refused) is in that part of docs/settings.md.
doc_part=$(awk '/^\*\*What `jvm_options` allows\.\*\*/ { on = 1 } on && /^\*\*Attaching/ { exit } on' "$here/../docs/settings.md")
missing=$(awk '/pep_refused\[\] =/ { skip = 1 } skip && /^};/ { skip = 0; next } !skip' "$here/../extension/src/jvm/pep_jvmopts.c" |
	grep -oE '^\s*\{?"(-XX:[+]?|-X|-D|)[A-Za-z0-9.:]+=?"' |
	sed -E 's/^\s*\{?"//; s/"$//; s/^-XX:[+]?//' | sort -u |
	while read -r name; do grep -qF -- "$name" <<<"$doc_part" || echo "$name"; done)
[[ -z "$missing" ]]
ok $? "every option of the code's allow-list is in the table of docs/settings.md" "not there: $missing"

# Set before the library is loaded, a bad value is only a placeholder: the
# library's load drops it with a WARNING, and the export uses the default.
out=$(PGOPTIONS="-c client_min_messages=warning" vsql \
	-c "SET parallel_export_parquet.jvm_options = '-Xmx192'" \
	-c "SELECT parallel_export_parquet('pep_jvm_t', '$WORK/placeholder', 1)")
grep -q 'WARNING:  22023: invalid value for parameter "parallel_export_parquet.jvm_options": "-Xmx192"' <<<"$out" &&
	grep -q '^1000$' <<<"$out"
ok $? "a bad value set before the library loaded is dropped with a WARNING; the export runs" "$out"

# A bad value in postgresql.conf: the reload keeps it only as a placeholder
# where the library is not loaded, and a session loading the library drops
# it with a WARNING; the export runs with the default.
conf_line="parallel_export_parquet.jvm_options = '-Xms512m -Xmx256m' # t_jvm.sh"
cp "$PEP_DATA/postgresql.conf" "$WORK/postgresql.conf.saved"
echo "$conf_line" >>"$PEP_DATA/postgresql.conf"
sql "SELECT pg_reload_conf()" >/dev/null
for _ in $(seq 1 100); do
	[[ "$(sql "SHOW parallel_export_parquet.jvm_options")" == "-Xms512m -Xmx256m" ]] && break
	sleep 0.1
done
out=$(PGOPTIONS="-c client_min_messages=warning" vsql -c "LOAD 'parallel_export_parquet'" \
	-c "SHOW parallel_export_parquet.jvm_options" \
	-c "SELECT parallel_export_parquet('pep_jvm_t', '$WORK/reload', 1)")
cp "$WORK/postgresql.conf.saved" "$PEP_DATA/postgresql.conf"
sql "SELECT pg_reload_conf()" >/dev/null
grep -q 'WARNING:  22023: invalid value for parameter "parallel_export_parquet.jvm_options": "-Xms512m -Xmx256m"' <<<"$out" &&
	grep -q '^-Xmx512m' <<<"$out" && grep -q '^1000$' <<<"$out"
ok $? "a bad value in postgresql.conf is dropped with a WARNING where the library loads; the export runs" "$out"

# --- Options the check lets through but the JVM refuses or aborts on.
start_fails() {
	local value="$1" jvm_says="$2" out
	rm -rf "$WORK/bad"
	out=$(vsql -c "LOAD 'parallel_export_parquet'" \
		-c "SET parallel_export_parquet.jvm_options = '$value'" \
		-c "SELECT parallel_export_parquet('pep_jvm_t', '$WORK/bad', 1)")
	grep -q 'ERROR:  F0000: could not start the Java virtual machine' <<<"$out" &&
		grep -qF "$jvm_says" <<<"$out" &&
		grep -qF 'HINT:  Check "parallel_export_parquet.jvm_options"' <<<"$out"
	ok $? "'$value' fails the export with the JVM's own message" "$out"
	[[ ! -e "$WORK/bad" && -z "$(find "$WORK" -maxdepth 1 -name '.bad.*')" ]]
	ok $? "and leaves nothing behind"
}
# HotSpot gives up half-way through its start (the exit and abort hooks):
start_fails "-XX:MaxRAM=1k" "Too small maximum heap"
# JNI_CreateJavaVM returns an error:
start_fails "-XX:TieredStopAtLevel=9" "Improperly specified VM option 'TieredStopAtLevel=9'"
start_fails "-XX:CICompilerCount=0" "CICompilerCount (0) must be at least"

# That error shows the options the worker got (pep_java.c): the diagnostic
# options unlocked around the class cache's flag and around an allowed
# diagnostic flag of jvm_options, each alone and locked again after it, and
# -XX:-UsePerfData though jvm_options left it out.
out=$(vsql -c "LOAD 'parallel_export_parquet'" \
	-c "SET parallel_export_parquet.jvm_options = '-XX:ArchiveRelocationMode=1 -XX:TieredStopAtLevel=9'" \
	-c "SELECT parallel_export_parquet('pep_jvm_t', '$WORK/bad', 1)")
given=$(sed -n 's/.*JNI_CreateJavaVM returned -*[0-9]* with options "\([^"]*\)".*/\1/p' <<<"$out" | head -n 1)
unlocks=$(grep -o -- '-XX:+UnlockDiagnosticVMOptions [^ ]* -XX:-UnlockDiagnosticVMOptions' <<<"$given" | awk '{ print $2 }' | paste -sd' ')
[[ -n "$given" && "$unlocks" == "-XX:ArchiveRelocationMode=0 -XX:ArchiveRelocationMode=1" &&
	$(grep -o -- '-XX:[+-]UnlockDiagnosticVMOptions' <<<"$given" | wc -l) == 4 ]] &&
	grep -q -- ' -XX:-UsePerfData ' <<<" $given "
ok $? "diagnostic options are unlocked only around -XX:ArchiveRelocationMode, each alone, and -XX:-UsePerfData is added" \
	"unlocked around: '$unlocks'; options: $given"

# --- Issue 42: options the deny-list let through. Each is refused at SET; a
# session that tries it anyway and then exports gets its former options, the
# defaults. Each case then asserts what the option did on the old code: no
# crash restart (the checkpointer's PID), no worker paused at its start
# (HotSpot's -XX:+PauseAtStartup waits for its file vm.paused.PID in the
# worker's working directory, the data directory, to go: a worker that
# ignores cancel and statement_timeout), no new name in the data directory,
# and no foreign library loaded (its constructor would write a file).
printf '%s\n' '#include <stdio.h>' \
	'__attribute__((constructor)) static void pep_evil(void) { FILE *f = fopen(PEP_RAN, "w"); if (f) fclose(f); }' \
	>"$WORK/evil.c"
gcc -shared -fPIC -DPEP_RAN="\"$WORK/evil-ran\"" -o "$WORK/evil.so" "$WORK/evil.c"
ok $? "premise: a shared library whose constructor writes $WORK/evil-ran"
chmod a+r "$WORK/evil.so"
attack() {
	local what="$1" value="$2" fault="$3" want="$4" listing pid paused="" before
	# After a crash restart (the old code's answer to the case before) the
	# server takes connections again once its recovery is done.
	for _ in $(seq 1 600); do
		sql "SELECT 1" >/dev/null 2>&1 && break
		sleep 0.1
	done
	listing=$(ls -A "$PEP_DATA")
	before=$(checkpointer)
	rm -rf "$WORK/attack" "$WORK/evil-ran"
	vsql -c "LOAD 'parallel_export_parquet'" -c "SET parallel_export_parquet.fault_injection = '$fault'" \
		-c "SET parallel_export_parquet.jvm_options = '$value'" \
		-c "SELECT parallel_export_parquet('pep_jvm_t', '$WORK/attack', 1)" >"$WORK/attack.out" &
	pid=$!
	# The export's end or a paused worker, whichever comes first; a paused
	# one is let go by removing its file, so that the harness goes on.
	while kill -0 "$pid" 2>/dev/null; do
		paused=$(find "$PEP_DATA" -maxdepth 1 -name 'vm.paused.*')
		[[ -n "$paused" ]] && break
		sleep 0.1
	done
	[[ -n "$paused" ]] && rm -f "$paused"
	wait "$pid"
	out=$(cat "$WORK/attack.out")
	grep -q 'ERROR:  22023: invalid value for parameter "parallel_export_parquet.jvm_options"' <<<"$out" &&
		grep -qF "DETAIL:  The option \"${value%% *}\"" <<<"$out"
	ok $? "issue 42, $what: SET refuses it, naming it" "$out"
	grep -q -- "$want" <<<"$out"
	ok $? "issue 42, $what: the export then runs with the default options" "$out"
	[[ -z "$paused" ]]
	ok $? "issue 42, $what: no worker paused at its start" "$paused"
	[[ "$(checkpointer)" == "$before" ]]
	ok $? "issue 42, $what: no crash restart" "checkpointer $before, now $(checkpointer)"
	diff <(echo "$listing") <(ls -A "$PEP_DATA") >"$WORK/attack.diff"
	ok $? "issue 42, $what: no new name in the data directory" "$(cat "$WORK/attack.diff")"
	[[ ! -e "$WORK/evil-ran" ]]
	ok $? "issue 42, $what: no foreign library loaded"
}
# An export's ordinary error: the injected IllegalStateException of the
# writer, which the option would have turned into SIGABRT.
attack "an abort on an exception" "-XX:AbortVMOnException=java.lang.IllegalStateException" \
	java_error:0:0 'injected fault after 0 batches'
attack "a pause at start" "-XX:+PauseAtStartup" "" '^1000$'
attack "snappy-java loading another library" \
	"-Dorg.xerial.snappy.lib.path=$WORK -Dorg.xerial.snappy.lib.name=evil.so" "" '^1000$'
attack "-Xlog into the data directory" "-Xlog:gc:file=$PEP_DATA/pep_gc.log" "" '^1000$'

out=$(vsql -c "SET parallel_export_parquet.libjvm_path = '$("$PG_CONFIG" --pkglibdir)/parallel_export_parquet.so'" \
	-c "SELECT parallel_export_parquet('pep_jvm_t', '$WORK/notjvm', 1)")
grep -q 'ERROR:  42883: library ".*parallel_export_parquet.so" is not a java virtual machine' <<<"$out"
ok $? "a library that is no JVM fails the export with an error" "$out"

# --- Wide rows with the default heap, and one too big for a small heap.
sql "DROP TABLE IF EXISTS pep_jvm_wide;
	CREATE TABLE pep_jvm_wide (mb int, id int, b bytea);
	ALTER TABLE pep_jvm_wide ALTER b SET STORAGE EXTERNAL;
	CREATE TEMP TABLE blk AS SELECT string_agg(decode(md5(random()::text || g), 'hex'), ''::bytea) AS b
		FROM generate_series(1, 65536) AS g;
	INSERT INTO pep_jvm_wide
		SELECT mb, id, int4send(id) || (SELECT string_agg(b, ''::bytea) FROM blk, generate_series(1, mb))
		FROM (VALUES (1, 90), (2, 60), (10, 12), (50, 3)) AS v(mb, n), generate_series(1, n) AS id" >/dev/null
ok $? "premise: rows of 1, 2, 10 and 50 MB made"
for c in "1 90 16777216" "2 60 16777216" "10 12 33554432" "50 3 67108864"; do
	read -r mb n rgb <<<"$c"
	out=$(vsql -c "SELECT parallel_export_parquet('SELECT id, b FROM pep_jvm_wide WHERE mb = $mb',
		'$WORK/wide$mb', 1, row_group_bytes => $rgb)")
	[[ "$out" == "$n" ]]
	ok $? "$n rows of $mb MB export with the default heap and row_group_bytes => $rgb" "$out"
done

out=$(vsql -c "LOAD 'parallel_export_parquet'" \
	-c "SET parallel_export_parquet.jvm_options = '-Xmx32m -XX:+UseSerialGC -XX:-UsePerfData'" \
	-c "SELECT parallel_export_parquet('SELECT id, b FROM pep_jvm_wide WHERE mb = 10', '$WORK/oom', 1)")
grep -q 'ERROR:  53200: could not write parquet part' <<<"$out" &&
	grep -q 'DETAIL:  Java exception: java.lang.OutOfMemoryError: Java heap space' <<<"$out" &&
	grep -qF 'HINT:  The worker'"'"'s Java heap is exhausted. Raise its maximum with -Xmx in "parallel_export_parquet.jvm_options"' <<<"$out"
ok $? "a row too big for the heap fails with 53200, the OutOfMemoryError and a hint" "$out"
[[ ! -e "$WORK/oom" ]]
ok $? "and leaves nothing behind"

# A last row group too big for the heap fails while the part is closed;
# parquet-java then closes the file from a finally block, and a failure there
# used to replace the OutOfMemoryError with "Unable to close resource".
out=$(vsql -c "LOAD 'parallel_export_parquet'" \
	-c "SET parallel_export_parquet.jvm_options = '-Xmx128m -XX:+UseSerialGC -XX:-UsePerfData'" \
	-c "SELECT parallel_export_parquet('SELECT id, b FROM pep_jvm_wide WHERE mb = 1 AND id <= 50',
		'$WORK/oom-close', 1, row_group_bytes => 1073741824, page_size => 268435456)")
grep -q 'ERROR:  53200: could not finish parquet part' <<<"$out" &&
	grep -q 'DETAIL:  Java exception: java.lang.OutOfMemoryError: Java heap space' <<<"$out"
ok $? "out of heap while closing a part: 53200 and the OutOfMemoryError itself" "$out"
[[ ! -e "$WORK/oom-close" ]]
ok $? "and leaves nothing behind"

# --- The class cache (tools/train-cache.sh): an AOT cache on JDK 25 and
# later, a dynamic AppCDS archive before, and never both.
libjvm=$(sql "LOAD 'parallel_export_parquet'; SHOW parallel_export_parquet.libjvm_path")
java_major=$("$(dirname "$(dirname "$(dirname "$libjvm")")")/bin/java" -version 2>&1 |
	sed -n '1s/^[^"]*"\([0-9]*\).*/\1/p')
share="$("$PG_CONFIG" --sharedir)/extension"
if [[ "${java_major:-0}" -ge 25 ]]; then
	cache=aot other=jsa region='Mapped static  region'
else
	cache=jsa other=aot region='Mapped dynamic region'
fi
[[ -s "$share/parallel_export_parquet.$cache" && ! -e "$share/parallel_export_parquet.$other" ]]
ok $? "JDK ${java_major:-?}: the installed class cache is parallel_export_parquet.$cache, and no .$other" \
	"$(ls -l "$share"/parallel_export_parquet.* 2>&1)"

# The cache covers nested kinds as well as flat ones: a 1-row
# export of arrays, a composite, an array of composites, an enum and an
# interval (the shapes of bench/sql/create_nested_one.sql) loads no class
# from the jar that a flat export does not load from it too (slf4j 1.7's
# classes are older than CDS can archive). The premise: the cache was in
# use for both.
sql "DROP TABLE IF EXISTS pep_jvm_nested; DROP TYPE IF EXISTS pep_jvm_pair, pep_jvm_mood;
	CREATE TYPE pep_jvm_pair AS (k int, v text[]);
	CREATE TYPE pep_jvm_mood AS ENUM ('sad', 'happy');
	CREATE TABLE pep_jvm_nested (id bigint, a int[], m text[][], p pep_jvm_pair, ps pep_jvm_pair[],
		mood pep_jvm_mood, iv interval);
	INSERT INTO pep_jvm_nested VALUES (1, ARRAY[1, NULL, 3], ARRAY[['a', 'b'], ['c', NULL]],
		ROW(7, ARRAY['x', 'y']), ARRAY[ROW(1, ARRAY['p'])::pep_jvm_pair, NULL], 'happy',
		interval '1 year 2 days 03:04:05.678')" >/dev/null
defaults=$(sql "LOAD 'parallel_export_parquet'; SHOW parallel_export_parquet.jvm_options")
# from_jar TABLE [OPTIONS]: a 1-row export of TABLE, with OPTIONS after the
# defaults; the classes it loaded from the jar go to $WORK/jar-TABLE.txt, the
# count it took from the cache to $archived; how the cache was mapped is
# in the same log.
from_jar() {
	local from
	rm -rf "$WORK/classes-$1.log" "$WORK/classes-$1"
	from=$(stat -c %s "$PEP_LOG")
	out=$(vsql -c "LOAD 'parallel_export_parquet'" \
		-c "SET parallel_export_parquet.jvm_options = '$defaults ${2:-} -Xlog:class+load=info,cds=info:stdout'" \
		-c "SELECT parallel_export_parquet('SELECT * FROM $1 LIMIT 1', '$WORK/classes-$1', 1)")
	jvm_lines "$WORK/classes-$1.log" "$from"
	archived=$(grep -c 'source: shared objects file' "$WORK/classes-$1.log" 2>/dev/null)
	[[ "$out" == 1 ]] || archived=0
	grep 'source: .*parallel_export_parquet\.jar' "$WORK/classes-$1.log" 2>/dev/null |
		sed 's/.*\] //; s/ source:.*//' | sort >"$WORK/jar-$1.txt"
}
from_jar pep_jvm_t
[[ "${archived:-0}" -gt 1000 ]]
ok $? "premise: a flat 1-row export ran with the class cache in use ($archived classes from it)" "$out"
from_jar pep_jvm_nested
[[ "${archived:-0}" -gt 1000 ]]
ok $? "premise: so did the nested one ($archived classes)" "$out"
extra=$(comm -13 "$WORK/jar-pep_jvm_t.txt" "$WORK/jar-pep_jvm_nested.txt")
[[ -z "$extra" ]]
ok $? "the nested export loaded no class from the jar that the flat one did not" "$extra"
# Every class a 1-row export needs is in the cache, but for those CDS cannot
# keep (bytecode older than JDK 6: slf4j 1.7's); each other one costs the
# worker a read from the jar and a verification at start.
unarchived=$(grep -v '^org\.slf4j\.' "$WORK/jar-pep_jvm_t.txt")
[[ -z "$unarchived" ]]
ok $? "the flat 1-row export loaded from the jar only classes CDS cannot archive" "$unarchived"
# The worker maps the installed cache where it was made to be mapped
# (pep_java.c): relocating it costs every worker 40 ms of CPU at start. A
# DBA's -XX:ArchiveRelocationMode=1 still puts relocation back.
grep 'Opened' "$WORK/classes-pep_jvm_t.log" | grep -qF "$share/parallel_export_parquet.$cache" &&
	grep -q "$region" "$WORK/classes-pep_jvm_t.log" &&
	! grep -q 'at an alternative address' "$WORK/classes-pep_jvm_t.log"
ok $? "the worker mapped parallel_export_parquet.$cache ($region) at its own address, not relocated" \
	"$(grep -E 'Opened|Mapped|alternative|Relocation' "$WORK/classes-pep_jvm_t.log")"
from_jar pep_jvm_t -XX:ArchiveRelocationMode=1
grep -q 'at an alternative address' "$WORK/classes-pep_jvm_t.log" && [[ "${archived:-0}" -gt 1000 ]]
ok $? "control: with -XX:ArchiveRelocationMode=1 in jvm_options it is relocated, and used" \
	"$out $(grep -E 'Mapped|alternative|Relocation' "$WORK/classes-pep_jvm_t.log")"
# -Xshare:off in jvm_options turns the cache off (docs/install.md), and a
# cache the options make unusable (compressed oops off: another object
# layout) is skipped with a warning: either way the export runs, its
# writer's classes from the jar, none from the cache.
for off in -Xshare:off -XX:-UseCompressedOops; do
	from_jar pep_jvm_t "$off"
	n=$(grep -c '^org\.parallelexport\.' "$WORK/jar-pep_jvm_t.txt")
	[[ "$out" == 1 && "$n" -gt 10 ]] &&
		! grep -q 'org\.parallelexport\..* source: shared objects file' "$WORK/classes-pep_jvm_t.log"
	ok $? "control: with $off in jvm_options the export runs without the cache ($n writer classes from the jar)" \
		"$out $(grep -E 'warning|error' "$WORK/classes-pep_jvm_t.log" | head -n 5)"
done

# --- The heap holds what the export keeps, not what its row groups left.
# A row group's dictionary writers outlive the 13 MB eden and are promoted;
# SerialGC collects the old generation only when it is full (JDK 17 and 21;
# JDK 23 and later expand it up to -Xmx instead), so without help a worker
# would touch its whole initial heap, or more, with dead dictionaries. The
# part writer asks for a full collection between row groups once the old
# generation holds 8 MB more than its last full collection left there, or the
# heap grew without one (HeapBound.java; docs/settings.md, "Memory"). These 8 columns
# keep their dictionaries (each value 4 times in a row, 30720 values per row
# group), about 10 MB per row group. The workers' GC log (jvm_options after
# the defaults) gives $promoted, the MB the heap gained from one collection
# to the next (what survived), $peak, the most MB in use at a collection,
# $settled, the most in use at a collection after the first full one (all
# of $peak when there was none), $full, the full collections, and $asked,
# those the part writer asked for (System.gc()).
promotion_source="SELECT g$(for k in 1 2 3 4 5 6 7 8; do printf ', (g / 4 + %d) %% 1000003 AS c%d' "$k" "$k"; done)
	FROM generate_series(1, 1000000) AS g"
gc_heap() {
	local from
	rm -rf "$WORK/gc.log" "$WORK/gc"
	from=$(stat -c %s "$PEP_LOG")
	out=$(vsql -c "LOAD 'parallel_export_parquet'" \
		-c "SET parallel_export_parquet.jvm_options = '$defaults ${1:-} -Xlog:gc:stdout'" \
		-c "SELECT parallel_export_parquet('$promotion_source', '$WORK/gc', 1)")
	jvm_lines "$WORK/gc.log" "$from"
	read -r promoted peak settled full < <(grep -o 'Pause [A-Za-z]* (.*) [0-9]*M->[0-9]*M' "$WORK/gc.log" 2>/dev/null |
		sed 's/ (.*) / /; s/M->/ /; s/M$//' |
		awk '{ if (NR > 1 && $4 > last) gained += $4 - last; if ($3 > peak) peak = $3
			if (full && $3 > settled) settled = $3
			if ($2 == "Full") full++; last = $4 }
			END { print gained + 0, peak + 0, (full ? settled : peak) + 0, full + 0 }')
	asked=$(grep -c 'Pause Full (System.gc())' "$WORK/gc.log" 2>/dev/null)
}
gc_heap
[[ "$out" == 1000000 && "${promoted:-0}" -ge 60 ]]
ok $? "premise: the export's row groups promoted ${promoted:-?} MB to the old generation" "$out"
[[ "${peak:-999}" -le 80 && "${full:-0}" -ge 1 && "${asked:-0}" -ge 1 ]]
ok $? "JDK ${java_major:-?}, the default options: the heap held at most ${peak:-?} MB, ${settled:-?} MB after the first of $full full collections, ${asked:-?} of them asked for by the part writer" \
	"$(cat "$WORK/gc.log" 2>/dev/null)"
held=$settled
gc_heap -XX:+DisableExplicitGC
[[ "$out" == 1000000 && "${settled:-0}" -ge $((held + 8)) && "${asked:-1}" -eq 0 ]]
ok $? "control: without the part writer's collections (-XX:+DisableExplicitGC) the heap held ${settled:-?} MB, not $held, once it could have collected ($full full collections)" \
	"$out $(cat "$WORK/gc.log" 2>/dev/null)"
gc_heap -Xms384m
[[ "$out" == 1000000 && "${peak:-999}" -le 80 && "${asked:-0}" -ge 1 ]]
ok $? "with -Xms384m (HotSpot's own choice on 24 GB) the part writer's collections held the heap to ${peak:-?} MB" \
	"$out $(cat "$WORK/gc.log" 2>/dev/null)"
gc_heap "-Xms384m -XX:+DisableExplicitGC"
[[ "$out" == 1000000 && "${peak:-0}" -gt 80 && "${full:-1}" -eq 0 ]]
ok $? "control: with -Xms384m and without them the heap kept all of it, ${peak:-?} MB" \
	"$out $(cat "$WORK/gc.log" 2>/dev/null)"

# --- The JIT (pep_java.c): a worker expected to encode few values (rows x
# columns, the planner's estimate) compiles with C1 only, one expected to
# encode many keeps the tiered JIT with C2, and a tier option in jvm_options
# is the user's choice, never overridden. The worker's JVM logs the compiler
# threads it starts: "C1 CompilerThread0", "C2 CompilerThread0".
# compilers SOURCE [OPTIONS]: a 1-worker export of SOURCE with OPTIONS after
# the defaults; sets $c to the compilers whose threads its JVM started ("C1",
# "C1 C2", ...), empty if the export failed, and $out to what psql printed.
compilers() {
	local from
	rm -rf "$WORK/jit.log" "$WORK/jit"
	from=$(stat -c %s "$PEP_LOG")
	out=$(vsql -c "LOAD 'parallel_export_parquet'" \
		-c "SET parallel_export_parquet.jvm_options = '$defaults ${2:-} -Xlog:jit+thread=debug:stdout'" \
		-c "SELECT parallel_export_parquet('$1', '$WORK/jit', 1)")
	jvm_lines "$WORK/jit.log" "$from"
	c=""
	[[ "$out" =~ ^[0-9]+$ ]] &&
		c=$(grep -o 'compiler thread C[12] ' "$WORK/jit.log" | awk '{ print $3 }' | sort -u | paste -sd' ')
}
# A table whose statistics say it holds 10^9 rows (what ANALYZE of a big
# table would have left), and a function the planner is told returns 10^9
# rows; both yield pep_jvm_t's 1000 rows.
sql "DROP TABLE IF EXISTS pep_jvm_big; DROP FUNCTION IF EXISTS pep_jvm_many();
	CREATE TABLE pep_jvm_big AS SELECT * FROM pep_jvm_t;
	ANALYZE pep_jvm_big;
	UPDATE pg_class SET reltuples = 1e9 WHERE oid = 'pep_jvm_big'::regclass;
	CREATE FUNCTION pep_jvm_many() RETURNS SETOF pep_jvm_t LANGUAGE plpgsql ROWS 1000000000
		AS 'BEGIN RETURN QUERY SELECT * FROM pep_jvm_t; END'" >/dev/null
estimate() {
	sql "EXPLAIN (FORMAT JSON) $1" | sed -n 's/.*"Plan Rows": \([0-9]*\).*/\1/p' | head -n 1
}
big_table=$(estimate "SELECT * FROM pep_jvm_big")
big_query=$(estimate "SELECT * FROM pep_jvm_many()")
small=$(estimate "SELECT * FROM pep_jvm_t")
[[ "${big_table:-0}" -ge 1000000000 && "${big_query:-0}" -ge 1000000000 && "${small:-1000000}" -le 100000 ]]
ok $? "premise: the planner estimates 10^9 rows for pep_jvm_big and pep_jvm_many(), at most 10^5 for pep_jvm_t" \
	"pep_jvm_big $big_table, pep_jvm_many() $big_query, pep_jvm_t $small"
compilers pep_jvm_t
[[ "$c" == C1 ]]
ok $? "a small table's worker compiles with C1 only" "compilers: '$c' $out"
compilers "SELECT * FROM pep_jvm_t WHERE id <= 10"
[[ "$c" == C1 ]]
ok $? "a small query's worker compiles with C1 only" "compilers: '$c' $out"
compilers pep_jvm_big
[[ "$c" == "C1 C2" ]]
ok $? "control: a worker of a table estimated at 10^9 rows keeps the tiered JIT (C1 and C2)" "compilers: '$c' $out"
compilers "SELECT * FROM pep_jvm_many()"
[[ "$c" == "C1 C2" ]]
ok $? "control: so does one of a query estimated at 10^9 rows" "compilers: '$c' $out"
# The user's tier options win. After an added -XX:TieredStopAtLevel=1,
# -XX:+TieredCompilation and -XX:CompilationMode=high-only would still give
# C1 only, so none is added; -XX:TieredStopAtLevel=4 would also win by
# coming after it.
for user in -XX:+TieredCompilation -XX:CompilationMode=high-only -XX:TieredStopAtLevel=4; do
	want="C1 C2"
	[[ "$user" == -XX:CompilationMode=high-only ]] && want=C2
	compilers pep_jvm_t "$user"
	[[ "$c" == "$want" ]]
	ok $? "with $user in jvm_options a small table's worker runs the user's JIT ($want)" "compilers: '$c' $out"
done

# --- C2 compiles no loop of the part writer on stack (OSR): the default
# Tier4BackEdgeThreshold is out of reach, because those loops run a slice of
# 128 rows per call and HotSpot compiles the whole method after an OSR
# compile anyway (pep_guc.c). 1.5M rows of one int column call the Int32
# writer's loop 11719 times: the former thresholds compile it on stack at
# about 3100 calls (the control), the new ones whole at 3000; HotSpot scales
# both up while C2 has a queue, which these rows leave room for. The tiers
# are named so that the planner's small estimate does not make the worker
# C1 only. About 4 s at load 8.
# osr_compiles [OPTIONS]: a 1-worker export of pep_jvm_long with OPTIONS
# after the defaults; sets $osr and $whole to the C2 compiles of the Int32
# writer's row loop on stack and whole, and $out to what psql printed.
osr_compiles() {
	local from
	rm -rf "$WORK/c2.log" "$WORK/c2"
	from=$(stat -c %s "$PEP_LOG")
	out=$(vsql -c "LOAD 'parallel_export_parquet'" \
		-c "SET parallel_export_parquet.jvm_options = '$defaults -XX:TieredStopAtLevel=4 ${1:-} -Xlog:jit+compilation=debug:stdout'" \
		-c "SELECT parallel_export_parquet('pep_jvm_long', '$WORK/c2', 1)")
	jvm_lines "$WORK/c2.log" "$from"
	# A line per compile (and one more when its code is dropped): id, '%'
	# for on stack, the tier, the method.
	read -r osr whole < <(awk '/ 4 +org\.parallelexport\.parquet\.Int32ValueWriter::writeRows / &&
		!/made not entrant/ { if (/%/) o++; else w++ } END { print o + 0, w + 0 }' "$WORK/c2.log" 2>/dev/null)
}
sql "DROP TABLE IF EXISTS pep_jvm_long;
	CREATE TABLE pep_jvm_long AS SELECT g AS i FROM generate_series(1, 1500000) AS g" >/dev/null
osr_compiles "-XX:Tier4MinInvocationThreshold=6000 -XX:Tier4BackEdgeThreshold=400000"
[[ "$out" == 1500000 && "$osr" -ge 1 ]]
ok $? "control: with the former Tier4 thresholds (6000 calls, 400000 back edges) C2 compiles the Int32 writer's row loop on stack" \
	"OSR compiles: ${osr:-?}, $out"
osr_compiles
[[ "$out" == 1500000 && "$osr" == 0 && "$whole" == 1 ]]
ok $? "with the default options C2 compiles the Int32 writer's row loop once, whole, and never on stack" \
	"OSR compiles: ${osr:-?}, whole: ${whole:-?}, $out"

# --- No crash restart through all of it.
[[ "$(witness)" == "$witness_before" && "$(checkpointer)" == "$checkpointer_before" ]]
ok $? "the witness session and the checkpointer survived (no crash restart)"
crash=$(tail -c +"$((log_start + 1))" "$PEP_LOG" |
	grep -E 'terminated by signal|terminating any other active server processes|reinitializing')
[[ -z "$crash" ]]
ok $? "the server log shows no worker killed by a signal" "$crash"
out=$(sql "SELECT parallel_export_parquet('pep_jvm_t', '$WORK/after', 1)")
[[ "$out" == 1000 ]]
ok $? "control: afterwards the default options export again" "$out"

sql "DROP FUNCTION pep_jvm_many(); DROP TABLE pep_jvm_t, pep_jvm_wide, pep_jvm_nested, pep_jvm_big, pep_jvm_long;
	DROP TYPE pep_jvm_pair, pep_jvm_mood" >/dev/null
tap_done
