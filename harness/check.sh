#!/bin/bash
# make check: the harness's own tests, then build and boot each test kernel,
# then one summary line "N passed, N failed" over everything.
#   check.sh [--boots-only NAME] TREE BOOT...
# TESTS (collection:prog,...) are the kselftests that boot runs.
# --boots-only (make arches): only the boots, results in build/NAME.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=build/check boots_only=
if [ "$1" = --boots-only ]; then
	out=build/$2 boots_only=1
	shift 2
fi
tree=$1
shift
rm -rf "$out"
mkdir -p "$out"
verdicts=()

if [ -z "$boots_only" ]; then
	verdicts+=("$out/harness.json")
	echo "check: harness self-tests"
	/usr/bin/python3 "$here/test_harness.py" --verdict "$out/harness.json"
	echo "check: allocinfo tool tests"
	verdicts+=("$out/allocinfo-tool.json")
	/usr/bin/python3 "$here/test_allocinfo_tool.py" --tree "$tree" --verdict "$out/allocinfo-tool.json"
	echo "check: documentation"
	verdicts+=("$out/docs.json")
	/usr/bin/python3 "$here/docs.py" . "$tree" build/docs "$out/docs.json"
	echo "check: treewide scan of the converted allocator names"
	verdicts+=("$out/treewide.json")
	/usr/bin/python3 "$here/treewide.py" scan "$tree" "$here/treewide.reviewed" \
		--json "$out/treewide-found.json" --verdict "$out/treewide.json" |
		grep -v '\[reviewed\]'
fi

# A step that fails before booting still counts as a failure in the summary.
fail_step() {
	/usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import json, sys
json.dump({'name': sys.argv[1], 'tests': [],
           'problems': [[sys.argv[2], []]]}, open(sys.argv[3], 'w'))
PY
}

# A build-only kernel that built: one passed test.
build_passed() {
	/usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
json.dump({'name': sys.argv[1], 'tests': [['build', 'pass', '']],
           'problems': []}, open(sys.argv[2], 'w'))
PY
}

# Each boot: NAME|KERNEL|TESTS|APPEND. KERNEL_<KERNEL> in the environment is
# that kernel's BASE_TARGET:FRAG,...; a kernel is built once per run.
# DEBARCH_<KERNEL>, if set: a kernel of that Debian architecture (arch.sh),
# cross-built and booted on its QEMU machine.
# TESTS "-": build the kernel only; the build is the one test.
declare -A built
for boot in "$@"; do
	IFS='|' read -r name kernel tests append <<<"$boot"
	kdir=build/kernel-$kernel
	verdict=$out/$name/verdict.json
	verdicts+=("$verdict")
	mkdir -p "$out/$name"
	echo "check: boot $name (kernel $kernel${append:+, $append})"
	spec=KERNEL_$kernel debarch=DEBARCH_$kernel
	export DEBARCH=${!debarch:-amd64}
	# shellcheck source=arch.sh
	. "$here/arch.sh"
	if [ "$tests" = - ]; then
		if "$here/build-kernel.sh" "$tree" "$kdir" "${!spec}"; then
			build_passed "$name" "$verdict"
		else
			fail_step "$name" "building kernel $kernel failed (see $kdir/build.log)" "$verdict"
		fi
		continue
	fi
	if [ -z "${built[$kernel]:-}" ]; then
		if ! "$here/build-kernel.sh" "$tree" "$kdir" "${!spec}" ||
			! "$here/selftests.sh" "$tree" "$kdir" "build/selftests-$kernel"; then
			built[$kernel]=failed
		else
			built[$kernel]=ok
		fi
	fi
	if [ "${built[$kernel]}" != ok ]; then
		fail_step "$name" "building kernel $kernel or its tests failed (see $kdir/build.log)" "$verdict"
		continue
	fi
	if ! "$here/initramfs.sh" "$out/$name/initramfs.cpio.gz" "$tree" \
		"build/selftests-$kernel" "$kdir"; then
		fail_step "$name" "building the guest failed" "$verdict"
		continue
	fi
	/usr/bin/python3 "$here/ktest.py" boot --name "$name" --arch "$DEBARCH" \
		--kernel "$kdir/$KIMAGE" ${KDTB:+--dtb "$kdir/arch/$KARCH/boot/dts/$KDTB"} \
		--initrd "$out/$name/initramfs.cpio.gz" --outdir "$out/$name" \
		--timeout "${CHECK_TIMEOUT:-900}" ${KVM:+--kvm} \
		--append "harness.tests=$tests $append"
done

echo "check: summary"
exec /usr/bin/python3 "$here/ktest.py" summary "${verdicts[@]}"
