#!/usr/bin/python3
"""Boot a test kernel under QEMU, read its verdict, and summarize.

  ktest.py boot --name N (--kernel IMAGE --initrd CPIO | --firmware FW)
                --outdir DIR [--arch DEBARCH] [--dtb DTB]
                [--mode check|run|shell|bench] [--timeout S] [--kvm]
                [--smp N] [--icount] [--tcg-single] [--cpu MODEL]
                [--append ARGS] [--drive DISK]... [--kunit-tool TREE]
      Boots once, on the QEMU machine of DEBARCH (a Debian architecture,
      default amd64; see MACHINES). The console (ttyS0 on x86) goes to
      DIR/console.log, the results channel (ttyS1 on x86; the guest's /init
      finds it as harness.results=) to DIR/results.txt. Writes
      DIR/verdict.json and prints
      every failure with the lines that caused it. Exit 1 on any failure.
      --icount: QEMU counts instructions (one per guest nanosecond) and
      runs the CPUs in turn, so the guest's clock measures work done.
      --tcg-single: the CPUs in turn in one thread, for a guest that
      rewrites its code while the others run: QEMU 7.2's threaded TCG
      can keep running a stale translation of a byte that text_poke
      changed (its int3), and the guest then loops on it for ever.
      --kunit-tool TREE: the kernel's own KTAP parser (TREE's
      tools/testing/kunit/kunit.py parse) reads the same console and
      must find the same KUnit results (the test kunit-tool.parse).
  ktest.py analyze --name N --console LOG --results TXT [--timed-out]
      The same analysis on saved logs (used by the harness's own tests).
  ktest.py summary VERDICT.json...
      Prints each failure, then "N passed, N failed" (", N skipped" if any)
      as the last line. Exit 1 if anything failed.
"""

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

DONE_MARK = '# harness: done'

# Console lines that mean the kernel is not healthy, whatever the tests said.
SPLAT_PATTERNS = [
    r'WARNING:',
    r'BUG:',
    r'kernel BUG at',
    r'Oops',
    r'general protection fault',
    r'KASAN:',
    r'UBSAN:',
    r'KFENCE:',
    r'possible circular locking',
    r'possible recursive locking',
    r'inconsistent lock state',
    r'suspicious RCU usage',
    r'lock held when returning to user space',
    r'INFO: task .* blocked for more than',
    r'Kernel panic',
    r'Call [Tt]race:',
]
SPLAT_RE = re.compile('|'.join(SPLAT_PATTERNS))
# Lines the splat patterns would catch that are harmless by construction.
SPLAT_IGNORE_RE = re.compile(r'^\s*#|harness: ')

TIMESTAMP_RE = re.compile(r'^\[\s*\d+\.\d+\]\s?')
RESULT_RE = re.compile(
    r'^(?P<indent>\s*)(?P<ok>ok|not ok) (?P<num>\d+)(?: -)? ?(?P<name>[^#]*?)'
    r'\s*(?:#\s*(?P<directive>\S+)(?P<reason>.*))?$')
PLAN_RE = re.compile(r'^(?P<indent>\s*)1\.\.(?P<count>\d+)\s*$')
SUBTEST_RE = re.compile(r'^(?P<indent>\s*)# Subtest: (?P<name>\S+)')
# A failed check's diagnostic: kselftest's "# file.c:LINE:test:Expected ..."
# and TH_LOG() lines, KUnit's "# case: EXPECTATION FAILED at file.c:LINE".
WHERE_RE = re.compile(r'^\s*#\s*(?P<text>.*\S+\.c:\d+.*)$')


def clean(line):
    """Strip the printk timestamp and line-end junk from a console line."""
    return TIMESTAMP_RE.sub('', line.rstrip('\r\n').replace('\r', ''))


