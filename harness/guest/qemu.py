"""The QEMU machines the guests boot on, one per Debian architecture, and
a guest's boot: its console and its results channel."""

import argparse
import os
import re
import subprocess
import time


def harness_option(append, name):
    """VALUE of harness.NAME=VALUE on the command line, or None."""
    m = re.search(r'(?:^|\s)harness\.%s=(\S+)' % name, append)
    return m.group(1) if m else None


def numa_nodes(append):
    """N of harness.numa=N on the command line, or 0."""
    n = harness_option(append, 'numa')
    return int(n) if n and n.isdigit() else 0


def numa_options(nodes, memory, smp):
    """QEMU options for NODES nodes that share the memory and the CPUs
    evenly, one socket each (a socket's CPUs share a cache, which Linux
    wants on one node)."""
    if not nodes:
        return ['-smp', str(smp)]
    size = re.fullmatch(r'(\d+)([MG])', memory)
    mib = int(size.group(1)) * (1024 if size.group(2) == 'G' else 1)
    opts = ['-smp', '%d,sockets=%d' % (smp, nodes)]
    for n in range(nodes):
        cpus = ''.join(',cpus=%d' % c for c in range(n, smp, nodes))
        opts += ['-object', 'memory-backend-ram,id=mem%d,size=%dM' %
                 (n, mib // nodes),
                 '-numa', 'node,nodeid=%d,memdev=mem%d%s' % (n, n, cpus)]
    return opts


class Machine:
    """How one Debian architecture's kernel boots under QEMU: the program
    and machine options, the console, and the results channel: a second
    serial port (SECOND_SERIAL) or a virtio console on the given virtio
    serial device; RESULTS is its name in the guest's /dev."""

    def __init__(self, qemu, options, console, results, virtio_serial=None,
                 max_memory=None, smp=True):
        self.qemu = qemu
        self.options = options
        self.console = console
        self.results = results
        self.virtio_serial = virtio_serial
        self.max_memory = max_memory
        self.smp = smp


MACHINES = {
    'amd64': Machine('qemu-system-x86_64', [], 'ttyS0', 'ttyS1'),
    'i386': Machine('qemu-system-i386', [], 'ttyS0', 'ttyS1'),
    'arm64': Machine('qemu-system-aarch64', ['-M', 'virt', '-cpu', 'cortex-a57'],
                     'ttyAMA0', 'hvc0', 'virtio-serial-device'),
    'armhf': Machine('qemu-system-arm', ['-M', 'virt', '-cpu', 'cortex-a15'],
                     'ttyAMA0', 'hvc0', 'virtio-serial-device'),
    'armel': Machine('qemu-system-arm', ['-M', 'versatilepb'],
                     'ttyAMA0', 'ttyAMA1', max_memory='256M', smp=False),
    'mips64el': Machine('qemu-system-mips64el',
                        ['-M', 'malta', '-cpu', 'MIPS64R2-generic'],
                        'ttyS0', 'ttyS1', max_memory='256M', smp=False),
    'mipsel': Machine('qemu-system-mipsel', ['-M', 'malta'],
                      'ttyS0', 'ttyS1', max_memory='256M', smp=False),
    'ppc64el': Machine('qemu-system-ppc64', ['-M', 'pseries', '-cpu', 'power9'],
                       'hvc0', 'hvc1'),
    's390x': Machine('qemu-system-s390x', ['-M', 's390-ccw-virtio'],
                     'ttysclp0', 'hvc0', 'virtio-serial-ccw'),
}


def qemu_command(args, console_log, results_log):
    m = MACHINES[args.arch]
    # A boot may ask for more memory (harness.memory=) or another CPU
    # model (harness.cpu=) than the defaults.
    memory = m.max_memory or harness_option(args.append, 'memory') or \
        args.memory
    cmd = [m.qemu] + m.options + [
        '-m', str(memory), '-no-reboot', '-display', 'none',
        '-monitor', 'none']
    # With firmware the guest boots from its first disk, through its own
    # bootloader, which gives the kernel its command line.
    if args.firmware:
        cmd += ['-bios', args.firmware]
    else:
        cmd += ['-kernel', args.kernel, '-initrd', args.initrd]
    if args.dtb:
        cmd += ['-dtb', args.dtb]
    if args.gdb:
        cmd += ['-gdb', 'unix:%s,server=on,wait=off' % args.gdb]
    for drive in args.drive or []:
        cmd += ['-drive', 'file=%s,if=virtio,format=raw' % drive]
    if args.kvm:
        cmd += ['-accel', 'kvm', '-cpu', 'host']
    else:
        cmd += ['-accel', 'tcg,thread=single' if args.tcg_single else 'tcg']
        cpu = args.cpu or harness_option(args.append, 'cpu')
        if cpu:
            cmd += ['-cpu', cpu]
        if args.icount:
            cmd += ['-icount', 'shift=0,sleep=off']
    if m.smp:
        cmd += numa_options(numa_nodes(args.append), memory, args.smp)
    append = 'console=%s panic=-1 harness.results=%s harness.mode=%s %s' % (
        m.console, m.results, args.mode, args.append)
    if not args.firmware:
        cmd += ['-append', append.strip()]
    if args.mode in ('check', 'bench'):
        cmd += ['-serial', 'file:' + console_log]
    else:
        cmd += ['-chardev', 'stdio,id=con,signal=off,logfile=' + console_log,
                '-serial', 'chardev:con']
    if m.virtio_serial:
        cmd += ['-device', m.virtio_serial,
                '-chardev', 'file,id=results,path=' + results_log,
                '-device', 'virtconsole,chardev=results']
    else:
        cmd += ['-serial', 'file:' + results_log]
    return cmd


def run_guest(args):
    """Boot once; return (console, results or None, timed out, status, s)."""
    os.makedirs(args.outdir, exist_ok=True)
    console_log = os.path.join(args.outdir, 'console.log')
    results_log = os.path.join(args.outdir, 'results.txt')
    for f in (console_log, results_log):
        if os.path.exists(f):
            os.unlink(f)
    cmd = qemu_command(args, console_log, results_log)
    with open(os.path.join(args.outdir, 'qemu.cmd'), 'w') as f:
        f.write(' '.join(cmd) + '\n')
    timed_out = False
    start = time.time()
    stdin = None if args.mode == 'shell' else subprocess.DEVNULL
    proc = subprocess.Popen(cmd, stdin=stdin)
    try:
        proc.wait(timeout=None if args.mode == 'shell' else args.timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        proc.kill()
        proc.wait()
    elapsed = time.time() - start
    return (read(console_log) or '', read(results_log), timed_out,
            proc.returncode, elapsed)


def read(path):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except FileNotFoundError:
        return None


def add_boot_arguments(b):
    """The arguments of `ktest.py boot`, which run_guest() takes."""
    b.add_argument('--name', required=True)
    b.add_argument('--kernel')
    b.add_argument('--arch', default='amd64', choices=sorted(MACHINES))
    b.add_argument('--dtb', help='device tree for QEMU (-dtb)')
    b.add_argument('--initrd')
    b.add_argument('--firmware', help='boot FIRMWARE (-bios) and the first '
                   '--drive\'s bootloader instead of --kernel and --initrd')
    b.add_argument('--outdir', required=True)
    b.add_argument('--mode', default='check',
                   choices=['check', 'run', 'shell', 'bench'])
    b.add_argument('--timeout', type=int, default=900)
    b.add_argument('--memory', default='1G')
    b.add_argument('--kvm', action='store_true')
    b.add_argument('--smp', type=int, default=2)
    b.add_argument('--icount', action='store_true')
    b.add_argument('--tcg-single', action='store_true',
                   help='run the vCPUs in one host thread (see the top)')
    b.add_argument('--cpu', help='QEMU CPU model under TCG (default qemu64)')
    b.add_argument('--append', default='')
    b.add_argument('--gdb', help='serve QEMU\'s gdbstub on this Unix socket')
    b.add_argument('--kunit-tool', metavar='TREE',
                   help='check the KUnit results with TREE\'s kunit.py '
                   'parse')
    b.add_argument('--drive', action='append',
                   help='raw disk image, a virtio disk of the guest; again '
                   'for another')


def guest_args(**kw):
    """run_guest()'s arguments for a guest started from Python (make bench,
    make stress): `ktest.py boot`'s defaults, then @kw."""
    b = argparse.ArgumentParser()
    add_boot_arguments(b)
    required = ['--%s=' % k for k in ('name', 'kernel', 'initrd', 'outdir')]
    args = b.parse_args(required)
    for k, v in kw.items():
        if not hasattr(args, k):
            raise TypeError('guest_args: no such argument %s' % k)
        setattr(args, k, v)
    return args
