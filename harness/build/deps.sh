#!/bin/bash
# Install from Debian's archive what one kind of target needs, and only that.
#   deps.sh ROLE TOOLS_DIR [DEBARCH...]
# ROLE:
#   build     make tree and the kernel builds: the toolchain, the pinned
#             base package (linux-source-6.1)
#   check     build + what the tests run: QEMU, Sphinx, dpkg-dev,
#             debhelper, apt-utils, gpg (the packaging tests); for each
#             DEBARCH other than amd64 its cross compiler, C library, QEMU
#   deb       build + what make deb needs: Debian's kernel configurations
#             (linux-config-6.1), dpkg-dev, fakeroot, debhelper, openssl;
#             for a DEBARCH other than amd64 its cross compiler (gcc-12,
#             as Debian builds with) and C library, and its
#             linux-config-6.1, unpacked into TOOLS_DIR/linux-config/DEBARCH
#   deb-boot  what make deb-boot needs: for each DEBARCH its QEMU,
#             busybox (unpacked, as for check) and C library
#   iprofile  what make iprofile adds to check's: gdb
#   repo      what make repo needs: apt-ftparchive (apt-utils), gpg
#   debian    deb + what make debian-run needs: debootstrap, QEMU
#   lifecycle debian + repo + what make lifecycle needs: the EFI firmware
#             (ovmf), dosfstools, mtools, fdisk
#   upstream  build + upstream's implementation (linux-source-6.12)
# Installs packages (as root; does nothing when everything is there) and
# never replaces one the host has, other than the pinned base package.
# Programs a test needs from a package that would change the host are
# unpacked into TOOLS_DIR instead: TOOLS_DIR/busybox/DEBARCH/busybox
# (busybox-static, which would replace the host's busybox; check's
# DEBARCHs and amd64, deb-boot's) and TOOLS_DIR/promtool (from
# prometheus, which would start a Prometheus server). Those are
# downloaded with a private apt state in TOOLS_DIR/apt, so the host's
# dpkg gets no foreign architecture.
set -euo pipefail
harness=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../../bases/6.1/pin
. "$harness/../${BASE_DIR:-bases/6.1}/pin"
role=$1 tools=$2
shift 2

build=(
	build-essential bc bison flex libelf-dev libssl-dev dwarves
	cpio xz-utils kmod rsync git perl python3 ccache file
)
deb_packages=("linux-config-${BASE_PACKAGE#linux-source-}" dpkg-dev fakeroot debhelper openssl)
repo_packages=(apt-utils gpg xz-utils)
debian_packages=(debootstrap qemu-system-x86)
packages=("${build[@]}")
busybox_arches=()
config_arches=()
case $role in
build) ;;
check)
	packages+=(qemu-system-x86 python3-sphinx python3-sphinx-rtd-theme
		   dpkg-dev debhelper apt-utils gpg)
	busybox_arches=(amd64 "$@")
	for arch in "$@"; do
		[ "$arch" = amd64 ] && continue
		# shellcheck source=arch.sh
		DEBARCH=$arch . "$harness/build/arch.sh"
		packages+=("gcc-${KCROSS%-}" "libc6-dev-$arch-cross" "$QEMU_PACKAGE")
	done
	;;
deb)
	packages+=("${deb_packages[@]}")
	for arch in "$@"; do
		[ "$arch" = amd64 ] && continue
		# shellcheck source=arch.sh
		DEBARCH=$arch . "$harness/build/arch.sh"
		packages+=("gcc-12-${KCROSS%-}" "binutils-${KCROSS%-}" "libc6-dev-$arch-cross")
		config_arches+=("$arch")
	done
	;;
deb-boot)
	packages=()
	for arch in "$@"; do
		# shellcheck source=arch.sh
		DEBARCH=$arch . "$harness/build/arch.sh"
		packages+=("$QEMU_PACKAGE")
		[ "$arch" = amd64 ] || packages+=("libc6-$arch-cross")
		busybox_arches+=("$arch")
	done
	;;