class Verdict:
    def __init__(self, name):
        self.name = name
        self.tests = []      # (name, 'pass'|'fail'|'skip', detail)
        self.problems = []   # boot-level failures: (cause, [lines])

    def add(self, name, status, detail=''):
        self.tests.append((name, status, detail))

    def problem(self, cause, lines=()):
        self.problems.append((cause, list(lines)))

    def counts(self):
        c = {'pass': 0, 'fail': 0, 'skip': 0}
        for _, status, _ in self.tests:
            c[status] += 1
        c['fail'] += len(self.problems)
        return c

    def to_json(self):
        return {'name': self.name, 'tests': self.tests,
                'problems': self.problems}

    @classmethod
    def from_json(cls, data):
        v = cls(data['name'])
        v.tests = [tuple(t) for t in data['tests']]
        v.problems = [(c, list(l)) for c, l in data['problems']]
        return v


def status_of(m):
    directive = (m.group('directive') or '').upper()
    if directive == 'SKIP':
        return 'skip'
    if m.group('ok') == 'ok':
        return 'pass'
    if directive == 'TODO':
        return 'skip'
    return 'fail'


def parse_tap(lines, prefix, verdict, what, stop_when_planned=False):
    """Parse (K)TAP whose nesting is 4-space indentation (KUnit's KTAP).

    Leaf results become tests named PREFIX.suite.case ("# Subtest:" names
    the suites); a failed leaf is detailed with the first two file:line
    diagnostics printed before it. A suite whose plan is not met, or that
    never printed its own result, is reported as truncated. With
    STOP_WHEN_PLANNED, parsing ends once the top-level plan is met (later
    TAP on the console is not KUnit's). Returns the number of lines consumed.
    """
    levels = []
    notes = []

    def level(d):
        while len(levels) <= d + 1:
            levels.append({'plan': None, 'seen': 0, 'name': None})
        return levels[d]

    for i, raw in enumerate(lines):
        line = clean(raw)
        m = SUBTEST_RE.match(line)
        if m:
            level(depth_of(m.group('indent')))['name'] = m.group('name')
            continue
        m = PLAN_RE.match(line)
        if m:
            level(depth_of(m.group('indent')))['plan'] = int(m.group('count'))
            continue
        m = RESULT_RE.match(line)
        if not m:
            m = WHERE_RE.match(line)
            if m:
                notes.append(m.group('text'))
            continue
        d = depth_of(m.group('indent'))
        here = level(d)
        child = levels[d + 1]
        name = m.group('name').strip() or m.group('num')
        path = '.'.join([prefix] + [l['name'] or '?' for l in levels[1:d + 1]]
                        + [name])
        st = status_of(m)
        if child['seen'] == 0:
            detail = (m.group('reason') or '').strip()
            if st == 'fail' and not detail:
                detail = ' | '.join(notes[:2])
            verdict.add(path, st, detail)
        else:
            if child['plan'] is not None and child['seen'] != child['plan']:
                verdict.problem('%s %s: planned %d results, got %d' %
                                (what, path, child['plan'], child['seen']))
            if st == 'fail' and not any(
                    t[1] == 'fail' and t[0].startswith(path + '.')
                    for t in verdict.tests):
                verdict.add(path, 'fail', 'suite failed')
        del levels[d + 1:]
        notes = []
        here['seen'] += 1
        if stop_when_planned and d == 0 and here['seen'] == here['plan']:
            return i + 1
    for d, l in enumerate(levels):
        if d == 0 and l['plan'] is not None and l['seen'] != l['plan']:
            verdict.problem('%s: planned %d results, got %d '
                            '(output truncated?)' % (what, l['plan'],
                                                     l['seen']))
        elif d > 0 and (l['seen'] or l['name']):
            verdict.problem('%s: suite %s never finished (output truncated?)'
                            % (what, l['name'] or '?'))
    return len(lines)


def depth_of(indent):
    return len(indent.expandtabs(4)) // 4


def ktap_section(lines):
    """The console lines from KUnit's top-level KTAP header on."""
    for i, raw in enumerate(lines):
        line = clean(raw)
        if line in ('KTAP version 1', 'TAP version 14'):
            return lines[i:]
    return []


