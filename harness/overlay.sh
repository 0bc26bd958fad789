#!/bin/bash
# The overlay model: the repo holds new kernel files as plain files at their
# kernel path, and each modified base file PATH as PATH.patch (-p1, git style).
#
#   overlay.sh tree   TARBALL LABEL REPO TREE [force]
#	Lay base + overlay into TREE as a git repo: commit "base" (tag base),
#	then one commit for the overlay. Only files that differ are rewritten,
#	so O= builds stay incremental. Refuses to clobber edits in TREE that
#	are not in the repo's overlay, unless "force" is given.
#   overlay.sh export REPO TREE
#	Write TREE's changes against base back into REPO: added files as
#	files, modified or deleted base files as PATH.patch; stale overlay
#	files are removed.
set -euo pipefail

die() { echo "overlay: $*" >&2; exit 1; }

# Top-level directories of the base tree: the overlay lives under these.
kernel_dirs() {
	git -C "$1" ls-tree -d --name-only base
}

# List overlay files (relative paths) in REPO, given the kernel's top dirs.
overlay_files() {
	local repo=$1 tree=$2 d
	for d in $(kernel_dirs "$tree"); do
		[ -d "$repo/$d" ] || continue
		(cd "$repo" && find "$d" -type f -print)
	done | LC_ALL=C sort
}

# Stage the whole work tree in TREE's index and print its tree id. The
# base's .gitignore files do not apply (Debian's ignores everything at the
# top level, so new files would be missed); only editor and patch leftovers
# are left out.
worktree_id() {
	git -C "$1" add -u
	git -C "$1" ls-files -o -z --exclude='*.orig' --exclude='*.rej' \
		--exclude='*~' --exclude='.*.sw?' --exclude='*.pyc' |
		xargs -0r git -C "$1" add -f --
	git -C "$1" write-tree
}

make_base() {
	local tarball=$1 label=$2 tree=$3
	echo "overlay: extracting $tarball into $tree"
	rm -rf "$tree"
	mkdir -p "$tree"
	# Debian compresses it in blocks: xz decompresses them on every core.
	tar -I "xz -T0" -xf "$tarball" -C "$tree" --strip-components=1
	(
		cd "$tree"
		git init -q -b work
		git config user.name overlay
		git config user.email overlay@localhost
		git config core.autocrlf false
		git config gc.auto 0
		git add -A -f
		git commit -q -m "base: $label"
		git tag -f base >/dev/null
	)
}

# Build the commit "base + overlay" without touching the work tree.
overlay_commit() {
	local repo=$1 tree=$2 f path id mode idx
	idx=$(mktemp)
	rm -f "$idx"
	export GIT_INDEX_FILE=$idx
	git -C "$tree" read-tree base
	while read -r f; do
		if [ "${f%.patch}" != "$f" ] &&
			git -C "$tree" cat-file -e "base:${f%.patch}" 2>/dev/null; then
			git -C "$tree" apply --cached "$repo/$f" ||
				die "patch $f no longer applies to ${f%.patch} in the base"
			continue
		fi
		git -C "$tree" cat-file -e "base:$f" 2>/dev/null &&
			die "$f is a plain file but the base has it: modify it with $f.patch"
		mode=100644
		[ -x "$repo/$f" ] && mode=100755
		id=$(git -C "$tree" hash-object -w "$repo/$f")
		git -C "$tree" update-index --add --cacheinfo "$mode,$id,$f"
	done < <(overlay_files "$repo" "$tree")
	id=$(git -C "$tree" write-tree)
	unset GIT_INDEX_FILE
	rm -f "$idx"
	if [ "$id" = "$(git -C "$tree" rev-parse 'HEAD^{tree}')" ]; then
		git -C "$tree" rev-parse HEAD
	else
		git -C "$tree" commit-tree "$id" -p base -m overlay
	fi
}

cmd_tree() {
	local tarball=$1 label=$2 repo=$3 tree=$4 force=${5:-}
	local target head work

	if [ -d "$tree/.git" ] &&
		[ "$(git -C "$tree" log -1 --format=%s base 2>/dev/null)" != "base: $label" ]; then
		work=$(worktree_id "$tree")
		if [ "$work" != "$(git -C "$tree" rev-parse 'HEAD^{tree}')" ] &&
			[ "$force" != force ]; then
			git -C "$tree" diff --cached --stat HEAD >&2
			die "$tree has edits not exported and the base changed to $label; run make export, or make tree FORCE=1 to discard them"
		fi
		make_base "$tarball" "$label" "$tree"
	elif [ ! -d "$tree/.git" ]; then
		make_base "$tarball" "$label" "$tree"
	fi

	target=$(overlay_commit "$repo" "$tree")
	head=$(git -C "$tree" rev-parse HEAD)
	work=$(worktree_id "$tree")
	if [ "$work" = "$(git -C "$tree" rev-parse "$target^{tree}")" ]; then
		git -C "$tree" reset -q --soft "$target"
		echo "overlay: $tree is up to date with the overlay"
		return
	fi
	if [ "$work" != "$(git -C "$tree" rev-parse "$head^{tree}")" ] &&
		[ "$force" != force ]; then
		echo "overlay: edits in $tree that are not in the overlay:" >&2
		git -C "$tree" diff --cached --stat "$head" >&2
		die "run make export to keep them, or make tree FORCE=1 to discard them"
	fi
	git -C "$tree" reset -q --hard "$target"
	git -C "$tree" clean -q -fdx
	echo "overlay: $tree updated to base + overlay"
}

cmd_export() {
	local repo=$1 tree=$2 status path f
	[ -d "$tree/.git" ] || die "$tree does not exist: run make tree first"
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
	worktree_id "$tree" >/dev/null
	while IFS=$'\t' read -r status path; do
		mkdir -p "$out/$(dirname "$path")"
		case $status in
		A)
			cp -p "$tree/$path" "$out/$path"
			;;
		M|D|T)
			git -C "$tree" diff --cached --no-color --no-ext-diff \
				--no-renames --abbrev=12 base -- "$path" >"$out/$path.patch"
			;;
		*)
			die "unexpected change $status on $path"
			;;
		esac
	done < <(git -C "$tree" diff --cached --name-status --no-renames base)

	# Remove overlay files that no longer correspond to a change.
	while read -r f; do
		if [ ! -e "$out/$f" ]; then
			rm -f "$repo/$f"
			echo "overlay: removed $f"
		fi
	done < <(overlay_files "$repo" "$tree")
	for f in $(kernel_dirs "$tree"); do
		if [ -d "$repo/$f" ]; then
			find "$repo/$f" -depth -type d -empty -delete
		fi
	done

	# Copy what changed; leave identical files alone.
	while read -r f; do
		if ! cmp -s "$out/$f" "$repo/$f"; then
			mkdir -p "$repo/$(dirname "$f")"
			cp -p "$out/$f" "$repo/$f"
			echo "overlay: wrote $f"
		fi
	done < <(cd "$out" && find . -type f -printf '%P\n' | LC_ALL=C sort)
	git -C "$tree" diff --cached --quiet HEAD ||
		git -C "$tree" commit -q -m "overlay (exported)"
}

case ${1:-} in
tree)	shift; [ $# -ge 4 ] || die "usage: overlay.sh tree TARBALL LABEL REPO TREE [force]"
	cmd_tree "$1" "$2" "$(cd "$3" && pwd)" "$4" "${5:-}" ;;
export)	shift; [ $# -eq 2 ] || die "usage: overlay.sh export REPO TREE"
	cmd_export "$(cd "$1" && pwd)" "$2" ;;
*)	die "usage: overlay.sh tree|export ..." ;;
esac
