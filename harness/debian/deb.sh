#!/bin/bash
# Debian packages of Debian's own kernel configuration with profiling.
#   deb.sh TREE OUT FLAVOUR
# FLAVOUR is one of Debian 12's flavours of DEBARCH (in the environment,
# default amd64; cloud-amd64, amd64, cloud-arm64, arm64): its
# configuration from the linux-config-6.1 package (another architecture's,
# unpacked by deps.sh into TOOLS_DIR/linux-config/DEBARCH; TOOLS_DIR
# default build/tools), plus
# configs/profiling.config and configs/deb.config. Prints every option that
# differs from Debian's, builds with bindeb-pkg in OUT/kernel, then the
# packages of packaging/ (allocprof-deb.sh: allocinfo and the
# meta-packages), and leaves them in OUT (their names in OUT/packages).
#
# The kernel release is Debian's ABI, the flavour and -allocprof
# (6.1.0-57-cloud-amd64-allocprof): dpkg and GRUB sort it after Debian's
# kernel of that ABI and before Debian's next one. Every package has the
# version BASE_VERSION+allocprofN, N being DEB_REVISION (in the
# environment; default: the count of the repository's commits), so that a
# rebuild with a fix upgrades.
#
# TOOL_TREE (in the environment; default TREE): the tree of the 6.1 base,
# whose tools/vm/allocinfo.c the allocinfo package is built from.
#
# Modules are signed with DEB_SIGNING_KEY (a PEM file with the private key
# and its certificate), by default ~/.local/share/allocprof/signing_key.pem,
# made once if it does not exist: keep it to sign DKMS modules.
set -euo pipefail
harness=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$harness/.." && pwd)
# shellcheck source=../../bases/6.1/pin
. "$harness/../${BASE_DIR:-bases/6.1}/pin"
# shellcheck source=../build/arch.sh
. "$harness/build/arch.sh"
tree=$1 out=$2 flavour=$3
config_package=linux-config-${BASE_PACKAGE#linux-source-}
if [ "$DEBARCH" = amd64 ]; then
	configdir=/usr/src/$config_package
	config_version=$(dpkg-query -W -f='${Version}' "$config_package")
else
	configdir=${TOOLS_DIR:-build/tools}/linux-config/$DEBARCH
	config_version=$(cat "$configdir/version" 2>/dev/null || true)
fi
debconfig=$configdir/config.${DEBARCH}_none_$flavour.xz
[ -f "$debconfig" ] || { echo "deb: no $debconfig (flavour '$flavour')" >&2; exit 1; }
# Debian's configuration of the pinned base, or say it is another's.
[ "$config_version" = "$BASE_VERSION" ] ||
	echo "deb: WARNING: $config_package is $config_version, the base $BASE_VERSION" >&2
revision=${DEB_REVISION:-$(git -C "$repo" rev-list --count HEAD)}
case $revision in
''|*[!0-9]*) echo "deb: DEB_REVISION must be a number, got '$revision'" >&2; exit 2 ;;
esac
release=$BASE_ABI-$flavour-allocprof
version=$BASE_VERSION+allocprof$revision
mkdir -p "$out/kernel"
out=$(cd "$out" && pwd)
obj=$out/kernel

# The signing key, outside build/ (make clean keeps it).
key=${DEB_SIGNING_KEY:-${XDG_DATA_HOME:-$HOME/.local/share}/allocprof/signing_key.pem}
if [ ! -f "$key" ]; then
	if [ -n "${DEB_SIGNING_KEY:-}" ]; then
		echo "deb: DEB_SIGNING_KEY=$key: no such file" >&2
		exit 2
	fi
	echo "deb: making the module signing key $key (keep it: DKMS signs with it)"
	mkdir -p "$(dirname "$key")"
	genkey=$(mktemp)
	cat >"$genkey" <<EOGENKEY
[ req ]
default_bits = 4096
distinguished_name = name
prompt = no
string_mask = utf8only
x509_extensions = extensions
[ name ]
CN = allocprof module signing key ($(hostname), $(date -u +%Y-%m-%d))
[ extensions ]
basicConstraints = critical,CA:FALSE
keyUsage = digitalSignature
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
EOGENKEY
	(umask 077 && openssl req -new -nodes -utf8 -sha256 -days 36500 -batch \
		-x509 -config "$genkey" -outform PEM -out "$key.tmp" \
		-keyout "$key.tmp" 2>/dev/null)
	rm -f "$genkey"
	mv "$key.tmp" "$key"
