#!/bin/bash
# The packages of packaging/: allocinfo (the tool, its man page, the
# node_exporter textfile service and timer) and the meta-packages
# linux-image-allocprof-META_PREFIXFLAVOUR and
# linux-headers-allocprof-META_PREFIXFLAVOUR (META_PREFIX from the base's
# pin), which depend on the kernel packages of RELEASE at VERSION.
#   allocprof-deb.sh TREE OUT FLAVOUR RELEASE VERSION
# TREE: a tree of the 6.1 base, which has the tool (tools/vm/allocinfo.c).
# Built by debhelper in OUT/allocprof, for DEBARCH (in the environment,
# default amd64; another is cross-built: its build dependencies are the
# cross compiler, not packages of that architecture, so they are not
# checked); the packages are left in OUT.
set -euo pipefail
harness=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$harness/.." && pwd)
# shellcheck source=../../bases/6.1/pin
. "$harness/../${BASE_DIR:-bases/6.1}/pin"
tree=$1 out=$2 flavour=$3 release=$4 version=$5
arch=${DEBARCH:-amd64}
cross=()
[ "$arch" = "$(dpkg --print-architecture)" ] || cross=(-a"$arch" -d)
export DEBEMAIL=${DEBEMAIL:-alloc-tag@harness}
export DEBFULLNAME=${DEBFULLNAME:-allocation profiling harness}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1767225600}

src=$out/allocprof
rm -rf "$src"
mkdir -p "$src/debian" "$src/default"
cp "$tree/tools/vm/allocinfo.c" "$repo/packaging/allocinfo.8" "$src/"
cp "$repo/packaging/allocinfo-textfile.default" "$src/default/allocinfo-textfile"
pkg=$repo/packaging/debian
cp -p "$pkg/rules" "$pkg/copyright" "$pkg/allocinfo.manpages" \
	"$pkg/allocinfo.postrm" "$src/debian/"
{ cat "$pkg/allocinfo.install"; echo "default/allocinfo-textfile etc/default"; } \
	>"$src/debian/allocinfo.install"
for unit in service timer; do
	cp "$repo/packaging/allocinfo-textfile.$unit" \
		"$src/debian/allocinfo.allocinfo-textfile.$unit"
done
sed -e "s/@META@/$META_PREFIX$flavour/g" -e "s/@FLAVOUR@/$flavour/g" \
	-e "s/@LINUX@/Linux${META_PREFIX:+ ${META_PREFIX%-}}/g" -e "s/@RELEASE@/$release/g" \
	-e "s/@VERSION@/$version/g" -e "s/@ARCH@/$arch/g" \
	-e "s/@MAINTAINER@/$DEBFULLNAME <$DEBEMAIL>/g" \
	"$pkg/control.in" >"$src/debian/control"
cat >"$src/debian/changelog" <<EOCHANGELOG
allocprof ($version) bookworm; urgency=medium

  * Built from $(git -C "$repo" describe --always --dirty) on Debian's
    $BASE_PACKAGE $BASE_VERSION.

 -- $DEBFULLNAME <$DEBEMAIL>  $(date -u -R -d "@$SOURCE_DATE_EPOCH")
EOCHANGELOG
# No allocinfo-dbgsym: a host installs the tool, not its debug symbols.
if ! (cd "$src" && DEB_BUILD_OPTIONS="noddebs ${DEB_BUILD_OPTIONS:-}" \
	dpkg-buildpackage -b -us -uc "${cross[@]}") >"$out/allocprof.log" 2>&1; then
	tail -n 30 "$out/allocprof.log" >&2
	echo "allocprof-deb: FAILED (see $out/allocprof.log)" >&2
	exit 1
fi
