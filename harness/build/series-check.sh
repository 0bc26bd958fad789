#!/bin/bash
# make series-check: every prefix of the series builds, with and without
# profiling, and each patch is checkpatch --strict clean.
#   series-check.sh TREE OUT
# TREE is make tree's tree (one commit per patch on tag base). Each prefix
# is checked out in the worktree OUT/linux (only the files that differ are
# rewritten, so the builds in OUT/kernel-prof and OUT/kernel-noprof stay
# incremental) and built as KERNEL_series_prof and KERNEL_series_noprof
# say; checkpatch runs with CHECKPATCH_ARGS. Options a prefix's Kconfig
# does not define yet are not verified.
# A build that passed is remembered by the prefix's tree and the
# kernel's configuration inputs (OUT/passed/): a prefix already built is
# not built again, so a run after changing one patch builds from that
# patch on. SERIES_CHECK_FROM=N builds only from the Nth prefix on (a run
# split over machines whose builds are not kept); checkpatch still checks
# every patch. One line per patch; the last line counts the failures.
set -uo pipefail
harness=$(cd "$(dirname "$0")/.." && pwd)
tree=$1 out=$2
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$out/linux

# A worktree of a TREE that make tree has since made again is rebuilt.
if ! git -C "$work" rev-parse -q --verify base >/dev/null 2>&1 ||
	[ "$(git -C "$work" rev-parse base)" != "$(git -C "$tree" rev-parse base)" ]; then
	rm -rf "$work"
	git -C "$tree" worktree prune
	git -C "$tree" worktree add -q --detach "$work" base || exit 1
fi
mapfile -t commits < <(git -C "$tree" rev-list --reverse base..HEAD)
[ ${#commits[@]} -gt 0 ] || { echo "series-check: no patches on base in $tree" >&2; exit 1; }

# What a build of KIND depends on besides the tree: its specification
# and the fragments it names.
config_key() {
	local spec=KERNEL_series_$1 f
	{
		echo "${!spec}"
		for f in $(echo "${!spec#*:}" | tr , ' '); do
			[ ! -f "$f" ] || cat "$f"
		done
	} | sha1sum | cut -c1-12
}

from=${SERIES_CHECK_FROM:-1}
[[ $from =~ ^[1-9][0-9]*$ ]] || { echo "series-check: SERIES_CHECK_FROM=$from: expected a prefix number" >&2; exit 2; }
export KCONFIG_KNOWN_ONLY=1
mkdir -p "$out/passed"
failed=0 n=0 start=$(date +%s)
for c in "${commits[@]}"; do
	n=$((n + 1))
	subject=$(git -C "$tree" log -1 --format=%s "$c")
	line=$(printf '%02d %s:' "$n" "$subject")
	tree_id=$(git -C "$tree" rev-parse "$c^{tree}")
	for kind in prof noprof; do
		if [ "$n" -lt "$from" ]; then
			line="$line $kind not built (SERIES_CHECK_FROM=$from),"
			continue
		fi
		spec=KERNEL_series_$kind
		passed=$out/passed/$tree_id-$kind-$(config_key "$kind")
		if [ -f "$passed" ]; then
			line="$line $kind ok (built before),"
			continue
		fi
		git -C "$work" checkout -q --detach "$c" || exit 1
		t0=$(date +%s)
		if "$harness/build/build-kernel.sh" "$work" "$out/kernel-$kind" "${!spec}" \
			>"$out/build-$kind.log" 2>&1; then
			touch "$passed"
			line="$line $kind ok ($(( $(date +%s) - t0 )) s),"
		else
			cp "$out/build-$kind.log" "$out/$(printf %02d "$n")-$kind.log"
			line="$line $kind FAILED (see $out/$(printf %02d "$n")-$kind.log),"
			failed=$((failed + 1))
		fi
	done
	# checkpatch of the mail, as a maintainer runs it, outside any git
	# checkout (in one, it takes tracked *.patch files for sources).
	git -C "$tree" format-patch -1 --stdout --no-signature --zero-commit "$c" \
		>"$out/patch.mbox"
	# shellcheck disable=SC2086 # options, from the Makefile
	if (cd / && "$work/scripts/checkpatch.pl" ${CHECKPATCH_ARGS:?} \
		"$out/patch.mbox") >"$out/checkpatch.log" 2>&1; then
		line="$line checkpatch ok"
	else
		cp "$out/checkpatch.log" "$out/$(printf %02d "$n")-checkpatch.log"
		line="$line checkpatch FAILED (see $out/$(printf %02d "$n")-checkpatch.log)"
		failed=$((failed + 1))
	fi
	echo "$line"
done
skipped=
[ "$from" = 1 ] || skipped=" (prefixes before $from not built)"
echo "series-check: ${#commits[@]} patches, $failed failures$skipped, $(( ($(date +%s) - start) / 60 )) min"
[ $failed = 0 ]