debian) packages+=("${deb_packages[@]}" "${debian_packages[@]}") ;;
repo) packages=("${repo_packages[@]}") ;;
lifecycle) packages+=("${deb_packages[@]}" "${debian_packages[@]}" "${repo_packages[@]}" ovmf dosfstools mtools fdisk) ;;
upstream) packages+=(linux-source-6.12) ;;
iprofile) packages=(gdb) ;;
*) echo "deps: unknown role '$role': expected build, check, deb, deb-boot, repo, debian, lifecycle, upstream or iprofile" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done
have_base=$(dpkg-query -W -f='${Status} ${Version}' "$BASE_PACKAGE" 2>/dev/null || true)
want_base=
case $role in repo|deb-boot) ;; *)
	[ "$have_base" = "install ok installed $BASE_VERSION" ] || want_base=1 ;;
esac
unpack=()
config_package=linux-config-${BASE_PACKAGE#linux-source-}
for arch in "${config_arches[@]}"; do
	[ -f "$tools/linux-config/$arch/version" ] &&
		[ "$(cat "$tools/linux-config/$arch/version")" = "$BASE_VERSION" ] ||
		unpack+=("$config_package:$arch=$BASE_VERSION")
done
for arch in "${busybox_arches[@]}"; do
	[ -x "$tools/busybox/$arch/busybox" ] || unpack+=("busybox-static:$arch")
done
[ "$role" = check ] && [ ! -x "$tools/promtool" ] && unpack+=(prometheus)

[ ${#missing[@]} -eq 0 ] && [ -z "$want_base" ] && [ ${#unpack[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing: ${missing[*]} ${want_base:+$BASE_PACKAGE=$BASE_VERSION} ${unpack[*]}" >&2
	echo "deps: run as root (or install the packages) and retry" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt_get() { apt-get -o Dpkg::Use-Pty=0 -q -y "$@"; }

if [ ${#missing[@]} -gt 0 ] || [ -n "$want_base" ]; then
	echo "deps: apt-get update"
	# A list that fails to download (a mirror in sync, a security list)
	# is reported; a package missing because of it fails below.
	apt_get update >/dev/null || echo "deps: apt-get update reported errors" >&2
fi
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
		echo "deps: WARNING: $BASE_PACKAGE $BASE_VERSION (pinned in ${BASE_DIR:-bases/6.1}/pin) is no longer served" >&2
		echo "deps: WARNING: falling back to the newest $BASE_PACKAGE; the series may not apply" >&2
		apt_get install --no-install-recommends "$BASE_PACKAGE" >/dev/null
		dpkg-query -W -f='deps: WARNING: using ${Package} ${Version}\n' "$BASE_PACKAGE" >&2
	fi
fi

[ ${#unpack[@]} -eq 0 ] && exit 0
# Downloaded, not installed: apt with lists of its own, for every
# architecture asked, from the host's sources.
state=$tools/apt
mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/download"
private=(-o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache"
	 -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
for arch in "${busybox_arches[@]}" "${config_arches[@]}"; do
	private+=(-o "APT::Architectures::=$arch")
done
echo "deps: downloading ${unpack[*]} (not installed)"
apt_get "${private[@]}" update >/dev/null || echo "deps: apt-get update reported errors" >&2
rm -f "$state/download"/*.deb
(cd "$state/download" && apt_get "${private[@]}" download "${unpack[@]}" >/dev/null)
for arch in "${busybox_arches[@]}"; do
	deb=$(ls "$state/download"/busybox-static_*_"$arch".deb 2>/dev/null) || continue
	mkdir -p "$tools/busybox/$arch"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO ./bin/busybox >"$tools/busybox/$arch/busybox.tmp"
	chmod 0755 "$tools/busybox/$arch/busybox.tmp"
	mv "$tools/busybox/$arch/busybox.tmp" "$tools/busybox/$arch/busybox"
done
for arch in "${config_arches[@]}"; do
	deb=$(ls "$state/download/${config_package}_"*"_$arch.deb")
	rm -rf "$tools/linux-config/$arch"
	mkdir -p "$tools/linux-config/$arch"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -x -C "$tools/linux-config/$arch" --strip-components=4 \
			"./usr/src/$config_package/"
	echo "$BASE_VERSION" >"$tools/linux-config/$arch/version"
done
if deb=$(ls "$state/download"/prometheus_*.deb 2>/dev/null); then
	dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/bin/promtool >"$tools/promtool.tmp"
	chmod 0755 "$tools/promtool.tmp"
	mv "$tools/promtool.tmp" "$tools/promtool"
fi
rm -rf "$state/download" "$state/cache"
