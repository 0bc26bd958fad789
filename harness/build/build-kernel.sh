#!/bin/bash
# Configure (when the config inputs changed) and build one kernel out of tree.
#   build-kernel.sh TREE OUT BASE_TARGET:FRAGMENT,FRAGMENT,...
# Output: OUT/$KIMAGE (arch.sh; OUT/arch/x86/boot/bzImage on amd64), the
# device tree if the architecture's QEMU machine needs one, and modules when
# CONFIG_MODULES=y. DEBARCH in the environment (a Debian architecture,
# default amd64) cross-builds with Debian's gcc-<triplet>.
set -euo pipefail
harness=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=arch.sh
. "$harness/build/arch.sh"
tree=$1 out=$2 spec=$3
IFS=, read -r -a frags <<<"${spec#*:}"
set -- "${spec%%:*}" "${frags[@]}"
mkdir -p "$out"

# Reconfigure only when the base target, a fragment or the Kconfig files
# changed; otherwise keep .config (and every object) as it is.
inputs=$( {
	echo "$* $DEBARCH"
	for f in "$@"; do
		case $f in
		kernel:*) cat "$tree/kernel/configs/${f#kernel:}" ;;
		*.config) cat "$f" ;;
		esac
	done
	git -C "$tree" ls-files -s -- '*Kconfig*'
	git -C "$tree" diff -- '*Kconfig*'
} | sha1sum | cut -d' ' -f1)
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.config-inputs" 2>/dev/null)" != "$inputs" ]; then
	"$harness/build/kconfig.sh" "$tree" "$out" "$@"
	echo "$inputs" >"$out/.config-inputs"
fi

targets="${KIMAGE##*/} $KDTB"
grep -q '^CONFIG_MODULES=y' "$out/.config" && targets="$targets modules"
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
export KBUILD_BUILD_USER=alloc-tag KBUILD_BUILD_HOST=harness
# ccache's depend mode hashes the headers that kbuild's -MMD lists instead
# of running the preprocessor first: a miss costs a quarter less.
export CCACHE_DEPEND=1
echo "build: $out ($targets), log in $out/build.log"
start=$(date +%s)
if ! make -C "$tree" O="$(cd "$out" && pwd)" ARCH="$KARCH" \
	CROSS_COMPILE="$KCROSS" CC="$harness/build/kcc ${KCROSS}gcc" \
	-j"$(nproc)" $targets >"$out/build.log" 2>&1; then
	grep -E 'error|Error' "$out/build.log" | head -n 40 >&2
	echo "build: FAILED: $out (see $out/build.log)" >&2
	exit 1
fi
grep -E 'warning:' "$out/build.log" | head -n 20 >&2 || true
# times (in this shell, not a subshell): its children's user and system
# CPU on the second line, the build's.
times >"$out/build.times"
cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) {
	split($i, t, /[ms]/); s += t[1] * 60 + t[2] }; printf "%.0f", s }' "$out/build.times")
echo "build: $out done in $(( $(date +%s) - start ))s (${cpu}s of CPU)"
