#!/bin/bash
# Unpack a Debian 12 root file system (root.sh's tarball) as the
# root of the guest's virtio disk /dev/vda.
#   unpack.sh TARBALL ROOT
set -euo pipefail
tarball=$1 root=$2
mkdir -p "$root"
tar -C "$root" --numeric-owner --xattrs -xf "$tarball"
# The system's root file system (initramfs-tools reads fstab to put fsck
# in the initramfs) and name.
echo '/dev/vda / ext4 errors=remount-ro 0 1' >"$root/etc/fstab"
echo debian-allocprof >"$root/etc/hostname"
# initramfs-tools finds the root's type on its device for fsck; the disk
# is made after the install, so it is told.
echo FSTYPE=ext4 >"$root/etc/initramfs-tools/conf.d/fstype"
