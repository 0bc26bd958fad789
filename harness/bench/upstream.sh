#!/bin/bash
# make bench UPSTREAM=1: upstream's own memory allocation profiling, as
# merged (Linux 6.12, Debian's linux-source-6.12), prepared for our
# benchmark.
#
#   upstream.sh OURS TREE FRAGDIR FRAGMENT...
#
# Lays the 6.12 source into TREE as a git repo (tag "upstream"), adds our
# benchmark module (lib/alloc_tag_bench.c of OURS, make tree's tree; a
# Kconfig entry, a Makefile line) and exports the static key the module reads (6.12 does not):
# nothing else of 6.12 changes. Prints that change. Writes each
# FRAGMENT to FRAGDIR adapted to 6.12's Kconfig: options 6.12 no longer
# has are left out, and FRAGDIR/upstream.config switches off SLUB_TINY,
# which 6.12's tinyconfig sets (it has no per-cpu slab fast path). Prints
# what it adapted.
set -euo pipefail
ours=$1 tree=$2 fragdir=$3
shift 3
package=linux-source-6.12
tarball=/usr/src/$package.tar.xz
version=$(dpkg-query -W -f='${Version}' "$package")
[ -f "$tarball" ] || { echo "upstream: $tarball missing (deps.sh --upstream)" >&2; exit 1; }

git_() { git -C "$tree" -c user.name=harness -c user.email=harness@localhost "$@"; }

# Write stdin to FILE only if it differs, so that O= builds stay
# incremental.
put() {
	cat >"$1.new"
	if cmp -s "$1.new" "$1"; then rm "$1.new"; else mv "$1.new" "$1"; fi
}

if [ "$(cat "$tree/.upstream-version" 2>/dev/null)" != "$version" ]; then
	echo "upstream: unpacking $package $version into $tree"
	rm -rf "$tree"
	mkdir -p "$tree"
	tar -xJf "$tarball" -C "$tree" --strip-components=1
	git_ init -q
	git_ add -f -A .
	git_ commit -q -m "$package $version"
	git_ tag upstream
	echo "$version" >"$tree/.upstream-version"
fi

# The benchmark module, as in our tree.
put "$tree/lib/alloc_tag_bench.c" <"$ours/lib/alloc_tag_bench.c"
{
	git_ show upstream:lib/Kconfig.debug
	printf '\nconfig ALLOC_TAG_BENCH\n\ttristate "%s"\n\tdepends on m\n' \
		"Benchmark of the allocation paths (make bench)"
} | put "$tree/lib/Kconfig.debug"
{
	git_ show upstream:lib/Makefile
	# shellcheck disable=SC2016 # a make variable
	echo 'obj-$(CONFIG_ALLOC_TAG_BENCH) += alloc_tag_bench.o'
} | put "$tree/lib/Makefile"
# The module says which state it measured (mem_alloc_profiling_enabled()),
# and 6.12 does not export the static key behind it.
git_ show upstream:lib/alloc_tag.c |
	sed '/^\t\t\tmem_alloc_profiling_key);$/a EXPORT_SYMBOL(mem_alloc_profiling_key);' |
	put "$tree/lib/alloc_tag.c"
grep -q '^EXPORT_SYMBOL(mem_alloc_profiling_key);$' "$tree/lib/alloc_tag.c" ||
	{ echo "upstream: could not export mem_alloc_profiling_key" >&2; exit 1; }
git_ add -f lib/alloc_tag_bench.c
echo "upstream: $package $version; what make bench adds to it:"
git_ diff --stat upstream | sed 's/^/upstream:   /'

# Every option 6.12's Kconfig files define.
known=$(mktemp)
trap 'rm -f "$known"' EXIT
find "$tree" -name 'Kconfig*' -type f -print0 |
	xargs -0 sed -nE 's/^[[:space:]]*(menu)?config[[:space:]]+([A-Za-z0-9_]+).*/CONFIG_\2/p' |
	LC_ALL=C sort -u >"$known"

mkdir -p "$fragdir"
for f in "$@"; do
	while IFS= read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)= ]] ||
		   [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
			if ! grep -qx "${BASH_REMATCH[1]}" "$known"; then
				echo "upstream: $f: $line left out (not in 6.12's Kconfig)" >&2
				continue
			fi
		fi
		echo "$line"
	done <"$f" | put "$fragdir/$(basename "$f")"
done
printf '%s\n' "# 6.12's tinyconfig sets SLUB_TINY, which has no per-cpu fast path." \
	'# CONFIG_SLUB_TINY is not set' | put "$fragdir/upstream.config"
echo "upstream: $fragdir/upstream.config: SLUB_TINY off"
