#!/bin/bash
# make workloads: programs written elsewhere on Debian 12, on Debian's own
# kernel of the base and on make deb's (profiling on, booted off,
# ",compressed" asked), their instructions counted.
#   workloads.sh DEBDIR ROOT_TARBALL OUT [BOOTS]
# ROOT_TARBALL (root.sh, with the workloads' packages) unpacked in
# OUT/root; make deb's linux-image and allocinfo packages and Debian's
# linux-image and headers of the base (downloaded from the archive)
# installed with dpkg -i; harness/guest/allocprof-workloads as the
# guests' init. workloads.py boots each kernel BOOTS times (default 3)
# and writes OUT/results.md.
set -euo pipefail
harness=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../../bases/6.1/pin
. "$harness/../${BASE_DIR:-bases/6.1}/pin"
debdir=$1 tarball=$2 out=$3 boots=${4:-3}

package() {
	grep -E "^$1" "$debdir/packages" | grep -v -- '-dbg_' || {
		echo "debian-workloads: no $1 package in $debdir (run make deb)" >&2
		exit 1
	}
}
image=$(package 'linux-image-[0-9][^_]*_')
tool=$(package 'allocinfo_')
release=$(dpkg-deb -f "$debdir/$image" Package)
release=${release#linux-image-}
debian_release=${release%-allocprof}

rm -rf "$out"
mkdir -p "$out/root" "$out/debs"
out=$(cd "$out" && pwd)
root=$out/root
"$harness/debian/unpack.sh" "$tarball" "$root"

echo "debian-workloads: downloading Debian's linux-image and linux-headers $debian_release $BASE_VERSION (not installed on this host)"
(cd "$out/debs" && apt-get -q -o APT::Sandbox::User=root download \
	"linux-image-$debian_release=$BASE_VERSION" \
	"linux-headers-$debian_release=$BASE_VERSION" \
	"linux-headers-$BASE_ABI-common=$BASE_VERSION" \
	"$KBUILD_PACKAGE=$BASE_VERSION" \
	"linux-compiler-gcc-12-x86=$BASE_VERSION" >/dev/null)
cp "$debdir/$image" "$debdir/$tool" "$out"/debs/*.deb "$root/tmp/"
echo "debian-workloads: dpkg -i the kernels, Debian's headers and allocinfo (log $out/dpkg.log)"
if ! "$harness/debian/in-root.sh" "$root" /bin/sh -ec 'dpkg -i /tmp/*.deb; rm /tmp/*.deb' \
	>"$out/dpkg.log" 2>&1; then
	tail -n 20 "$out/dpkg.log" >&2
	echo "debian-workloads: installing failed (see $out/dpkg.log)" >&2
	exit 1
fi
for rel in "$release" "$debian_release"; do
	for f in "$root/boot/vmlinuz-$rel" "$root/boot/initrd.img-$rel"; do
		[ -f "$f" ] || { echo "debian-workloads: the package left no ${f#"$root"}" >&2; exit 1; }
		cp "$f" "$out/"
	done
done
install -m 0755 "$harness/guest/allocprof-workloads" "$root/usr/local/sbin/"
mkfs.ext4 -q -F -L debian -d "$root" "$out/disk.img" 8G
rm -rf "$root"

/usr/bin/python3 "$harness/bench/workloads.py" --disk "$out/disk.img" \
	--debian "$out/vmlinuz-$debian_release" "$out/initrd.img-$debian_release" \
	--ours "$out/vmlinuz-$release" "$out/initrd.img-$release" \
	--boots "$boots" --out "$out"
