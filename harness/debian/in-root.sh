#!/bin/bash
# Run a command in a Debian root file system as on the booted system:
# chrooted, with /proc, /sys and /dev mounted, in a mount namespace of its
# own so that the mounts go away with it (dpkg's kernel hooks, dkms and
# grub-mkstandalone need them).
#   in-root.sh ROOT COMMAND [ARG...]
set -euo pipefail
root=$1
shift
exec unshare --mount --propagation private -- /bin/sh -ec '
	root=$1
	shift
	mount -t proc proc "$root/proc"
	mount -t sysfs sys "$root/sys"
	mount --rbind /dev "$root/dev"
	exec chroot "$root" "$@"' sh "$root" "$@"
