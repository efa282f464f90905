-- regress/sql/jvm_options.sql: the allow-list of
-- parallel_export_parquet.jvm_options (extension/src/jvm/pep_jvmopts.c), run by
-- pg_prove (tools/test.sh). Every option not on the list is refused at SET
-- with 22023, a detail naming it and, for one simply not on the list, a hint
-- pointing at the table of docs/settings.md: options that crash or stop a
-- worker (issue 42: -XX:AbortVMOnException, -XX:+PauseAtStartup), unlock
-- other options, load code (agents, snappy-java's library path and name, module
-- and class path tricks), read options from a file the check cannot see, or
-- write files (-Xlog to a file, heap dumps, error files, class archives,
-- hsperfdata), in every spelling tried (whitespace the split does not take,
-- quotes, case). What the list allows is accepted as written. What the
-- refused options would have done, and what the allowed ones do, is
-- regress/t_jvm.sh's.
\set topic jvm_options
BEGIN;
SET LOCAL client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
\ir ../lib/helpers.psql

SELECT plan(110);

DROP EXTENSION IF EXISTS parallel_export_parquet CASCADE;
CREATE EXTENSION parallel_export_parquet;
LOAD 'parallel_export_parquet';

-- What SET makes of a value: 'accepted', or the SQLSTATE, the detail and the
-- hint of its refusal. The setting is local to the transaction.
CREATE FUNCTION pg_temp.refusal(value text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    state text;
    detail text;
    hint text;
BEGIN
    PERFORM set_config('parallel_export_parquet.jvm_options', value, true);
    RETURN 'accepted';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, detail = PG_EXCEPTION_DETAIL,
                            hint = PG_EXCEPTION_HINT;
    RETURN state || ' ' || coalesce(detail, '') || ' | ' || coalesce(hint, '');
END
$$;

-- A value with its control characters spelled out, for a test's name.
CREATE FUNCTION pg_temp.visible(value text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT replace(replace(replace(replace(value, E'\n', '\n'), E'\t', '\t'), E'\r', '\r'), E'\x0b', '\v')
$$;

-- Refused: (value, the option the detail must name). Each row one test.
CREATE TEMP TABLE refused (value text, names text);
INSERT INTO refused VALUES
    -- issue 42, as reported
    ('-XX:+UnlockDiagnosticVMOptions -XX:AbortVMOnException=org.parallelexport.s3.S3Failure',
     '-XX:+UnlockDiagnosticVMOptions'),
    ('-XX:AbortVMOnException=org.parallelexport.s3.S3Failure', '-XX:AbortVMOnException=org.parallelexport.s3.S3Failure'),
    ('-XX:+PauseAtStartup', '-XX:+PauseAtStartup'),
    ('-XX:+UnlockDiagnosticVMOptions -XX:+PauseAtStartup', '-XX:+UnlockDiagnosticVMOptions'),
    ('-XX:PauseAtStartupFile=/tmp/pause', '-XX:PauseAtStartupFile=/tmp/pause'),
    ('-Dorg.xerial.snappy.lib.path=/tmp -Dorg.xerial.snappy.lib.name=evil.so', '-Dorg.xerial.snappy.lib.path=/tmp'),
    ('-Dorg.xerial.snappy.lib.name=evil.so', '-Dorg.xerial.snappy.lib.name=evil.so'),
    ('-Dbrotli4j.library.path=/tmp/evil.so', '-Dbrotli4j.library.path=/tmp/evil.so'),
    ('-Xlog:gc:file=/tmp/gc.log', '-Xlog:gc:file=/tmp/gc.log'),
    ('-Xlog:class+load=info:file=pep.log:uptime', '-Xlog:class+load=info:file=pep.log:uptime'),
    -- other ways to unlock, or to read options from elsewhere
    ('-XX:+UnlockDiagnosticVMOptions', '-XX:+UnlockDiagnosticVMOptions'),
    ('-XX:+UnlockExperimentalVMOptions', '-XX:+UnlockExperimentalVMOptions'),
    ('-XX:+UseEpsilonGC', '-XX:+UseEpsilonGC'),
    ('-XX:+IgnoreUnrecognizedVMOptions', '-XX:+IgnoreUnrecognizedVMOptions'),
    ('-XX:Flags=/tmp/flags', '-XX:Flags=/tmp/flags'),
    ('-XX:Flags=.hotspotrc', '-XX:Flags=.hotspotrc'),
    ('-XX:VMOptionsFile=/tmp/options', '-XX:VMOptionsFile=/tmp/options'),
    ('@/tmp/argfile', '@/tmp/argfile'),
    ('-XX:+PrintFlagsFinal', '-XX:+PrintFlagsFinal'),
    -- code from elsewhere
    ('-javaagent:/tmp/a.jar', '-javaagent:/tmp/a.jar'),
    ('-agentpath:/tmp/a.so', '-agentpath:/tmp/a.so'),
    ('-agentlib:jdwp=transport=dt_socket', '-agentlib:jdwp=transport=dt_socket'),
    ('-Xrunjdwp:transport=dt_socket', '-Xrunjdwp:transport=dt_socket'),
    ('-Xdebug', '-Xdebug'),
    ('-Xbootclasspath/a:/tmp/evil.jar', '-Xbootclasspath/a:/tmp/evil.jar'),
    ('--patch-module=java.base=/tmp/evil', '--patch-module=java.base=/tmp/evil'),
    ('--module-path=/tmp/mods', '--module-path=/tmp/mods'),
    ('--upgrade-module-path=/tmp/mods', '--upgrade-module-path=/tmp/mods'),
    ('--add-opens=java.base/java.lang=ALL-UNNAMED', '--add-opens=java.base/java.lang=ALL-UNNAMED'),
    ('-Djava.class.path=/tmp', '-Djava.class.path=/tmp'),
    ('-Djava.library.path=/tmp', '-Djava.library.path=/tmp'),
    ('-Djna.library.path=/tmp', '-Djna.library.path=/tmp'),
    ('-Djna.boot.library.path=/tmp', '-Djna.boot.library.path=/tmp'),
    ('-Dsun.boot.library.path=/tmp', '-Dsun.boot.library.path=/tmp'),
    ('-Djava.system.class.loader=Evil', '-Djava.system.class.loader=Evil'),
    ('-Djava.security.manager=allow', '-Djava.security.manager=allow'),
    ('-Djdk.module.addmods=evil', '-Djdk.module.addmods=evil'),
    ('-Daws.requestChecksumCalculation=/tmp/x', '-Daws.requestChecksumCalculation=/tmp/x'),
    ('-Djava.net.preferIPv4Stack=', '-Djava.net.preferIPv4Stack='),
    -- files written
    ('-Xlog:gc:gc.log', '-Xlog:gc:gc.log'),
    ('-Xlog:gc:/tmp/gc.log', '-Xlog:gc:/tmp/gc.log'),
    ('-Xlog:gc:gclog', '-Xlog:gc:gclog'),
    ('-Xlog:gc:stdout:uptime:filecount=5', '-Xlog:gc:stdout:uptime:filecount=5'),
    ('-Xlog:gc:"gc.log"', '-Xlog:gc:"gc.log"'),
    ('-Xlog:help', '-Xlog:help'),
    ('-Xlog:async', '-Xlog:async'),
    ('-Xloggc:/tmp/gc.log', '-Xloggc:/tmp/gc.log'),
    ('-XX:ErrorFile=/tmp/hs_err.log', '-XX:ErrorFile=/tmp/hs_err.log'),
    ('-XX:+HeapDumpOnOutOfMemoryError', '-XX:+HeapDumpOnOutOfMemoryError'),
    ('-XX:HeapDumpPath=/tmp/dump', '-XX:HeapDumpPath=/tmp/dump'),
    ('-XX:+HeapDumpBeforeFullGC', '-XX:+HeapDumpBeforeFullGC'),
    ('-XX:StartFlightRecording=filename=/tmp/x.jfr', '-XX:StartFlightRecording=filename=/tmp/x.jfr'),
    ('-XX:ArchiveClassesAtExit=/tmp/x.jsa', '-XX:ArchiveClassesAtExit=/tmp/x.jsa'),
    ('-XX:SharedArchiveFile=/tmp/x.jsa', '-XX:SharedArchiveFile=/tmp/x.jsa'),
    ('-XX:DumpLoadedClassList=/tmp/classes', '-XX:DumpLoadedClassList=/tmp/classes'),
    ('-Xshare:dump', '-Xshare:dump'),
    ('-XX:+LogCompilation', '-XX:+LogCompilation'),
    ('-XX:LogFile=/tmp/hotspot.log', '-XX:LogFile=/tmp/hotspot.log'),
    ('-XX:+UsePerfData', '-XX:+UsePerfData'),
    ('-XX:+PerfDataSaveToFile', '-XX:+PerfDataSaveToFile'),
    ('-Djava.io.tmpdir=/tmp/elsewhere', '-Djava.io.tmpdir=/tmp/elsewhere'),
    -- ends a worker other than with an error (refused before the allow-list too)
    ('-XX:OnError=sh', '-XX:OnError=sh'),
    ('-XX:OnOutOfMemoryError=sh', '-XX:OnOutOfMemoryError=sh'),
    ('-XX:+ExitOnOutOfMemoryError', '-XX:+ExitOnOutOfMemoryError'),
    ('-XX:+CrashOnOutOfMemoryError', '-XX:+CrashOnOutOfMemoryError'),
    ('-XX:-ReduceSignalUsage', '-XX:-ReduceSignalUsage'),
    ('-XX:+ShowMessageBoxOnError', '-XX:+ShowMessageBoxOnError'),
    -- spellings: an allowed flag in a form HotSpot takes otherwise, a mode
    -- or number that is none, case, quotes, a sign alone, white space the
    -- split does not take (an option then runs into the next)
    ('-XX:DisableExplicitGC=true', '-XX:DisableExplicitGC=true'),
    ('-XX:+TieredStopAtLevel', '-XX:+TieredStopAtLevel'),
    ('-XX:CompilationMode=evil', '-XX:CompilationMode=evil'),
    ('-XX:TieredStopAtLevel=0x1', '-XX:TieredStopAtLevel=0x1'),
    ('-XX:+pauseatstartup', '-XX:+pauseatstartup'),
    ('-XX:+ PauseAtStartup', '-XX:+'),
    ('"-XX:+PauseAtStartup"', '"-XX:+PauseAtStartup"'),
    ('''-agentpath:/tmp/a.so''', '''-agentpath:/tmp/a.so'''),
    (E'-Xmx64m\r-agentpath:/tmp/a.so', E'-Xmx64m\r-agentpath:/tmp/a.so'),
    (E'-Xlog:gc\x0b-XX:+PauseAtStartup', E'-Xlog:gc\x0b-XX:+PauseAtStartup'),
    (E'-Xmx64m\t-XX:+PauseAtStartup', '-XX:+PauseAtStartup'),
    (E'-Xmx64m\n-Xlog:gc:file=/tmp/gc.log', '-Xlog:gc:file=/tmp/gc.log'),
    ('-Xmx64m -XX:+UseSerialGC -XX:+UnlockDiagnosticVMOptions', '-XX:+UnlockDiagnosticVMOptions');

SELECT ok(r LIKE '22023 %"' || replace(replace(names, '\', '\\'), '%', '\%') || '"%', format('refused: %s', pg_temp.visible(value)))
  FROM refused, LATERAL pg_temp.refusal(value) AS r;

-- A value that is simply not on the list gets a hint at the table of
-- docs/settings.md; one whose reason is known gets the reason.
SELECT is(pg_temp.refusal('-XX:+PauseAtStartup'),
          '22023 The option "-XX:+PauseAtStartup" is not one the extension allows. | The options allowed are listed in docs/settings.md, "What jvm_options allows".',
          'a flag not on the list: the detail names it, the hint points at docs/settings.md');
SELECT is(pg_temp.refusal('-Xlog:gc:file=/tmp/gc.log'),
          '22023 The option "-Xlog:gc:file=/tmp/gc.log" is not one the extension allows: -Xlog writes only to stdout or stderr, which reach the server log, never to a file. | The options allowed are listed in docs/settings.md, "What jvm_options allows".',
          'a log file: the detail says where -Xlog may write');
SELECT ok(pg_temp.refusal('-XX:+UnlockDiagnosticVMOptions') LIKE
            '22023 The option "-XX:+UnlockDiagnosticVMOptions" would unlock HotSpot''s diagnostic options%',
            'the unlock: the detail says why');

-- Accepted as written.
CREATE TEMP TABLE allowed (value text);
INSERT INTO allowed VALUES
    ((SELECT boot_val FROM pg_settings WHERE name = 'parallel_export_parquet.jvm_options')),
    (''),
    ('-Xmx1g -Xms64m -Xmn16m -Xss2m -XX:+UseSerialGC'),
    ('-XX:+UseParallelGC -XX:ParallelGCThreads=2 -XX:-UseAdaptiveSizePolicy'),
    ('-XX:+UseG1GC -XX:MaxGCPauseMillis=50 -XX:G1HeapRegionSize=4m -XX:InitiatingHeapOccupancyPercent=30'),
    ('-XX:MaxRAMPercentage=12.5 -XX:MaxMetaspaceSize=256m -XX:MaxDirectMemorySize=1g -XX:ReservedCodeCacheSize=64m'),
    ('-XX:+DisableExplicitGC -XX:+AlwaysPreTouch -XX:-UseCompressedOops'),
    ('-XX:TieredStopAtLevel=1 -XX:CICompilerCount=2'),
    ('-XX:-TieredCompilation -XX:CompilationMode=high-only -XX:-UseBimorphicInlining'),
    ('-Xint'),
    ('-Xcomp -Xbatch'),
    ('-Xlog'),
    ('-Xlog:gc'),
    ('-Xlog:disable'),
    ('-Xlog:gc*=info:stdout:uptime,level,tags'),
    ('-Xlog:class+load=info,cds=info:stderr'),
    ('-Xlog:jit+compilation=debug::uptime'),
    ('-XX:+PrintCompilation -Xcheck:jni -Xrs'),
    ('-Xshare:off'),
    ('-Xshare:auto'),
    ('-XX:ArchiveRelocationMode=1'),
    ('-XX:+PreserveFramePointer -XX:+DebugNonSafepoints'),
    ('-XX:-DisableAttachMechanism -XX:+StartAttachListener'),
    ('-XX:-UsePerfData'),
    ('-Djava.net.preferIPv4Stack=true -Djava.net.preferIPv6Addresses=false'),
    (E'-Xmx64m\t-Xss2m\n-XX:+UseSerialGC');

SELECT is(pg_temp.refusal(value), 'accepted', format('accepted: %s', pg_temp.visible(value)))
  FROM allowed;

-- SHOW gives the value back as it was set.
SET LOCAL parallel_export_parquet.jvm_options = '-Xmx256m -Xlog:gc:stdout';
SELECT is(current_setting('parallel_export_parquet.jvm_options'), '-Xmx256m -Xlog:gc:stdout',
          'an accepted value is kept as written');
RESET parallel_export_parquet.jvm_options;

SELECT * FROM finish();
ROLLBACK;
