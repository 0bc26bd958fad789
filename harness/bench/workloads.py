#!/usr/bin/python3
"""make workloads: what profiling costs programs written elsewhere.

  workloads.py --disk IMG --debian VMLINUZ INITRD --ours VMLINUZ INITRD
               --out DIR [--boots N] [--jobs N]

Boots the Debian 12 disk IMG (harness/debian/workloads.sh) with Debian's own
kernel (w1) and with make deb's: profiling on (w2), booted off (w3) and
",compressed" asked (w4); N times each (default 3), --jobs guests at a
time (default 2). Each guest has one CPU under QEMU's -icount shift=0, so
the guest's clock counts instructions; its init (allocprof-workloads)
times each program. Writes DIR/results.md (printed too): per workload the
median over the boots of each kernel, its min-max spread, and the
difference of each of ours from Debian's kernel. Every guest's logs are
in DIR/rN-wK/. Exits 1 if a guest failed, printed a kernel splat, did not
run every workload, read the disk while timed, or did not run the
profiling state it was meant to.
"""

import argparse
import concurrent.futures
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..'))
from harness.guest import qemu  # noqa: E402
from harness.verdict import ktap  # noqa: E402
from harness.verdict.splats import find_splats  # noqa: E402

# Label, what, kernel, command line, profiling state, page tag mode the
# guest must report (the sysctl's value and dmesg's "page tags are ...").
CONFIGS = [
    ('w1', 'Debian\'s own kernel', 'debian', '', 'absent', None),
    ('w2', 'ours, on', 'ours', '', '1', '16-bit indices'),
    ('w3', 'ours, booted off (`sysctl.vm.mem_profiling=0`)', 'ours',
     'sysctl.vm.mem_profiling=0', '0', '16-bit indices'),
    ('w4', 'ours, `,compressed` asked (`sysctl.vm.mem_profiling=1,'
     'compressed`; no room in `page->flags`)', 'ours',
     'sysctl.vm.mem_profiling=1,compressed', '1', '16-bit indices'),
]
# Each program's command is the guest's ("# workload NAME: COMMAND").
WORKLOADS = [
    ('hackbench', 'rt-tests\' hackbench: groups of processes sending '
     'messages over sockets'),
    ('perf-sched-messaging', 'linux-perf\'s version of it'),
    ('perf-mem-memcpy', 'linux-perf\'s memcpy benchmark (user space, '
     'buffers faulted in)'),
    ('stress-ng-fork', 'processes forked and reaped'),
    ('stress-ng-pipe', 'pipe writes and reads'),
    ('stress-ng-sock', 'TCP connections over loopback'),
    ('stress-ng-mmap', 'anonymous and file mappings touched, protected, '
     'synced and unmapped'),
    ('stress-ng-dentry', 'files created, looked up and unlinked on tmpfs'),
    ('dkms-build', 'a DKMS package\'s modules (rapiddisk-dkms) built with '
     'kbuild and gcc against Debian\'s headers, on tmpfs'),
]
RESULT_RE = re.compile(r'^workload (\S+) (\d+) (\d+)$')
COMMAND_RE = re.compile(r'^# workload (\S+): (.*)$')
STATE_RE = re.compile(r'^# profiling: (\S+)$')
MODE_RE = re.compile(r'allocation profiling: page tags (?:are|compressed) '
                     r'(.*?)(?: in page_ext)?:')


class WorkloadError(Exception):
    pass


def boot(args, rnd, cfg):
    label, _, kernel, append, _, _ = cfg
    vmlinuz, initrd = getattr(args, kernel)
    outdir = os.path.join(args.out, 'r%d-%s' % (rnd, label))
    # A disk of its own: QEMU locks an image against a second guest.
    disk = os.path.join(outdir, 'disk.img')
    os.makedirs(outdir, exist_ok=True)
    subprocess.run(['cp', '--sparse=always', args.disk, disk], check=True)
    ns = qemu.guest_args(
        name='r%d-%s' % (rnd, label), mode='bench', kernel=vmlinuz,
        initrd=initrd, outdir=outdir, timeout=args.timeout, memory='2G',
        smp=1, icount=True, tcg_single=True, cpu='max', drive=[disk],
        append='root=/dev/vda ro quiet '
        'init=/usr/local/sbin/allocprof-workloads ' + append)
    console, results, timed_out, status, elapsed = qemu.run_guest(ns)
    os.unlink(disk)
    print('workloads: (%s) round %d: %.0f s' % (label, rnd, elapsed))
    return judge(cfg, console, results, timed_out or status != 0,
                 '(%s) round %d, logs in %s' % (label, rnd, outdir))


