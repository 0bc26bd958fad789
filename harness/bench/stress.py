#!/usr/bin/python3
"""make stress: the alloc_tag stress test for a long while, and its table.

  stress.py --tree TREE --kernel KOUT --selftests DIR --out DIR
            --seconds N [--memory SIZE]

Boots KOUT's kernel once, on 2 CPUs, with the kselftests in DIR (built by
selftests.sh), and runs only alloc_tag's stress_test: its two tests (churn,
then faults) churn for N/2 seconds each. Prints the figures the tests
report, the kernel splats on the console and the tests' verdicts as one
table, and writes it to OUT/results.md; the guest's logs are in OUT.
Exits 1 if a test failed, the kernel splatted or the guest did not finish.
"""

import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..'))
from harness.guest import qemu  # noqa: E402
from harness.verdict import ktap, ktest  # noqa: E402

TESTS = ['churn', 'faults']
FAMILY_RE = re.compile(r'^# stress (\w+): (\S+) allocs (\d+) fails (\d+)$')
FIGURE_RE = re.compile(r'^# stress (\w+): (\S+) (-?\d+)$')
FAMILIES = ['kmalloc', 'kmem_cache', 'pages', 'vmalloc', 'kvmalloc',
            'percpu', 'krealloc', 'kfree_rcu', 'mempool']
# (figure, row label); "must be 0" rows fail the run otherwise.
ROWS = [
    ('seconds', 'seconds of churn'),
    ('allocs', 'allocations, all families'),
    ('frees', 'frees'),
    ('cross-cpu-frees', 'frees on another CPU than the allocation'),
    ('fails', 'allocations that failed'),
    ('faults-slab', 'faults injected by failslab'),
    ('faults-page', 'faults injected by fail_page_alloc'),
    ('toggles', 'vm.mem_profiling toggles'),
    ('reads', 'reads of /proc/allocinfo'),
    ('lines-read', 'lines read, each parsed'),
    ('module-loads', 'test_alloc_tag loaded and unloaded'),
    ('kfence-allocs', 'KFENCE allocations meanwhile'),
    ('raw-negative', 'module lines summed below 0 by the raw per-cpu sum'),
    ('inaccurate-lines', 'module lines marked accurate:no'),
    ('negative', 'negative counters read (must be 0)'),
    ('malformed', 'malformed lines read (must be 0)'),
    ('counters-off', 'counters not back at zero at the end (must be 0)'),
]


def figures(results):
    """{test: {figure: value}} from the "# stress" lines of the results."""
    got = {t: {} for t in TESTS}
    for line in (results or '').splitlines():
        m = FAMILY_RE.match(line)
        if m and m.group(1) in got:
            got[m.group(1)][m.group(2)] = (int(m.group(3)), int(m.group(4)))
            continue
        m = FIGURE_RE.match(line)
        if m and m.group(1) in got:
            got[m.group(1)][m.group(2)] = int(m.group(3))
    return got


def table(got, verdict):
    """The results table in Markdown, one column per test."""
    def row(label, cells):
        return '| %s | %s |' % (label, ' | '.join(cells))

    def cell(test, key):
        v = got[test].get(key)
        return '-' if v is None else str(v)

    lines = [row('', TESTS), '|---|' + '---:|' * len(TESTS)]
    for f in FAMILIES:
        lines.append(row(
            '%s: allocations (failed)' % f,
            ['%d (%d)' % got[t][f] if f in got[t] else '-' for t in TESTS]))
    lines += [row(label, [cell(t, key) for t in TESTS])
              for key, label in ROWS]
    splats = [p for p in verdict.problems
              if p[0].startswith('kernel splat')]
    lines.append(row('kernel splats on the console (must be 0)',
                     [str(len(splats))] * len(TESTS)))
    status = {t: '-' for t in TESTS}
    for name, st, _ in verdict.tests:
        m = re.match(r'kselftest\.alloc_tag\.stress_test\.stress\.(\w+)$',
                     name)
        if m and m.group(1) in status:
            status[m.group(1)] = st
    lines.append(row('test verdict', [status[t] for t in TESTS]))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--tree', required=True)
    ap.add_argument('--kernel', required=True, help='kernel build directory')
    ap.add_argument('--selftests', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--seconds', type=int, required=True,
                    help='churn time of both tests together')
    ap.add_argument('--memory', default='1G')
    args = ap.parse_args()
    if args.seconds < 2:
        ap.error('--seconds must be at least 2')
    os.makedirs(args.out, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    initrd = os.path.join(args.out, 'initramfs.cpio.gz')
    subprocess.run([os.path.join(here, '..', 'guest', 'initramfs.sh'),
                    initrd, args.tree,
                    args.selftests, args.kernel], check=True)
    per_test = args.seconds // 2
    ns = qemu.guest_args(
        name='stress', mode='check',
        kernel=os.path.join(args.kernel, 'arch/x86/boot/bzImage'),
        initrd=initrd, outdir=args.out, timeout=per_test * 2 + 900,
        memory=args.memory, kvm=False, smp=2, icount=False, cpu=None,
        append='kunit.enable=0 harness.tests=alloc_tag:stress_test '
               'alloc_tag_stress.seconds=%d' % per_test)
    print('stress: %s, %d s of churn per test; logs in %s' % (
        args.kernel, per_test, args.out), flush=True)
    console, results, timed_out, status, elapsed = qemu.run_guest(ns)
    v = ktest.analyze('stress', console, results, timed_out, ns.timeout)
    if not timed_out and status != 0:
        v.problem('qemu exited with status %d' % status)
    lines = ['# make stress', '',
             'Command: `%s`; kernel %s; guest %s, 2 CPUs; %.0f s.' % (
                 os.environ.get('STRESS_COMMAND', 'make stress'),
                 os.path.basename(os.path.normpath(args.kernel)),
                 args.memory, elapsed), ''] + table(figures(results), v)
    text = '\n'.join(lines) + '\n'
    with open(os.path.join(args.out, 'results.md'), 'w') as f:
        f.write(text)
    print(text, end='')
    ktap.report(v)
    return 1 if v.counts()['fail'] else 0


if __name__ == '__main__':
    sys.exit(main())
