#!/bin/bash
# Install what the build, the guest and the tests need, from Debian's archive.
# Usage: deps.sh BUSYBOX_DIR [--debian] [--upstream] [DEBARCH...]
# --debian: also what make deb and make debian-run need (Debian's kernel
# configurations, dpkg-buildpackage, debootstrap).
# --upstream: also upstream's implementation for make bench UPSTREAM=1
# (linux-source-6.12).
# (as root; does nothing when everything is present). For each other Debian
# architecture: its cross compiler and C library (static test programs), its
# QEMU, and its busybox-static, unpacked as BUSYBOX_DIR/DEBARCH/busybox.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../base.pin
. "$here/../base.pin"
busybox_dir=$1
shift
debian=
upstream=
[ "${1:-}" = --debian ] && { debian=1; shift; }
[ "${1:-}" = --upstream ] && { upstream=1; shift; }

packages=(
	build-essential bc bison flex libelf-dev libssl-dev dwarves
	cpio xz-utils kmod rsync git perl python3 ccache file
	qemu-system-x86 busybox-static
	prometheus python3-sphinx python3-sphinx-rtd-theme
)
[ -n "$debian" ] && packages+=(
	"linux-config-${BASE_PACKAGE#linux-source-}" dpkg-dev fakeroot debootstrap
)
[ -n "$upstream" ] && packages+=(linux-source-6.12)
foreign=()
for arch in "$@"; do
	# shellcheck source=arch.sh
	DEBARCH=$arch . "$here/arch.sh"
	[ "$arch" = amd64 ] && continue
	packages+=("gcc-${KCROSS%-}" "libc6-dev-$arch-cross" "$QEMU_PACKAGE")
	[ -x "$busybox_dir/$arch/busybox" ] || foreign+=("$arch")
done

missing=()
for p in "${packages[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done

have_base=$(dpkg-query -W -f='${Status} ${Version}' "$BASE_PACKAGE" 2>/dev/null || true)
want_base=
[ "$have_base" = "install ok installed $BASE_VERSION" ] || want_base=1

[ ${#missing[@]} -eq 0 ] && [ -z "$want_base" ] && [ ${#foreign[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages: ${missing[*]} ${want_base:+$BASE_PACKAGE=$BASE_VERSION}" >&2
	echo "deps: run as root (or install them) and retry" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt_get() { apt-get -o Dpkg::Use-Pty=0 -q -y "$@"; }

# Each architecture's busybox comes from the archive as a package of that
# architecture, which apt lists once dpkg knows the architecture.
for arch in "${foreign[@]}"; do
	dpkg --print-foreign-architectures | grep -qx "$arch" ||
		dpkg --add-architecture "$arch"
done
echo "deps: apt-get update"
# A list that fails to download (a mirror in sync, an architecture's
# security list) is reported; a package missing because of it fails below.
apt_get update >/dev/null || echo "deps: apt-get update reported errors" >&2

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

for arch in "${foreign[@]}"; do
	echo "deps: busybox-static:$arch"
	dl=$(mktemp -d)
	(cd "$dl" && chmod 777 . && apt_get download "busybox-static:$arch" >/dev/null)
	mkdir -p "$busybox_dir/$arch"
	dpkg-deb --fsys-tarfile "$dl"/busybox-static_*.deb |
		tar -xO ./bin/busybox >"$busybox_dir/$arch/busybox.tmp"
	chmod 0755 "$busybox_dir/$arch/busybox.tmp"
	mv "$busybox_dir/$arch/busybox.tmp" "$busybox_dir/$arch/busybox"
	rm -rf "$dl"
done
