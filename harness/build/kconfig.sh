#!/bin/bash
# Configure an O= build directory: a base target (tinyconfig, defconfig, ...)
# or a configuration file compressed with xz (a distribution's), plus Kconfig
# fragments merged with the kernel's merge_config.sh, then
# olddefconfig. Every option our fragments ask for must survive olddefconfig.
#
#   kconfig.sh TREE OUT BASE_TARGET [kernel:FRAG ...] [FRAG ...]
# kernel:FRAG names a fragment shipped in the kernel tree (kernel/configs/);
# it is merged but not verified (kvm_guest.config asks for S390 options).
# DEBARCH in the environment (arch.sh): configure for that architecture,
# asking the compiler that will build it. KCONFIG_KNOWN_ONLY=1 verifies
# only the options the tree's Kconfig files define (a prefix of the
# series, before the patch that adds them).
set -euo pipefail
# shellcheck source=arch.sh
. "$(dirname "$0")/arch.sh"
tree=$1 out=$2 base=$3
shift 3
mkdir -p "$out"
out=$(cd "$out" && pwd)

frags=() ours=()
for f in "$@"; do
	case $f in
	kernel:*) frags+=("$tree/kernel/configs/${f#kernel:}") ;;
	*) frags+=("$f"); ours+=("$f") ;;
	esac
done

kmake() {
	make -s -C "$tree" O="$out" ARCH="$KARCH" \
		CROSS_COMPILE="$KCROSS" "$@"
}

base_config() {
	case $base in
	*.xz) xzcat "$base" >"$out/.config" ;;
	*) kmake "$base" ;;
	esac
}

log=$out/kconfig.log
if ! { base_config &&
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}" &&
	kmake olddefconfig; } >"$log" 2>&1; then
	cat "$log" >&2
	echo "kconfig: configuring $out failed" >&2
	exit 1
fi

# Verify: the last value a fragment gives wins, as in merge_config.sh.
declare -A want from
for f in "${ours[@]}"; do
	while IFS= read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
			want[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
		elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
			want[${BASH_REMATCH[1]}]=n
		else
			continue
		fi
		from[${BASH_REMATCH[1]}]=$f
	done <"$f"
done

declare -A known
if [ -n "${KCONFIG_KNOWN_ONLY:-}" ]; then
	while read -r _ sym; do
		known[CONFIG_$sym]=1
	done < <(git -C "$tree" grep -h -E '^\s*(menu)?config [A-Za-z0-9_]+\s*$' -- '*Kconfig*')
fi
bad=0
for opt in "${!want[@]}"; do
	if [ -n "${KCONFIG_KNOWN_ONLY:-}" ] && [ -z "${known[$opt]:-}" ]; then
		unset "want[$opt]"
		continue
	fi
	w=${want[$opt]}
	got=$(grep -E "^$opt=" "$out/.config" | cut -d= -f2- || true)
	[ -n "$got" ] || got=n
	if [ "$w" != "$got" ]; then
		echo "kconfig: $opt=$w asked by ${from[$opt]} but olddefconfig gave $opt=$got" >&2
		bad=1
	fi
done
[ $bad = 0 ] || { echo "kconfig: $out/.config does not match its fragments" >&2; exit 1; }
echo "kconfig: $out/.config: $base + ${*} (${#want[@]} options verified)"
