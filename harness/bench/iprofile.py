#!/usr/bin/python3
"""make iprofile: where the instructions of an allocation and its free go.

  iprofile.py --tree TREE --out DIR (--base K --prof K --off K |
              --debian K --ours K) --configs 1,3 [--tests kmalloc,...]
              [--top N]

The kernels and configurations are make bench's (bench.py): a label of
CONFIGS or DEBIAN_CONFIGS names a kernel, its boot arguments, the guest's
setup and the module's parameters. Each kernel boots once to list its
symbols (/proc/kallsyms with nokaslr: Debian's System.map is in its -dbg
package). Each configuration and test then boots one guest (QEMU TCG, one
CPU, gdbstub on a Unix socket, nokaslr), in which alloc_tag_bench runs
the test four times, one loop each; gdb (iprofile-gdb.py) steps every
instruction of the last two loops, counting those on the loop's own
stack (not another task's, nor an interrupt's) and outside the scheduler
(__schedule() is run through), and the one with fewer instructions is
kept (an interrupt's entry only adds). The instructions
are counted per function, the module's own code included, and divided by
the loop's operations, so that they compare with make bench ICOUNT=1's
figures (which also count what the loop amortises: refills, lazy purges).

Prints, per test, every function whose count differs between the
configurations (the first is the baseline), largest difference first, and
writes DIR/LABEL-TEST.json (instructions by address) and DIR/profile.md.
"""

import argparse
import bisect
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..'))
from harness.bench import bench  # noqa: E402
from harness.guest import qemu  # noqa: E402
from harness.verdict import ktap  # noqa: E402

OPS = {'kmalloc': 30, 'page': 16, 'order2': 4, 'vmalloc': 1}
# The module's test runs this many times; the last two are stepped.
REPEAT = 4


class SymbolMap:
    """Text symbols of /proc/kallsyms, to name an address."""

    def __init__(self, lines):
        syms = []
        self.addr = {}
        for line in lines:
            f = line.split()
            if len(f) < 3:
                continue
            addr, kind, name = int(f[0], 16), f[1], f[2]
            if len(f) > 3:
                name += ' ' + f[3]
            self.addr.setdefault(name, addr)
            if kind in 'tTwW':
                syms.append((addr, name))
        syms.sort()
        self.starts = [a for a, _ in syms]
        self.names = [n for _, n in syms]
        # vmlinux's text ends with its init text (or before it); modules'
        # text is above. Both symbols are listed without KALLSYMS_ALL.
        self.end = max(self.addr['_etext'], self.addr['_einittext'])

    def name(self, pc):
        i = bisect.bisect_right(self.starts, pc) - 1
        if i < 0 or (pc > self.end) != self.names[i].endswith(']'):
            return '?'
        return self.names[i]


def finit_symbol(syms):
    for name in ('__x64_sys_finit_module', '__do_sys_finit_module'):
        if name in syms.addr:
            return syms.addr[name]
    raise SystemExit('iprofile: no finit_module in the kernel\'s symbols')


def guest(args, name, kdir, kernel, append, gdb=None):
    """Boot @kdir's kernel in bench mode; its results channel, or exit."""
    outdir = os.path.join(args.out, name)
    ns = qemu.guest_args(
        name=name, mode='bench', kernel=bench.image_of(kdir),
        initrd=os.path.join(args.out, 'initramfs-%s.cpio.gz' % kernel),
        outdir=outdir, timeout=args.timeout, memory='1G', kvm=False,
        smp=1, cpu='max', gdb=gdb, append=' '.join(append.split()))
    _, results, timed_out, status, _ = qemu.run_guest(ns)
    if timed_out or status or not results or ktap.DONE_MARK not in results:
        raise SystemExit('iprofile: %s: the guest did not finish, see %s'
                         % (name, outdir))
    return results


def symbols(args, kernel, kdir):
    """The symbols of @kernel, from a guest that ran the module once (kept
    in DIR/kallsyms-KERNEL.txt while the kernel image is older)."""
    path = os.path.join(args.out, 'kallsyms-%s.txt' % kernel)
    if not os.path.exists(path) or os.path.getmtime(path) < \
            os.path.getmtime(bench.image_of(kdir)):
        results = guest(args, 'kallsyms-' + kernel, kdir, kernel,
                        'nokaslr harness.kallsyms=1 harness.bench=loops=1,'
                        'only=kmalloc,cpu=0')
        with open(path, 'w') as f:
            f.write('\n'.join(bench.sections(results).get('kallsyms', [])))
    with open(path) as f:
        return SymbolMap(f.read().splitlines())


