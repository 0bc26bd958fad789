#!/bin/bash
# Pack the guest: busybox-static, our /init, the allocinfo tool and test
# programs.
#   initramfs.sh OUT.cpio.gz TREE [TESTDIR [KERNEL_OUT]]
# The tool is built, static, from TREE/tools/vm/allocinfo.c into /bin.
# TESTDIR (from selftests.sh) becomes /tests; its run-list says what to run.
# Modules found in KERNEL_OUT go to /lib/modules (flat, by file name),
# signed if the kernel checks signatures.
# DEBARCH in the environment (arch.sh): a guest of that Debian architecture,
# with its busybox from BUSYBOX_DIR/DEBARCH (deps.sh; default
# build/tools/busybox).
# INITRAMFS_ROOT in the environment: a directory copied over the guest's
# root last (make deb-boot: files of the packages under test).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=arch.sh
. "$here/arch.sh"
busybox=${BUSYBOX_DIR:-build/tools/busybox}/$DEBARCH/busybox
out=$1 tree=$2 tests=${3:-} kout=${4:-}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
# The guest's /: mktemp's 0700 would keep users other than root out.
chmod 0755 "$stage"

mkdir -p "$stage"/{bin,dev,proc,sys,tmp,tests,lib/modules}
cp "$busybox" "$stage/bin/busybox"
file -L "$stage/bin/busybox" | grep -q 'statically linked' ||
	{ echo "initramfs: $busybox is not static (harness/deps.sh check unpacks it)" >&2; exit 1; }
install -m 0755 "$here/guest/init" "$stage/init"
"${KCROSS}gcc" -O2 -Wall -static -o "$stage/bin/allocinfo" "$tree/tools/vm/allocinfo.c"
if [ -n "$tests" ] && [ -d "$tests" ]; then
	cp -a "$tests"/. "$stage/tests/"
fi
if [ -n "$kout" ]; then
	find "$kout" -name '*.ko' -exec cp {} "$stage/lib/modules/" \;
	# Signed as modules_install signs them: lockdown loads no other. A
	# packaged kernel (make bench DEBIAN=1) has no key here: unsigned.
	hash=
	[ -f "$kout/certs/signing_key.pem" ] &&
		hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"$/\1/p' "$kout/.config")
	if [ -n "$hash" ]; then
		for ko in "$stage"/lib/modules/*.ko; do
			"$kout/scripts/sign-file" "$hash" "$kout/certs/signing_key.pem" \
				"$kout/certs/signing_key.x509" "$ko"
		done
	fi
fi
if [ -n "${INITRAMFS_ROOT:-}" ]; then
	cp -a "$INITRAMFS_ROOT"/. "$stage/"
fi
mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
