#!/bin/bash
# A signed apt repository of make deb's packages, for a fleet.
#   repo.sh DEBDIR REPO
# Adds the packages DEBDIR/packages names to REPO/pool/ (the revisions
# already there stay: a host can go back to one), writes the indices
# with apt-ftparchive (suite bookworm, component main) and signs the
# Release file (InRelease and Release.gpg) with the repository's own key:
# REPO_KEY_HOME (a GnuPG home), by default
# ~/.local/share/allocprof/repo-gnupg, made once. REPO/allocprof.gpg is
# its public key (an apt keyring) and REPO/allocprof.sources the
# deb822 source a host needs, for REPO served as REPO_URL (default:
# file:REPO).
set -euo pipefail
debdir=$1 repo=$2
suite=bookworm
[ -s "$debdir/packages" ] || { echo "repo: no packages in $debdir (run make deb)" >&2; exit 1; }
mkdir -p "$repo/pool/main"
repo=$(cd "$repo" && pwd)
url=${REPO_URL:-file:$repo}
keyhome=${REPO_KEY_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/allocprof/repo-gnupg}
[[ $keyhome = /* ]] || keyhome=$PWD/$keyhome
uid="allocprof repository signing key"
# gpg-agent makes its sockets in the GnuPG home, and a UNIX socket's path
# may be at most 108 bytes: with a deep home (make lifecycle's, under the
# checkout's build/) the agent cannot start and gpg fails with "No agent
# running". So gpg goes through a short link to the home, and the agent is
# stopped on the way out (no service left running).
tmp=$(mktemp -d /tmp/allocprof-repo.XXXXXX)
export GNUPGHOME=$tmp/gnupg
trap 'gpgconf --kill all 2>/dev/null; rm -rf "$tmp"' EXIT
ln -s "$keyhome" "$GNUPGHOME"

if ! gpg --batch --list-secret-keys "$uid" >/dev/null 2>&1; then
	echo "repo: making the repository key in $keyhome (keep it: hosts trust it)"
	mkdir -p "$keyhome"
	chmod 700 "$keyhome"
	gpg --batch --quiet --passphrase '' \
		--quick-generate-key "$uid" rsa4096 sign never
fi
gpg --batch --yes --export "$uid" >"$repo/allocprof.gpg"

while read -r deb; do
	cp "$debdir/$deb" "$repo/pool/main/"
done <"$debdir/packages"

cd "$repo"
for arch in $(for d in pool/main/*.deb; do dpkg-deb -f "$d" Architecture; done | sort -u); do
	[ "$arch" = all ] && continue
	bin=dists/$suite/main/binary-$arch
	mkdir -p "$bin"
	apt-ftparchive --arch "$arch" packages pool/main >"$bin/Packages"
	xz -kf "$bin/Packages"
done
apt-ftparchive \
	-o APT::FTPArchive::Release::Origin=allocprof \
	-o APT::FTPArchive::Release::Label=allocprof \
	-o APT::FTPArchive::Release::Suite=$suite \
	-o APT::FTPArchive::Release::Codename=$suite \
	-o APT::FTPArchive::Release::Components=main \
	-o "APT::FTPArchive::Release::Architectures=$(ls dists/$suite/main | sed 's/^binary-//' | tr '\n' ' ')" \
	release "dists/$suite" >"dists/$suite/Release.tmp"
mv "dists/$suite/Release.tmp" "dists/$suite/Release"
gpg --batch --yes -u "$uid" --clearsign \
	-o "dists/$suite/InRelease" "dists/$suite/Release"
gpg --batch --yes -u "$uid" -abs \
	-o "dists/$suite/Release.gpg" "dists/$suite/Release"
cat >allocprof.sources <<EOSOURCES
Types: deb
URIs: $url
Suites: $suite
Components: main
Signed-By: /etc/apt/keyrings/allocprof.gpg
EOSOURCES
echo "repo: $repo: $(ls pool/main | wc -l) packages; on a host:"
echo "  install -D -m 0644 allocprof.gpg /etc/apt/keyrings/allocprof.gpg"
echo "  install -m 0644 allocprof.sources /etc/apt/sources.list.d/"
