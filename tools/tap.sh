#!/usr/bin/env bash
# tools/tap.sh: TAP helpers of the shell checks (tools/pgroot/checks.sh,
# tools/image/ and tools/order_guard.sh). Source it, print the plan, then call
# ok and is; nfail counts the failures for the exit status.

n=0
nfail=0
ok() { # ok STATUS DESCRIPTION [DIAGNOSTIC]
	n=$((n + 1))
	if [[ "$1" == 0 ]]; then
		echo "ok $n - $2"
	else
		nfail=$((nfail + 1))
		echo "not ok $n - $2"
		[[ -n "${3:-}" ]] && sed 's/^/# /' <<<"$3"
	fi
}
is() { # is GOT WANT DESCRIPTION
	[[ "$1" == "$2" ]]
	ok $? "$3" "got: $1"$'\n'"want: $2"
}
