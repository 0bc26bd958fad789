# Per-callsite memory allocation profiling for Linux 6.1: build, boot, test.
# See README.md. Everything is built under build/ (git-ignored).

# BASE: the kernel base, one directory of bases/ (its pin and series).
# 6.1 is ours; 6.12 is Debian's 6.12 with upstream's profiling, for which
# only the targets of BASE_612_TARGETS exist so far.
# Only the command line chooses it: a BASE in the environment is not ours.
ifneq ($(origin BASE),command line)
BASE := 6.1
endif
BASES := $(notdir $(wildcard bases/*))
ifneq ($(words $(BASE))$(filter $(BASE),$(BASES)),1$(BASE))
$(error BASE=$(BASE): no such base (bases/: $(BASES)))
endif
BASE_612_TARGETS := tree export check checkpatch deb deb-boot repo debian-run lifecycle \
		    bench tool-tree help all clean
ifeq ($(BASE),6.12)
ifneq ($(filter-out $(BASE_612_TARGETS),$(or $(MAKECMDGOALS),all)),)
$(error make $(filter-out $(BASE_612_TARGETS),$(MAKECMDGOALS)) is for BASE=6.1 only; BASE=6.12 has: $(filter-out tool-tree help all clean,$(BASE_612_TARGETS)) DEBIAN=1)
endif
ifneq ($(filter bench,$(MAKECMDGOALS)),)
ifeq ($(DEBIAN),)
$(error make bench BASE=6.12 is make bench DEBIAN=1 BASE=6.12: Debian's own 6.12 kernel against make deb's)
endif
endif
endif
export BASE_DIR := bases/$(BASE)
include $(BASE_DIR)/pin

# What one base builds goes in B (6.1's in build/, another's in
# build/BASE/); what serves every base in build/ itself (TOOLS).
B      := build$(if $(filter-out 6.1,$(BASE)),/$(BASE))
TREE   := $(B)/linux
TARBALL = /usr/src/$(BASE_PACKAGE).tar.xz
PY     := /usr/bin/python3

# Kernels: NAME = BASE_TARGET:FRAGMENT,FRAGMENT,... merged in that order.
# kernel:X is the kernel's own kernel/configs/X. DEBARCH_<name>: a kernel
# of that Debian architecture (harness/arch.sh; default amd64).
GUEST_FRAGS    := configs/guest.config,configs/amd64.config
TEST_FRAGS     := $(GUEST_FRAGS),configs/test.config
KERNEL_test    := tinyconfig:$(TEST_FRAGS),configs/profiling.config,configs/profiling-test.config,configs/hugetlb-hmm.config,configs/lockdown.config,configs/vm-selftests.config
KERNEL_nonprof := tinyconfig:$(TEST_FRAGS),configs/memcg.config
# The 6.12 base's test kernel (make check BASE=6.12): upstream's profiling
# and the KUnit suites its series carries, in build/6.12/.
KERNEL_upstream := tinyconfig:$(GUEST_FRAGS),configs/profiling.config,bases/6.12/configs/test.config
TREE_upstream  := build/6.12/linux
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
# make check BASE=6.12: the 6.12 base's test kernel. Apart from the 6.1
# boots, as the two do not fit in 35 minutes on two cores together.
CHECK_BOOTS_612   := upstream upstream-oom
SHOW_MEM          := alloc_tag:show_mem_test
BENCH             := alloc_tag:bench_test
STRESS            := alloc_tag:stress_test
BOOT_test         := test|alloc_tag:allocinfo_test,alloc_tag:module_test,$(SHOW_MEM),$(BENCH),$(STRESS),vm:vm-selftests|
# Upstream's profiling (the 6.12 base): the KUnit suites of its series and
# the kselftests that apply to it; the OOM report in a small guest.
BOOT_upstream     := upstream|alloc_tag:allocinfo_test,$(SHOW_MEM)|kunit.filter_glob=alloc_tag*
BOOT_upstream-oom := upstream|alloc_tag:oom_test|kunit.enable=0 mem=256M
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
		     alloc_tag_test.early_show_mem=1 \
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
comma := ,
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

export $(filter KERNEL_% DEBARCH_% TREE_%,$(.VARIABLES))

.PHONY: all deps check-deps tree tool-tree export series series-check upstream-tree check arches treewide deb deb-boot repo debian-run suites workloads lifecycle checkpatch run shell bench iprofile stress clean help

all: help

help:
	@echo "make check   build the test kernels, boot them, run all tests"
	@echo "make run     build the realistic kernel, boot it, run a workload"
	@echo "make shell   the same kernel with an interactive shell"
	@echo "make arches  build and boot on each of Debian's nine architectures"
	@echo "make treewide  scan the tree for risky uses of the converted names, compile them"
	@echo "make deb    Debian packages of Debian's cloud kernel config + profiling"
	@echo "            (DEB_CONFIG=generic: Debian's generic config; DEB_ARCH=arm64)"
	@echo "make deb-boot  boot make deb's packages in a busybox guest"
	@echo "make repo   a signed apt repository of make deb's packages ($(B)/repo)"
	@echo "make debian-run  install make deb's kernel on Debian 12, boot it with systemd"
	@echo "make suites  suites written elsewhere on Debian 12 (SUITES=vm,stress,dkms),"
	@echo "            with make deb's kernel and Debian's own"
	@echo "make workloads  hackbench, perf bench, stress-ng, a DKMS build on Debian 12:"
	@echo "            instructions on Debian's own kernel and make deb's"
	@echo "make lifecycle  install, use, upgrade and remove the packages on Debian 12"
	@echo "            booted through GRUB (UEFI)"
	@echo "make bench   measure profiling's overhead (ICOUNT=1: instruction counts;"
	@echo "            UPSTREAM=1: upstream 6.12's implementation beside ours;"
	@echo "            DEBIAN=1: make deb's kernel against Debian's own)"
	@echo "make iprofile  instructions per function of each benchmark path (PROFILE=1,3;"
	@echo "            DEBIAN=1: PROFILE=d1,d2; TESTS=kmalloc,page,order2,vmalloc)"
	@echo "make stress  the stress test for STRESS_SECONDS (600) in STRESS_KERNEL (test)"
	@echo "make tree    lay base + the series ($(BASE_DIR)/patches/) into $(TREE), a commit"
	@echo "            per patch (FORCE=1 discards edits and commits not exported)"
	@echo "make export  write the commits of $(TREE) back into $(BASE_DIR)/patches/"
	@echo "make series  the series to send or carry, with a cover letter ($(B)/series)"
	@echo "make series-check  every prefix of the series builds; checkpatch on each patch"
	@echo "            (FROM=N: builds from the Nth prefix on)"
	@echo "make checkpatch  checkpatch --strict on each patch of $(BASE_DIR)/patches/"
	@echo "make clean   remove $(B)/"
	@echo "BASE=6.12    with make tree, export, check, deb, deb-boot, repo,"
	@echo "            debian-run, lifecycle, bench DEBIAN=1: Debian's 6.12 kernel"
	@echo "            with upstream's profiling (bases/6.12; default BASE=6.1)"

# What each kind of target installs: harness/deps.sh (and the README).
# Programs unpacked rather than installed (busybox, promtool) go in TOOLS.
TOOLS := build/tools
deps: $(B)/.deps

$(B)/.deps: $(BASE_DIR)/pin harness/deps.sh harness/arch.sh
	harness/deps.sh build $(TOOLS)
	@mkdir -p $(B) && touch $@

# What the guests and the tests need (QEMU, busybox, promtool, Sphinx).
check-deps:
	@harness/deps.sh check $(TOOLS)

tree: deps
	@$(PY) harness/series.py tree $(TARBALL) \
		"$(BASE_PACKAGE) $$(dpkg-query -W -f='$${Version}' $(BASE_PACKAGE))" \
		$(BASE_DIR) $(TREE) $(if $(FORCE),--force)

export:
	@$(PY) harness/series.py export $(BASE_DIR) $(TREE)

series: tree
	@$(PY) harness/series.py format $(BASE_DIR) $(TREE) $(B)/series

# Each prefix built as KERNEL_series_prof and KERNEL_series_noprof, in a
# worktree of $(TREE) of its own.
series-check: tree
	@SERIES_CHECK_FROM=$(FROM) harness/series-check.sh $(TREE) $(B)/series-check

kernel-%: tree
	@DEBARCH=$(DEBARCH_$*) harness/build-kernel.sh $(TREE) $(B)/kernel-$* $(KERNEL_$*)

ifeq ($(BASE),6.1)
check: tree check-deps
	@harness/check.sh $(TREE) $(foreach b,$(CHECK_BOOTS),"$(b)|$(BOOT_$(b))")
else
# The guests take allocinfo and the kselftests from the 6.1 tree.
check: tree check-deps tool-tree
	@harness/check.sh --base $(TREE) $(TOOL_TREE) \
		$(foreach b,$(CHECK_BOOTS_612),"$(b)|$(BOOT_$(b))")
endif

run shell: kernel-run check-deps
	@harness/initramfs.sh $(B)/run/initramfs.cpio.gz $(TREE)
	@$(PY) harness/ktest.py boot --name $@ --mode $@ \
		--kernel $(B)/kernel-run/arch/x86/boot/bzImage \
		--initrd $(B)/run/initramfs.cpio.gz --outdir $(B)/$@ \
		--memory 2G --timeout 600 $(if $(KVM),--kvm)

# Every Debian architecture: see ARCHES above. Each boot takes under a
# minute: a hung guest is given 5.
arches: tree
	@harness/deps.sh check $(TOOLS) $(ARCHES)
	@CHECK_TIMEOUT=$${CHECK_TIMEOUT:-300} harness/check.sh --boots-only arches $(TREE) $(foreach b,$(ARCHES_BOOTS),"$(b)|$(BOOT_$(b))")

# The treewide scan, then every file it found compiled under x86_64
# allmodconfig and arm64 defconfig, and arm64 defconfig's image and modules.
treewide: tree
	@mkdir -p $(B)/treewide
	@$(PY) harness/treewide.py scan $(TREE) harness/treewide.reviewed \
		--json $(B)/treewide/found.json
	@$(PY) harness/treewide.py compile $(TREE) $(B)/treewide/found.json \
		$(B)/treewide/x86_64 --arch x86_64 --config allmodconfig
	@$(PY) harness/treewide.py compile $(TREE) $(B)/treewide/found.json \
		$(B)/treewide/arm64 --arch arm64 --config defconfig --full

# Debian packages (bindeb-pkg) of Debian 12's own configuration with
# profiling: the cloud flavour, or DEB_CONFIG=generic for the generic one;
# of amd64, or DEB_ARCH=arm64 (cross-built; make deb-boot boots it).
DEB_CONFIG ?= cloud
DEB_ARCH ?= amd64
DEB_FLAVOUR_cloud   := cloud-$(DEB_ARCH)
DEB_FLAVOUR_generic := $(DEB_ARCH)
ifneq ($(filter deb deb-boot repo debian-run suites workloads lifecycle,$(MAKECMDGOALS))$(DEBIAN),)
ifeq ($(filter cloud generic,$(DEB_CONFIG)),)
$(error DEB_CONFIG must be cloud or generic)
endif
ifeq ($(filter amd64 arm64,$(DEB_ARCH)),)
$(error DEB_ARCH must be amd64 or arm64)
endif
ifneq ($(filter repo debian-run suites workloads lifecycle,$(MAKECMDGOALS)),)
ifneq ($(DEB_ARCH),amd64)
$(error make repo, debian-run, suites, workloads and lifecycle are for DEB_ARCH=amd64)
endif
endif
ifneq ($(DEBIAN),)
ifneq ($(DEB_CONFIG)-$(DEB_ARCH),cloud-amd64)
$(error make bench DEBIAN=1 compares Debian's cloud-amd64 kernel: DEB_CONFIG=cloud DEB_ARCH=amd64)
endif
endif
endif
DEB_OUT := $(B)/deb-$(DEB_CONFIG)$(if $(filter-out amd64,$(DEB_ARCH)),-$(DEB_ARCH))
# The allocinfo package of every base is built from the 6.1 tree's tool.
TOOL_TREE := build/linux
deb: tree $(if $(filter-out 6.1,$(BASE)),tool-tree)
	@harness/deps.sh deb $(TOOLS) $(DEB_ARCH)
	@DEBARCH=$(DEB_ARCH) TOOLS_DIR=$(TOOLS) TOOL_TREE=$(TOOL_TREE) \
		harness/deb.sh $(TREE) $(DEB_OUT) $(DEB_FLAVOUR_$(DEB_CONFIG))

tool-tree:
	@$(MAKE) --no-print-directory BASE=6.1 tree

# make deb's packages booted in the busybox guest of their architecture:
# the kernel, modules and allocinfo of the packages.
deb-boot: deb
	@harness/deps.sh deb-boot $(TOOLS) $(DEB_ARCH)
	@DEBARCH=$(DEB_ARCH) TOOL_TREE=$(TOOL_TREE) harness/deb-boot.sh $(TREE) $(DEB_OUT) \
		$(DEB_OUT)-boot

# A signed apt repository of make deb's packages (REPO_DIR), for a fleet:
# each run adds the packages of the last make deb to it.
REPO_DIR ?= $(B)/repo
repo: deb
	@harness/deps.sh repo $(TOOLS)
	@harness/repo.sh $(DEB_OUT) $(REPO_DIR)

# Debian 12's root file systems, made once from the archive, serve every
# base.
DEBIAN_ROOTS := build/debian

# make deb's kernel installed with dpkg on a Debian 12 root file system
# and booted with systemd: the administrator's checks, profiling on and
# off.
debian-run: deb
	@harness/deps.sh debian $(TOOLS)
	@harness/debian-root.sh $(DEBIAN_ROOTS)/root.tar
	@harness/debian-run.sh $(DEB_OUT) $(DEBIAN_ROOTS)/root.tar $(B)/debian-run-$(DEB_CONFIG)

# Suites written elsewhere (SUITES, default vm,stress,dkms: the tree's mm
# selftests, stress-ng, DKMS modules of the archive) on Debian 12 booted
# with make deb's kernel, then on Debian's own kernel of the base in the
# same root; allocinfo --check after each.
SUITES ?= vm,stress,dkms
SUITES_ROOT := $(DEBIAN_ROOTS)/suites-root.tar
SUITES_PACKAGES := libelf1,libssl3,dkms,rapiddisk-dkms,dm-writeboost-dkms,iptables-netflow-dkms,iptables,dmsetup,iputils-ping,stress-ng,sudo
suites: deb
	@harness/deps.sh debian $(TOOLS)
	@harness/debian-root.sh $(SUITES_ROOT) $(SUITES_PACKAGES)
	@harness/debian-suites.sh $(TREE) $(DEB_OUT) $(SUITES_ROOT) $(B)/suites-$(DEB_CONFIG) $(SUITES)

# Programs written elsewhere (hackbench, perf bench, stress-ng, a DKMS
# module's build) on Debian 12 booted with Debian's own kernel of the base
# and with make deb's (on, booted off, ",compressed" asked), WORKLOADS_BOOTS
# times each under -icount: their instructions, in $(B)/workloads/results.md.
WORKLOADS_ROOT := $(DEBIAN_ROOTS)/workloads-root.tar
WORKLOADS_PACKAGES := rt-tests,linux-perf,stress-ng,dkms,rapiddisk-dkms
WORKLOADS_BOOTS ?= 3
workloads: deb
	@harness/deps.sh debian $(TOOLS)
	@harness/debian-root.sh $(WORKLOADS_ROOT) $(WORKLOADS_PACKAGES)
	@harness/debian-workloads.sh $(DEB_OUT) $(WORKLOADS_ROOT) $(B)/workloads $(WORKLOADS_BOOTS)

# The operator's lifecycle on Debian 12 booted through GRUB under UEFI:
# install from make repo's kind of repository, use, apt upgrade to a
# rebuild (DEB_OUT is left with the raised revision), lockdown, remove.
LIFECYCLE_ROOT := $(DEBIAN_ROOTS)/lifecycle-root.tar
LIFECYCLE_PACKAGES := grub-efi-amd64-bin,grub2-common,prometheus-node-exporter,curl
lifecycle: deb
	@harness/deps.sh lifecycle $(TOOLS)
	@harness/debian-root.sh $(LIFECYCLE_ROOT) $(LIFECYCLE_PACKAGES)
	@TOOL_TREE=$(TOOL_TREE) harness/lifecycle.sh $(TREE) $(DEB_OUT) $(LIFECYCLE_ROOT) \
		$(B)/lifecycle-$(DEB_CONFIG)

# The overhead table: kernels without and with profiling, one guest per
# configuration and round. BENCH_ARGS passes --rounds, --repeat, --ms.
# UPSTREAM=1 adds the same three kernels of upstream's implementation
# (Linux 6.12 as Debian ships it, with our fragments and benchmark module).
comma    := ,
UP_TREE  := $(B)/upstream/linux
UP_FRAGS := $(B)/upstream/configs
UP_KERNELS := $(if $(UPSTREAM),upkernel-benchbase upkernel-benchprof upkernel-benchoff)
ifneq ($(DEBIAN),)
# DEBIAN=1: Debian's own kernel of the base against make deb's (the cloud
# flavour), each with the module built against its headers package,
# always with -icount.
BENCH_DEBIAN := $(B)/bench-debian
bench: deb check-deps
	@TOOL_TREE=$(TOOL_TREE) harness/bench-debian.sh $(TREE) $(DEB_OUT) $(BENCH_DEBIAN)
	@BENCH_COMMAND="make bench DEBIAN=1$(if $(filter-out 6.1,$(BASE)), BASE=$(BASE))$(if $(BENCH_ARGS), BENCH_ARGS='$(BENCH_ARGS)')" \
		$(PY) harness/bench.py --tree $(TOOL_TREE) --debian $(BENCH_DEBIAN)/debian \
		--ours $(BENCH_DEBIAN)/ours --out $(BENCH_DEBIAN) --icount --rounds 2 \
		$(if $(filter 6.12,$(BASE)),--upstream) \
		$(BENCH_ARGS)
else
bench: check-deps kernel-benchbase kernel-benchprof kernel-benchoff kernel-benchtotal \
		kernel-benchnuma kernel-benchnode $(UP_KERNELS)
	@BENCH_COMMAND="make bench$(if $(ICOUNT), ICOUNT=1)$(if $(UPSTREAM), UPSTREAM=1)$(if $(BENCH_ARGS), BENCH_ARGS='$(BENCH_ARGS)')" \
		$(PY) harness/bench.py --tree $(TREE) --base $(B)/kernel-benchbase \
		--prof $(B)/kernel-benchprof --off $(B)/kernel-benchoff \
		--total $(B)/kernel-benchtotal \
		--numa $(B)/kernel-benchnuma --node $(B)/kernel-benchnode \
		$(if $(UPSTREAM),--up-base $(B)/upstream/kernel-benchbase \
			--up-prof $(B)/upstream/kernel-benchprof \
			--up-off $(B)/upstream/kernel-benchoff) \
		--out $(B)/bench$(if $(ICOUNT),-icount)$(if $(UPSTREAM),-upstream) \
		$(if $(ICOUNT),--icount) $(BENCH_ARGS)
endif

# Where the instructions go: two loops of each test stepped with gdb (the
# quieter kept) in the configurations PROFILE (make bench's labels, the
# baseline first), counted per function. DEBIAN=1: make bench DEBIAN=1's two kernels.
ifneq ($(DEBIAN),)
PROFILE ?= d1,d2
iprofile: deb check-deps
	@harness/deps.sh iprofile $(TOOLS)
	@harness/bench-debian.sh $(TREE) $(DEB_OUT) $(BENCH_DEBIAN)
	@IPROFILE_COMMAND="make iprofile DEBIAN=1 PROFILE=$(PROFILE)$(if $(TESTS), TESTS=$(TESTS))" \
		$(PY) harness/iprofile.py --tree $(TREE) \
		--debian $(BENCH_DEBIAN)/debian --ours $(BENCH_DEBIAN)/ours \
		--out $(B)/iprofile-debian --configs $(PROFILE) $(if $(TESTS),--tests $(TESTS))
else
PROFILE ?= 1,3
iprofile: check-deps kernel-benchbase kernel-benchprof kernel-benchoff
	@harness/deps.sh iprofile $(TOOLS)
	@IPROFILE_COMMAND="make iprofile PROFILE=$(PROFILE)$(if $(TESTS), TESTS=$(TESTS))" \
		$(PY) harness/iprofile.py --tree $(TREE) \
		--base $(B)/kernel-benchbase --prof $(B)/kernel-benchprof \
		--off $(B)/kernel-benchoff --out $(B)/iprofile --configs $(PROFILE) \
		$(if $(TESTS),--tests $(TESTS))
endif

upstream-tree: tree
	@harness/deps.sh upstream $(TOOLS)
	@harness/upstream.sh $(TREE) $(UP_TREE) $(UP_FRAGS) \
		$(filter configs/%,$(subst :, ,$(subst $(comma), ,$(KERNEL_benchoff))))

upkernel-%: upstream-tree
	@harness/build-kernel.sh $(UP_TREE) $(B)/upstream/kernel-$* \
		$(subst configs/,$(UP_FRAGS)/,$(KERNEL_$*)),$(UP_FRAGS)/upstream.config

# The stress test alone, STRESS_SECONDS of churn in all (half of it with
# fault injection), in the test or the debug kernel; prints its table.
STRESS_SECONDS ?= 600
STRESS_KERNEL  ?= test
ifneq ($(filter stress,$(MAKECMDGOALS)),)
ifeq ($(filter test debug,$(STRESS_KERNEL)),)
$(error STRESS_KERNEL must be test or debug)
endif
endif
stress: check-deps kernel-$(STRESS_KERNEL)
	@harness/selftests.sh $(TREE) $(B)/kernel-$(STRESS_KERNEL) $(B)/selftests-$(STRESS_KERNEL)
	@STRESS_COMMAND="make stress STRESS_SECONDS=$(STRESS_SECONDS) STRESS_KERNEL=$(STRESS_KERNEL)" \
		$(PY) harness/stress.py --tree $(TREE) --kernel $(B)/kernel-$(STRESS_KERNEL) \
		--selftests $(B)/selftests-$(STRESS_KERNEL) \
		--out $(B)/stress-$(STRESS_KERNEL) --seconds $(STRESS_SECONDS)

# checkpatch --strict on each patch of the series, as a maintainer runs
# it. From outside the repo: in a git checkout checkpatch takes a tracked
# *.patch for a source file. Its CamelCase check knows the page flag
# helpers (SetPageDirty()) but not the page type ones (__SetPageOffline(),
# which balloon drivers call): CHECKPATCH_ARGS leaves that check out. The
# bases are source packages without upstream's history, so checkpatch
# cannot look up an upstream commit a patch names (UNKNOWN_COMMIT_ID).
export CHECKPATCH_ARGS := --strict --no-tree --quiet --ignore CAMELCASE,UNKNOWN_COMMIT_ID
checkpatch: tree
	@cd / && fail=0; for f in $$(sed 's/#.*//' $(CURDIR)/$(BASE_DIR)/patches/series); do \
		$(CURDIR)/$(TREE)/scripts/checkpatch.pl $(CHECKPATCH_ARGS) $(CURDIR)/$(BASE_DIR)/patches/$$f || fail=1; \
	done; exit $$fail

clean:
	rm -rf $(B)
