# The kernels of the 6.1 base, included by the Makefile.
#
# Kernels: NAME = BASE_TARGET:FRAGMENT,FRAGMENT,... merged in that order.
# kernel:X is the kernel's own kernel/configs/X. DEBARCH_<name>: a kernel
# of that Debian architecture (harness/build/arch.sh; default amd64).
GUEST_FRAGS    := configs/guest.config,configs/amd64.config
TEST_FRAGS     := $(GUEST_FRAGS),configs/test.config
KERNEL_test    := tinyconfig:$(TEST_FRAGS),configs/profiling.config,configs/profiling-test.config,configs/hugetlb-hmm.config,configs/lockdown.config,configs/vm-selftests.config
KERNEL_nonprof := tinyconfig:$(TEST_FRAGS),configs/memcg.config
# make series-check: each prefix of the series as the test kernel, and
# the same without profiling.
KERNEL_series_prof   := $(KERNEL_test)
KERNEL_series_noprof := tinyconfig:$(TEST_FRAGS),configs/hugetlb-hmm.config,configs/lockdown.config
# The test kernel + memcg + profiling's DEBUG checks, KASAN, lockdep,
# DEBUG_VM and the options of distribution debug builds (kmemleak, UBSAN,
# DEBUG_PAGEALLOC, page_owner, SLUB_DEBUG_ON, PREEMPT, PROVE_RCU, NUMA):
# one kernel, as each build takes about 11 minutes cold.
KERNEL_debug   := tinyconfig:$(TEST_FRAGS),configs/memcg.config,configs/profiling.config,configs/profiling-test.config,configs/debug.config,configs/total-calls.config,configs/per-node.config,configs/hardening.config
# The test kernel on arm64 (QEMU's virt machine), cross-built: make arches.
KERNEL_arm64   := tinyconfig:configs/guest.config,configs/test.config,configs/profiling.config,configs/profiling-test.config,configs/arm64.config
# Profiling, its KUnit suites and test module on another architecture
# (KERNEL_<debarch>, below): make arches builds and boots them all.
ARCH_FRAGS     := configs/guest.config,configs/profiling.config,configs/profiling-test.config
KERNEL_slab    := tinyconfig:$(GUEST_FRAGS),configs/memcg.config,configs/slab.config
KERNEL_slob    := tinyconfig:$(GUEST_FRAGS),configs/slob.config
KERNEL_run     := x86_64_defconfig:kernel:kvm_guest.config,$(GUEST_FRAGS),configs/run.config,configs/profiling.config
# make bench: the same kernel without profiling, with it on by default,
# and with it off by default.
KERNEL_benchbase := tinyconfig:$(GUEST_FRAGS),configs/memcg.config,configs/bench.config
KERNEL_benchprof := $(KERNEL_benchbase),configs/profiling.config
KERNEL_benchoff  := $(KERNEL_benchprof),configs/profiling-off.config
KERNEL_benchtotal := $(KERNEL_benchprof),configs/total-calls.config
KERNEL_benchnuma  := $(KERNEL_benchprof),configs/numa.config
KERNEL_benchnode  := $(KERNEL_benchnuma),configs/per-node.config
