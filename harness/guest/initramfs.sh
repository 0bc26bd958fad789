#!/bin/bash
# Pack the guest: busybox-static, our /init, the allocinfo tool and test
# programs.
#   initramfs.sh OUT.cpio.gz TREE [TESTDIR [KERNEL_OUT]]
# The tool is built, static, from TREE/tools/vm/allocinfo.c into /bin.
# TESTDIR (from selftests.sh) becomes /tests; its run-list says what to run.
# Modules found in KERNEL_OUT go to /lib/modules/RELEASE/kernel at their
# paths in KERNEL_OUT, signed if the kernel checks signatures, with a
# modules.dep.
# DEBARCH in the environment (arch.sh): a guest of that Debian architecture,
# with its busybox from BUSYBOX_DIR/DEBARCH (deps.sh; default
# build/tools/busybox).
# INITRAMFS_ROOT in the environment: a directory copied over the guest's
# root last (make deb-boot: files of the packages under test).
set -euo pipefail
harness=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../build/arch.sh
. "$harness/build/arch.sh"
busybox=${BUSYBOX_DIR:-build/tools/busybox}/$DEBARCH/busybox
out=$1 tree=$2 tests=${3:-} kout=${4:-}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
# The guest's /: mktemp's 0700 would keep users other than root out.
chmod 0755 "$stage"

mkdir -p "$stage"/{bin,dev,proc,sys,tmp,tests}
cp "$busybox" "$stage/bin/busybox"
file -L "$stage/bin/busybox" | grep -q 'statically linked' ||
	{ echo "initramfs: $busybox is not static (harness/build/deps.sh check unpacks it)" >&2; exit 1; }
install -m 0755 "$harness/guest/init" "$stage/init"
"${KCROSS}gcc" -O2 -Wall -static -o "$stage/bin/allocinfo" "$tree/tools/vm/allocinfo.c"
if [ -n "$tests" ] && [ -d "$tests" ]; then
	cp -a "$tests"/. "$stage/tests/"
fi
if [ -n "$kout" ]; then
	# Laid out as modules_install lays them out, with the modules.dep that
	# modprobe and the kselftests find them by.
	first=$(find "$kout" -name '*.ko' -print -quit)
	if [ -n "$first" ]; then
		release=$(modinfo -F vermagic "$first" | cut -d' ' -f1)
		mods=$stage/lib/modules/$release/kernel
		(cd "$kout" && find . -name '*.ko' -printf '%P\n') | while read -r ko; do
			install -D -m 0644 "$kout/$ko" "$mods/$ko"
		done
		# Signed as modules_install signs them: lockdown loads no other. A
		# packaged kernel (make bench DEBIAN=1) has no key here: unsigned.
		hash=
		[ -f "$kout/certs/signing_key.pem" ] &&
			hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"$/\1/p' "$kout/.config")
		if [ -n "$hash" ]; then
			find "$mods" -name '*.ko' -exec "$kout/scripts/sign-file" "$hash" \
				"$kout/certs/signing_key.pem" "$kout/certs/signing_key.x509" {} \;
		fi
		# The kernel's lists of its built-in modules, as modprobe wants
		# them; the order of the others is their order here.
		for list in modules.builtin modules.builtin.modinfo; do
			if [ -f "$kout/$list" ]; then
				cp "$kout/$list" "$mods/.."
			else
				: >"$mods/../$list"
			fi
		done
		: >"$mods/../modules.order"
		depmod -b "$stage" "$release"
	fi
fi
if [ -n "${INITRAMFS_ROOT:-}" ]; then
	cp -a "$INITRAMFS_ROOT"/. "$stage/"
fi
mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
