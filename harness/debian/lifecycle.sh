#!/bin/bash
# An operator's whole lifecycle of the packages on Debian 12, booted
# through GRUB under UEFI (Debian's OVMF):
#   lifecycle.sh TREE DEBDIR ROOT_TARBALL OUT
# ROOT_TARBALL (root.sh, with GRUB's EFI modules,
# prometheus-node-exporter and curl) and Debian's own kernel of the base's
# ABI and FLAVOUR (from the archive) become the root partition
# of a GPT disk whose EFI system partition holds a GRUB image that reads
# the root's /boot/grub/grub.cfg, as update-grub writes it (before the
# first update-grub: Debian's /vmlinuz). A second disk holds the apt
# repository (repo.sh, with a key of its own in OUT), mounted at
# /srv/allocprof; the system has no other apt source. Six boots, each
# running one stage of harness/guest/allocprof-lifecycle:
#   1 Debian's kernel: update-grub, add the repository, apt install the
#     meta-package and allocinfo; ours becomes GRUB's default
#   2 ours: allocprof-check, the timer's textfile, node_exporter serves it
#   then DEBDIR is built again with only the revision raised (deb.sh,
#   DEB_REVISION), added to the repository
#   3 ours: apt upgrade to the new revision
#   4 the new revision runs; lockdown=integrity asked for the next boot
#   5 locked down: the control file, signed modules; apt purge of ours
#   6 Debian's kernel again, nothing of ours left
# Prints "N passed, N failed" last. DEBDIR is left with the packages of
# the raised revision.
set -euo pipefail
harness=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../../bases/6.1/pin
. "$harness/../${BASE_DIR:-bases/6.1}/pin"
tree=$1 debdir=$2 tarball=$3 out=$4
py=/usr/bin/python3
firmware=/usr/share/ovmf/OVMF.fd
# The meta-package's name: the base's META_PREFIX, then the flavour.
meta=$(sed -n 's/^Package: linux-image-allocprof-//p' "$debdir"/allocprof/debian/control)
flavour=${meta#"$META_PREFIX"}
version1=$(cat "$debdir/version")
revision1=${version1##*+allocprof}
revision2=$((revision1 + 1))
version2=${version1%+allocprof*}+allocprof$revision2

rm -rf "$out"
mkdir -p "$out/root"
out=$(cd "$out" && pwd)
root=$out/root
start=$(date +%s)

# The repository: what make deb built, signed with a key of the test's.
export REPO_KEY_HOME=$out/repo-gnupg REPO_URL=file:/srv/allocprof
repo_disk() {
	"$harness/debian/repo.sh" "$debdir" "$out/repo" >/dev/null
	rm -f "$out/repo.img"
	truncate -s 1G "$out/repo.img"
	mkfs.ext4 -q -F -L repo -d "$out/repo" "$out/repo.img"
}
repo_disk

"$harness/debian/unpack.sh" "$tarball" "$root"
# GRUB finds the disks by label.
cat >"$root/etc/fstab" <<EOF
LABEL=debian / ext4 errors=remount-ro 0 1
LABEL=repo /srv/allocprof ext4 ro,nofail 0 0
EOF
mkdir -p "$root/srv/allocprof"
# Offline: the repository disk is the only source.
: >"$root/etc/apt/sources.list"
# GRUB as Debian's grub-efi-amd64 would set it up, on the serial console.
mkdir -p "$root/boot/grub"
sed -e 's/^GRUB_TIMEOUT=.*/GRUB_TIMEOUT=1/' \
	-e 's/^GRUB_CMDLINE_LINUX=.*/GRUB_CMDLINE_LINUX="console=ttyS0"/' \
	"$root/usr/share/grub/default/grub" >"$root/etc/default/grub"
cat >"$out/embedded.cfg" <<'EOF'
insmod part_gpt
insmod ext2
search --no-floppy --label --set=root debian
if [ -f /boot/grub/grub.cfg ]; then
	configfile /boot/grub/grub.cfg
fi
linux /vmlinuz root=LABEL=debian ro console=ttyS0
initrd /initrd.img
boot
EOF
# Debian's own kernel of the base's ABI (from the archive's security
# suite, which debootstrap does not read), installed as its package is;
# then GRUB's EFI image, made by the root's own grub-mkstandalone.
debian_image=linux-image-$BASE_ABI-$flavour
(cd "$root/tmp" && apt-get download -q -o APT::Sandbox::User=root "$debian_image" >/dev/null)
cp "$out/embedded.cfg" "$root/tmp/embedded.cfg"
echo "lifecycle: $debian_image and GRUB in the root (log $out/root.log)"
if ! "$harness/debian/in-root.sh" "$root" /bin/sh -ec '
	dpkg -i /tmp/"$1"_*.deb
	grub-mkstandalone -O x86_64-efi -o /tmp/BOOTX64.EFI \
		boot/grub/grub.cfg=/tmp/embedded.cfg' sh "$debian_image" \
	>"$out/root.log" 2>&1; then
	tail -n 20 "$out/root.log" >&2
	exit 1
fi
mv "$root/tmp/BOOTX64.EFI" "$out/"
rm "$root/tmp/embedded.cfg" "$root/tmp/$debian_image"_*.deb

# The checks, run at each boot.
base=${BASE_DIR:-bases/6.1}
sed "s/@BASE@/${base##*/}/" "$harness/guest/allocprof-check" \
	>"$root/usr/local/sbin/allocprof-check"
chmod 0755 "$root/usr/local/sbin/allocprof-check"
sed -e "s/@FLAVOUR@/$flavour/" -e "s/@META@/$meta/" -e "s/@BASE@/${base##*/}/" \
	-e "s/@BASE_ABI@/$BASE_ABI/" \
	-e "s/@VERSION1@/$version1/" -e "s/@VERSION2@/$version2/" \
	"$harness/guest/allocprof-lifecycle" >"$root/usr/local/sbin/allocprof-lifecycle"
chmod 0755 "$root/usr/local/sbin/allocprof-lifecycle"
sed 's|/usr/local/sbin/allocprof-check|/usr/local/sbin/allocprof-lifecycle|' \
	"$harness/guest/allocprof-check.service" \
	>"$root/etc/systemd/system/allocprof-lifecycle.service"
ln -s /etc/systemd/system/allocprof-lifecycle.service \
	"$root/etc/systemd/system/multi-user.target.wants/"

# The disk: GPT, a 64 MiB EFI system partition, the root.
mkfs.vfat -C "$out/esp.img" 65536 >/dev/null
mmd -i "$out/esp.img" ::/EFI ::/EFI/BOOT
mcopy -i "$out/esp.img" "$out/BOOTX64.EFI" ::/EFI/BOOT/BOOTX64.EFI
truncate -s 6G "$out/root.img"
mkfs.ext4 -q -F -L debian -d "$root" "$out/root.img"
rm -rf "$root"
truncate -s $((1 + 64 + 6 * 1024 + 1))M "$out/disk.img"
sfdisk -q "$out/disk.img" <<EOF
label: gpt
start=1MiB, size=64MiB, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B
start=65MiB, size=6GiB, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4
EOF
dd if="$out/esp.img" of="$out/disk.img" bs=1M seek=1 conv=notrunc,sparse status=none
dd if="$out/root.img" of="$out/disk.img" bs=1M seek=65 conv=notrunc,sparse status=none
rm "$out/esp.img" "$out/root.img"

verdicts=()
boot() {
	local stage=$1
	echo "lifecycle: boot $stage"
	"$py" "$harness/verdict/ktest.py" boot --name "lifecycle-$stage" --firmware "$firmware" \
		--drive "$out/disk.img" --drive "$out/repo.img" \
		--outdir "$out/boot$stage" --memory 2G \
		--timeout "${DEBIAN_TIMEOUT:-900}" || true
	verdicts+=("$out/boot$stage/verdict.json")
}
boot 1
boot 2
echo "lifecycle: make deb with DEB_REVISION=$revision2 (log $debdir/build.log)"
DEB_REVISION=$revision2 "$harness/debian/deb.sh" "$tree" "$debdir" "$flavour" >"$out/deb2.log" 2>&1 ||
	{ tail -n 20 "$out/deb2.log" >&2; exit 1; }
repo_disk
for stage in 3 4 5 6; do
	boot $stage
done
echo "lifecycle: done in $(( $(date +%s) - start ))s"
"$py" "$harness/verdict/ktest.py" summary "${verdicts[@]}"