def find_splats(lines, context=12):
    """Return [(first line, [that line and the context after it])]."""
    found = []
    skip_until = -1
    for i, raw in enumerate(lines):
        line = clean(raw)
        if i <= skip_until or SPLAT_IGNORE_RE.search(line):
            continue
        if SPLAT_RE.search(line):
            block = [clean(l) for l in lines[i:i + context]]
            found.append((line, block))
            skip_until = i + context - 1
    return found


def parse_results(text, verdict):
    """Split the results channel into per-program TAP and parse each."""
    lines = text.splitlines()
    if DONE_MARK not in lines:
        verdict.problem('results channel incomplete: no "%s" line '
                        '(guest died or output was cut)' % DONE_MARK,
                        lines[-5:])
    current, body = None, []
    for line in lines:
        m = re.match(r'^# harness: begin (\S+)$', line)
        if m:
            current, body = m.group(1), []
            continue
        m = re.match(r'^# harness: end (\S+) rc=(\d+)$', line)
        if m and current == m.group(1):
            before = len(verdict.tests)
            parse_tap(body, 'kselftest.' + current, verdict,
                      'kselftest ' + current)
            ran = verdict.tests[before:]
            rc = int(m.group(2))
            if not ran:
                verdict.problem('kselftest %s printed no TAP results (rc=%d)'
                                % (current, rc), body[-10:])
            elif rc != 0 and rc != 4 and \
                    not any(t[1] == 'fail' for t in ran):
                verdict.problem('kselftest %s exited %d with no failed test'
                                % (current, rc), body[-10:])
            current = None
            continue
        if current is not None:
            body.append(line)
    if current is not None:
        verdict.problem('kselftest %s did not finish' % current, body[-10:])


def analyze(name, console, results, timed_out=False, timeout=0):
    """Judge one boot from its console log and results-channel text."""
    v = Verdict(name)
    lines = console.splitlines()
    if timed_out:
        v.problem('guest hung: no exit after %ds; last console lines:'
                  % timeout, [clean(l) for l in lines[-15:]])
    for first, block in find_splats(lines):
        v.problem('kernel splat on the console: %s' % first, block)
    section = ktap_section(lines)
    if section:
        parse_tap(section, 'kunit', v, 'KUnit', stop_when_planned=True)
    if results is None:
        if not timed_out:
            v.problem('no results channel output')
    else:
        parse_results(results, v)
    return v


# kunit.py parse --json's statuses.
KUNIT_TOOL_STATUS = {'PASS': 'pass', 'FAIL': 'fail', 'SKIP': 'skip'}


def kunit_tool_check(tree, console_log, v):
    """Read CONSOLE_LOG with the kernel's own KTAP parser, TREE's
    `tools/testing/kunit/kunit.py parse`: it must find the KUnit tests of
    @v, each with the same result. A test of its own, kunit-tool.parse;
    nothing when the boot ran no KUnit test."""
    ours = {n[len('kunit.'):]: s for n, s, _ in v.tests
            if n.startswith('kunit.')}
    if not ours:
        return
    theirs = {}

    def walk(group, path):
        for case in group['test_cases']:
            theirs['.'.join(path + [case['name']])] = \
                KUNIT_TOOL_STATUS.get(case['status'], 'fail')
        for sub in group['sub_groups']:
            walk(sub, path + [sub['name']])

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'kunit.json')
        r = subprocess.run([sys.executable, os.path.join(
            tree, 'tools', 'testing', 'kunit', 'kunit.py'), 'parse',
            '--json=' + out, os.path.abspath(console_log)],
            capture_output=True, text=True)
        try:
            with open(out) as f:
                data = json.load(f)
        except (OSError, ValueError):
            v.add('kunit-tool.parse', 'fail', 'kunit.py parse gave no '
                  'results: ' + r.stderr.strip()[-300:])
            return
    for sub in data['sub_groups']:
        walk(sub, [sub['name']])
    differ = ['%s: %s here, %s in kunit.py' % (
        n, ours.get(n, 'absent'), theirs.get(n, 'absent'))
        for n in sorted(set(ours) | set(theirs))
        if ours.get(n) != theirs.get(n)]
    v.add('kunit-tool.parse', 'fail' if differ else 'pass',
          '; '.join(differ[:10]))


