# make check BASE=6.12's kernel and boots, included by the Makefile after
# bases/6.1/*.mk (whose guest fragments and kselftest names they use).
# Apart from the 6.1 boots, as the two do not fit in 35 minutes on two
# cores together.
#
# Upstream's profiling and the KUnit suites the 6.12 series carries,
# built from the 6.12 tree in build/6.12/.
KERNEL_upstream := tinyconfig:$(GUEST_FRAGS),configs/profiling.config,bases/6.12/configs/test.config
TREE_upstream  := build/6.12/linux
CHECK_BOOTS_612   := upstream upstream-oom
# The KUnit suites of its series and the kselftests that apply to it; the
# OOM report in a small guest.
BOOT_upstream     := upstream|alloc_tag:allocinfo_test,$(SHOW_MEM)|kunit.filter_glob=alloc_tag*
BOOT_upstream-oom := upstream|alloc_tag:oom_test|kunit.enable=0 mem=256M
