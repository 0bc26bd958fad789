#!/bin/bash
# Install what the build, the guest and the tests need, from Debian's archive.
# Usage: deps.sh  (as root; does nothing when everything is present)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../base.pin
. "$here/../base.pin"

packages=(
	build-essential bc bison flex libelf-dev libssl-dev dwarves
	cpio xz-utils kmod rsync git perl python3 ccache file
	qemu-system-x86 busybox-static
	gcc-powerpc64le-linux-gnu gcc-s390x-linux-gnu
	prometheus python3-sphinx python3-sphinx-rtd-theme
)

missing=()
for p in "${packages[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done

have_base=$(dpkg-query -W -f='${Status} ${Version}' "$BASE_PACKAGE" 2>/dev/null || true)
want_base=
[ "$have_base" = "install ok installed $BASE_VERSION" ] || want_base=1

[ ${#missing[@]} -eq 0 ] && [ -z "$want_base" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages: ${missing[*]} ${want_base:+$BASE_PACKAGE=$BASE_VERSION}" >&2
	echo "deps: run as root (or install them) and retry" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt_get() { apt-get -o Dpkg::Use-Pty=0 -q -y "$@"; }

echo "deps: apt-get update"
apt_get update >/dev/null

if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing ${missing[*]}"
	apt_get install --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ -n "$want_base" ]; then
	if apt-cache madison "$BASE_PACKAGE" | awk '{print $3}' |
		grep -qx -- "$BASE_VERSION"; then
		echo "deps: installing $BASE_PACKAGE=$BASE_VERSION"
		apt_get install --allow-downgrades --no-install-recommends \
			"$BASE_PACKAGE=$BASE_VERSION" >/dev/null
	else
		echo "deps: WARNING: $BASE_PACKAGE $BASE_VERSION (pinned in base.pin) is no longer served" >&2
		echo "deps: WARNING: falling back to the newest $BASE_PACKAGE; overlay patches may not apply" >&2
		apt_get install --no-install-recommends "$BASE_PACKAGE" >/dev/null
		dpkg-query -W -f='deps: WARNING: using ${Package} ${Version}\n' "$BASE_PACKAGE" >&2
	fi
fi
