#!/bin/bash
# The mm selftests of the tree (tools/testing/selftests/vm: run_vmtests.sh
# and the programs it runs), built static for x86_64 so that one build
# runs on any system: Debian 12 booted with our kernel or Debian's.
#   vm-selftests.sh TREE OUT
# Leaves OUT/vm (run_vmtests.sh and the programs, as kselftest's install
# lays them out). libnuma's and libcap's static libraries come from
# Debian's libnuma-dev and libcap-dev, downloaded and unpacked into
# OUT/sysroot, not installed (installing libcap-dev would upgrade the
# host's libcap2). The uapi headers are the tree's (make headers_install).
set -euo pipefail
tree=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
src=$out/src
rm -rf "$src" "$out/vm" "$out/obj"
mkdir -p "$src" "$out/sysroot" "$out/debs"

if ! ls "$out"/debs/libnuma-dev_*.deb "$out"/debs/libcap-dev_*.deb >/dev/null 2>&1; then
	echo "vm-selftests: downloading libnuma-dev libcap-dev (not installed)"
	(cd "$out/debs" && apt-get -q -o APT::Sandbox::User=root download \
		libnuma-dev libcap-dev >/dev/null)
fi
for deb in "$out"/debs/*.deb; do
	dpkg-deb -x "$deb" "$out/sysroot"
done

# What the vm Makefile reads of the tree, outside tools/.
cp -a "$tree/tools" "$src/"
mkdir -p "$src/mm" "$src/lib" "$src/include/vdso"
cp "$tree/mm/gup_test.h" "$src/mm/"
cp "$tree/lib/test_hmm_uapi.h" "$src/lib/"
cp "$tree/include/vdso/time64.h" "$src/include/vdso/"
make -s -C "$tree" O="$out/obj/headers" ARCH=x86_64 headers_install \
	INSTALL_HDR_PATH="$src/usr" >/dev/null

# EXTRA_CFLAGS, not LDFLAGS: protection_keys' own link rule ignores LDFLAGS.
sys=$out/sysroot/usr
mkdir -p "$out/obj/vm"
make -s -C "$src/tools/testing/selftests/vm" OUTPUT="$out/obj/vm" \
	EXTRA_CFLAGS="-static -isystem $sys/include -L$sys/lib/x86_64-linux-gnu" \
	INSTALL_PATH="$out/vm" install >"$out/build.log" 2>&1 || {
	tail -n 30 "$out/build.log" >&2
	echo "vm-selftests: the build failed (see $out/build.log)" >&2
	exit 1
}
rm -rf "$src" "$out/obj"
echo "vm-selftests: $(find "$out/vm" -maxdepth 1 -type f -perm -u+x | wc -l) programs and scripts in $out/vm"
