#!/bin/bash
# make check: the harness's own tests, then build and boot each test kernel,
# then one summary line "N passed, N failed" over everything.
#   check.sh [--boots-only NAME | --base BASE_TREE] TREE BOOT...
# TESTS (collection:prog,...) are the kselftests that boot runs.
# --boots-only (make arches): only the boots, results in build/NAME.
# --base (make check BASE=6.12): another base's check, its series step on
# BASE_TREE (of BASE_DIR's series) and the boots, results beside
# BASE_TREE in check/; TREE gives the guests' allocinfo and kselftests.
set -uo pipefail
harness=$(cd "$(dirname "$0")/.." && pwd)
out=build/check boots_only= base_tree=
case $1 in
--boots-only)
	out=build/$2 boots_only=1
	shift 2
	;;
--base)
	[[ $2 == */linux ]] || { echo "check.sh: --base $2: not a base's tree (DIR/linux)" >&2; exit 2; }
	base_tree=$2 out=${2%/linux}/check boots_only=1
	shift 2
	;;
esac
tree=$1
shift
rm -rf "$out"
mkdir -p "$out"
verdicts=()

# Each boot: NAME|KERNEL|TESTS|APPEND. KERNEL_<KERNEL> in the environment is
# that kernel's BASE_TARGET:FRAG,...; a kernel is built once per run.
# DEBARCH_<KERNEL>, if set: a kernel of that Debian architecture (arch.sh),
# cross-built and booted on its QEMU machine. TREE_<KERNEL>, if set: a
# kernel of another base's tree (build/BASE/linux), built in
# build/BASE/kernel-<KERNEL>; its guest gets the allocinfo and kselftests
# of TREE, the first argument.
# TESTS "-": build the kernel only; the build is the one test.
#
# The kernels are built in the background, one after the other in the
# boots' order, while the steps below and the guests of kernels already
# built run: the two cores stay busy through a guest's single-threaded
# stretches and a build's links. Each build's output goes to
# $out/kernels/KERNEL.log, shown when its boot comes; $out/kernels/KERNEL
# says ok or failed. The kselftests are user programs that use no
# kernel's own headers: built once per architecture, with its first kernel,
# in build/selftests-DEBARCH.
mkdir -p "$out/kernels"
# The tree and build directory of KERNEL.
tree_of() {
	local t=TREE_$1
	echo "${!t:-$tree}"
}
kdir_of() {
	local t=TREE_$1
	if [ -n "${!t:-}" ]; then
		echo "${!t%/linux}/kernel-$1"
	else
		echo "build/kernel-$1"
	fi
}
declare -A selftests
for boot in "$@"; do
	IFS='|' read -r name kernel tests append <<<"$boot"
	[ "$tests" = - ] || selftests[$kernel]=1
done
build_all() {
	local -A started tests_built
	local boot name kernel tests append spec debarch state
	for boot in "$@"; do
		IFS='|' read -r name kernel tests append <<<"$boot"
		[ -z "${started[$kernel]:-}" ] || continue
		started[$kernel]=1
		spec=KERNEL_$kernel debarch=DEBARCH_$kernel
		state=ok
		(
			export DEBARCH=${!debarch:-amd64}
			# shellcheck source=../build/arch.sh
			. "$harness/build/arch.sh"
			"$harness/build/build-kernel.sh" "$(tree_of "$kernel")" "$(kdir_of "$kernel")" \
				"${!spec}" &&
				if [ -n "${selftests[$kernel]:-}" ] &&
					[ -z "${tests_built[$DEBARCH]:-}" ]; then
					"$harness/guest/selftests.sh" "$tree" "$(kdir_of "$kernel")" \
						"build/selftests-$DEBARCH"
				fi
		) >"$out/kernels/$kernel.log" 2>&1 || state=failed
		[ -z "${selftests[$kernel]:-}" ] || [ $state != ok ] ||
			tests_built[${!debarch:-amd64}]=1
		echo "$state" >"$out/kernels/$kernel"
	done
}
build_all "$@" &
builder=$!
trap 'kill 0' INT TERM

# The state of KERNEL's build once it is done; its output shown once.
declare -A shown
built() {
	while [ ! -f "$out/kernels/$1" ]; do
		kill -0 "$builder" 2>/dev/null || [ -f "$out/kernels/$1" ] ||
			echo failed >"$out/kernels/$1"
		sleep 1
	done
	if [ -z "${shown[$1]:-}" ]; then
		cat "$out/kernels/$1.log"
		shown[$1]=1
	fi
	[ "$(cat "$out/kernels/$1")" = ok ]
}

