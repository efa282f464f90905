#!/usr/bin/env bash
# tools/tap.sh: the one set of TAP helpers of every shell check: the
# harnesses in regress/ (through regress/lib/tap.sh), tools/pgroot/checks.sh,
# tools/image/ and tools/order_guard.sh. Source it, then call ok and is;
# ntest counts the checks (for the plan) and nfail the failures (for the exit
# status). The counter is not called n: harnesses use n for their own counts.

ntest=0
nfail=0
ok() { # ok STATUS DESCRIPTION [DIAGNOSTIC]
	ntest=$((ntest + 1))
	if [[ "$1" == 0 ]]; then
		echo "ok $ntest - $2"
	else
		nfail=$((nfail + 1))
		echo "not ok $ntest - $2"
		[[ -n "${3:-}" ]] && sed 's/^/# /' <<<"$3"
	fi
}
is() { # is GOT WANT DESCRIPTION
	[[ "$1" == "$2" ]]
	ok $? "$3" "got: $1"$'\n'"want: $2"
}
