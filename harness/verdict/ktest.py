#!/usr/bin/python3
"""Boot a test kernel under QEMU, read its verdict, and summarize.

  ktest.py boot --name N (--kernel IMAGE --initrd CPIO | --firmware FW)
                --outdir DIR [--arch DEBARCH] [--dtb DTB]
                [--mode check|run|shell|bench] [--timeout S] [--kvm]
                [--smp N] [--icount] [--tcg-single] [--cpu MODEL]
                [--append ARGS] [--drive DISK]... [--kunit-tool TREE]
      Boots once, on the QEMU machine of DEBARCH (a Debian architecture,
      default amd64; see MACHINES in guest/qemu.py). The console (ttyS0 on
      x86) goes to DIR/console.log, the results channel (ttyS1 on x86; the
      guest's /init finds it as harness.results=) to DIR/results.txt.
      Writes DIR/verdict.json and prints every failure with the lines that
      caused it. Exit 1 on any failure.
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
import resource
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..'))
from harness.guest import qemu  # noqa: E402
from harness.verdict import ktap  # noqa: E402
from harness.verdict.splats import find_splats  # noqa: E402


def analyze(name, console, results, timed_out=False, timeout=0):
    """Judge one boot from its console log and results-channel text."""
    v = ktap.Verdict(name)
    lines = console.splitlines()
    if timed_out:
        v.problem('guest hung: no exit after %ds; last console lines:'
                  % timeout, [ktap.clean(l) for l in lines[-15:]])
    for first, block in find_splats(lines):
        v.problem('kernel splat on the console: %s' % first, block)
    section = ktap.ktap_section(lines)
    if section:
        ktap.parse_tap(section, 'kunit', v, 'KUnit', stop_when_planned=True)
    if results is None:
        if not timed_out:
            v.problem('no results channel output')
    else:
        ktap.parse_results(results, v)
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


def children_cpu():
    """CPU seconds (user and system) of the waited-for children so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def cmd_boot(args):
    cpu = children_cpu()
    console, results, timed_out, status, elapsed = qemu.run_guest(args)
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
    ktap.report(v)
    return 1 if v.counts()['fail'] else 0


def cmd_analyze(args):
    results = qemu.read(args.results) if args.results else None
    v = analyze(args.name, qemu.read(args.console) or '', results, args.timed_out,
                args.timeout)
    ktap.report(v)
    return 1 if v.counts()['fail'] else 0


def cmd_summary(args):
    total = {'pass': 0, 'fail': 0, 'skip': 0}
    failures = []
    for path in args.verdicts:
        data = qemu.read(path)
        if data is None:
            failures.append('FAIL %s: no verdict (step did not run)' % path)
            total['fail'] += 1
            continue
        v = ktap.Verdict.from_json(json.loads(data))
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    qemu.add_boot_arguments(sub.add_parser('boot'))
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
