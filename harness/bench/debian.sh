#!/bin/bash
# The two kernels of make bench DEBIAN=1, each with the benchmark module
# built out of tree against its own headers package, as a DKMS module is:
# Debian's own kernel of the pinned base (downloaded from the archive,
# unpacked, not installed) and make deb's.
#   debian.sh TREE DEB_OUT OUT
# Leaves OUT/debian and OUT/ours, each with vmlinuz, System.map, config
# and alloc_tag_bench.ko; Debian's packages stay in OUT/debs. The
# module's source is the 6.1 tree's (TOOL_TREE in the environment, default
# TREE), on every base.
set -euo pipefail
harness=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../../bases/6.1/pin
. "$harness/../${BASE_DIR:-bases/6.1}/pin"
tree=$1 debout=$2 out=$3
flavour=cloud-amd64
release=$BASE_ABI-$flavour
mkdir -p "$out/debs"
out=$(cd "$out" && pwd)

want=("linux-image-$release=$BASE_VERSION" "linux-headers-$release=$BASE_VERSION"
      "linux-headers-$BASE_ABI-common=$BASE_VERSION"
      "$KBUILD_PACKAGE=$BASE_VERSION")
if ! ls "$out/debs/linux-image-${release}_${BASE_VERSION}_amd64.deb" >/dev/null 2>&1; then
	echo "bench-debian: downloading ${want[*]} (not installed)"
	# _apt cannot write here: download as the caller, without a sandbox.
	(cd "$out/debs" && apt-get -q -o APT::Sandbox::User=root download "${want[@]}" >/dev/null)
fi

# KIND ROOT RELEASE: unpack nothing, lay out OUT/KIND from ROOT (the
# packages unpacked) and build the module against ROOT's headers.
lay_out() {
	local kind=$1 root=$2 rel=$3 hdr
	hdr=$root/usr/src/linux-headers-$rel
	# Debian's flavour headers include the common ones by absolute path.
	sed -i "s|^include /usr/src/|include $root/usr/src/|" "$hdr/Makefile"
	rm -rf "$out/$kind" "$out/mod-$kind"
	mkdir -p "$out/$kind" "$out/mod-$kind"
	cp "$root/boot/vmlinuz-$rel" "$out/$kind/vmlinuz"
	cp "$root/boot/System.map-$rel" "$out/$kind/System.map"
	cp "$root/boot/config-$rel" "$out/$kind/config"
	cp "${TOOL_TREE:-$tree}/lib/alloc_tag_bench.c" "$out/mod-$kind/"
	echo 'obj-m := alloc_tag_bench.o' >"$out/mod-$kind/Kbuild"
	make -s -C "$hdr" M="$out/mod-$kind" modules >"$out/mod-$kind/build.log" 2>&1 ||
		{ cat "$out/mod-$kind/build.log" >&2; exit 1; }
	cp "$out/mod-$kind/alloc_tag_bench.ko" "$out/$kind/"
	echo "bench-debian: $kind: $rel, alloc_tag_bench.ko built against its headers"
}

rm -rf "$out/root-debian" "$out/root-ours"
for deb in "$out"/debs/*.deb; do
	dpkg-deb -x "$deb" "$out/root-debian"
done
lay_out debian "$out/root-debian" "$release"

ours_rel=$release-allocprof
for pkg in linux-image linux-headers; do
	deb=$(ls "$debout/${pkg}-${ours_rel}_"*.deb)
	dpkg-deb -x "$deb" "$out/root-ours"
done
lay_out ours "$out/root-ours" "$ours_rel"
rm -rf "$out/root-debian" "$out/root-ours"
