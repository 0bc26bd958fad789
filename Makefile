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

comma := ,

# The kernels (KERNEL_<name>: a base target and Kconfig fragments) and the
# boots (BOOT_<name>: kernel, kselftests, command line) of each base.
include bases/6.1/kernels.mk bases/6.1/boots.mk bases/6.12/check.mk

export $(filter KERNEL_% DEBARCH_% TREE_%,$(.VARIABLES))

.PHONY: all deps check-deps tree tool-tree export series series-check upstream-tree check kunit arches treewide deb deb-boot repo debian-run suites workloads lifecycle checkpatch run shell bench iprofile stress clean help

all: help

help:
	@echo "make check   build the test kernels, boot them, run all tests"
	@echo "make kunit   the KUnit suites under the kernel's own kunit.py run (x86_64)"
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

# What each kind of target installs: harness/build/deps.sh (and the README).
# Programs unpacked rather than installed (busybox, promtool) go in TOOLS.
TOOLS := build/tools
deps: $(B)/.deps

$(B)/.deps: $(BASE_DIR)/pin harness/build/deps.sh harness/build/arch.sh
	harness/build/deps.sh build $(TOOLS)
	@mkdir -p $(B) && touch $@

# What the guests and the tests need (QEMU, busybox, promtool, Sphinx).
check-deps:
	@harness/build/deps.sh check $(TOOLS)

tree: deps
	@$(PY) harness/build/series.py tree $(TARBALL) \
		"$(BASE_PACKAGE) $$(dpkg-query -W -f='$${Version}' $(BASE_PACKAGE))" \
		$(BASE_DIR) $(TREE) $(if $(FORCE),--force)

export:
	@$(PY) harness/build/series.py export $(BASE_DIR) $(TREE)

series: tree
	@$(PY) harness/build/series.py format $(BASE_DIR) $(TREE) $(B)/series

# Each prefix built as KERNEL_series_prof and KERNEL_series_noprof, in a
# worktree of $(TREE) of its own.
series-check: tree
	@SERIES_CHECK_FROM=$(FROM) harness/build/series-check.sh $(TREE) $(B)/series-check

kernel-%: tree
	@DEBARCH=$(DEBARCH_$*) harness/build/build-kernel.sh $(TREE) $(B)/kernel-$* $(KERNEL_$*)

ifeq ($(BASE),6.1)
check: tree check-deps
	@harness/verdict/check.sh $(TREE) $(foreach b,$(CHECK_BOOTS),"$(b)|$(BOOT_$(b))")
else
# The guests take allocinfo and the kselftests from the 6.1 tree.
check: tree check-deps tool-tree
	@harness/verdict/check.sh --base $(TREE) $(TOOL_TREE) \
		$(foreach b,$(CHECK_BOOTS_612),"$(b)|$(BOOT_$(b))")
endif

# The KUnit suites as a kernel developer runs them: the tree's kunit.py on
# its x86_64 QEMU machine, with the suites' lib/alloc_tag.kunitconfig.
kunit: tree check-deps
	@cd $(TREE) && $(PY) tools/testing/kunit/kunit.py run --arch=x86_64 \
		--kunitconfig=lib/alloc_tag.kunitconfig \
		--build_dir=$(abspath $(B))/kunit-x86_64 --jobs=2 --timeout=1200 \
		--make_options="CC=$(abspath harness/build/kcc) gcc"

run shell: kernel-run check-deps
	@harness/guest/initramfs.sh $(B)/run/initramfs.cpio.gz $(TREE)
	@$(PY) harness/verdict/ktest.py boot --name $@ --mode $@ \
		--kernel $(B)/kernel-run/arch/x86/boot/bzImage \
		--initrd $(B)/run/initramfs.cpio.gz --outdir $(B)/$@ \
		--memory 2G --timeout 600 $(if $(KVM),--kvm)

# Every Debian architecture: see ARCHES above. Each boot takes under a
# minute: a hung guest is given 5.
arches: tree
	@harness/build/deps.sh check $(TOOLS) $(ARCHES)
	@CHECK_TIMEOUT=$${CHECK_TIMEOUT:-300} harness/verdict/check.sh --boots-only arches $(TREE) $(foreach b,$(ARCHES_BOOTS),"$(b)|$(BOOT_$(b))")

