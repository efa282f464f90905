#!/usr/bin/env bash
# regress/lib/s3proxy.sh: starts and stops the S3-compatible server the
# object-store tests use, on 127.0.0.1 with authentication on.
#
#   regress/lib/s3proxy.sh start DIR PORT [BUCKET...]
#   regress/lib/s3proxy.sh stop DIR
#
# start resolves S3Proxy (regress/s3proxy/pom.xml, Maven Central) and runs
# org.gaul.s3proxy.Main with the filesystem backend rooted at DIR/data, so a
# bucket is the folder DIR/data/BUCKET and an object a plain file in it (DuckDB
# reads them straight from disk). Requests must be signed (aws-v2-or-v4) with
# the identity and a credential made fresh for this server, which start writes
# to DIR/s3proxy.env as shell assignments (PEP_S3_ENDPOINT, PEP_S3_IDENTITY,
# PEP_S3_CREDENTIAL, PEP_S3_DATA); each BUCKET is created empty. start returns
# once the server accepts connections (it polls the port; a server that dies
# first fails start with its log), stop once the process is gone.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"

die() {
	echo "s3proxy: $*" >&2
	exit 1
}

start() {
	local dir="$1" port="$2"
	shift 2
	[[ "$port" =~ ^[0-9]+$ ]] || die "port must be a number: $port"
	mkdir -p "$dir/data"
	dir="$(cd "$dir" && pwd)"
	[[ ! -s "$dir/s3proxy.pid" ]] || die "a server of $dir is running (pid $(cat "$dir/s3proxy.pid"))"
	for bucket in "$@"; do
		mkdir -p "$dir/data/$bucket"
	done

	# Resolved once per checkout and version of the pom; Maven's own cache
	# makes later runs offline.
	local cp="$ROOT/regress/s3proxy/target/classpath"
	if [[ ! -s "$cp" || "$cp" -ot "$ROOT/regress/s3proxy/pom.xml" ]]; then
		mvn -B -ntp -q -f "$ROOT/regress/s3proxy/pom.xml" dependency:build-classpath \
			-Dmdep.outputFile="$cp" >&2
	fi

	local credential
	credential="pep-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
	umask 077
	cat >"$dir/s3proxy.properties" <<PROPS
s3proxy.endpoint=http://127.0.0.1:$port
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=pep-test
s3proxy.credential=$credential
jclouds.provider=filesystem
jclouds.filesystem.basedir=$dir/data
PROPS
	cat >"$dir/s3proxy.env" <<ENV
PEP_S3_ENDPOINT=http://127.0.0.1:$port
PEP_S3_IDENTITY=pep-test
PEP_S3_CREDENTIAL=$credential
PEP_S3_DATA=$dir/data
ENV
	# Without a configuration logback logs every request at DEBUG.
	cat >"$dir/logback.xml" <<'XML'
<configuration>
  <appender name="out" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%d %level %logger{20} %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="out"/></root>
</configuration>
XML
	"$JAVA" -Xmx256m -XX:+UseSerialGC -Dlogback.configurationFile="$dir/logback.xml" \
		-cp "$(cat "$cp")" org.gaul.s3proxy.Main \
		--properties "$dir/s3proxy.properties" >"$dir/s3proxy.log" 2>&1 </dev/null &
	local pid=$!
	echo "$pid" >"$dir/s3proxy.pid"

	local deadline=$((SECONDS + 120))
	until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
		if ! kill -0 "$pid" 2>/dev/null; then
			rm -f "$dir/s3proxy.pid"
			cat "$dir/s3proxy.log" >&2
			die "server exited before it listened on port $port"
		fi
		if ((SECONDS > deadline)); then
			stop "$dir"
			die "server did not listen on port $port within 120 s"
		fi
		sleep 0.1
	done
}

stop() {
	local dir="$1" pid
	[[ -s "$dir/s3proxy.pid" ]] || return 0
	pid="$(cat "$dir/s3proxy.pid")"
	kill "$pid" 2>/dev/null || true
	while kill -0 "$pid" 2>/dev/null; do
		sleep 0.1
	done
	rm -f "$dir/s3proxy.pid"
}

case "${1:-}" in
start)
	(($# >= 3)) || die "usage: $0 start DIR PORT [BUCKET...]"
	shift
	start "$@"
	;;
stop)
	(($# == 2)) || die "usage: $0 stop DIR"
	stop "$2"
	;;
*)
	die "usage: $0 start DIR PORT [BUCKET...] | stop DIR"
	;;
esac
