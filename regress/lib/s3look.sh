# shellcheck shell=bash
# regress/lib/s3look.sh: one S3Look per harness run, asked over loopback TCP.
#
# Sourced by the object-store harnesses (t_s3_*.sh, t_encoding.sh). S3Look
# (regress/s3proxy/S3Look.java) answers what S3Proxy holds through the S3 API. A JVM with the AWS SDK takes
# about a second to start and a run asks about a hundred questions, so the
# harness starts S3Look once and asks it
# over bash's /dev/tcp, one connection per question: no descriptor stays
# open in the harness for a server it restarts to inherit.
#
#   s3look_start DIR CLASSPATH   starts S3Look ($JAVA if set) from CLASSPATH
#                                (the extension's jar and S3Look's class), its
#                                port file and stderr in DIR, and waits until
#                                it listens. The environment must hold
#                                PEP_S3_ENDPOINT and the keys.
#   look COMMAND ARGS...         one command (see S3Look.java); prints the
#                                answer, returns 1 when it is an error or none
#                                came, and then also records it
#   s3look_done                  ends S3Look; one check: every question was
#                                answered without an error (a listing that
#                                failed must not pass for an empty prefix, nor
#                                two failures for the same state)
#   s3look_stop                  ends S3Look (the harness's EXIT trap)

s3look_start() {
	local dir="$1" cp="$2" waited=0
	S3LOOK_ERR="$dir/look.err"
	S3LOOK_FAILURES="$dir/look.failures"
	rm -f "$dir/look.port" "$S3LOOK_FAILURES"
	"${JAVA:-java}" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$cp" S3Look "$dir/look.port" \
		</dev/null >"$S3LOOK_ERR" 2>&1 &
	S3LOOK_PID=$!
	while [[ ! -s "$dir/look.port" ]]; do
		if ! kill -0 "$S3LOOK_PID" 2>/dev/null || ((waited++ > 1200)); then
			echo "S3Look did not start: $(tail -n 5 "$S3LOOK_ERR")" >&2
			return 1
		fi
		sleep 0.05
	done
	S3LOOK_PORT="$(cat "$dir/look.port")"
}

look() {
	local fd line err=0 answered=0
	if ! exec {fd}<>"/dev/tcp/127.0.0.1/$S3LOOK_PORT"; then
		echo "error: S3Look is gone: $(tail -n 3 "$S3LOOK_ERR")" | tee -a "$S3LOOK_FAILURES"
		return 1
	fi
	(
		IFS=$'\t'
		printf '%s\n' "$*" >&"$fd"
	)
	while IFS= read -r -t 120 -u "$fd" line; do
		if [[ "$line" == . ]]; then
			answered=1
			break
		fi
		if [[ "$line" == "error "* ]]; then
			err=1
			printf '%s: %s\n' "$*" "$line" >>"$S3LOOK_FAILURES"
		fi
		printf '%s\n' "$line"
	done
	exec {fd}<&-
	if [[ "$answered" == 0 ]]; then
		echo "error: no answer from S3Look to '$*': $(tail -n 3 "$S3LOOK_ERR")" | tee -a "$S3LOOK_FAILURES"
		return 1
	fi
	return "$err"
}

s3look_done() {
	s3look_stop
	[[ ! -s "$S3LOOK_FAILURES" ]]
	ok $? "S3Look answered every question of the harness without an error" "$(cat "$S3LOOK_FAILURES" 2>/dev/null)"
}

s3look_stop() {
	[[ -n "${S3LOOK_PID:-}" ]] || return 0
	kill "$S3LOOK_PID" 2>/dev/null
	wait "$S3LOOK_PID" 2>/dev/null
	S3LOOK_PID=
}
