#!/bin/bash
# Boot make deb's kernel package in the busybox guest of its architecture.
#   deb-boot.sh TREE DEBDIR OUT
# DEBARCH in the environment (arch.sh), as make deb built DEBDIR; BASE_DIR
# (default bases/6.1) the base it was built from. The
# kernel, the modules the checks load (with the package's modules.dep)
# and the allocinfo package's binary (with the architecture's C library,
# from Debian's cross libc6 package) are taken from the packages, not the
# build tree; harness/guest/deb-check runs on them. Prints its results
# and "N passed, N failed" last.
set -euo pipefail
harness=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../build/arch.sh
. "$harness/build/arch.sh"
tree=$1 debdir=$2 out=$3
py=/usr/bin/python3

if ! image=$(grep -E '^linux-image-[0-9][^_]*_' "$debdir/packages" | grep -v -- '-dbg_') ||
	! tool=$(grep -E '^allocinfo_' "$debdir/packages"); then
	echo "deb-boot: no linux-image or allocinfo package in $debdir (run make deb)" >&2
	exit 1
fi
pkg_arch=$(dpkg-deb -f "$debdir/$image" Architecture)
[ "$pkg_arch" = "$DEBARCH" ] || {
	echo "deb-boot: $image is for $pkg_arch, not $DEBARCH" >&2
	exit 1
}
release=$(dpkg-deb -f "$debdir/$image" Package)
release=${release#linux-image-}
version=$(dpkg-deb -f "$debdir/$tool" Version)

rm -rf "$out"
mkdir -p "$out/packages" "$out/root/usr/sbin" "$out/tests/deb"
out=$(cd "$out" && pwd)
dpkg-deb -x "$debdir/$image" "$out/packages"
dpkg-deb -x "$debdir/$tool" "$out/packages"
root=$out/root

# The modules the checks load (virtio's are built in on some
# architectures), and what they depend on; compressed as the package has
# them (6.12's are .ko.xz).
mods=$out/packages/lib/modules/$release
mkdir -p "$root/lib/modules/$release"
cp "$mods"/modules.* "$root/lib/modules/$release/"
grep -E '/(zram|virtio_mmio|virtio_console)\.ko(\.xz)?:' "$mods/modules.dep" | tr -d : | tr ' ' '\n' |
	while read -r ko; do
		mkdir -p "$root/lib/modules/$release/${ko%/*}"
		cp "$mods/$ko" "$root/lib/modules/$release/$ko"
	done
[ -n "$(find "$root/lib/modules/$release" -name 'zram.ko*')" ] ||
	{ echo "deb-boot: $image has no zram.ko" >&2; exit 1; }

# The packaged binary, its loader and C library (in /lib, a directory
# the loader searches by default).
cp "$out/packages/usr/sbin/allocinfo" "$root/usr/sbin/"
interp=$(file -L "$root/usr/sbin/allocinfo" | sed -n 's/.*interpreter \([^,]*\),.*/\1/p')
[ -n "$interp" ] || { echo "deb-boot: allocinfo has no ELF interpreter" >&2; exit 1; }
if [ "$DEBARCH" = amd64 ]; then
	libdir=/lib/x86_64-linux-gnu loader=$interp
else
	libdir=/usr/${KCROSS%-}/lib loader=/usr/${KCROSS%-}/lib/${interp##*/}
fi
mkdir -p "$root/${interp%/*}" "$root/lib"
cp -L "$loader" "$root/$interp"
cp -L "$libdir/libc.so.6" "$root/lib/"

install -m 0755 "$harness/guest/deb-check" "$out/tests/deb/check"
base=${BASE_DIR:-bases/6.1}
printf 'RELEASE=%s\nVERSION=%s\nBASE=%s\n' "$release" "$version" "${base##*/}" \
	>"$out/tests/deb/expect"
echo deb:check >"$out/tests/run-list"
# The guest's own allocinfo: the 6.1 tree's (TOOL_TREE), on every base.
INITRAMFS_ROOT=$root "$harness/guest/initramfs.sh" "$out/initramfs.cpio.gz" "${TOOL_TREE:-$tree}" \
	"$out/tests"

echo "deb-boot: booting $release ($image) on $DEBARCH"
"$py" "$harness/verdict/ktest.py" boot --name "deb-boot-$DEBARCH" --arch "$DEBARCH" \
	--kernel "$out/packages/boot/vmlinuz-$release" \
	--initrd "$out/initramfs.cpio.gz" --outdir "$out/boot" \
	--timeout "${DEB_BOOT_TIMEOUT:-600}" || true
"$py" "$harness/verdict/ktest.py" summary "$out/boot/verdict.json"
