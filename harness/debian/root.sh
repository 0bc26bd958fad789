#!/bin/bash
# A Debian 12 root file system from Debian's archive, kept as a tarball.
#   root.sh TARBALL [PACKAGE,...]
# debootstrap's minimal variant plus what a booting server has: systemd as
# init, udev, kmod, procps, initramfs-tools (which builds the initramfs
# when a kernel package is installed), linux-base (which Debian's own kernel
# packages need), and the PACKAGEs given. Made once: an existing TARBALL
# made from the same package list is kept.
set -euo pipefail
tarball=$1
suite=bookworm
include=systemd,systemd-sysv,udev,kmod,procps,initramfs-tools,zstd,e2fsprogs,linux-base${2:+,$2}
# The mirror apt uses here (the archive is all this machine can reach).
mirror=$(apt-get indextargets --format '$(REPO_URI)' 'Created-By: Packages' 2>/dev/null |
	grep -m1 -v security || true)
mirror=${mirror:-http://deb.debian.org/debian/}
stamp="$suite $include"
if [ -f "$tarball" ] && [ "$(cat "$tarball.inputs" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi
mkdir -p "$(dirname "$tarball")"
root=$(mktemp -d "$(dirname "$tarball")/root.XXXXXX")
trap 'rm -rf "$root"' EXIT
echo "debian-root: debootstrap $suite from $mirror (log $tarball.log)"
start=$(date +%s)
if ! debootstrap --variant=minbase --include="$include" "$suite" "$root" \
	"$mirror" >"$tarball.log" 2>&1; then
	tail -n 20 "$tarball.log" >&2
	echo "debian-root: debootstrap failed (see $tarball.log)" >&2
	exit 1
fi
# Leave nothing of this machine in it: apt's downloaded packages go.
rm -rf "$root"/var/cache/apt/archives/*.deb
tar -C "$root" --numeric-owner --xattrs -cf "$tarball.tmp" .
mv "$tarball.tmp" "$tarball"
echo "$stamp" >"$tarball.inputs"
echo "debian-root: $tarball in $(( $(date +%s) - start ))s"