# A step that fails before booting still counts as a failure in the summary.
fail_step() {
	/usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import json, sys
json.dump({'name': sys.argv[1], 'tests': [],
           'problems': [[sys.argv[2], []]]}, open(sys.argv[3], 'w'))
PY
}

# The series of BASE_DIR, made from TREE with make series's git
# format-patch, applied with git am to the base: it must give TREE.
series_step() {
	local series=${1%/linux}/series
	echo "check: the series (make series) applied with git am to the base"
	verdicts+=("$out/series.json")
	if /usr/bin/python3 "$harness/build/series.py" format "${BASE_DIR:-bases/6.1}" "$1" "$series"; then
		/usr/bin/python3 "$harness/build/series.py" verify "$1" "$series" "$out/series.json"
	else
		fail_step series "make series failed" "$out/series.json"
	fi
}

[ -z "$base_tree" ] || series_step "$base_tree"
if [ -z "$boots_only" ]; then
	verdicts+=("$out/harness.json")
	echo "check: harness self-tests"
	/usr/bin/python3 "$harness/tests/test_harness.py" --verdict "$out/harness.json"
	echo "check: allocinfo tool tests"
	verdicts+=("$out/allocinfo-tool.json")
	/usr/bin/python3 "$harness/tests/test_allocinfo_tool.py" --tree "$tree" --verdict "$out/allocinfo-tool.json"
	echo "check: packages and repository"
	verdicts+=("$out/packaging.json")
	/usr/bin/python3 "$harness/tests/test_packaging.py" --tree "$tree" --verdict "$out/packaging.json"
	echo "check: documentation"
	verdicts+=("$out/docs.json")
	/usr/bin/python3 "$harness/verdict/docs.py" "$tree" build/docs "$out/docs.json"
	series_step "$tree"
	echo "check: treewide scan of the converted allocator names"
	verdicts+=("$out/treewide.json")
	/usr/bin/python3 "$harness/build/treewide.py" scan "$tree" "$harness/build/treewide.reviewed" \
		--json "$out/treewide-found.json" --verdict "$out/treewide.json" |
		grep -v '\[reviewed\]'
fi

# A build-only kernel that built: one passed test.
build_passed() {
	/usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
json.dump({'name': sys.argv[1], 'tests': [['build', 'pass', '']],
           'problems': []}, open(sys.argv[2], 'w'))
PY
}

for boot in "$@"; do
	IFS='|' read -r name kernel tests append <<<"$boot"
	kdir=$(kdir_of "$kernel")
	verdict=$out/$name/verdict.json
	verdicts+=("$verdict")
	mkdir -p "$out/$name"
	echo "check: boot $name (kernel $kernel${append:+, $append})"
	debarch=DEBARCH_$kernel
	export DEBARCH=${!debarch:-amd64}
	# shellcheck source=../build/arch.sh
	. "$harness/build/arch.sh"
	if [ "$tests" = - ]; then
		if built "$kernel"; then
			build_passed "$name" "$verdict"
		else
			fail_step "$name" "building kernel $kernel failed (see $kdir/build.log)" "$verdict"
		fi
		continue
	fi
	if ! built "$kernel"; then
		fail_step "$name" "building kernel $kernel or its tests failed (see $kdir/build.log)" "$verdict"
		continue
	fi
	# One guest per kernel: the boots differ only by their command line.
	initrd=$out/kernels/$kernel.cpio.gz
	if [ ! -f "$initrd" ] && ! { "$harness/guest/initramfs.sh" "$initrd.new" "$tree" \
		"build/selftests-$DEBARCH" "$kdir" && mv "$initrd.new" "$initrd"; }; then
		fail_step "$name" "building the guest failed" "$verdict"
		continue
	fi
	/usr/bin/python3 "$harness/verdict/ktest.py" boot --name "$name" --arch "$DEBARCH" \
		--kernel "$kdir/$KIMAGE" ${KDTB:+--dtb "$kdir/arch/$KARCH/boot/dts/$KDTB"} \
		--initrd "$initrd" --outdir "$out/$name" \
		--timeout "${CHECK_TIMEOUT:-900}" ${KVM:+--kvm} \
		--kunit-tool "$(tree_of "$kernel")" \
		--append "harness.tests=$tests $append"
done
wait "$builder"

echo "check: summary"
exec /usr/bin/python3 "$harness/verdict/ktest.py" summary "${verdicts[@]}"
