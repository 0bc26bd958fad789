#!/bin/bash
# Debian packages of Debian's own kernel configuration with profiling.
#   deb.sh TREE OUT FLAVOUR
# FLAVOUR is one of Debian 12's amd64 flavours (cloud-amd64, amd64): its
# configuration from the linux-config-6.1 package, plus
# configs/profiling.config and configs/deb.config. Prints every option that
# differs from Debian's, builds with bindeb-pkg in OUT/kernel and leaves
# the packages in OUT (their names in OUT/packages).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../base.pin
. "$here/../base.pin"
tree=$1 out=$2 flavour=$3
debconfig=/usr/src/linux-config-${BASE_PACKAGE#linux-source-}/config.amd64_none_$flavour.xz
[ -f "$debconfig" ] || { echo "deb: no $debconfig (flavour '$flavour')" >&2; exit 1; }
# Debian's configuration of the pinned base, or say it is another's.
config_package=linux-config-${BASE_PACKAGE#linux-source-}
config_version=$(dpkg-query -W -f='${Version}' "$config_package")
[ "$config_version" = "$BASE_VERSION" ] ||
	echo "deb: WARNING: $config_package is $config_version, the base $BASE_VERSION" >&2
mkdir -p "$out/kernel"
out=$(cd "$out" && pwd)
obj=$out/kernel
frags=("$here/../configs/profiling.config" "$here/../configs/deb.config")

# Debian builds with gcc-12 (its CONFIG_CC_VERSION_TEXT says so): the same
# compiler under the same name leaves that option as Debian has it.
# LOCALVERSION set (empty) keeps kbuild from adding "+" for a git tree.
kmake() {
	make -C "$tree" O="$obj" CC="ccache gcc-12" LOCALVERSION= \
		-j"$(nproc)" "$@"
}

# Configure again when Debian's configuration, a fragment or a Kconfig
# file changed.
inputs=$( {
	cat "$debconfig" "${frags[@]}"
	git -C "$tree" ls-files -s -- '*Kconfig*'
	git -C "$tree" diff -- '*Kconfig*'
} | sha1sum | cut -d' ' -f1)
if [ "$(cat "$obj/.config-inputs" 2>/dev/null)" != "$inputs" ]; then
	"$here/kconfig.sh" "$tree" "$obj" "$debconfig" "${frags[@]}"
	kmake -s olddefconfig
	echo "$inputs" >"$obj/.config-inputs"
fi

# What differs from Debian's configuration: the options our fragments set,
# and what Kconfig derives from them.
xzcat "$debconfig" >"$out/debian.config"
echo "deb: options that differ from Debian's config.amd64_none_$flavour:"
"$tree/scripts/diffconfig" "$out/debian.config" "$obj/.config" | tee "$out/changed.config"

export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
export KBUILD_BUILD_USER=alloc-tag KBUILD_BUILD_HOST=harness
export DEBEMAIL=alloc-tag@harness DEBFULLNAME="allocation profiling harness"
release=$(kmake -s kernelrelease)
rm -f "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes
echo "deb: building $release packages in $out (log $out/build.log)"
start=$(date +%s)
if ! kmake KDEB_PKGVERSION="$BASE_VERSION+allocprof" bindeb-pkg >"$out/build.log" 2>&1; then
	grep -E 'error|Error' "$out/build.log" | head -n 40 >&2
	echo "deb: FAILED (see $out/build.log)" >&2
	exit 1
fi
(cd "$out" && ls ./*.deb) | sed 's|^\./||' >"$out/packages"
echo "deb: done in $(( $(date +%s) - start ))s:"
sed 's/^/  /' "$out/packages"