# The treewide scan, then every file it found compiled under x86_64
# allmodconfig and arm64 defconfig, and arm64 defconfig's image and modules.
treewide: tree
	@mkdir -p $(B)/treewide
	@$(PY) harness/build/treewide.py scan $(TREE) harness/build/treewide.reviewed \
		--json $(B)/treewide/found.json
	@$(PY) harness/build/treewide.py compile $(TREE) $(B)/treewide/found.json \
		$(B)/treewide/x86_64 --arch x86_64 --config allmodconfig
	@$(PY) harness/build/treewide.py compile $(TREE) $(B)/treewide/found.json \
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
	@harness/build/deps.sh deb $(TOOLS) $(DEB_ARCH)
	@DEBARCH=$(DEB_ARCH) TOOLS_DIR=$(TOOLS) TOOL_TREE=$(TOOL_TREE) \
		harness/debian/deb.sh $(TREE) $(DEB_OUT) $(DEB_FLAVOUR_$(DEB_CONFIG))

tool-tree:
	@$(MAKE) --no-print-directory BASE=6.1 tree

# make deb's packages booted in the busybox guest of their architecture:
# the kernel, modules and allocinfo of the packages.
deb-boot: deb
	@harness/build/deps.sh deb-boot $(TOOLS) $(DEB_ARCH)
	@DEBARCH=$(DEB_ARCH) TOOL_TREE=$(TOOL_TREE) harness/debian/deb-boot.sh $(TREE) $(DEB_OUT) \
		$(DEB_OUT)-boot

# A signed apt repository of make deb's packages (REPO_DIR), for a fleet:
# each run adds the packages of the last make deb to it.
REPO_DIR ?= $(B)/repo
repo: deb
	@harness/build/deps.sh repo $(TOOLS)
	@harness/debian/repo.sh $(DEB_OUT) $(REPO_DIR)

# Debian 12's root file systems, made once from the archive, serve every
# base.
DEBIAN_ROOTS := build/debian

# make deb's kernel installed with dpkg on a Debian 12 root file system
# and booted with systemd: the administrator's checks, profiling on and
# off.
debian-run: deb
	@harness/build/deps.sh debian $(TOOLS)
	@harness/debian/root.sh $(DEBIAN_ROOTS)/root.tar
	@harness/debian/run.sh $(DEB_OUT) $(DEBIAN_ROOTS)/root.tar $(B)/debian-run-$(DEB_CONFIG)

# Suites written elsewhere (SUITES, default vm,stress,dkms: the tree's mm
# selftests, stress-ng, DKMS modules of the archive) on Debian 12 booted
# with make deb's kernel, then on Debian's own kernel of the base in the
# same root; allocinfo --check after each.
SUITES ?= vm,stress,dkms
SUITES_ROOT := $(DEBIAN_ROOTS)/suites-root.tar
SUITES_PACKAGES := libelf1,libssl3,dkms,rapiddisk-dkms,dm-writeboost-dkms,iptables-netflow-dkms,iptables,dmsetup,iputils-ping,stress-ng,sudo
suites: deb
	@harness/build/deps.sh debian $(TOOLS)
	@harness/debian/root.sh $(SUITES_ROOT) $(SUITES_PACKAGES)
	@harness/debian/suites.sh $(TREE) $(DEB_OUT) $(SUITES_ROOT) $(B)/suites-$(DEB_CONFIG) $(SUITES)

# Programs written elsewhere (hackbench, perf bench, stress-ng, a DKMS
# module's build) on Debian 12 booted with Debian's own kernel of the base
# and with make deb's (on, booted off, ",compressed" asked), WORKLOADS_BOOTS
# times each under -icount: their instructions, in $(B)/workloads/results.md.
WORKLOADS_ROOT := $(DEBIAN_ROOTS)/workloads-root.tar
WORKLOADS_PACKAGES := rt-tests,linux-perf,stress-ng,dkms,rapiddisk-dkms
WORKLOADS_BOOTS ?= 3
workloads: deb
	@harness/build/deps.sh debian $(TOOLS)
	@harness/debian/root.sh $(WORKLOADS_ROOT) $(WORKLOADS_PACKAGES)
	@harness/debian/workloads.sh $(DEB_OUT) $(WORKLOADS_ROOT) $(B)/workloads $(WORKLOADS_BOOTS)

