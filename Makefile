# Per-callsite memory allocation profiling for Linux 6.1: build, boot, test.
# See README.md. Everything is built under build/ (git-ignored).

include base.pin

B      := build
TREE   := $(B)/linux
TARBALL = /usr/src/$(BASE_PACKAGE).tar.xz
PY     := /usr/bin/python3

# Kernels: NAME = BASE_TARGET:FRAGMENT,FRAGMENT,... merged in that order.
# kernel:X is the kernel's own kernel/configs/X.
TEST_FRAGS     := configs/guest.config,configs/test.config
KERNEL_test    := tinyconfig:$(TEST_FRAGS),configs/profiling.config,configs/profiling-test.config
KERNEL_nonprof := tinyconfig:$(TEST_FRAGS)
KERNEL_debug   := tinyconfig:$(TEST_FRAGS),configs/profiling.config,configs/profiling-test.config,configs/debug.config
KERNEL_run     := x86_64_defconfig:kernel:kvm_guest.config,configs/guest.config,configs/run.config,configs/profiling.config

# The kernels `make check` builds and boots, in this order, and the
# kselftests each one runs (collection:program,...).
CHECK_KERNELS := test nonprof debug
TESTS_test    := alloc_tag:allocinfo_test
TESTS_nonprof := alloc_tag:noprof_test
TESTS_debug   := alloc_tag:allocinfo_test

.PHONY: all deps tree export check run shell clean kernel-% help

all: help

help:
	@echo "make check   build the test kernels, boot them, run all tests"
	@echo "make run     build the realistic kernel, boot it, run a workload"
	@echo "make shell   the same kernel with an interactive shell"
	@echo "make tree    lay base + overlay into $(TREE) (FORCE=1 discards edits)"
	@echo "make export  write edits in $(TREE) back into the overlay"
	@echo "make clean   remove $(B)/"

deps: $(B)/.deps

$(B)/.deps: base.pin harness/deps.sh
	harness/deps.sh
	@mkdir -p $(B) && touch $@

tree: deps
	@harness/overlay.sh tree $(TARBALL) \
		"$(BASE_PACKAGE) $$(dpkg-query -W -f='$${Version}' $(BASE_PACKAGE))" \
		. $(TREE) $(if $(FORCE),force)

export:
	@harness/overlay.sh export . $(TREE)

kernel-%: tree
	@harness/build-kernel.sh $(TREE) $(B)/kernel-$* $(KERNEL_$*)

check: tree
	@harness/check.sh $(TREE) $(foreach k,$(CHECK_KERNELS),$(k)=$(KERNEL_$(k))=$(TESTS_$(k)))

$(B)/run/initramfs.cpio.gz: harness/initramfs.sh harness/guest/init $(B)/.deps
	harness/initramfs.sh $@

run shell: kernel-run $(B)/run/initramfs.cpio.gz
	@$(PY) harness/ktest.py boot --name $@ --mode $@ \
		--kernel $(B)/kernel-run/arch/x86/boot/bzImage \
		--initrd $(B)/run/initramfs.cpio.gz --outdir $(B)/$@ \
		--memory 2G --timeout 600 $(if $(KVM),--kvm)

clean:
	rm -rf $(B)