fi
key=$(cd "$(dirname "$key")" && pwd)/$(basename "$key")
if ! { openssl x509 -in "$key" -noout && openssl pkey -in "$key" -noout; } 2>/dev/null; then
	echo "deb: $key: expected a PEM private key and certificate" >&2
	exit 2
fi
echo "CONFIG_MODULE_SIG_KEY=\"$key\"" >"$out/signing.config"
frags=("$repo/configs/profiling.config" "$repo/configs/deb.config" "$out/signing.config")

# Debian builds with gcc-12, under the name its CONFIG_CC_VERSION_TEXT
# gives (gcc-12 for 6.1, x86_64-linux-gnu-gcc-12 for 6.12): the same
# compiler under the same name leaves that option as Debian has it. A
# cross compiler's name differs. KERNELRELEASE given, as Debian's own
# build gives it. RUSTC=false: Debian builds without Rust, so the rustc
# version fields stay 0 whatever rustc the host has.
cc=$(xzcat "$debconfig" | sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p')
if [ "${cc%gcc-12}" = "$cc" ] || ! command -v "$cc" >/dev/null ||
	{ [ -n "$KCROSS" ] && [ "$cc" != "${KCROSS}gcc-12" ]; }; then
	cc=${KCROSS}gcc-12
fi
# ccache's depend mode: as in build-kernel.sh.
kmake() {
	CCACHE_DEPEND=1 make -C "$tree" O="$obj" ARCH="$KARCH" CROSS_COMPILE="$KCROSS" \
		CC="$harness/build/kcc $cc" RUSTC=false KERNELRELEASE="$release" \
		-j"$(nproc)" "$@"
}

# Configure again when Debian's configuration, a fragment or a Kconfig
# file changed.
inputs=$( {
	cat "$debconfig" "${frags[@]}"
	echo "$cc"
	git -C "$tree" ls-files -s -- '*Kconfig*'
	git -C "$tree" diff -- '*Kconfig*'
} | sha1sum | cut -d' ' -f1)
if [ "$(cat "$obj/.config-inputs" 2>/dev/null)" != "$inputs" ]; then
	"$harness/build/kconfig.sh" "$tree" "$obj" "$debconfig" "${frags[@]}"
	kmake -s olddefconfig
	echo "$inputs" >"$obj/.config-inputs"
fi

# What differs from Debian's configuration: the options our fragments set,
# and what Kconfig derives from them.
xzcat "$debconfig" >"$out/debian.config"
echo "deb: options that differ from Debian's ${debconfig##*/}:"
"$tree/scripts/diffconfig" "$out/debian.config" "$obj/.config" | tee "$out/changed.config"

export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
export KBUILD_BUILD_USER=alloc-tag KBUILD_BUILD_HOST=harness
export DEBEMAIL=alloc-tag@harness DEBFULLNAME="allocation profiling harness"
export SOURCE_DATE_EPOCH=1767225600
rm -f "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes
echo "deb: building $release $version (log $out/build.log)"
start=$(date +%s)
if ! kmake KDEB_PKGVERSION="$version" bindeb-pkg >"$out/build.log" 2>&1; then
	grep -E 'error|Error' "$out/build.log" | head -n 40 >&2
	echo "deb: FAILED (see $out/build.log)" >&2
	exit 1
fi
# bindeb-pkg also makes the kernel's user-space headers, which would
# replace Debian's linux-libc-dev: not ours to ship.
rm -f "$out"/linux-libc-dev_*.deb

# allocinfo and the meta-packages.
"$harness/debian/allocprof-deb.sh" "${TOOL_TREE:-$tree}" "$out" "$flavour" "$release" "$version"
(cd "$out" && ls ./*.deb) | sed 's|^\./||' >"$out/packages"
echo "$version" >"$out/version"
echo "deb: done in $(( $(date +%s) - start ))s:"
sed 's/^/  /' "$out/packages"
