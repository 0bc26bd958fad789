# The boots of the 6.1 base (make check, make arches), included by the
# Makefile after bases/6.1/kernels.mk.
#
# The boots of `make check`, in this order. BOOT_<name> is
# KERNEL|KSELFTESTS|KERNEL ARGS; each kernel is built once, and the
# boot-parameter boots run only their own test. KSELFTESTS "-" means the
# kernel is only built. The kernels are built in this order too, while
# earlier guests run: the debug kernel's boots come first, as they are
# the longest chain (15 min, mostly one core), beside the test and nonprof
# kernels' builds; the last kernel built has the shortest boot, so that
# little runs after the last build. arm64 boots in make arches.
CHECK_BOOTS       := debug hardening debug-families debug-never debug-fail-late \
		     test boot-never boot-off boot-compressed boot-pointers \
		     boot-bogus boot-never-on boot-on-never boot-mixed boot-families oom \
		     hugetlb-hmm lockdown offline fail-early fail-late nonprof
SHOW_MEM          := alloc_tag:show_mem_test
BENCH             := alloc_tag:bench_test
STRESS            := alloc_tag:stress_test
BOOT_test         := test|alloc_tag:allocinfo_test,alloc_tag:module_test,$(SHOW_MEM),$(BENCH),$(STRESS),vm:vm-selftests|
BOOT_nonprof      := nonprof|alloc_tag:noprof_test,alloc_tag:memcg_kmem_test,$(SHOW_MEM),$(BENCH)|
# Page tags compressed (in page->flags), under the DEBUG checks.
BOOT_debug        := debug|alloc_tag:allocinfo_test,alloc_tag:memcg_kmem_test,$(SHOW_MEM),$(BENCH),$(STRESS)|sysctl.vm.mem_profiling=1,compressed
# Page tags as 16-bit indices in page_ext (the default) under the DEBUG
# checks: pages in use before page_ext are marked, no free warns. Two NUMA
# nodes, for the per-node counters too; page_owner on, for
# page_owner_test; kmemleak_test last; profiling "never", then on (the
# last value wins), where the page hooks would otherwise write into
# page_owner's page_ext. The other KUnit suites and the stress test run
# in the debug boot.
BOOT_hardening    := debug|alloc_tag:allocinfo_test,alloc_tag:hash_test,alloc_tag:module_test,$(SHOW_MEM),alloc_tag:page_owner_test,alloc_tag:kmemleak_test|kunit.filter_glob=alloc_tag_node harness.numa=2 page_owner=on \
		     sysctl.vm.mem_profiling=never sysctl.vm.mem_profiling=on
BOOT_boot-never   := test|alloc_tag:boot_param_test,$(SHOW_MEM)|kunit.enable=0 sysctl.vm.mem_profiling=never
# Off, spelled as upstream's documentation allows (page tags compressed).
BOOT_boot-off     := test|alloc_tag:boot_param_test,$(SHOW_MEM),$(BENCH)|kunit.enable=0 sysctl.vm.mem_profiling=off
# Compressed without the DEBUG checks: the page hooks' fast paths.
# And kernel/fork.c's sites switched off from the command line.
BOOT_boot-compressed := test|alloc_tag:boot_param_test,alloc_tag:allocinfo_test,alloc_tag:module_test,$(SHOW_MEM)|sysctl.vm.mem_profiling=1,compressed \
		     alloc_tag.control=\"file kernel/fork.c -p\"
# Page tags as pointers in page_ext, as upstream keeps them (the test
# boot has 16-bit indices in page_ext, the default).
BOOT_boot-pointers := test|alloc_tag:boot_param_test,alloc_tag:allocinfo_test,alloc_tag:module_test,$(SHOW_MEM)|sysctl.vm.mem_profiling=1,pointers
# Junk values, each rejected in turn; and show_mem() called before
# profiling is initialised.
BOOT_boot-bogus   := test|alloc_tag:boot_param_test,$(SHOW_MEM)|kunit.enable=0 \
		     alloc_tag_kunit.early_show_mem=1 \
		     sysctl.vm.mem_profiling=nope sysctl.vm.mem_profiling= \
		     sysctl.vm.mem_profiling=1junk sysctl.vm.mem_profiling=-1 \
		     sysctl.vm.mem_profiling=NEVER \
		     sysctl.vm.mem_profiling=1,compresed sysctl.vm.mem_profiling=0, \
		     sysctl.vm.mem_profiling=1,pointer \
		     alloc_tag.control=\"file\" alloc_tag.control=\"file x -p junk\" \
		     alloc_tag.families=pages alloc_tag.families= \
		     alloc_tag.families=slab, alloc_tag.families=slab,,page
# Values repeated and contradicting, as a boot loader joining a fleet's
# defaults and an administrator's additions writes them: the last value
# taken wins, junk among them is rejected alone.
BOOT_boot-never-on := test|alloc_tag:boot_param_test,$(SHOW_MEM)|kunit.enable=0 \
		     sysctl.vm.mem_profiling=never sysctl.vm.mem_profiling=1
BOOT_boot-on-never := test|alloc_tag:boot_param_test,$(SHOW_MEM)|kunit.enable=0 \
		     sysctl.vm.mem_profiling=1,pointers sysctl.vm.mem_profiling=1junk \
		     sysctl.vm.mem_profiling=never
