#!/usr/bin/env bash
# regress/t_s3_secrets.sh: an object-store export's secret key stays in the
# catalog and the export's shared memory.
#
# S3Proxy runs on 127.0.0.1 with a credential made fresh for this run
# (regress/lib/s3proxy.sh), so the secret is a string found nowhere else. A
# foreign server of parallel_export_parquet_s3 names S3Proxy and a user
# mapping holds the key; the session that creates them logs nothing. Then
# exports run with log_statement = all, log_min_messages = debug5 and
# verbose errors (their workers inherit the settings), and the secret (and
# a session token) must be in none of:
#
#	- pg_stat_activity, every column of every row (the caller and workers
#	  included), and parallel_export_parquet_progress, while an export is
#	  held mid-flight by the hang fault (premise: a worker sits at the fault
#	  and the view shows the export writing) and after it was cancelled;
#	- /proc/PID/cmdline and /proc/PID/environ of the caller and each worker
#	  while it runs; the kernel shows a process's environment as it started,
#	  so the C and Java sources are also checked to set no environment
#	  variable or system property;
#	- the messages the client gets: the cancelled export's, and those of an
#	  export whose user mapping has a wrong secret and a session token
#	  (S3Proxy refuses its signature), which must not show either;
#	- parallel_export_parquet_last() after a complete export (the control:
#	  the same server and mapping do export) and after the failures;
#	- the server log from the first export on.
#
# The monitoring queries never contain the secret: rows are written out and
# searched here. Needs a running cluster from tools/cluster.sh with the
# extension installed. Prints TAP.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/tap.sh
source "$here/lib/tap.sh"
WORK="${PEP_HARNESS_OUT:-$PEP_OUT}/s3_secrets"
# shellcheck source=lib/export.sh
source "$here/lib/export.sh"

S3DIR="$WORK/s3proxy"
S3PORT=$((PEP_PORT + 1000))
ROWS=200000

fresh_work pep_leak_t "$ROWS"
if ! "$here/lib/s3proxy.sh" start "$S3DIR" "$S3PORT" lake >"$WORK/s3proxy-start.log" 2>&1; then
	echo "Bail out! S3Proxy did not start: $(tail -n 5 "$WORK/s3proxy-start.log")"
	exit 1
fi
trap '"$here/lib/s3proxy.sh" stop "$S3DIR" >/dev/null 2>&1' EXIT
# shellcheck source=/dev/null
source "$S3DIR/s3proxy.env"
SECRET="$PEP_S3_CREDENTIAL"
WRONG="pep-wrong-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
TOKEN="pep-token-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"

# Where the secret shows in FILE, as diagnostics; empty if nowhere.
leaks_in() {
	grep -n -F -e "$SECRET" -e "$WRONG" -e "$TOKEN" "$1" | cut -c1-300
}

# ok if FILE holds none of the secrets.
no_secret() {
	local file="$1" what="$2" found
	found=$(leaks_in "$file")
	[[ -z "$found" ]]
	ok $? "$what" "$found"
}

psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<SQL
SET log_statement = 'none';
SET log_min_messages = 'warning';
DROP SERVER IF EXISTS pep_leak_s3 CASCADE;
DROP SERVER IF EXISTS pep_leak_wrong CASCADE;
CREATE SERVER pep_leak_s3 FOREIGN DATA WRAPPER parallel_export_parquet_s3
    OPTIONS (endpoint '$PEP_S3_ENDPOINT', region 'us-east-1', path_style 'true');