def report(v, out=sys.stdout):
    c = v.counts()
    for test, status, detail in v.tests:
        if status == 'fail':
            print('FAIL %s: %s%s' % (v.name, test,
                                      ': ' + detail if detail else ''),
                  file=out)
    for cause, lines in v.problems:
        print('FAIL %s: %s' % (v.name, cause), file=out)
        for l in lines:
            print('    | ' + l, file=out)
    print('%s: %d passed, %d failed, %d skipped' %
          (v.name, c['pass'], c['fail'], c['skip']), file=out)


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


def children_cpu():
    """CPU seconds (user and system) of the waited-for children so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def cmd_boot(args):
    cpu = children_cpu()
    console, results, timed_out, status, elapsed = run_guest(args)
    cpu = children_cpu() - cpu
    v = analyze(args.name, console, results, timed_out, args.timeout)
    if args.kunit_tool:
        kunit_tool_check(args.kunit_tool,
                         os.path.join(args.outdir, 'console.log'), v)
    if not timed_out and status != 0:
        v.problem('qemu exited with status %d' % status)
    with open(os.path.join(args.outdir, 'verdict.json'), 'w') as f:
        json.dump(v.to_json(), f, indent=1)
    # The CPU time says what the guest costs the builds beside it.
    print('%s: guest ran %.0fs (%.0fs of CPU), console log %s' % (
        args.name, elapsed, cpu, os.path.join(args.outdir, 'console.log')))
    report(v)
    return 1 if v.counts()['fail'] else 0


def read(path):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except FileNotFoundError:
        return None


def cmd_analyze(args):
    results = read(args.results) if args.results else None
    v = analyze(args.name, read(args.console) or '', results, args.timed_out,
                args.timeout)
    report(v)
    return 1 if v.counts()['fail'] else 0


def cmd_summary(args):
    total = {'pass': 0, 'fail': 0, 'skip': 0}
    failures = []
    for path in args.verdicts:
        data = read(path)
        if data is None:
            failures.append('FAIL %s: no verdict (step did not run)' % path)
            total['fail'] += 1
            continue
        v = Verdict.from_json(json.loads(data))
        c = v.counts()
        for k in total:
            total[k] += c[k]
        print('  %-24s %4d passed, %d failed, %d skipped' %
              (v.name, c['pass'], c['fail'], c['skip']))
        failures += ['FAIL %s: %s' % (v.name, t[0]) for t in v.tests
                     if t[1] == 'fail']
        failures += ['FAIL %s: %s' % (v.name, p[0]) for p in v.problems]
    for f in failures:
        print(f)
    line = '%d passed, %d failed' % (total['pass'], total['fail'])
    if total['skip']:
        line += ', %d skipped' % total['skip']
    print(line)
    return 1 if total['fail'] else 0


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    add_boot_arguments(sub.add_parser('boot'))
    a = sub.add_parser('analyze')
    a.add_argument('--name', required=True)
    a.add_argument('--console', required=True)
    a.add_argument('--results')
    a.add_argument('--timed-out', action='store_true')
    a.add_argument('--timeout', type=int, default=0)
    s = sub.add_parser('summary')
    s.add_argument('verdicts', nargs='+')
    args = ap.parse_args()
    if args.cmd == 'boot' and not args.firmware and \
            not (args.kernel and args.initrd):
        ap.error('boot: --kernel and --initrd, or --firmware and --drive')
    if args.cmd == 'boot' and args.firmware and not args.drive:
        ap.error('boot: --firmware boots the first --drive: give one')
    return {'boot': cmd_boot, 'analyze': cmd_analyze,
            'summary': cmd_summary}[args.cmd](args)


if __name__ == '__main__':
    sys.exit(main())