# The operator's lifecycle on Debian 12 booted through GRUB under UEFI:
# install from make repo's kind of repository, use, apt upgrade to a
# rebuild (DEB_OUT is left with the raised revision), lockdown, remove.
LIFECYCLE_ROOT := $(DEBIAN_ROOTS)/lifecycle-root.tar
LIFECYCLE_PACKAGES := grub-efi-amd64-bin,grub2-common,prometheus-node-exporter,curl
lifecycle: deb
	@harness/build/deps.sh lifecycle $(TOOLS)
	@harness/debian/root.sh $(LIFECYCLE_ROOT) $(LIFECYCLE_PACKAGES)
	@TOOL_TREE=$(TOOL_TREE) harness/debian/lifecycle.sh $(TREE) $(DEB_OUT) $(LIFECYCLE_ROOT) \
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
	@TOOL_TREE=$(TOOL_TREE) harness/bench/debian.sh $(TREE) $(DEB_OUT) $(BENCH_DEBIAN)
	@BENCH_COMMAND="make bench DEBIAN=1$(if $(filter-out 6.1,$(BASE)), BASE=$(BASE))$(if $(BENCH_ARGS), BENCH_ARGS='$(BENCH_ARGS)')" \
		$(PY) harness/bench/bench.py --tree $(TOOL_TREE) --debian $(BENCH_DEBIAN)/debian \
		--ours $(BENCH_DEBIAN)/ours --out $(BENCH_DEBIAN) --icount --rounds 2 \
		$(if $(filter 6.12,$(BASE)),--upstream) \
		$(BENCH_ARGS)
else
bench: check-deps kernel-benchbase kernel-benchprof kernel-benchoff kernel-benchtotal \
		kernel-benchnuma kernel-benchnode $(UP_KERNELS)
	@BENCH_COMMAND="make bench$(if $(ICOUNT), ICOUNT=1)$(if $(UPSTREAM), UPSTREAM=1)$(if $(BENCH_ARGS), BENCH_ARGS='$(BENCH_ARGS)')" \
		$(PY) harness/bench/bench.py --tree $(TREE) --base $(B)/kernel-benchbase \
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
	@harness/build/deps.sh iprofile $(TOOLS)
	@harness/bench/debian.sh $(TREE) $(DEB_OUT) $(BENCH_DEBIAN)
	@IPROFILE_COMMAND="make iprofile DEBIAN=1 PROFILE=$(PROFILE)$(if $(TESTS), TESTS=$(TESTS))" \
		$(PY) harness/bench/iprofile.py --tree $(TREE) \
		--debian $(BENCH_DEBIAN)/debian --ours $(BENCH_DEBIAN)/ours \
		--out $(B)/iprofile-debian --configs $(PROFILE) $(if $(TESTS),--tests $(TESTS))
else
PROFILE ?= 1,3
iprofile: check-deps kernel-benchbase kernel-benchprof kernel-benchoff
	@harness/build/deps.sh iprofile $(TOOLS)
	@IPROFILE_COMMAND="make iprofile PROFILE=$(PROFILE)$(if $(TESTS), TESTS=$(TESTS))" \
		$(PY) harness/bench/iprofile.py --tree $(TREE) \
		--base $(B)/kernel-benchbase --prof $(B)/kernel-benchprof \
		--off $(B)/kernel-benchoff --out $(B)/iprofile --configs $(PROFILE) \
		$(if $(TESTS),--tests $(TESTS))
endif

upstream-tree: tree
	@harness/build/deps.sh upstream $(TOOLS)
	@harness/bench/upstream.sh $(TREE) $(UP_TREE) $(UP_FRAGS) \
		$(filter configs/%,$(subst :, ,$(subst $(comma), ,$(KERNEL_benchoff))))

upkernel-%: upstream-tree
	@harness/build/build-kernel.sh $(UP_TREE) $(B)/upstream/kernel-$* \
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
	@harness/guest/selftests.sh $(TREE) $(B)/kernel-$(STRESS_KERNEL) $(B)/selftests-$(STRESS_KERNEL)
	@STRESS_COMMAND="make stress STRESS_SECONDS=$(STRESS_SECONDS) STRESS_KERNEL=$(STRESS_KERNEL)" \
		$(PY) harness/bench/stress.py --tree $(TREE) --kernel $(B)/kernel-$(STRESS_KERNEL) \
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