CREATE SERVER pep_leak_wrong FOREIGN DATA WRAPPER parallel_export_parquet_s3
    OPTIONS (endpoint '$PEP_S3_ENDPOINT', region 'us-east-1', path_style 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER pep_leak_s3
    OPTIONS (access_key_id '$PEP_S3_IDENTITY', secret_access_key '$SECRET');
CREATE USER MAPPING FOR CURRENT_USER SERVER pep_leak_wrong
    OPTIONS (access_key_id '$PEP_S3_IDENTITY', secret_access_key '$WRONG', session_token '$TOKEN');
SQL
ok $? "premise: servers and user mappings created"

log_from=$(($(wc -l <"$PEP_LOG") + 1))
LOUD="SET log_statement = 'all'; SET log_min_messages = 'debug5'; SET log_error_verbosity = 'verbose';
	SET log_min_error_statement = 'debug5';"

# The control: a complete export with the key, and the summary it leaves.
start_export pep_leak_ok "$LOUD" \
	"SELECT parallel_export_parquet('pep_leak_t', 's3://lake/ok', 2, s3_server => 'pep_leak_s3')" \
	"SELECT l::text FROM parallel_export_parquet_last() AS l"
finish_export pep_leak_ok
echo "$OUT" >"$WORK/ok.out"
[[ "$OUT" == "$ROWS"* && -f "$PEP_S3_DATA/lake/ok/_SUCCESS" ]]
ok $? "control: the export with the user mapping's key succeeds" "$OUT"
no_secret "$WORK/ok.out" "its result and parallel_export_parquet_last() show no key"

# Held mid-flight by the hang fault.
start_export pep_leak_run "$LOUD SET parallel_export_parquet.fault_injection = 'hang:any:1';" \
	"SELECT parallel_export_parquet('pep_leak_t', 's3://lake/run', 2, s3_server => 'pep_leak_s3')" \
	"SELECT l::text FROM parallel_export_parquet_last() AS l"
wait_until "[[ \$(sql \"SELECT count(*) FROM pg_stat_activity w JOIN pg_stat_activity l ON w.leader_pid = l.pid
	WHERE l.application_name = 'pep_leak_run' AND w.query = '$HANG_MARK'\") -ge 1 ]]"
ok $? "premise: a worker of the export sits at the hang fault"
caller=$(caller_pid pep_leak_run)
phase=$(sql "SELECT phase FROM parallel_export_parquet_progress WHERE pid = $caller")
[[ "$phase" == writing ]]
ok $? "premise: the progress view shows it writing" "phase: '$phase'"

sql "SELECT a::text FROM pg_stat_activity AS a" >"$WORK/activity.txt"
grep -q "s3_server => 'pep_leak_s3'" "$WORK/activity.txt"
ok $? "premise: pg_stat_activity shows the export's call, server name included"
no_secret "$WORK/activity.txt" "pg_stat_activity shows no key while the export runs"
sql "SELECT p::text FROM parallel_export_parquet_progress AS p" >"$WORK/progress.txt"
[[ -s "$WORK/progress.txt" ]]
ok $? "premise: the progress view has the export's row"
no_secret "$WORK/progress.txt" "the progress view shows no key"

pids=$(sql "SELECT string_agg(pid::text, ' ') FROM pg_stat_activity WHERE pid = $caller OR leader_pid = $caller")
: >"$WORK/proc.txt"
nproc=0
for pid in $pids; do
	if tr '\0' '\n' <"/proc/$pid/cmdline" >>"$WORK/proc.txt" 2>/dev/null &&
		tr '\0' '\n' <"/proc/$pid/environ" >>"$WORK/proc.txt" 2>/dev/null; then
		nproc=$((nproc + 1))
	fi
done
[[ $nproc -ge 2 ]]
ok $? "premise: the command line and environment of the caller and its workers were read" "read $nproc of: $pids"
no_secret "$WORK/proc.txt" "no process's command line or environment holds the key"
# One exception, pinned by its text: S3Warmup, which runs only in the
# install-time AppCDS training (Warmup.main), never in a worker, points the
# SDK's standard chain at its loopback stand-in with one setProperty call
# over four properties that hold no key (the endpoint http://127.0.0.1:PORT,
# the region, and two files the training writes with its own key "warmup").
# Any other call, in S3Warmup too, and any change to those names or values,
# fails the check.
warmup="$here/../parquet-writer/src/main/java/org/parallelexport/parquet/s3/S3Warmup.java"
grep -rn -E '\b(setenv|putenv)\(|System\.(setProperty|setProperties)\(|System\.get(env|Properties)\(\)\.(put|setProperty)' \
	"$here/../extension" "$here/../pljava-glue" "$here/../parquet-writer/src/main" |
	awk -F: -v warmup="$warmup" -v allowed='        System.setProperty(CHAIN_PROPERTIES[i], values[i]);' '
		$1 == warmup && substr($0, length($1) + length($2) + 3) == allowed && !seen++ { next }
		{ print }' >"$WORK/setenv.txt"
pinned=$(grep -c -x -F \
	-e '    "aws.endpointUrl", "aws.region", "aws.configFile", "aws.sharedCredentialsFile"' \
	-e '    String endpoint = "http://127.0.0.1:" + socket.getLocalPort();' \
	-e '      String[] values = {endpoint, "us-east-1", config.toString(), credentials.toString()};' \
	"$warmup")
[[ "$pinned" == 3 ]] ||
	echo "S3Warmup's chain properties or their values are not the pinned ones ($pinned of 3 lines found)" >>"$WORK/setenv.txt"
[[ ! -s "$WORK/setenv.txt" ]]
ok $? "no C or Java source sets an environment variable or system property, but S3Warmup's pinned loopback properties" \
	"$(cat "$WORK/setenv.txt")"

sql "SELECT pg_cancel_backend($caller)" >/dev/null
finish_export pep_leak_run
echo "$OUT" >"$WORK/run.out"
grep -q 'canceling statement due to user request' "$WORK/run.out"
ok $? "premise: the held export was cancelled" "$OUT"
no_secret "$WORK/run.out" "the cancelled export's messages show no key"
sql "SELECT a::text FROM pg_stat_activity AS a" >"$WORK/activity-after.txt"
no_secret "$WORK/activity-after.txt" "pg_stat_activity shows no key after it failed"

# A wrong secret: S3Proxy refuses the signature.
start_export pep_leak_wrong "$LOUD" \
	"SELECT parallel_export_parquet('pep_leak_t', 's3://lake/wrong', 2, s3_server => 'pep_leak_wrong')" \
	"SELECT l::text FROM parallel_export_parquet_last() AS l"
finish_export pep_leak_wrong
echo "$OUT" >"$WORK/wrong.out"
grep -q '^ERROR:' "$WORK/wrong.out" && [[ ! -e "$PEP_S3_DATA/lake/wrong/_SUCCESS" ]]
ok $? "premise: the export with a wrong secret fails" "$OUT"
no_secret "$WORK/wrong.out" "its messages show neither its secret nor its token"

tail -n "+$log_from" "$PEP_LOG" >"$WORK/server.log"
grep -q "pep_leak_s3" "$WORK/server.log" && grep -q "DEBUG" "$WORK/server.log"
ok $? "premise: the server log has the exports' statements and debug messages"
no_secret "$WORK/server.log" "the server log shows no key"

sql "DROP SERVER pep_leak_s3 CASCADE; DROP SERVER pep_leak_wrong CASCADE" >/dev/null
tap_done