BOOT_boot-mixed   := test|alloc_tag:boot_param_test|kunit.enable=0 \
		     sysctl.vm.mem_profiling=never sysctl.vm.mem_profiling= \
		     sysctl.vm.mem_profiling=on,compressed sysctl.vm.mem_profiling=1,compressed \
		     alloc_tag.families=page alloc_tag.families= alloc_tag.families=slab,page \
		     alloc_tag.control=\"file kernel/fork.c -p\" alloc_tag.control= \
		     alloc_tag.control=\"file kernel/fork.c -p\" alloc_tag.control=\"nonsense\"
# Some allocator families left out, the last value winning: slab and
# vmalloc (whose pages go to vmalloc's own line), without memcg; pages
# and percpu (vmalloc'ed areas charged whole), under the DEBUG checks,
# on two nodes. The KUnit suites alloc_tag_families and alloc_tag_node
# alone check the charges.
BOOT_boot-families := test|alloc_tag:boot_param_test|kunit.filter_glob=alloc_tag_families \
		     alloc_tag.families=slab alloc_tag.families=page,percpu
BOOT_debug-families := debug|alloc_tag:boot_param_test|kunit.filter_glob=alloc_tag_[fn]* \
		     harness.numa=2 alloc_tag.families=slab,vmalloc
# Never, under the DEBUG checks (the sysctl read-only): per-node counters
# are not allocated, /proc/allocinfo_node has its header alone.
BOOT_debug-never  := debug|alloc_tag:boot_param_test|kunit.enable=0 sysctl.vm.mem_profiling=never
# A small guest for the OOM killer's report.
BOOT_oom          := test|alloc_tag:oom_test|kunit.enable=0 mem=256M
# 1 GiB hugetlb pages from CMA (a CPU with 1 GiB pages; 6 GiB of RAM
# leave 2 GiB of CMA in one piece, see hugetlb_hmm_test.c)
# and device-private memory, page tags compressed.
BOOT_hugetlb-hmm  := test|alloc_tag:hugetlb_hmm_test|kunit.enable=0 \
		     sysctl.vm.mem_profiling=1,compressed hugetlb_cma=2G \
		     harness.memory=6G harness.cpu=qemu64,pdpe1gb=on
# A balloon driver's pages (PageOffline, never freed) leaving with their
# memory block: the top 256 MiB movable, so that a block can go offline.
BOOT_offline      := test|alloc_tag:offline_test|kunit.enable=0 movablecore=256M
# A setup step made to fail (fault injection): the early one, the tag type.
BOOT_fail-early   := test|alloc_tag:boot_param_test|kunit.enable=0 fail_alloc_tag_init=1,100,0,1
BOOT_fail-late    := test|alloc_tag:boot_param_test|kunit.enable=0 fail_alloc_tag_init=2,100,0,1
BOOT_debug-fail-late := debug|alloc_tag:boot_param_test|kunit.enable=0 fail_alloc_tag_init=2,100,0,1
# Locked down as under Secure Boot: the control file from /proc, no +f.
BOOT_lockdown     := test|alloc_tag:module_test|kunit.enable=0 lockdown=integrity
BOOT_build-slab   := slab|-|
BOOT_build-slob   := slob|-|

# make arches: each of Debian 12's release architectures, with profiling
# (its KUnit suites, allocinfo_test and module_test, booted on the
# architecture's QEMU machine: amd64 boots make check's test kernel, arm64
# the same cross-built) and without (built only: SLUB without memory
# cgroups or slab extensions); and x86 with the SLAB and SLOB allocators,
# which profiling does not support but whose renamed APIs must build.
ARCHES       := amd64 i386 arm64 armhf armel mips64el mipsel ppc64el s390x
ARCH_TESTS   := alloc_tag:allocinfo_test,alloc_tag:module_test
arch_kernel   = $(if $(filter amd64,$(1)),test,$(1))
$(foreach a,$(filter-out amd64 arm64,$(ARCHES)),\
	$(eval KERNEL_$(a) := tinyconfig:$(ARCH_FRAGS),configs/$(a).config))
$(foreach a,$(ARCHES),\
	$(eval DEBARCH_$(a) := $(a)) \
	$(eval KERNEL_nonprof_$(a) := tinyconfig:configs/guest.config,configs/$(a).config) \
	$(eval DEBARCH_nonprof_$(a) := $(a)) \
	$(eval BOOT_arch-$(a) := $(call arch_kernel,$(a))|$(ARCH_TESTS)|) \
	$(eval BOOT_nonprof-$(a) := nonprof_$(a)|-|))
# Where early parameters are parsed before jump_label_init() (arm, mips):
# sysctl.vm.mem_profiling= off on a kernel on by default, on on a kernel
# off by default, and compressed, each switched at run time.
BOOT_PARAM_ARCHES := armhf mipsel
$(foreach a,$(BOOT_PARAM_ARCHES),\
	$(eval KERNEL_$(a)_off := $(KERNEL_$(a)),configs/profiling-off.config) \
	$(eval DEBARCH_$(a)_off := $(a)) \
	$(eval BOOT_boot-off-$(a) := $(a)|alloc_tag:boot_param_test|kunit.enable=0 sysctl.vm.mem_profiling=0) \
	$(eval BOOT_boot-on-$(a) := $(a)_off|alloc_tag:boot_param_test|kunit.enable=0 sysctl.vm.mem_profiling=1) \
	$(eval BOOT_boot-compressed-$(a) := $(a)|alloc_tag:boot_param_test|kunit.enable=0 sysctl.vm.mem_profiling=1$(comma)compressed))
ARCHES_BOOTS := $(foreach a,$(ARCHES),arch-$(a) nonprof-$(a)) \
		$(foreach a,$(BOOT_PARAM_ARCHES),boot-off-$(a) boot-on-$(a) boot-compressed-$(a)) \
		build-slab build-slob
