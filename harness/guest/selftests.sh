#!/bin/bash
# Build our kselftests as static programs for the guest.
#   selftests.sh TREE KERNEL_OUT DEST
# DEST/<collection>/<prog> plus DEST/run-list ("collection:prog" per line,
# from the kselftest framework's list) which the guest's /init runs.
# DEBARCH in the environment (arch.sh): built with that architecture's
# cross compiler.
set -euo pipefail
# shellcheck source=../build/arch.sh
. "$(dirname "$0")/../build/arch.sh"
tree=$1 kout=$2 dest=$3
rm -rf "$dest"
mkdir -p "$dest"
: >"$dest/run-list"
# Ours through the kselftest framework, as a developer builds them
# (make -C tools/testing/selftests TARGETS=alloc_tag install), in
# KERNEL_OUT/kselftest, with that kernel's headers; its list of tests
# ("alloc_tag:prog") is the run-list.
make -s -C "$tree/tools/testing/selftests" TARGETS=alloc_tag \
	O="$(cd "$kout" && pwd)" CROSS_COMPILE="$KCROSS" LDFLAGS=-static \
	KSFT_INSTALL_PATH="$(cd "$dest" && pwd)" install >/dev/null
grep ":" "$dest/kselftest-list.txt" >>"$dest/run-list"
# The tree's mm selftests that fit the busybox guest (guest/vm-selftests
# runs them; the rest need bash, libraries or options the test kernel
# lacks, and run in make suites).
if [ "$DEBARCH" = amd64 ]; then
	# The programs the runner runs (its "run ... ./PROGRAM" lines).
	vm_progs=$(grep '^run ' "$(dirname "$0")/vm-selftests" |
		grep -o '\./[A-Za-z0-9_-]*' | sed 's|^\./||' | sort -u)
	obj=$(cd "$kout" && pwd)/selftests/vm
	mkdir -p "$obj" "$dest/vm"
	# shellcheck disable=SC2086
	make -s -C "$tree/tools/testing/selftests/vm" OUTPUT="$obj" LDFLAGS=-static \
		KHDR_INCLUDES="-isystem $(cd "$kout" && pwd)/usr/include" \
		$(printf "$obj/%s " $vm_progs)
	# shellcheck disable=SC2086
	cp $(printf "$obj/%s " $vm_progs) "$dest/vm/"
	install -m 0755 "$(dirname "$0")/vm-selftests" "$dest/vm/"
	echo vm:vm-selftests >>"$dest/run-list"
fi
echo "selftests: $(wc -l <"$dest/run-list") programs in $dest"