def judge(cfg, console, results, failed, where):
    """({workload: instructions}, {workload: command}) of one guest;
    WorkloadError if it failed."""
    _, _, _, _, state, mode = cfg
    if failed or results is None or ktap.DONE_MARK not in results:
        raise WorkloadError('%s: the guest did not finish' % where)
    splats = find_splats(console.splitlines())
    if splats:
        raise WorkloadError('%s: kernel splat: %s' % (where, splats[0][0]))
    lines = results.splitlines()
    states = [m.group(1) for m in map(STATE_RE.match, lines) if m]
    modes = [m.group(1) for m in map(MODE_RE.search, lines) if m]
    if states != [state] or (mode and modes != [mode]):
        raise WorkloadError('%s: expected profiling %s, page tags %s; the '
                            'guest says %s, %s' % (where, state, mode,
                                                   states, modes))
    found = [m.group(1, 2, 3) for m in map(RESULT_RE.match, lines) if m]
    # A wait for the disk would count as instructions.
    reads = ['%s %s sectors' % (w, r) for w, _, r in found if r != '0']
    if reads:
        raise WorkloadError('%s: timed runs read the disk: %s' % (
            where, ', '.join(reads)))
    counts = {w: int(n) for w, n, _ in found}
    commands = dict(m.group(1, 2) for m in map(COMMAND_RE.match, lines) if m)
    missing = [w for w, _ in WORKLOADS if w not in counts]
    if missing:
        failures = [l for l in lines if l.startswith('workload ')
                    and not RESULT_RE.match(l)]
        raise WorkloadError('%s: no count for %s: %s' % (
            where, ', '.join(missing), '; '.join(failures)))
    return counts, commands


def table(samples):
    """The results table: medians, spreads and each kernel's difference."""
    base = 'w1'
    out = ['| workload | ' + ' | '.join('(%s) median (min-max)' % c[0]
                                       for c in CONFIGS) + ' |',
           '|---|' + '---|' * len(CONFIGS)]
    for name, _ in WORKLOADS:
        cells = []
        b = statistics.median(samples[base][name])
        for label, *_ in CONFIGS:
            s = samples[label][name]
            m = statistics.median(s)
            cell = '%.1f (%.1f-%.1f)' % (m / 1e6, min(s) / 1e6, max(s) / 1e6)
            if label != base:
                cell += ' **%+.2f%%**' % ((m / b - 1) * 100)
            cells.append(cell)
        out.append('| %s | %s |' % (name, ' | '.join(cells)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--disk', required=True)
    ap.add_argument('--debian', nargs=2, required=True,
                    metavar=('VMLINUZ', 'INITRD'))
    ap.add_argument('--ours', nargs=2, required=True,
                    metavar=('VMLINUZ', 'INITRD'))
    ap.add_argument('--out', required=True)
    ap.add_argument('--boots', type=int, default=3)
    ap.add_argument('--timeout', type=int, default=1800)
    ap.add_argument('--jobs', type=int, default=2,
                    help='guests at once (default 2)')
    args = ap.parse_args()
    samples = {c[0]: {} for c in CONFIGS}
    commands = {}
    runs = [(rnd, cfg) for rnd in range(1, args.boots + 1) for cfg in CONFIGS]
    # Instruction counts do not depend on the host's load: guests side by side.
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [(cfg[0], pool.submit(boot, args, rnd, cfg))
                   for rnd, cfg in runs]
        failed = False
        for label, future in futures:
            try:
                counts, cmds = future.result()
                commands.update(cmds)
                for name, n in counts.items():
                    samples[label].setdefault(name, []).append(n)
            except WorkloadError as e:
                print('workloads: FAIL %s' % e)
                failed = True
    if failed:
        return 1
    lines = [
        'Millions of instructions per workload (QEMU TCG, `-cpu max`, one '
        'CPU, `-icount shift=0`: the guest clock counts instructions, kernel '
        'and user), median and min-max over %d boots of each kernel, and the '
        'difference of the median from (w1). The programs\' files on tmpfs, '
        'their binaries read into the page cache first: no timed run read '
        'the disk.' % args.boots, '']
    lines += ['- (%s) %s' % (c[0], c[1]) for c in CONFIGS]
    lines += ['']
    lines += ['- %s: %s: `%s`' % (w, what, commands[w])
              for w, what in WORKLOADS]
    lines += [''] + table(samples)
    text = '\n'.join(lines) + '\n'
    print(text, end='')
    with open(os.path.join(args.out, 'results.md'), 'w') as f:
        f.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
