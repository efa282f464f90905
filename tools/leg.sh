#!/usr/bin/env bash
# tools/leg.sh: what the CI legs that work in a Debian root share
# (tools/pgroot/run.sh, tools/image/run.sh). Sourced after L (the leg's name,
# the prefix of its lines) and R (its root) are set.
#
#   leg_private_ns ARGS...  re-runs the script in a private mount namespace
#                           of its own, once: mounts made there are invisible
#                           to the host and dropped when its last process ends
#   phase TITLE / phase_end NAME / times
#                           timed phases, and the line of all their times
#   in_root CMD...          CMD in the root with a clean environment

leg_private_ns() {
	if [[ "${PEP_ROOT_IN_NS:-}" != "$$" ]]; then
		exec env PEP_ROOT_IN_NS=$$ unshare --mount --propagation private -- "$BASH" "$0" "$@"
	fi
}

declare -A took=()
order=()
t0=$SECONDS
phase_start=$SECONDS
phase() {
	printf '\n##### %s: %s\n' "$L" "$1"
	phase_start=$SECONDS
}
phase_end() {
	took[$1]=$((SECONDS - phase_start))
	order+=("$1")
	echo "$L: $1 took ${took[$1]} s"
}
times() {
	local p line=""
	for p in "${order[@]}"; do
		line+="$p ${took[$p]} s, "
	done
	echo "$L: times: ${line}total $((SECONDS - t0)) s"
}

in_root() {
	chroot "$R" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive "$@"
}
