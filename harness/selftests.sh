#!/bin/bash
# Build our kselftests as static programs for the guest.
#   selftests.sh TREE KERNEL_OUT DEST
# DEST/<collection>/<prog> plus DEST/run-list ("collection:prog" per line,
# from the kselftest Makefile's emit_tests) which the guest's /init runs.
# DEBARCH in the environment (arch.sh): built with that architecture's
# cross compiler.
set -euo pipefail
# shellcheck source=arch.sh
. "$(dirname "$0")/arch.sh"
tree=$1 kout=$2 dest=$3
rm -rf "$dest"
mkdir -p "$dest"
: >"$dest/run-list"
for collection in alloc_tag; do
	src=$tree/tools/testing/selftests/$collection
	[ -f "$src/Makefile" ] || continue
	obj=$(cd "$kout" && pwd)/selftests/$collection
	mkdir -p "$obj"
	kst() {
		make -s -C "$src" OUTPUT="$obj" KHDR_INCLUDES="-isystem $(cd "$kout" && pwd)/usr/include" \
			CROSS_COMPILE="$KCROSS" LDFLAGS=-static INSTALL_PATH="$(cd "$dest" && pwd)/$collection" "$@"
	}
	kst install
	kst COLLECTION="$collection" emit_tests | grep ":" >>"$dest/run-list"
done
echo "selftests: $(wc -l <"$dest/run-list") programs in $dest"
