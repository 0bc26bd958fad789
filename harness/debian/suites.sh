#!/bin/bash
# make suites: suites written elsewhere, on Debian 12 booted with make
# deb's kernel, then again on Debian's own kernel of the base in the same
# root, so that a failure of the base is told apart from one of ours.
#   suites.sh TREE DEBDIR ROOT_TARBALL OUT [SUITES]
# SUITES (default vm,stress,dkms; harness/guest/allocprof-suites says
# what each runs). ROOT_TARBALL (root.sh, with the packages the
# suites use) unpacked in OUT/root; make deb's linux-image, linux-headers
# and allocinfo packages and Debian's linux-image and linux-headers of the
# base (downloaded from the archive) installed with dpkg -i, whose kernel
# hooks build the DKMS packages of the root for both kernels; the tree's
# mm selftests (vm-selftests.sh) copied in. Prints each boot's results and
# a summary line per suite, "N passed, N failed" last.
set -euo pipefail
harness=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../../bases/6.1/pin
. "$harness/../${BASE_DIR:-bases/6.1}/pin"
tree=$1 debdir=$2 tarball=$3 out=$4 suites=${5:-vm,stress,dkms}
py=/usr/bin/python3
lib=usr/local/lib/allocprof-suites

package() {
	grep -E "^$1" "$debdir/packages" | grep -v -- '-dbg_' || {
		echo "debian-suites: no $1 package in $debdir (run make deb)" >&2
		exit 1
	}
}
image=$(package 'linux-image-[0-9][^_]*_')
headers=$(package 'linux-headers-[0-9][^_]*_')
tool=$(package 'allocinfo_')
release=$(dpkg-deb -f "$debdir/$image" Package)
release=${release#linux-image-}
debian_release=${release%-allocprof}

rm -rf "$out"
mkdir -p "$out/root" "$out/debs"
out=$(cd "$out" && pwd)
root=$out/root
"$harness/debian/unpack.sh" "$tarball" "$root"

echo "debian-suites: downloading Debian's linux-image and linux-headers $debian_release $BASE_VERSION (not installed on this host)"
(cd "$out/debs" && apt-get -q -o APT::Sandbox::User=root download \
	"linux-image-$debian_release=$BASE_VERSION" \
	"linux-headers-$debian_release=$BASE_VERSION" \
	"linux-headers-$BASE_ABI-common=$BASE_VERSION" \
	"$KBUILD_PACKAGE=$BASE_VERSION" \
	"linux-compiler-gcc-12-x86=$BASE_VERSION" >/dev/null)
cp "$debdir/$image" "$debdir/$headers" "$debdir/$tool" "$out"/debs/*.deb "$root/tmp/"

# As an administrator would: dpkg -i; the kernels' hooks run initramfs-tools
# and dkms autoinstall. dkms status is kept for the dkms suite.
echo "debian-suites: dpkg -i the kernels, headers and allocinfo; dkms builds (log $out/dpkg.log)"
mkdir -p "$root/$lib"
if ! "$harness/debian/in-root.sh" "$root" /bin/sh -ec '
	dpkg -i /tmp/*.deb
	rm /tmp/*.deb
	for rel in "$1" "$2"; do
		dkms autoinstall -k "$rel" || true
	done
	dkms status >"$3/dkms-status"' sh "$release" "$debian_release" "/$lib" \
	>"$out/dpkg.log" 2>&1; then
	tail -n 20 "$out/dpkg.log" >&2
	echo "debian-suites: installing failed (see $out/dpkg.log)" >&2
	exit 1
fi
sed 's/^/  dkms: /' "$root/$lib/dkms-status"
for rel in "$release" "$debian_release"; do
	for f in "$root/boot/vmlinuz-$rel" "$root/boot/initrd.img-$rel"; do
		[ -f "$f" ] || { echo "debian-suites: the package left no ${f#"$root"}" >&2; exit 1; }
		cp "$f" "$out/"
	done
done

"$harness/guest/vm-selftests.sh" "$tree" "$out/vm-selftests"
cp -a "$out/vm-selftests/vm" "$root/$lib/"
install -m 0755 "$harness/guest/allocprof-suites" "$root/usr/local/sbin/"
sed 's|/usr/local/sbin/allocprof-check|/usr/local/sbin/allocprof-suites|; s|the administrator.s checks|the suites of make suites|' \
	"$harness/guest/allocprof-check.service" >"$root/etc/systemd/system/allocprof-suites.service"
ln -s /etc/systemd/system/allocprof-suites.service \
	"$root/etc/systemd/system/multi-user.target.wants/"
mkfs.ext4 -q -F -L debian -d "$root" "$out/disk.img" 8G

# Both kernels run every suite: on Debian's, without /proc/allocinfo, the
# suites' own verdicts (a DKMS module built, loaded, used and unloaded).
verdicts=()
for boot in ours debian; do
	rel=$release run=$suites
	[ $boot = debian ] && rel=$debian_release
	mkdir -p "$out/$boot"
	cp --sparse=always "$out/disk.img" "$out/$boot/disk.img"
	echo "debian-suites: booting $rel: $run"
	"$py" "$harness/verdict/ktest.py" boot --name "suites-$boot" --kernel "$out/vmlinuz-$rel" \
		--initrd "$out/initrd.img-$rel" --drive "$out/$boot/disk.img" \
		--outdir "$out/$boot" --memory 3G --timeout "${SUITES_TIMEOUT:-3600}" --tcg-single \
		--append "root=/dev/vda rw allocprof.suites=$run" || true
	rm -f "$out/$boot/disk.img"
	verdicts+=("$out/$boot/verdict.json")
done
# What the report explains of the memory in use, after each suite.
awk '/^# coverage:/ { c = $0 } /^(not )?ok 1 after_/ && c { sub(/^# /, "", c);
	print "suites: " $NF ": " c; c = "" }' "$out/ours/results.txt" 2>/dev/null || true
"$py" "$harness/debian/suites-summary.py" "${verdicts[@]}"
