# Sourced: what building for one of Debian 12's release architectures takes.
# Sets, for DEBARCH (a Debian architecture name, default amd64):
#   KARCH   the kernel's ARCH
#   KCROSS  CROSS_COMPILE (Debian's gcc-<triplet>; empty for amd64)
#   KIMAGE  the boot image's path in the build directory (its file name
#           is the make target)
#   QEMU_PACKAGE  the Debian package of its QEMU
#   KDTB    the device tree QEMU must be given, if any (a make target;
#           built in arch/$KARCH/boot/dts/)
# Fails on an architecture it does not know.
# shellcheck shell=bash
DEBARCH=${DEBARCH:-amd64}
KDTB=
case $DEBARCH in
amd64)    KARCH=x86_64  KCROSS=                       KIMAGE=arch/x86/boot/bzImage ;;
i386)     KARCH=i386    KCROSS=i686-linux-gnu-        KIMAGE=arch/x86/boot/bzImage ;;
arm64)    KARCH=arm64   KCROSS=aarch64-linux-gnu-     KIMAGE=arch/arm64/boot/Image ;;
armhf)    KARCH=arm     KCROSS=arm-linux-gnueabihf-   KIMAGE=arch/arm/boot/zImage ;;
armel)    KARCH=arm     KCROSS=arm-linux-gnueabi-     KIMAGE=arch/arm/boot/zImage
	  KDTB=versatile-pb.dtb ;;
mips64el) KARCH=mips    KCROSS=mips64el-linux-gnuabi64- KIMAGE=vmlinux ;;
mipsel)   KARCH=mips    KCROSS=mipsel-linux-gnu-      KIMAGE=vmlinux ;;
ppc64el)  KARCH=powerpc KCROSS=powerpc64le-linux-gnu- KIMAGE=vmlinux ;;
s390x)    KARCH=s390    KCROSS=s390x-linux-gnu-       KIMAGE=arch/s390/boot/bzImage ;;
*)
	echo "arch: unknown Debian architecture '$DEBARCH'" >&2
	return 1 2>/dev/null || exit 1
	;;
esac
case $KARCH in
x86_64|i386) QEMU_PACKAGE=qemu-system-x86 ;;
arm|arm64)   QEMU_PACKAGE=qemu-system-arm ;;
mips)        QEMU_PACKAGE=qemu-system-mips ;;
powerpc)     QEMU_PACKAGE=qemu-system-ppc ;;
s390)        QEMU_PACKAGE=qemu-system-misc ;;
esac
export DEBARCH KARCH KCROSS KIMAGE KDTB QEMU_PACKAGE