def profile(args, cfg, test, kdir, syms):
    """Instructions by address of the quieter of two loops of @test in
    configuration @cfg."""
    label, _, kernel, append, setup, params, _ = cfg
    name = '%s-%s' % (label, test)
    sock = os.path.join(args.out, name + '.sock')
    trace = os.path.join(args.out, name + '.json')
    for f in (sock, trace):
        if os.path.exists(f):
            os.unlink(f)
    mod = 'loops=1,repeat=%d,cpu=0,only=%s' % (REPEAT, test)
    if params:
        mod += ',' + params
    append = 'nokaslr harness.bench=%s %s %s' % (
        mod, 'harness.bench_setup=' + setup if setup else '', append)
    env = dict(os.environ, IPROFILE_SOCKET=sock, IPROFILE_OUT=trace,
               IPROFILE_SKIP=str(2 * (REPEAT - 2)),
               IPROFILE_FINIT='%x' % finit_symbol(syms),
               IPROFILE_KTIME_GET='%x' % syms.addr['ktime_get'],
               IPROFILE_SCHEDULE='%x' % syms.addr['__schedule'],
               IPROFILE_END='%x' % syms.end)
    here = os.path.dirname(os.path.abspath(__file__))
    os.makedirs(os.path.join(args.out, name), exist_ok=True)
    with open(os.path.join(args.out, name, 'gdb.log'), 'w') as log:
        gdb = subprocess.Popen(
            ['gdb', '-batch', '-nx', '-x',
             os.path.join(here, 'iprofile-gdb.py')],
            env=env, stdin=subprocess.DEVNULL, stdout=log,
            stderr=subprocess.STDOUT)
        try:
            guest(args, name, kdir, kernel, append, gdb=sock)
        finally:
            gdb.wait()
    if gdb.returncode or not os.path.exists(trace):
        raise SystemExit('iprofile: %s: gdb failed, see %s' % (
            name, os.path.join(args.out, name, 'gdb.log')))
    with open(trace) as f:
        loops = [{int(a, 16): n for a, n in c.items()} for c in json.load(f)]
    return min(loops, key=lambda c: sum(c.values()))


# What one function is called in either kernel: ours renames the
# allocators' entry points *_noprof; gcc names its clones and parts.
SAME_FUNCTION_RE = re.compile(r'_noprof\b|\.(constprop|isra|part|cold)(\.\d+)?')


def by_function(counts, syms, ops):
    out = {}
    for pc, n in counts.items():
        name = SAME_FUNCTION_RE.sub('', syms.name(pc))
        out[name] = out.get(name, 0) + n / ops
    return out


def table(test, labels, funcs, top):
    """Markdown rows: every function whose count differs from the first
    configuration's, largest difference first (alone: every function,
    largest first), then the totals."""
    base = labels[0]
    names = set()
    for f in funcs.values():
        names.update(f)

    def delta(name):
        if len(labels) == 1:
            return funcs[base][name]
        return max(abs(funcs[l].get(name, 0) - funcs[base].get(name, 0))
                   for l in labels[1:])
    changed = sorted((n for n in names if delta(n) >= 0.05),
                     key=lambda n: (-delta(n), n))
    out = ['### %s (instructions per allocation and free)' % test, '',
           '| function | ' + ' | '.join('(%s)' % l for l in labels) + ' |',
           '|---|' + '---|' * len(labels)]
    for name in changed[:top]:
        cells = []
        for l in labels:
            v = funcs[l].get(name, 0)
            cell = '%.1f' % v
            if l != base:
                cell += ' (%+.1f)' % (v - funcs[base].get(name, 0))
            cells.append(cell)
        out.append('| `%s` | %s |' % (name, ' | '.join(cells)))
    if len(changed) > top:
        rest = changed[top:]
        cells = []
        for l in labels:
            v = sum(funcs[l].get(n, 0) for n in rest)
            cells.append('%.1f' % v)
        out.append('| %d others | %s |' % (len(rest), ' | '.join(cells)))
    totals = [sum(funcs[l].values()) for l in labels]
    out.append('| **total** | %s |' % ' | '.join(
        '%.1f' % t + ('' if l == base else ' (%+.1f)' % (t - totals[0]))
        for l, t in zip(labels, totals)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--tree', required=True)
    ap.add_argument('--out', required=True)
    for k in ('base', 'prof', 'off', 'debian', 'ours'):
        ap.add_argument('--' + k)
    ap.add_argument('--configs', required=True,
                    help='make bench\'s labels, the baseline first')
    ap.add_argument('--tests', default=','.join(OPS))
    ap.add_argument('--top', type=int, default=25)
    ap.add_argument('--timeout', type=int, default=1800)
    args = ap.parse_args()
    kernels = {k: getattr(args, k) for k in ('base', 'prof', 'off',
                                             'debian', 'ours')
               if getattr(args, k)}
    all_configs = {c[0]: c for c in bench.CONFIGS + bench.DEBIAN_CONFIGS}
    labels = args.configs.split(',')
    tests = args.tests.split(',')
    for l in labels:
        if l not in all_configs or all_configs[l][2] not in kernels:
            ap.error('configuration %s: unknown, or its kernel not given' % l)
    for t in tests:
        if t not in OPS:
            ap.error('no test %s (%s)' % (t, ', '.join(OPS)))
    os.makedirs(args.out, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    for name in {all_configs[l][2] for l in labels}:
        subprocess.run([os.path.join(here, '..', 'guest', 'initramfs.sh'),
                        os.path.join(args.out, 'initramfs-%s.cpio.gz' % name),
                        args.tree, '', kernels[name]], check=True)
    syms = {k: symbols(args, k, kernels[k])
            for k in {all_configs[l][2] for l in labels}}
    lines = ['# Instruction profiles', '',
             'Command: `%s`. Two loops of each test stepped with gdb after '
             'two loops of warm-up, the instructions on the loop\'s own stack '
             'counted, the quieter loop kept; per allocation and free.'
             % os.environ.get(
                 'IPROFILE_COMMAND', 'harness/bench/iprofile.py'), '']
    for test in tests:
        funcs = {}
        for l in labels:
            kernel = all_configs[l][2]
            counts = profile(args, all_configs[l], test, kernels[kernel],
                             syms[kernel])
            funcs[l] = by_function(counts, syms[kernel], OPS[test])
            print('iprofile: (%s) %s: %.1f instructions per op' % (
                l, test, sum(funcs[l].values())), flush=True)
        lines += table(test, labels, funcs, args.top) + ['']
    text = '\n'.join(lines)
    with open(os.path.join(args.out, 'profile.md'), 'w') as f:
        f.write(text)
    print(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
