#!/bin/bash
# Install make deb's kernel package on Debian 12 and boot it.
#   run.sh DEBDIR ROOT_TARBALL OUT
# ROOT_TARBALL (root.sh) unpacked in OUT/root; the linux-image and
# allocinfo packages of DEBDIR installed in it with dpkg -i (the kernel's
# initramfs built by initramfs-tools); the checks of harness/guest/ (a
# systemd unit) added; all of it made an ext4 disk. Boots it under QEMU
# from that virtio disk: profiling on (all checks), off with
# sysctl.vm.mem_profiling=0, and Debian's own kernel of the base (its
# linux-image package downloaded from the archive and installed in the
# same root) for the memory the system uses once booted.
# Prints the checks' results, systemd-analyze's boot times, the memory
# table, and "N passed, N failed" last.
set -euo pipefail
harness=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../../bases/6.1/pin
. "$harness/../${BASE_DIR:-bases/6.1}/pin"
debdir=$1 tarball=$2 out=$3
py=/usr/bin/python3

# The kernel image (its release starts with a digit), not the meta-package.
image=$(grep -E '^linux-image-[0-9][^_]*_' "$debdir/packages" | grep -v -- '-dbg_') || {
	echo "debian-run: no linux-image package in $debdir (run make deb)" >&2
	exit 1
}
tool=$(grep -E '^allocinfo_' "$debdir/packages") || {
	echo "debian-run: no allocinfo package in $debdir (run make deb)" >&2
	exit 1
}
release=$(dpkg-deb -f "$debdir/$image" Package)
release=${release#linux-image-}
debian_release=${release%-allocprof}
debian_image=linux-image-${debian_release}_${BASE_VERSION}_amd64.deb

rm -rf "$out"
mkdir -p "$out/root"
out=$(cd "$out" && pwd)
root=$out/root
"$harness/debian/unpack.sh" "$tarball" "$root"

# Debian's own kernel of the base, for the comparison.
echo "debian-run: downloading linux-image-$debian_release $BASE_VERSION (not installed on this host)"
(cd "$out" && apt-get -q -o APT::Sandbox::User=root download \
	"linux-image-$debian_release=$BASE_VERSION" >/dev/null)

# As an administrator would: dpkg -i, which runs initramfs-tools.
cp "$debdir/$image" "$debdir/$tool" "$out/$debian_image" "$root/tmp/"
echo "debian-run: dpkg -i $debian_image $image $tool (log $out/dpkg.log)"
if ! "$harness/debian/in-root.sh" "$root" dpkg -i "/tmp/$debian_image" "/tmp/$image" "/tmp/$tool" \
	>"$out/dpkg.log" 2>&1; then
	tail -n 20 "$out/dpkg.log" >&2
	echo "debian-run: dpkg -i failed (see $out/dpkg.log)" >&2
	exit 1
fi
rm "$root/tmp/$image" "$root/tmp/$tool" "$root/tmp/$debian_image"
for rel in "$release" "$debian_release"; do
	for f in "$root/boot/vmlinuz-$rel" "$root/boot/initrd.img-$rel"; do
		[ -f "$f" ] || { echo "debian-run: the package left no ${f#"$root"}" >&2; exit 1; }
		cp "$f" "$out/"
	done
done

# The checks.
base=${BASE_DIR:-bases/6.1}
sed "s/@BASE@/${base##*/}/" "$harness/guest/allocprof-check" \
	>"$root/usr/local/sbin/allocprof-check"
chmod 0755 "$root/usr/local/sbin/allocprof-check"
install -m 0644 "$harness/guest/allocprof-check.service" "$root/etc/systemd/system/"
ln -s /etc/systemd/system/allocprof-check.service \
	"$root/etc/systemd/system/multi-user.target.wants/"
mkfs.ext4 -q -F -L debian -d "$root" "$out/disk.img" 4G

verdicts=()
ram_mib=2048
for boot in on off kernel; do
	name=debian-$boot rel=$release
	args="root=/dev/vda rw"
	[ $boot = off ] && args="$args sysctl.vm.mem_profiling=0"
	[ $boot = kernel ] && rel=$debian_release
	mkdir -p "$out/$boot"
	cp --sparse=always "$out/disk.img" "$out/$boot/disk.img"
	echo "debian-run: booting $name ($rel)"
	"$py" "$harness/verdict/ktest.py" boot --name "$name" --kernel "$out/vmlinuz-$rel" \
		--initrd "$out/initrd.img-$rel" --drive "$out/$boot/disk.img" \
		--outdir "$out/$boot" --memory "${ram_mib}M" --timeout "${DEBIAN_TIMEOUT:-900}" \
		--append "$args" || true
	rm -f "$out/$boot/disk.img"
	verdicts+=("$out/$boot/verdict.json")
done

echo "debian-run: boot time (systemd-analyze time, TCG, 2 CPUs):"
for boot in on off kernel; do
	printf '  %-16s %s\n' "debian-$boot" "$(sed -n \
		's/^# systemd-analyze: Startup finished in //p' "$out/$boot/results.txt" 2>/dev/null)"
done
"$py" "$harness/debian/memory.py" $([ "${base##*/}" = 6.12 ] && echo --upstream) \
	"$ram_mib" "$out/kernel/results.txt" \
	"$out/on/results.txt" "$out/off/results.txt" || true
"$py" "$harness/verdict/ktest.py" summary "${verdicts[@]}"
