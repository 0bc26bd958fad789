#!/bin/bash
# Install make deb's kernel package on Debian 12 and boot it.
#   debian-run.sh DEBDIR ROOT_TARBALL OUT
# ROOT_TARBALL (debian-root.sh) unpacked in OUT/root; the linux-image and
# allocinfo packages of DEBDIR installed in it with dpkg -i (the kernel's
# initramfs built by initramfs-tools); the checks of harness/debian/ (a
# systemd unit) added; all of it made an ext4 disk. Boots it twice under
# QEMU from that virtio disk: profiling on (all checks), and off with
# sysctl.vm.mem_profiling=0.
# Prints the checks' results, systemd-analyze's boot times, and
# "N passed, N failed" last.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
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

rm -rf "$out"
mkdir -p "$out/root"
out=$(cd "$out" && pwd)
root=$out/root
tar -C "$root" --numeric-owner --xattrs -xf "$tarball"
# The system's root file system (initramfs-tools reads fstab to put fsck
# in the initramfs) and name.
echo '/dev/vda / ext4 errors=remount-ro 0 1' >"$root/etc/fstab"
echo debian-allocprof >"$root/etc/hostname"
# initramfs-tools finds the root's type on its device for fsck; the disk
# is made after the install, so it is told.
echo FSTYPE=ext4 >"$root/etc/initramfs-tools/conf.d/fstype"

# As an administrator would: dpkg -i, which runs initramfs-tools. In a
# mount namespace of its own, so the mounts go away with it.
cp "$debdir/$image" "$debdir/$tool" "$root/tmp/"
echo "debian-run: dpkg -i $image $tool (log $out/dpkg.log)"
if ! unshare --mount --propagation private -- /bin/sh -ec '
	mount -t proc proc "$1/proc"
	mount -t sysfs sys "$1/sys"
	mount --rbind /dev "$1/dev"
	chroot "$1" dpkg -i "/tmp/$2" "/tmp/$3"' sh "$root" "$image" "$tool" \
	>"$out/dpkg.log" 2>&1; then
	tail -n 20 "$out/dpkg.log" >&2
	echo "debian-run: dpkg -i failed (see $out/dpkg.log)" >&2
	exit 1
fi
rm "$root/tmp/$image" "$root/tmp/$tool"
kernel=$root/boot/vmlinuz-$release initrd=$root/boot/initrd.img-$release
for f in "$kernel" "$initrd"; do
	[ -f "$f" ] || { echo "debian-run: the package left no ${f#"$root"}" >&2; exit 1; }
done
cp "$kernel" "$initrd" "$out/"

# The checks.
install -m 0755 "$here/debian/allocprof-check" "$root/usr/local/sbin/"
install -m 0644 "$here/debian/allocprof-check.service" "$root/etc/systemd/system/"
ln -s /etc/systemd/system/allocprof-check.service \
	"$root/etc/systemd/system/multi-user.target.wants/"
mkfs.ext4 -q -F -L debian -d "$root" "$out/disk.img" 4G

verdicts=()
for boot in on off; do
	name=debian-$boot
	args="root=/dev/vda rw"
	[ $boot = off ] && args="$args sysctl.vm.mem_profiling=0"
	mkdir -p "$out/$boot"
	cp --sparse=always "$out/disk.img" "$out/$boot/disk.img"
	echo "debian-run: booting $name"
	"$py" "$here/ktest.py" boot --name "$name" --kernel "$out/${kernel##*/}" \
		--initrd "$out/${initrd##*/}" --drive "$out/$boot/disk.img" \
		--outdir "$out/$boot" --memory 2G --timeout "${DEBIAN_TIMEOUT:-900}" \
		--append "$args" || true
	rm -f "$out/$boot/disk.img"
	verdicts+=("$out/$boot/verdict.json")
done

echo "debian-run: boot time (systemd-analyze time, TCG, 2 CPUs):"
for boot in on off; do
	printf '  profiling %-4s %s\n' "$boot" "$(sed -n \
		's/^# systemd-analyze: Startup finished in //p' "$out/$boot/results.txt" 2>/dev/null)"
done
"$py" "$here/ktest.py" summary "${verdicts[@]}"
