#!/usr/bin/python3
"""Tests of the harness itself: the (K)TAP parser, the splat detector, the
verdict channel, the summary line, the series tree/export round trip, and
make bench's and make workloads' judgement of a guest.

Console logs in testdata/guests/ were recorded from the test kernel
(clean.console) and edited into the failure cases: a failed KUnit case, a
WARN_ON(1) in the middle of a passing run, a console cut mid-suite, and a
boot that hangs in /init.
debian-* were recorded by make debian-run (Debian 12 under systemd),
workloads-* by make workloads' runner (Debian's kernel).

  test_harness.py [--verdict FILE]   (FILE gets the results for the summary)
"""

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.dirname(HERE)
sys.path.insert(0, os.path.dirname(HARNESS))
from harness.bench import bench, iprofile, stress, workloads  # noqa: E402
from harness.build import treewide  # noqa: E402
from harness.guest import qemu  # noqa: E402
from harness.verdict import ktap, ktest, splats  # noqa: E402

LOGS = os.path.join(HERE, 'testdata', 'guests')
DONE = '# harness: kernel 6.1\n# harness: done\n'


def log(name):
    with open(os.path.join(LOGS, name)) as f:
        return f.read()


def statuses(v):
    return {name: status for name, status, _ in v.tests}


class KunitConsole(unittest.TestCase):
    def test_clean_run_counts_every_case(self):
        v = ktest.analyze('t', log('clean.console'), DONE)
        self.assertEqual(v.problems, [])
        self.assertEqual(v.counts(), {'pass': 62, 'fail': 0, 'skip': 0})
        s = statuses(v)
        self.assertEqual(s['kunit.list-kunit-test.list_test_list_init'],
                         'pass')
        self.assertEqual(s['kunit.slub_test.test_clobber_redzone_free'],
                         'pass')
        self.assertEqual(len([n for n in s if n.startswith('kunit.hlist.')]),
                         18)

    def test_failed_case_is_named(self):
        v = ktest.analyze('t', log('kunit-fail.console'), DONE)
        self.assertEqual(v.counts(), {'pass': 61, 'fail': 1, 'skip': 0})
        self.assertEqual(
            statuses(v)['kunit.list-kunit-test.list_test_list_del'], 'fail')
        self.assertEqual(v.problems, [])
        out = io.StringIO()
        ktap.report(v, out)
        self.assertIn('FAIL t: kunit.list-kunit-test.list_test_list_del: '
                      'list_test_list_del: EXPECTATION FAILED at '
                      'lib/list-test.c:101\n', out.getvalue())

    def test_warn_in_passing_run_fails_the_boot(self):
        v = ktest.analyze('t', log('warn.console'), DONE)
        self.assertEqual(v.counts()['pass'], 62)
        self.assertEqual(len(v.problems), 1)
        cause, lines = v.problems[0]
        self.assertEqual(
            cause, 'kernel splat on the console: WARNING: CPU: 0 PID: 1 at '
            'lib/list-test.c:733 hlist_test_unhashed+0x2f/0x40')
        self.assertIn('RIP: 0010:hlist_test_unhashed+0x2f/0x40', lines)
        self.assertEqual(v.counts()['fail'], 1)

    def test_truncated_console_is_reported(self):
        v = ktest.analyze('t', log('truncated.console'), DONE)
        causes = [c for c, _ in v.problems]
        self.assertIn('KUnit: planned 3 results, got 2 (output truncated?)',
                      causes)
        self.assertIn('KUnit: suite slub_test never finished '
                      '(output truncated?)', causes)
        self.assertEqual(statuses(v)['kunit.slub_test.test_first_word'],
                         'pass')
        self.assertEqual(v.counts()['pass'], 60)

    def test_hung_boot_names_the_hang(self):
        v = ktest.analyze('t', log('hung.console'), None, timed_out=True,
                          timeout=900)
        self.assertEqual(len(v.problems), 1)
        cause, lines = v.problems[0]
        self.assertEqual(cause, 'guest hung: no exit after 900s; '
                         'last console lines:')
        self.assertEqual(lines[-1], 'Run /init as init process')

    def test_kselftest_tap_later_on_console_is_not_kunit(self):
        console = log('clean.console') + log('fail.results')
        v = ktest.analyze('t', console, DONE)
        self.assertEqual(v.counts(), {'pass': 62, 'fail': 0, 'skip': 0})


class ResultsChannel(unittest.TestCase):
    def test_pass_and_skip(self):
        v = ktap.Verdict('t')
        ktap.parse_results(log('pass.results'), v)
        self.assertEqual(v.problems, [])
        self.assertEqual(v.tests, [
            ('kselftest.alloc_tag.allocinfo_test.global.header', 'pass', ''),
            ('kselftest.alloc_tag.allocinfo_test.global.mode', 'pass', ''),
            ('kselftest.alloc_tag.allocinfo_test.global.sysctl', 'skip',
             'not built with profiling')])

    def test_failure_and_crash(self):
        v = ktap.Verdict('t')
        ktap.parse_results(log('fail.results'), v)
        s = statuses(v)
        self.assertEqual(s['kselftest.alloc_tag.allocinfo_test.global.header'],
                         'fail')
        self.assertEqual(s['kselftest.alloc_tag.crash_test.global.first'],
                         'pass')
        self.assertEqual(v.tests[0][2],
                         'allocinfo_test.c:40:header:Expected 0 (0) == '
                         'strcmp(line, "allocinfo - version: 1.0\\n") (1)')
        self.assertEqual([c for c, _ in v.problems], [
            'kselftest alloc_tag.crash_test: planned 2 results, got 1 '
            '(output truncated?)',
            'kselftest alloc_tag.crash_test exited 139 with no failed test'])

    def test_missing_done_marker(self):
        v = ktap.Verdict('t')
        ktap.parse_results(log('cut.results'), v)
        causes = [c for c, _ in v.problems]
        self.assertIn('results channel incomplete: no "# harness: done" line '
                      '(guest died or output was cut)', causes)
        self.assertIn('kselftest alloc_tag.allocinfo_test did not finish',
                      causes)

    def test_program_without_tap(self):
        v = ktap.Verdict('t')
        ktap.parse_results('# harness: begin a.b\nsegfault\n'
                            '# harness: end a.b rc=139\n# harness: done\n', v)
        self.assertEqual(v.problems, [
            ('kselftest a.b printed no TAP results (rc=139)', ['segfault'])])

    def test_no_results_channel(self):
        v = ktest.analyze('t', log('clean.console'), None)
        self.assertEqual([c for c, _ in v.problems],
                         ['no results channel output'])


class Splats(unittest.TestCase):
    SAMPLES = [
        'BUG: KASAN: slab-out-of-bounds in foo+0x1/0x2',
        'BUG: kernel NULL pointer dereference, address: 0000000000000008',
        'Oops: 0002 [#1] PREEMPT SMP',
        'kernel BUG at mm/slub.c:123!',
        'WARNING: possible circular locking dependency detected',
        'WARNING: inconsistent lock state',
        'general protection fault, probably for non-canonical address',
        'Kernel panic - not syncing: Attempted to kill init!',
        'BUG: KFENCE: use-after-free read in foo+0x1/0x2',
        'UBSAN: shift-out-of-bounds in lib/foo.c:1:2',
        'INFO: task kworker/0:1:12 blocked for more than 120 seconds.',
    ]

    def test_each_kind_is_caught(self):
        for s in self.SAMPLES:
            found = splats.find_splats(['[    1.000000] ' + s, 'next'])
            self.assertEqual([f for f, _ in found], [s], s)

    def test_harmless_lines_pass(self):
        lines = ['harness: running alloc_tag.x',
                 '# bug_test: pass:1 fail:0',
                 'ok 1 warning_free',
                 'SLUB: HWalign=64, Order=0-3, MinObjects=0, CPUs=2']
        self.assertEqual(splats.find_splats(lines), [])

    def test_one_report_per_splat(self):
        lines = log('warn.console').splitlines()
        self.assertEqual(len(splats.find_splats(lines)), 1)


class Numa(unittest.TestCase):
    def test_nodes_share_memory_and_cpus(self):
        self.assertEqual(qemu.numa_nodes('harness.tests=a harness.numa=2 x'),
                         2)
        self.assertEqual(
            qemu.numa_options(2, '1G', 2),
            ['-smp', '2,sockets=2',
             '-object', 'memory-backend-ram,id=mem0,size=512M',
             '-numa', 'node,nodeid=0,memdev=mem0,cpus=0',
             '-object', 'memory-backend-ram,id=mem1,size=512M',
             '-numa', 'node,nodeid=1,memdev=mem1,cpus=1'])

    def test_one_node_without_the_word(self):
        self.assertEqual(qemu.numa_nodes('xharness.numa=2'), 0)
        self.assertEqual(qemu.numa_nodes(''), 0)
        self.assertEqual(qemu.numa_options(0, '256M', 2), ['-smp', '2'])


class Summary(unittest.TestCase):
    def run_summary(self, verdicts):
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for i, v in enumerate(verdicts):
                p = os.path.join(d, '%d.json' % i)
                if v is not None:
                    with open(p, 'w') as f:
                        json.dump(v.to_json(), f)
                paths.append(p)
            r = subprocess.run([sys.executable,
                                os.path.join(HARNESS, 'verdict', 'ktest.py'),
                                'summary'] + paths, capture_output=True,
                               text=True)
        return r.returncode, r.stdout.splitlines()

    def test_all_passed(self):
        v = ktest.analyze('test', log('clean.console'), DONE)
        rc, out = self.run_summary([v])
        self.assertEqual(rc, 0)
        self.assertEqual(out[-1], '62 passed, 0 failed')

    def test_failures_counted_and_named(self):
        good = ktest.analyze('a', log('clean.console'), DONE)
        bad = ktest.analyze('b', log('warn.console'), DONE)
        rc, out = self.run_summary([good, bad, None])
        self.assertEqual(rc, 1)
        self.assertEqual(out[-1], '124 passed, 2 failed')
        self.assertTrue(any(l.startswith('FAIL b: kernel splat on the '
                                         'console: WARNING:') for l in out))
        self.assertTrue(any('no verdict (step did not run)' in l
                            for l in out))

    def test_skips_are_not_passes(self):
        v = ktap.Verdict('s')
        ktap.parse_results(log('pass.results'), v)
        rc, out = self.run_summary([v])
        self.assertEqual(rc, 0)
        self.assertEqual(out[-1], '2 passed, 0 failed, 1 skipped')


class Series(unittest.TestCase):
    """series.py tree/export/format/verify on a tiny synthetic base."""

    def sh(self, *args, ok=True, cwd=None):
        r = subprocess.run([sys.executable,
                            os.path.join(HARNESS, 'build', 'series.py')]
                           + list(args), capture_output=True, text=True,
                           cwd=cwd)
        if ok:
            self.assertEqual(r.returncode, 0, r.stderr)
        return r

    def git(self, tree, *args):
        return subprocess.run(['git', '-C', tree] + list(args), check=True,
                              capture_output=True, text=True).stdout.strip()

    def write(self, text, *p):
        with open(os.path.join(*p), 'w') as f:
            f.write(text)

    def read(self, *p):
        with open(os.path.join(*p)) as f:
            return f.read()

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        src = os.path.join(d, 'src', 'linux-x')
        os.makedirs(os.path.join(src, 'mm'))
        os.makedirs(os.path.join(src, 'lib'))
        self.write('one\ntwo\nthree\n', src, 'mm', 'slub.c')
        self.write('util\n', src, 'lib', 'util.c')
        # As in Debian's linux-source: everything at the top is ignored.
        self.write('/*\n!/debian/\n', src, '.gitignore')
        self.tarball = os.path.join(d, 'base.tar.xz')
        subprocess.run(['tar', '-cJf', self.tarball, '-C',
                        os.path.join(d, 'src'), 'linux-x'], check=True)
        self.repo = os.path.join(d, 'repo')
        os.makedirs(os.path.join(self.repo, 'patches'))
        self.write('', self.repo, 'patches', 'series')
        self.write('Subject of the series\n\nWhat it does.\n',
                   self.repo, 'patches', 'cover-letter')
        self.tree = os.path.join(d, 'tree')
        self.sh('tree', self.tarball, 'x 1', self.repo, self.tree)
        for k, v in (('user.name', 'A U Thor'),
                     ('user.email', 'author@example.org')):
            self.git(self.tree, 'config', k, v)

    def tearDown(self):
        self.tmp.cleanup()

    def commit(self, msg, *extra):
        self.git(self.tree, 'add', '-A', '-f', '.')
        self.git(self.tree, 'commit', '-q', '-m', msg, *extra)

    def two_patches(self):
        self.write('one\nTWO\nthree\n', self.tree, 'mm', 'slub.c')
        self.commit('mm/slub: shout two')
        self.write('new\n', self.tree, 'lib', 'new.c')
        os.unlink(os.path.join(self.tree, 'lib', 'util.c'))
        self.commit('lib: new.c replaces util.c')
        self.sh('export', self.repo, self.tree)

    def test_export_keeps_the_series_comments(self):
        """Banners stay above the patch they head; one whose patch is gone
        (here reworded) heads the patch that now follows the one before
        it; a new patch comes without one."""
        self.two_patches()
        self.write('# Preparations\n\nmm-slub-shout-two.patch\n'
                   '# Core\nlib-new.c-replaces-util.c.patch  # a note\n'
                   '# The end\n', self.repo, 'patches', 'series')
        self.git(self.tree, 'commit', '-q', '--amend', '-m', 'mm/slub: two')
        self.write('more\n', self.tree, 'lib', 'more.c')
        self.commit('lib: more')
        self.sh('export', self.repo, self.tree)
        self.assertEqual(self.read(self.repo, 'patches', 'series'),
                         '# Preparations\n\nmm-slub-shout-two.patch\n'
                         '# Core\nmm-slub-two.patch\nlib-more.patch\n'
                         '# The end\n')
        # A group whose patches are all gone leaves with them.
        self.write('# A\nmm-slub-shout-two.patch\n# B\nlib-gone.patch\n'
                   '# C\nmm-slub-two.patch\nlib-more.patch\n# D\n'
                   'lib-gone-too.patch\n# The end', self.repo, 'patches',
                   'series')
        self.sh('export', self.repo, self.tree)
        self.assertEqual(self.read(self.repo, 'patches', 'series'),
                         '# A\nmm-slub-shout-two.patch\n# C\n'
                         'mm-slub-two.patch\nlib-more.patch\n# The end\n')
        # Unchanged, it is written back as it is.
        self.git(self.tree, 'commit', '-q', '--amend', '-m', 'lib: more')
        self.write('# P\nmm-slub-shout-two.patch  # note\n# Q\n'
                   'mm-slub-two.patch\nlib-more.patch\n', self.repo,
                   'patches', 'series')
        self.sh('export', self.repo, self.tree)
        self.assertEqual(self.read(self.repo, 'patches', 'series'),
                         '# P\nmm-slub-shout-two.patch  # note\n# Q\n'
                         'mm-slub-two.patch\nlib-more.patch\n')

    def test_round_trip(self):
        self.two_patches()
        self.assertEqual(self.read(self.repo, 'patches', 'series'),
                         'mm-slub-shout-two.patch\n'
                         'lib-new.c-replaces-util.c.patch\n')
        patch = self.read(self.repo, 'patches', 'mm-slub-shout-two.patch')
        self.assertIn('Subject: [PATCH] mm/slub: shout two\n', patch)
        self.assertIn('From: A U Thor <author@example.org>\n', patch)
        self.assertIn('-two\n+TWO\n', patch)
        want = self.git(self.tree, 'rev-parse', 'HEAD')
        # A fresh tree from the series: the same commits, not only the
        # same tree (the repo may be given relative to the directory).
        fresh = os.path.join(self.tmp.name, 'fresh')
        r = self.sh('tree', self.tarball, 'x 1', 'repo', fresh,
                    cwd=self.tmp.name)
        self.assertIn('updated to base + 2 patches', r.stdout)
        self.assertEqual(self.git(fresh, 'rev-parse', 'HEAD'), want)
        self.assertEqual(self.git(fresh, 'log', '--format=%s'),
                         'lib: new.c replaces util.c\nmm/slub: shout two\n'
                         'base: x 1')
        self.assertFalse(os.path.exists(os.path.join(fresh, 'lib',
                                                     'util.c')))
        r = self.sh('tree', self.tarball, 'x 1', self.repo, fresh)
        self.assertIn('up to date', r.stdout)

    def test_format_and_verify(self):
        self.two_patches()
        out = os.path.join(self.tmp.name, 'series')
        self.sh('format', self.repo, self.tree, out)
        self.assertEqual(self.read(out, 'series'),
                         '0001-mm-slub-shout-two.patch\n'
                         '0002-lib-new.c-replaces-util.c.patch\n')
        cover = self.read(out, '0000-cover-letter.patch')
        self.assertIn('Subject: [PATCH 0/2] Subject of the series\n', cover)
        self.assertIn('\nWhat it does.\n', cover)
        self.assertIn('From: A U Thor <author@example.org>\n', cover)
        self.assertIn(' 3 files changed', cover)
        verdict = os.path.join(self.tmp.name, 'v.json')
        self.sh('verify', self.tree, out, verdict)
        with open(verdict) as f:
            self.assertEqual([t[1] for t in json.load(f)['tests']],
                             ['pass', 'pass'])
        # A series that gives another tree fails the check.
        self.write(self.read(out, '0002-lib-new.c-replaces-util.c.patch')
                   .replace('+new\n', '+old\n'),
                   out, '0002-lib-new.c-replaces-util.c.patch')
        r = self.sh('verify', self.tree, out, verdict, ok=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn('not ok series_gives_the_tree_of_make_tree', r.stdout)
        self.assertEqual(self.git(self.tree, 'worktree', 'list').count('\n'),
                         0)

    def test_fixup_is_folded_into_its_patch(self):
        self.two_patches()
        first = self.git(self.tree, 'rev-parse', 'HEAD~1')
        self.write('one\nTWO\nTHREE\n', self.tree, 'mm', 'slub.c')
        self.commit('x', '--fixup=' + first)
        self.sh('export', self.repo, self.tree)
        self.assertEqual(len(os.listdir(os.path.join(self.repo,
                                                     'patches'))), 4)
        patch = self.read(self.repo, 'patches', 'mm-slub-shout-two.patch')
        self.assertIn('-two\n-three\n+TWO\n+THREE\n', patch)
        self.assertEqual(self.git(self.tree, 'log', '--format=%s',
                                  'base..'),
                         'lib: new.c replaces util.c\nmm/slub: shout two')

    def test_refuses_to_lose_edits_or_commits(self):
        self.two_patches()
        self.write('four\n', self.tree, 'mm', 'slub.c')
        r = self.sh('export', self.repo, self.tree, ok=False)
        self.assertIn('edits in %s are not committed' % self.tree, r.stderr)
        r = self.sh('tree', self.tarball, 'x 1', self.repo, self.tree,
                    ok=False)
        self.assertIn('mm/slub.c', r.stderr)
        self.assertIn('commit them and run make export', r.stderr)
        self.assertEqual(self.read(self.tree, 'mm', 'slub.c'), 'four\n')
        self.commit('mm/slub: four')
        r = self.sh('tree', self.tarball, 'x 1', self.repo, self.tree,
                    ok=False)
        self.assertIn('commit them and run make export', r.stderr)
        self.sh('tree', self.tarball, 'x 1', self.repo, self.tree, '--force')
        self.assertEqual(self.read(self.tree, 'mm', 'slub.c'),
                         'one\nTWO\nthree\n')
        self.assertEqual(self.git(self.tree, 'log', '-1', '--format=%s'),
                         'lib: new.c replaces util.c')

    def test_patch_the_series_does_not_name_is_refused(self):
        self.two_patches()
        self.write('', self.repo, 'patches', 'stray.patch')
        r = self.sh('tree', self.tarball, 'x 1', self.repo, self.tree,
                    ok=False)
        self.assertIn('patches/series does not name stray.patch', r.stderr)

    def test_patch_that_no_longer_applies_is_named(self):
        self.two_patches()
        name = 'mm-slub-shout-two.patch'
        self.write(self.read(self.repo, 'patches', name)
                   .replace('-two\n', '-zwei\n'), self.repo, 'patches', name)
        r = self.sh('tree', self.tarball, 'x 1', self.repo,
                    os.path.join(self.tmp.name, 'other'), ok=False)
        self.assertIn('series: %s does not apply' % name, r.stderr)

    def test_base_fixes_go_under_the_series(self):
        self.two_patches()
        series = self.read(self.repo, 'patches', 'series')
        os.makedirs(os.path.join(self.repo, 'patches', 'base'))
        self.write('# fixes of the base\nfix.patch\n',
                   self.repo, 'patches', 'base', 'series')
        self.write('From: A U Thor <author@example.org>\n'
                   'Date: Sat, 5 Dec 2026 18:00:00 +0000\n'
                   'Subject: [PATCH] kernel: a fix of the base\n\n'
                   'Fixes it.\n---\n'
                   'diff --git a/kernel/fix.c b/kernel/fix.c\n'
                   'new file mode 100644\n--- /dev/null\n'
                   '+++ b/kernel/fix.c\n@@ -0,0 +1 @@\n+fixed\n',
                   self.repo, 'patches', 'base', 'fix.patch')
        r = self.sh('tree', self.tarball, 'x 1', self.repo, self.tree)
        self.assertIn('updated to base + 2 patches', r.stdout)
        self.assertEqual(self.git(self.tree, 'log', '--format=%s'),
                         'lib: new.c replaces util.c\nmm/slub: shout two\n'
                         'kernel: a fix of the base\nbase: x 1')
        self.assertEqual(self.read(self.tree, 'kernel', 'fix.c'), 'fixed\n')
        self.assertEqual(self.git(self.tree, 'log', '-1', '--format=%s',
                                  'base'), 'kernel: a fix of the base')
        # The fix is the base's, not the series's.
        self.sh('export', self.repo, self.tree)
        self.assertEqual(self.read(self.repo, 'patches', 'series'), series)
        out = os.path.join(self.tmp.name, 'series')
        self.sh('format', self.repo, self.tree, out)
        self.assertEqual(self.read(out, 'series').count('\n'), 2)
        self.sh('verify', self.tree, out,
                os.path.join(self.tmp.name, 'v.json'))
        # A patch file there that its series does not name is refused.
        self.write('', self.repo, 'patches', 'base', 'stray.patch')
        r = self.sh('tree', self.tarball, 'x 1', self.repo, self.tree,
                    ok=False)
        self.assertIn('patches/base/series does not name stray.patch',
                      r.stderr)


class SeriesCheck(unittest.TestCase):
    """series-check.sh on a tiny tree, with a stand-in build-kernel.sh
    (fails where a file says FAIL) and checkpatch.pl (fails on BAD)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        self.harness = os.path.join(d, 'harness', 'build')
        os.makedirs(self.harness)
        subprocess.run(['cp', os.path.join(HARNESS, 'build', 'series-check.sh'),
                        self.harness], check=True)
        self.calls = os.path.join(d, 'calls')
        self.script('build-kernel.sh',
                    '#!/bin/sh\necho "$2" >>%s\n! grep -rq FAIL "$1/src"\n'
                    % self.calls)
        self.tree = os.path.join(d, 'tree')
        os.makedirs(os.path.join(self.tree, 'scripts'))
        os.makedirs(os.path.join(self.tree, 'src'))
        self.script(os.path.join(self.tree, 'scripts', 'checkpatch.pl'),
                    '#!/bin/sh\nfor f; do :; done\n! grep -q "^+BAD" "$f"\n')
        self.git('init', '-q', '-b', 'work')
        self.commit('base', 'a.c', 'one\n')
        self.git('tag', 'base')
        self.commit('lib: two', 'a.c', 'two\n')
        self.commit('lib: broken', 'b.c', 'FAIL\n')
        self.commit('lib: mended', 'b.c', 'fine\n')
        self.env = dict(os.environ,
                        KERNEL_series_prof='tinyconfig:',
                        KERNEL_series_noprof='tinyconfig:',
                        CHECKPATCH_ARGS='--strict --no-tree --quiet')

    def tearDown(self):
        self.tmp.cleanup()

    def script(self, name, text):
        path = os.path.join(self.harness, name)
        with open(path, 'w') as f:
            f.write(text)
        os.chmod(path, 0o755)

    def git(self, *args):
        return subprocess.run(['git', '-C', self.tree, '-c',
                               'user.name=A', '-c', 'user.email=a@b']
                              + list(args), check=True,
                              capture_output=True, text=True).stdout

    def commit(self, msg, name, text):
        with open(os.path.join(self.tree, 'src', name), 'w') as f:
            f.write(text)
        self.git('add', '-A')
        self.git('commit', '-q', '-m', msg)

    def run_check(self, **env):
        out = os.path.join(self.tmp.name, 'out')
        if os.path.exists(self.calls):
            os.unlink(self.calls)
        r = subprocess.run([os.path.join(self.harness, 'series-check.sh'),
                            self.tree, out], capture_output=True, text=True,
                           env=dict(self.env, **env), cwd=self.tmp.name)
        calls = []
        if os.path.exists(self.calls):
            with open(self.calls) as f:
                calls = [os.path.basename(c) for c in f.read().split()]
        return r, calls

    def test_failures_and_remembered_builds(self):
        r, calls = self.run_check()
        self.assertEqual(r.returncode, 1)
        lines = r.stdout.splitlines()
        self.assertTrue(lines[0].startswith('01 lib: two: prof ok ('))
        self.assertIn('02 lib: broken: prof FAILED (see ', lines[1])
        self.assertIn('noprof FAILED', lines[1])
        self.assertTrue(lines[2].startswith('03 lib: mended: prof ok'))
        self.assertIn('series-check: 3 patches, 2 failures', lines[3])
        self.assertEqual(calls, ['kernel-prof', 'kernel-noprof'] * 3)
        # Commits made again with the same trees: only the prefix that
        # failed is built again; then a new patch, whose style fails.
        self.git('rebase', '-q', '--force-rebase', 'base')
        r, calls = self.run_check()
        self.assertEqual(calls, ['kernel-prof', 'kernel-noprof'])
        self.assertIn('01 lib: two: prof ok (built before), noprof ok '
                      '(built before), checkpatch ok', r.stdout)
        self.commit('lib: bad style', 'c.c', 'BAD\n')
        r, calls = self.run_check()
        self.assertEqual(calls, ['kernel-prof', 'kernel-noprof'] * 2)
        self.assertIn('04 lib: bad style: prof ok (', r.stdout)
        self.assertIn('checkpatch FAILED', r.stdout)
        self.assertIn('4 patches, 3 failures', r.stdout)

    def test_from_a_prefix_on(self):
        # The broken prefix is before 3: not built, so not a failure.
        r, calls = self.run_check(SERIES_CHECK_FROM='3')
        self.assertEqual((r.returncode, calls), (0, ['kernel-prof',
                                                     'kernel-noprof']))
        lines = r.stdout.splitlines()
        self.assertEqual(lines[1], (
            '02 lib: broken: prof not built (SERIES_CHECK_FROM=3), noprof '
            'not built (SERIES_CHECK_FROM=3), checkpatch ok'))
        self.assertTrue(lines[2].startswith('03 lib: mended: prof ok ('))
        self.assertIn('series-check: 3 patches, 0 failures (prefixes '
                      'before 3 not built), ', lines[3])
        r, calls = self.run_check(SERIES_CHECK_FROM='x')
        self.assertEqual((r.returncode, calls), (2, []))
        self.assertIn('expected a prefix number', r.stderr)


class KunitTool(unittest.TestCase):
    """The kernel's own KTAP parser (kunit.py parse) on the same console:
    make tree's tree, build/linux, has it."""
    TREE = os.path.join(HARNESS, '..', 'build', 'linux')

    def check(self, console, change=None):
        v = ktest.analyze('t', log(console), DONE)
        if change:
            v.tests = [(n, change.get(n, st), d) for n, st, d in v.tests]
        ktest.kunit_tool_check(self.TREE, os.path.join(LOGS, console), v)
        return [t for t in v.tests if t[0] == 'kunit-tool.parse']

    def test_agrees_on_a_clean_run(self):
        self.assertEqual(self.check('clean.console'),
                         [('kunit-tool.parse', 'pass', '')])

    def test_agrees_on_a_failed_case(self):
        self.assertEqual(self.check('kunit-fail.console'),
                         [('kunit-tool.parse', 'pass', '')])

    def test_a_different_result_fails(self):
        name = 'kunit.list-kunit-test.list_test_list_del'
        self.assertEqual(self.check('kunit-fail.console', {name: 'pass'}),
                         [('kunit-tool.parse', 'fail',
                           'list-kunit-test.list_test_list_del: pass here, '
                           'fail in kunit.py')])

    def test_nothing_without_kunit(self):
        self.assertEqual(self.check('workloads-debian.console'), [])


class BenchList(unittest.TestCase):
    """bench.py --list: the legend of make bench's tables."""

    def run_bench(self, *args):
        return subprocess.run([sys.executable,
                               os.path.join(HARNESS, 'bench', 'bench.py'), *args],
                              capture_output=True, text=True)

    def test_list(self):
        r = self.run_bench('--list')
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 18 + 5 + 12)
        self.assertEqual(lines[0],
                         '(1) baseline, `CONFIG_MEM_ALLOC_PROFILING=n`')
        self.assertEqual(lines[17], '(18) kernel (17) with '
                         '`CONFIG_MEM_ALLOC_PROFILING_PER_NODE`: every '
                         'allocation also counted on its node')
        self.assertEqual(lines[-1], '(d12) ours, pages not profiled '
                         '(`alloc_tag.families=slab,vmalloc,percpu`)')

    def test_run_needs_tree_and_out(self):
        r = self.run_bench('--base', 'x', '--prof', 'y', '--off', 'z')
        self.assertEqual(r.returncode, 2)
        self.assertIn('--tree and --out are required', r.stderr)

    def test_records(self):
        upstream = [c for c in bench.UPSTREAM_DEBIAN_CONFIGS
                    if c.label == 'd8'][0]
        self.assertEqual(upstream, bench.Config(
            'd8', 'upstream\'s in a memory cgroup, unaccounted', 'ours', '',
            'memcg', '', 'enabled'))


class BenchJudge(unittest.TestCase):
    """make bench's judgement of one guest, on a recorded memcg guest (5)."""
    MEMCG = [c for c in bench.CONFIGS if c.label == '5'][0]
    ON = [c for c in bench.CONFIGS if c.label == '3'][0]

    def judge(self, cfg, console=None, results=None):
        return bench.judge(cfg, 3, console or log('bench-memcg.console'),
                           results or log('bench-memcg.results'), 'guest')

    def test_samples_and_facts(self):
        samples, facts = self.judge(self.MEMCG)
        self.assertEqual(sorted(samples), sorted(t for t, _ in bench.TESTS))
        self.assertTrue(all(len(v) == 3 and min(v) > 0
                            for v in samples.values()))
        # A sample is the line's ns over its ops.
        line = [l for l in log('bench-memcg.console').splitlines()
                if 'alloc_tag_bench: kmalloc ops' in l][0].split()
        self.assertEqual(samples['kmalloc'][0],
                         int(line[line.index('ns') + 1]) /
                         int(line[line.index('ops') + 1]))
        self.assertEqual(facts['page_ext'], 0)
        self.assertIn('kmalloc-64', ' '.join(facts['sections']['slabinfo']))

    def test_other_configuration_is_refused(self):
        with self.assertRaisesRegex(bench.BenchError,
                                    'expected profiling enabled, unaccounted'):
            self.judge(self.ON)

    def test_splat_is_refused(self):
        console = log('bench-memcg.console') + \
            '[    9.000000] BUG: kernel NULL pointer dereference\n'
        with self.assertRaisesRegex(bench.BenchError, 'kernel splat'):
            self.judge(self.MEMCG, console=console)

    def test_missing_measurement_is_refused(self):
        lines = log('bench-memcg.console').splitlines(True)
        console = ''.join(l for l in lines
                          if 'alloc_tag_bench: order2 ops' not in l)
        with self.assertRaisesRegex(bench.BenchError, 'expected 3'):
            self.judge(self.MEMCG, console=console)

    def test_cut_results_are_refused(self):
        results = log('bench-memcg.results').replace(ktap.DONE_MARK, '')
        with self.assertRaisesRegex(bench.BenchError, 'did not finish'):
            self.judge(self.MEMCG, results=results)

    def test_vector_sizes(self):
        self.assertEqual([bench.kmalloc_size(n) for n in
                          (1, 8, 100, 3000, 8192, 8193, 20000)],
                         [8, 8, 128, 4096, 8192, 16384, 32768])
        # 2 slabs of 21 objects: 8 + 42 bytes each, in kmalloc-64.
        sec = {'slabinfo': [
            'slabinfo - version: 2.1',
            '# name <active_objs> <num_objs> <objsize> <objperslab> '
            '<pagesperslab> : tunables <limit> <batchcount> <sharedfactor> '
            ': slabdata <active_slabs> <num_slabs> <sharedavail>',
            'kmalloc-192 40 42 192 21 1 : tunables 0 0 0 : slabdata 2 2 0']}
        self.assertEqual(bench.slab_tag_bytes(sec, 8), 128)

    def test_cell(self):
        self.assertEqual(bench.fmt_cell([1.0, 3.0, 2.0], 1.0),
                         '2.0 [1.0-3.0] +100.0%')
        self.assertEqual(bench.fmt_cell([4.0], None), '4.0 [4.0-4.0]')

    def test_added_table_puts_upstream_beside_ours(self):
        configs = bench.CONFIGS + bench.UPSTREAM_CONFIGS
        # Every test costs 100 in (1) and 200 in (u1); a configuration
        # numbered n adds 10 * n to ours and 11 * n to upstream's, but
        # upstream's (u4) adds less than our (4) on vmalloc.
        samples, facts = {}, {}
        for label, *_ in configs:
            n = int(label.lstrip('u'))
            up = label.startswith('u')
            added = 0 if n == 1 else (11 if up else 10) * n
            samples[label] = {t: [(200 if up else 100) + added] * 2
                              for t, _ in bench.TESTS}
            facts[label] = {'page_ext': 0 if n == 1 else (8 if up else 4)
                            * 262144}
        samples['u4']['vmalloc'] = [200 + 30]
        args = argparse.Namespace(icount=True, memory='1G')
        out = bench.added_table(args, configs, samples, facts)
        self.assertEqual(out[0], '## Added instructions per allocation and '
                         'free, ours and upstream\'s')
        rows = [l for l in out if l.startswith('| (')]
        self.assertEqual([r.split(' ', 2)[1] for r in rows],
                         ['(2)', '(3)', '(4)', '(5)', '(6)', '(7)', '(8)',
                          '(9)', '(10)', '(11)', '(12)', '(13)', '(14)',
                          '(15)', '(16)', '(17)', '(18)', '(u2)', '(u3)',
                          '(u4)', '(u7)'])
        self.assertTrue(rows[1].endswith(' | +30.0 | +30.0 | +30.0 | '
                                         '+30.0 | 4.0 B |'))
        self.assertTrue(rows[19].endswith(' | +44.0 | +44.0 | +44.0 | '
                                          '+30.0 | 8.0 B |'))
        self.assertEqual(out[-5:], [
            '- (%s) against (u%s): kmalloc below, page below, order2 below, '
            'vmalloc %s' % (n, n, 'NOT below' if n == '4' else 'below')
            for n in '2347'] + [
            '- (10) against (u3): kmalloc NOT below, page NOT below, '
            'order2 NOT below, vmalloc NOT below'])


class BenchDebian(unittest.TestCase):
    """make bench DEBIAN=1's tables: against Debian's kernel, the memory
    cgroup rows against Debian's kernel in a memory cgroup."""

    def tables(self, configs, upstream=False):
        """debian_tables of made-up samples: (out, out with two missed)."""
        # Debian's kernel costs 1000 per test, 2000 in a memory cgroup;
        # ours adds 40 on, 5 (0.5%) booted off, 80 on vmalloc.
        samples, facts = {}, {}
        for label, _, kernel, _, setup, *_ in configs:
            cost = 2000 if setup == 'memcg' else 1000
            if kernel == 'ours':
                cost += 5 if label == 'd3' else 40
            samples[label] = {t: [cost - 1, cost + 1] for t, _ in bench.TESTS}
            samples[label]['vmalloc'] = [cost + (40 if kernel == 'ours' and
                                                 label != 'd3' else 0)] * 2
            # Slab objects left out (d11): 100 kB less slab; pages left
            # out (d12): no page_ext, 512 kB more free.
            sections = {'meminfo': ['MemFree: %d kB' % (
                900000 if kernel == 'debian' else
                899512 if label == 'd12' else 899000), 'Slab: %d kB' % (
                15000 if kernel == 'debian' else
                15100 if label == 'd11' else 15200)],
                'possible': ['0'], 'allocinfo-lines': ['3307'],
                'slabinfo': ['kmalloc-192 40 42 192 21 1 : tunables 0 0 0 '
                             ': slabdata 2 2 0']}
            facts[label] = {'page_ext': {'d1': 0, 'd7': 0, 'd9': 0,
                                         'd12': 0,
                                         'd6': 2097152}.get(label, 524288),
                            'sections': sections}
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, 'System.map'), 'w') as f:
                f.write('ffffffff82000000 D __start_alloc_tags\n'
                        'ffffffff82019c28 D __stop_alloc_tags\n')
            args = argparse.Namespace(icount=True, memory='1G', rounds=2,
                                      repeat=3, upstream=upstream)
            out = bench.debian_tables(args, configs, samples, facts,
                                      {'ours': d})
            samples['d3']['kmalloc'] = [1011, 1011]
            samples['d2']['order2'] = [1071, 1071]
            missed = bench.debian_tables(args, configs, samples, facts,
                                         {'ours': d})
        return out, missed

    def test_targets_and_memory(self):
        out, missed = self.tables(bench.DEBIAN_CONFIGS)
        rows = {l.split(' ', 2)[1]: l for l in out if l.startswith('| (')}
        self.assertEqual(len(rows), 12)
        for row in ('slab objects not profiled (d11): `Slab:` after boot, '
                    '(d11) - (d2) | -102400 | -0.010% |',
                    'slab objects not profiled (d11): memory in use after '
                    'boot, (d11) - (d2) | 0 | 0.000% |',
                    'pages not profiled (d12): page_ext (boot log), (d12) - '
                    '(d1) | 0 | 0.000% |',
                    'pages not profiled (d12): memory in use after boot, '
                    '(d12) - (d2) | -524288 | -0.049% |'):
            self.assertIn('| ' + row, out)
        self.assertIn('| 1040.0 [1039.0-1041.0] +40.0 (+4.0%) |', rows['(d2)'])
        # In a memory cgroup, against Debian's kernel in one.
        self.assertIn('| 2040.0 [2039.0-2041.0] +40.0 (+2.0%) |',
                      rows['(d10)'])
        self.assertNotIn('+', rows['(d9)'].split('|', 2)[2])
        self.assertIn('- (d2) on by default, kmalloc: +40.0, target +50: met',
                      out)
        self.assertIn('- (d2) on by default, vmalloc: +80.0, target +300: met',
                      out)
        self.assertIn('- (d3) booted off, page: +0.50%, target +1%: met', out)
        self.assertIn('| tags: the `alloc_tags` section, 3305 call sites '
                      '| 105512 | 0.010% |', out)
        self.assertIn('| page_ext of (d2) (boot log), 2.0 B a page | 524288 '
                      '| 0.049% |', out)
        self.assertIn('| page_ext of (d6) (boot log), 8.0 B a page | 2097152 '
                      '| 0.195% |', out)
        self.assertIn('| memory in use after boot (RAM - `MemFree`), (d2) - '
                      '(d1) | 1024000 | 0.095% |', out)
        self.assertIn('- (d3) booted off, kmalloc: +1.10%, target +1%: '
                      'MISSED', missed)
        self.assertIn('- (d2) on by default, order2: +71.0, target +70: '
                      'MISSED', missed)

    def test_upstream(self):
        """BASE=6.12: upstream's profiling has no ,compressed, ,pointers or
        families; its slab vectors are 16 B per object, no header."""
        out, _ = self.tables(bench.UPSTREAM_DEBIAN_CONFIGS, upstream=True)
        rows = [l.split(' ', 2)[1] for l in out if l.startswith('| (')]
        self.assertEqual(rows, ['(d1)', '(d2)', '(d3)', '(d4)', '(d7)',
                                '(d8)', '(d9)', '(d10)'])
        self.assertTrue([l for l in out if l.startswith(
            '| (d2) upstream\'s, on by default | 1040.0 [1039.0-1041.0] '
            '+40.0 (+4.0%) |')])
        # 2 slabs of kmalloc-192 (21 objects): 336 B each, in kmalloc-512.
        self.assertIn('| slab vectors: 16 B per object (a tag pointer beside '
                      'memory cgroups\' pointer, which a charged slab has '
                      'without profiling too), every slab at boot '
                      '(`/proc/slabinfo` of (d2), kmalloc size classes) | '
                      '1024 | 0.000% |', out)
        self.assertFalse([l for l in out if '(d6)' in l or 'not profiled' in l])
        self.assertIn('- (d2) on by default, kmalloc: +40.0, target +50: met',
                      out)


class InstructionProfile(unittest.TestCase):
    """make iprofile: addresses named from System.map, counted per
    operation, the functions that differ listed largest first."""

    def test_names_and_table(self):
        syms = iprofile.SymbolMap([
            'ffffffff81000000 T _stext',
            'ffffffff81001000 T __kmalloc',
            'ffffffff81001200 t alloc_tag_add_slow',
            'ffffffff81001400 T __kmalloc_noprof',
            'ffffffff81001600 t should_failslab.constprop.0',
            'ffffffff81003000 T kfree',
            'ffffffff81004000 T _etext',
            'ffffffff83000000 T _sinittext',
            'ffffffff84000000 T _einittext',
            'ffffffffc0000000 t kmalloc_loop\t[alloc_tag_bench]',
            'ffffffffc0000100 t page_loop\t[alloc_tag_bench]'])
        self.assertEqual(syms.name(0xffffffff81001010), '__kmalloc')
        self.assertEqual(syms.name(0xffffffff81001200), 'alloc_tag_add_slow')
        self.assertEqual(syms.name(0xffffffff81003008), 'kfree')
        # Past vmlinux's end, only a module's symbol names an address.
        self.assertEqual(syms.name(0xffffffff84000010), '?')
        self.assertEqual(syms.name(0xffffffffc0000010),
                         'kmalloc_loop [alloc_tag_bench]')
        self.assertEqual(syms.name(0xffffffff80000000), '?')
        self.assertEqual(syms.end, 0xffffffff84000000)
        base = iprofile.by_function({0xffffffff81001000: 30,
                                     0xffffffff81001004: 30,
                                     0xffffffff81003000: 60,
                                     0xffffffffc0000010: 3}, syms, 30)
        ours = iprofile.by_function({0xffffffff81001400: 30,
                                     0xffffffff81001200: 90,
                                     0xffffffff81003000: 120,
                                     0xffffffffc0000010: 3}, syms, 30)
        self.assertEqual(base, {'__kmalloc': 2.0, 'kfree': 2.0,
                                'kmalloc_loop [alloc_tag_bench]': 0.1})
        # Ours renames the entry points; gcc names its clones.
        self.assertEqual(iprofile.by_function({0xffffffff81001404: 30,
                                               0xffffffff81001608: 60},
                                              syms, 30),
                         {'__kmalloc': 1.0, 'should_failslab': 2.0})
        rows = iprofile.table('kmalloc', ['1', '3'],
                              {'1': base, '3': ours}, top=2)
        self.assertEqual(rows[2:], [
            '| function | (1) | (3) |', '|---|---|---|',
            '| `alloc_tag_add_slow` | 0.0 | 3.0 (+3.0) |',
            '| `kfree` | 2.0 | 4.0 (+2.0) |',
            '| 1 others | 2.0 | 1.0 |',
            '| **total** | 4.1 | 8.1 (+4.0) |'])


class DebianMemory(unittest.TestCase):
    """make debian-run's memory table, from the boots' `memory` checks."""

    def boot(self, free, slab, page_ext=None, slabs=0, percpu=1000):
        lines = ['# meminfo: MemTotal:        2000000 kB',
                 '# meminfo: MemFree:         %d kB' % free,
                 '# meminfo: Slab:            %d kB' % slab,
                 '# meminfo: SUnreclaim:      10000 kB',
                 '# meminfo: Percpu:          %d kB' % percpu]
        if page_ext is not None:
            lines += ['# page_ext: %d' % page_ext]
            # 64 objects a slab: 16 + 128 bytes each, in kmalloc-192.
            if slabs:
                lines += ['# slabinfo: kmalloc-64 %d %d 64 64 1 : tunables '
                          '0 0 0 : slabdata %d %d 0' % (
                              64 * slabs, 64 * slabs, slabs, slabs)]
            lines += ['# call sites: 3305', '# alloc_tags: 132000']
        with tempfile.NamedTemporaryFile('w', delete=False) as f:
            f.write('\n'.join(['# harness: begin x', 'ok 1 default_target'] +
                              lines + ['ok 2 memory']) + '\n')
        self.addCleanup(os.unlink, f.name)
        return f.name

    def run_table(self, *boots, flags=()):
        return subprocess.run(
            [sys.executable, os.path.join(HARNESS, 'debian', 'memory.py')] +
            list(flags) + ['2048'] + list(boots), capture_output=True,
            text=True, check=True).stdout

    def test_table_and_targets(self):
        out = self.run_table(self.boot(1000000, 30000),
                             self.boot(998000, 30200, 1048576, 200, 1100),
                             self.boot(998500, 30100, 1048576, 0, 1100))
        self.assertIn('| in use (MemTotal - MemFree) | 1000000 | 1002000 '
                      '(+2000) | 1001500 (+1500) |', out)
        self.assertIn('| page_ext | 0 | 1024 (+1024) | 1024 (+1024) |', out)
        self.assertIn('| slab tags (2 B per object, 16 B per slab, every slab '
                      'in `/proc/slabinfo`) | 0 | 37 (+37) | 0 (+0) |', out)
        self.assertIn('| the tags (`alloc_tags` section) | 0 | 128 (+128) '
                      '| 128 (+128) |', out)
        self.assertIn('- page tags: 2.00 B a page of RAM, target 2: met', out)
        # 1024 + 37.5 + 128.9 + 100 kB of 2 GiB
        self.assertIn('- all profiling adds (page_ext, slab tags, tags, '
                      '`Percpu:` on - Debian\'s): 1290 kB, 0.062% of RAM, '
                      'target 0.1%: met', out)
        self.assertIn('- slab tags: 0.12% of `Slab:`, target 1%: met', out)
        out = self.run_table(self.boot(1000000, 30000),
                             self.boot(997000, 30200, 4194304, 2000),
                             self.boot(998500, 30100, 1048576))
        self.assertIn('- page tags: 8.00 B a page of RAM, target 2: MISSED',
                      out)
        # 4096 + 375 + 128.9 kB
        self.assertIn('4599 kB, 0.219% of RAM, target 0.1%: MISSED', out)
        self.assertIn('- slab tags: 1.24% of `Slab:`, target 1%: MISSED',
                      out)

    def test_upstream(self):
        """--upstream: 16 B a slab object, no header; page_ext of 8 B a
        page measured against our targets."""
        out = self.run_table(self.boot(1000000, 30000),
                             self.boot(994000, 30200, 4194304, 200, 1100),
                             self.boot(994500, 30100, 4194304, 0, 1100),
                             flags=['--upstream'])
        self.assertIn('| | Debian\'s kernel | upstream\'s, on | '
                      'upstream\'s, booted off |', out)
        # 200 slabs of 64 objects: 1024 B each.
        self.assertIn('| slab vectors (16 B per object: a tag pointer beside '
                      'memory cgroups\' pointer; every slab in '
                      '`/proc/slabinfo`) | 0 | 200 (+200) | 0 (+0) |', out)
        self.assertIn('Our targets, against upstream\'s profiling:', out)
        self.assertIn('- page tags: 8.00 B a page of RAM, target 2: MISSED',
                      out)

    def test_missing_boot(self):
        out = self.run_table('/nonexistent', self.boot(1, 1, 0),
                             self.boot(1, 1, 0))
        self.assertEqual(out, 'debian-run: memory: a boot recorded no '
                         '/proc/meminfo\n')


class StressTable(unittest.TestCase):
    """make stress's table, from a recorded run of the stress test."""

    def table(self, console=None, results=None):
        results = results or DONE + log('stress.results')
        v = ktest.analyze('stress', console or log('clean.console'), results)
        return v, stress.table(stress.figures(results), v)

    def row(self, lines, label):
        rows = [l for l in lines if l.startswith('| %s |' % label)]
        self.assertEqual(len(rows), 1, label)
        return rows[0]

    def test_figures_of_both_tests(self):
        got = stress.figures(log('stress.results'))
        self.assertEqual(got['churn']['toggles'], 12518)
        self.assertEqual(got['faults']['faults-slab'], 1576240)
        self.assertEqual(got['faults']['kmalloc'], (1826090, 202699))
        self.assertEqual(len(got['churn']), len(got['faults']))

    def test_rows(self):
        v, lines = self.table()
        self.assertEqual(lines[0], '|  | churn | faults |')
        self.assertEqual(self.row(lines, 'kmalloc: allocations (failed)'),
                         '| kmalloc: allocations (failed) | 11294682 (0) | '
                         '1826090 (202699) |')
        self.assertEqual(self.row(lines, 'vm.mem_profiling toggles'),
                         '| vm.mem_profiling toggles | 12518 | 12517 |')
        self.assertEqual(self.row(lines, 'counters not back at zero at the '
                                  'end (must be 0)')[-9:], '| 0 | 0 |')
        self.assertEqual(self.row(lines, 'kernel splats on the console '
                                  '(must be 0)')[-9:], '| 0 | 0 |')
        self.assertEqual(self.row(lines, 'test verdict')[-15:],
                         '| pass | pass |')
        self.assertEqual(v.counts()['fail'], 0)

    def test_failure_and_splat_show(self):
        results = DONE + log('stress.results').replace(
            'ok 2 stress.faults', 'not ok 2 stress.faults')
        v, lines = self.table(console=log('warn.console'), results=results)
        self.assertEqual(self.row(lines, 'test verdict')[-15:],
                         '| pass | fail |')
        self.assertNotEqual(self.row(lines, 'kernel splats on the console '
                                     '(must be 0)')[-9:], '| 0 | 0 |')
        self.assertLess(1, v.counts()['fail'])

    def test_missing_figure_is_a_dash(self):
        results = DONE + log('stress.results').replace(
            '# stress faults: toggles 12517\n', '')
        _, lines = self.table(results=results)
        self.assertEqual(self.row(lines, 'vm.mem_profiling toggles'),
                         '| vm.mem_profiling toggles | 12518 | - |')


class Treewide(unittest.TestCase):
    """The scan for uses of converted names that are not plain calls."""

    def kind(self, code, name='kmalloc'):
        m = next(m for m in __import__('re').finditer(r'\b%s\b' % name, code))
        return treewide.classify(code, name, m.start(), m.end())

    def test_classify(self):
        self.assertIsNone(self.kind('p = kmalloc(4, GFP_KERNEL);'))
        self.assertIsNone(self.kind('\treturn kmalloc(n, gfp);'))
        self.assertIsNone(self.kind('.kmalloc = my_kmalloc,'))
        self.assertEqual(self.kind('ops.alloc = kmalloc;'), 'value')
        self.assertEqual(self.kind('f(&kmalloc);'), 'value')
        self.assertEqual(self.kind('EXPORT_SYMBOL(kmalloc);'), 'value')
        self.assertEqual(self.kind('#define my_alloc kmalloc'), 'value')
        self.assertEqual(self.kind('p = ops->kmalloc(4, gfp);'), 'member call')
        self.assertEqual(self.kind('void *(*kmalloc)(size_t);'),
                         'pointer named')
        self.assertEqual(self.kind('x = test_ ## kmalloc;'), 'pasted')
        self.assertEqual(self.kind('void * __weak kmalloc(size_t s)'),
                         'declared')
        self.assertEqual(self.kind('kmalloc(size_t s, gfp_t g)'), 'declared')
        self.assertEqual(self.kind('#undef kmalloc'), 'preprocessor')
        self.assertEqual(self.kind('#define kmalloc(s, f) malloc(s)'),
                         'redefined')

    def test_scan_repo(self):
        """A base declaring kmalloc(), the series making it a macro: the
        one value use elsewhere is found, and passes only once reviewed."""
        with tempfile.TemporaryDirectory() as d:
            def write(path, text):
                os.makedirs(os.path.dirname(os.path.join(d, path)),
                            exist_ok=True)
                with open(os.path.join(d, path), 'w') as f:
                    f.write(text)

            def git(*args):
                subprocess.run(['git', '-C', d] + list(args), check=True,
                               capture_output=True)
            write('include/linux/slab.h', 'void *kmalloc(int s);\n')
            write('mm/a.c', 'void *(*f)(int) = kmalloc;\n'
                  '/* kmalloc in a comment */\n'
                  'void g(void) { kmalloc(1); }\n')
            git('init', '-q')
            git('add', '.')
            git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm',
                'base')
            git('branch', 'base')
            write('include/linux/slab.h', 'void *kmalloc_noprof(int s);\n'
                  '#define kmalloc(...) alloc_hooks(kmalloc_noprof(__VA_ARGS__))\n')
            names = treewide.converted_names(d)
            self.assertEqual(names, {'kmalloc': ['include/linux/slab.h']})
            found = treewide.scan(d, set(names), names)
            self.assertEqual([(f['file'], f['line'], f['kind'])
                              for f in found], [('mm/a.c', 1, 'value')])
            reviewed = os.path.join(d, 'reviewed')
            write('reviewed', 'mm/a.c kmalloc value: a test\n')
            self.assertEqual(treewide.read_reviewed(reviewed),
                             {('mm/a.c', 'kmalloc', 'value'): 'a test'})
            out = subprocess.run([sys.executable, os.path.join(HARNESS, 'build', 'treewide.py'),
                                  'scan', d, reviewed], capture_output=True)
            self.assertEqual(out.returncode, 0)
            write('reviewed', 'mm/a.c kmalloc value: a test\n'
                  'mm/b.c kmalloc value: gone\n')
            out = subprocess.run([sys.executable, os.path.join(HARNESS, 'build', 'treewide.py'),
                                  'scan', d, reviewed], capture_output=True)
            self.assertEqual(out.returncode, 1)
            write('reviewed', '')
            out = subprocess.run([sys.executable, os.path.join(HARNESS, 'build', 'treewide.py'),
                                  'scan', d, reviewed], capture_output=True,
                                 text=True)
            self.assertEqual(out.returncode, 1)
            self.assertIn('mm/a.c:1: kmalloc value [NEW]', out.stdout)


    def test_compile_units(self):
        """What compiles each found file on one architecture: a .c file
        itself; a header, the .c files including it (its own directory's
        first), or, if only headers do, theirs; not other architectures'."""
        with tempfile.TemporaryDirectory() as d:
            files = {'arch/x86/include/asm/page.h': '',
                     'arch/x86/mm/a.c': '#include <asm/page.h>\n',
                     'mm/b.c': '#include <asm/page.h>\n',
                     'arch/arm64/mm/c.c': '#include <asm/page.h>\n',
                     'include/asm-generic/nopmd.h': '',
                     'arch/x86/include/asm/pgtable.h':
                         '#include <asm-generic/nopmd.h>\n',
                     'mm/d.c': '# include <asm/pgtable.h>\n',
                     'drivers/x/x.h': '',
                     'drivers/x/x.c': '#include "x.h"\n',
                     'drivers/y/y.c': '#include "x.h"\n'}
            for path, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(d, path)),
                            exist_ok=True)
                with open(os.path.join(d, path), 'w') as f:
                    f.write(text)
            subprocess.run(['git', '-C', d, 'init', '-q'], check=True)
            subprocess.run(['git', '-C', d, 'add', '.'], check=True)
            units = treewide.compile_units(
                d, ['arch/x86/include/asm/page.h', 'drivers/x/x.h',
                    'include/asm-generic/nopmd.h', 'mm/b.c',
                    'arch/arm64/mm/c.c'], 'x86')
            self.assertEqual(units, {
                'arch/x86/include/asm/page.h': ['arch/x86/mm/a.c', 'mm/b.c'],
                'drivers/x/x.h': ['drivers/x/x.c'],
                'include/asm-generic/nopmd.h': ['mm/d.c'],
                'mm/b.c': ['mm/b.c']})


class DebianRun(unittest.TestCase):
    """make debian-run's judgement of a Debian 12 boot: recorded from our
    package (debian-on) and from Debian's own cloud kernel, which has no
    profiling (debian-stock)."""

    def test_our_kernel_passes_on_a_systemd_console(self):
        v = ktest.analyze('debian-on', log('debian-on.console'),
                          log('debian-on.results'))
        self.assertEqual(v.problems, [])
        self.assertEqual(v.counts(), {'pass': 9, 'fail': 0, 'skip': 0})
        self.assertEqual(statuses(v)['kselftest.debian-on.modprobe_lines'],
                         'pass')

    def test_debian_kernel_fails_every_profiling_check(self):
        v = ktest.analyze('debian-stock', '', log('debian-stock.results'))
        failed = sorted(n.split('.')[-1] for n, s in statuses(v).items()
                        if s == 'fail')
        self.assertEqual(failed, ['allocinfo_format', 'allocinfo_root_only',
                                  'allocinfo_tool', 'modprobe_lines',
                                  'sort_g_tail', 'sysctl_d', 'sysrq_m'])
        self.assertEqual(v.counts()['pass'], 2)


class Suites(unittest.TestCase):
    """make suites: run_vmtests.sh's output as TAP (the runner's vm_tap),
    and the summary of our boot against Debian's kernel's."""
    maxDiff = None
    RUNNER = os.path.join(HARNESS, 'guest', 'allocprof-suites')

    def vm_tap(self, text):
        return subprocess.run(['bash', '-c', 'source "$1" && vm_tap',
                               'bash', self.RUNNER], input=text, text=True,
                              capture_output=True, check=True).stdout

    @staticmethod
    def title(cmd):
        t = 'running ' + cmd
        return '-' * len(t) + '\n' + t + '\n' + '-' * len(t) + '\n'

    def test_vm_tap(self):
        out = self.vm_tap(
            self.title('./hugepage-mmap') + 'Returned address is 0x7f\n'
            '[PASS]\n' +
            # A program's own [PASS] does not decide: the last line does.
            self.title('./userfaultfd anon 20 16') + '[PASS]\nbounces: 3\n'
            '[FAIL]\n' +
            self.title('./ksm_tests -N -m 1') + 'not a NUMA system\n'
            '[SKIP]\n' +
            # Dashes of another length are not a title's.
            '---\nrunning nothing\n---\n' +
            self.title('./soft-dirty') + 'killed\n')
        self.assertEqual(out, (
            '# Returned address is 0x7f\n'
            '# [PASS]\n'
            'ok 1 ./hugepage-mmap\n'
            '# [PASS]\n'
            '# bounces: 3\n'
            '# [FAIL]\n'
            'not ok 2 ./userfaultfd anon 20 16\n'
            '# not a NUMA system\n'
            '# [SKIP]\n'
            '# running nothing\n'
            'ok 3 ./ksm_tests -N -m 1 # SKIP not a NUMA system\n'
            '# killed\n'
            'not ok 4 ./soft-dirty # no result\n'
            '1..4\n'))
        v = ktap.Verdict('x')
        ktap.parse_tap(out.splitlines(), 'kselftest.suite-vm', v, 'vm')
        self.assertEqual(v.counts(), {'pass': 1, 'fail': 2, 'skip': 1})
        self.assertEqual(v.problems, [])

    def verdict(self, name, tests, problems=()):
        v = ktap.Verdict(name)
        for t in tests:
            v.add(*t)
        for p in problems:
            v.problem(p)
        path = os.path.join(self.tmp.name, name + '.json')
        with open(path, 'w') as f:
            json.dump(v.to_json(), f)
        return path

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def summary(self, *paths):
        r = subprocess.run([sys.executable,
                            os.path.join(HARNESS, 'debian', 'suites-summary.py')] +
                           list(paths), capture_output=True, text=True)
        return r.returncode, r.stdout

    def test_summary_tells_ours_from_the_base(self):
        ours = self.verdict('suites-ours', [
            ('kselftest.suite-vm../hugepage-mmap', 'pass', ''),
            ('kselftest.suite-vm../hugetlb-madvise', 'fail', 'line 212'),
            ('kselftest.suite-vm../userfaultfd anon 20 16', 'fail', 'x'),
            ('kselftest.suite-vm../soft-dirty', 'skip', ''),
            ('kselftest.allocinfo-check.after_vm', 'pass', ''),
            ('kselftest.suite-dkms.rapiddisk', 'pass', '')])
        theirs = self.verdict('suites-debian', [
            ('kselftest.suite-vm../hugepage-mmap', 'pass', ''),
            ('kselftest.suite-vm../hugetlb-madvise', 'fail', 'line 212'),
            ('kselftest.suite-vm../userfaultfd anon 20 16', 'pass', ''),
            ('kselftest.suite-vm../soft-dirty', 'skip', '')])
        self.assertEqual(self.summary(ours, theirs), (1, (
            "suites: suite-vm: ours 1 passed, 2 failed, 1 skipped; Debian's "
            "kernel 2 passed, 1 failed, 1 skipped\n"
            "  FAIL ./hugetlb-madvise: fails on Debian's kernel too "
            "(line 212)\n"
            "  FAIL ./userfaultfd anon 20 16: ours only (x)\n"
            "suites: allocinfo-check: ours 1 passed, 0 failed, 0 skipped\n"
            "suites: suite-dkms: ours 1 passed, 0 failed, 0 skipped\n"
            "ours: 3 passed, 2 failed, 1 skipped (1 of the failures fails "
            "on Debian's kernel too)\n")))
        # Failures the base shares do not fail the run; a problem does.
        base_only = self.verdict('suites-ours', [
            ('kselftest.suite-vm../hugetlb-madvise', 'fail', 'line 212')])
        self.assertEqual(self.summary(base_only, theirs)[0], 0)
        hung = self.verdict('suites-ours', [], ['guest hung'])
        self.assertEqual(self.summary(hung, theirs), (1, (
            "problem in suites-ours: guest hung\n"
            "ours: 0 passed, 1 failed, 0 skipped (0 of the failures fails "
            "on Debian's kernel too)\n")))


class Workloads(unittest.TestCase):
    """make workloads' judgement of a guest, on a recorded guest of
    Debian's kernel whose build read the disk (before the runner read the
    whole root first), and its table."""
    DEBIAN = workloads.CONFIGS[0]
    ON = workloads.CONFIGS[1]

    def judge(self, cfg, results, console=None):
        return workloads.judge(cfg, console or log('workloads-debian.console'),
                               results, False, 'guest')

    def unread(self):
        return log('workloads-debian.results').replace(
            'workload dkms-build 11903414000 216',
            'workload dkms-build 11903414000 0')

    def test_counts_and_commands(self):
        counts, commands = self.judge(self.DEBIAN, self.unread())
        self.assertEqual(sorted(counts),
                         sorted(w for w, _ in workloads.WORKLOADS))
        self.assertEqual(counts['hackbench'], 662450000)
        self.assertEqual(counts['dkms-build'], 11903414000)
        self.assertEqual(commands['stress-ng-fork'],
                         'stress-ng -q --fork 1 --fork-ops 500')

    def test_disk_read_is_refused(self):
        with self.assertRaisesRegex(workloads.WorkloadError, 'timed runs '
                                    'read the disk: dkms-build 216 sectors'):
            self.judge(self.DEBIAN, log('workloads-debian.results'))

    def test_other_state_is_refused(self):
        with self.assertRaisesRegex(
                workloads.WorkloadError, r"expected profiling 1, page tags "
                r"16-bit indices; the guest says \['absent'\], \[\]"):
            self.judge(self.ON, self.unread())

    def test_failed_program_is_named(self):
        results = self.unread().replace(
            'workload stress-ng-sock 1051750000 0',
            'workload stress-ng-sock failed: stress-ng -q --sock 1')
        with self.assertRaisesRegex(workloads.WorkloadError,
                                    'no count for stress-ng-sock: workload '
                                    'stress-ng-sock failed'):
            self.judge(self.DEBIAN, results)

    def test_cut_run_and_splat_are_refused(self):
        with self.assertRaisesRegex(workloads.WorkloadError, 'did not finish'):
            self.judge(self.DEBIAN, self.unread().replace(ktap.DONE_MARK, ''))
        console = log('workloads-debian.console') + \
            '[   99.000000] BUG: unable to handle page fault\n'
        with self.assertRaisesRegex(workloads.WorkloadError, 'kernel splat'):
            self.judge(self.DEBIAN, self.unread(), console)

    def test_table(self):
        samples = {c[0]: {w: [1000e6, 1010e6, 1020e6]
                          for w, _ in workloads.WORKLOADS}
                   for c in workloads.CONFIGS}
        samples['w2']['hackbench'] = [1050e6, 1005e6, 990.04e6]
        rows = workloads.table(samples)
        self.assertEqual(rows[2], '| hackbench | 1010.0 (1000.0-1020.0) | '
                         '1005.0 (990.0-1050.0) **-0.50%** | 1010.0 '
                         '(1000.0-1020.0) **+0.00%** | 1010.0 (1000.0-1020.0) '
                         '**+0.00%** |')
        self.assertEqual(len(rows), 2 + len(workloads.WORKLOADS))


class TagCensus(unittest.TestCase):
    """tag-census.py on a made-up build: objects compiled by gcc with
    alloc_tags sections, a vmlinux linked from two, a module from one."""

    def compile(self, build, obj, tags, module=False):
        src = os.path.join(build, obj[:-2] + '.c')
        os.makedirs(os.path.dirname(src), exist_ok=True)
        with open(src, 'w') as f:
            # ld defines __start_ and __stop_ of a section named in code.
            f.write('struct t { long a[5]; };\n'
                    'static struct t s[%d] __attribute__((used, '
                    'section("alloc_tags")));\n'
                    'extern struct t __start_alloc_tags[], __stop_alloc_tags[];\n'
                    'long f_%d(void) { return __stop_alloc_tags - __start_alloc_tags; }\n'
                    % (tags, tags))
        cmd = ['gcc', '-c', '-o', os.path.join(build, obj), src] + (['-DMODULE'] if module else [])
        subprocess.run(cmd, check=True)
        with open(os.path.join(os.path.dirname(src), '.%s.cmd' % os.path.basename(obj)), 'w') as f:
            f.write('cmd_%s := %s\n' % (obj, ' '.join(cmd)))

    def test_census(self):
        with tempfile.TemporaryDirectory() as build:
            self.compile(build, 'net/core/a.o', 3)
            self.compile(build, 'net/core/b.o', 1)
            self.compile(build, 'fs/c.o', 2)
            self.compile(build, 'net/mod/d.o', 4, module=True)
            subprocess.run(['gcc', '-nostdlib', '-static', '-Wl,-e,0', '-o',
                            os.path.join(build, 'vmlinux')] +
                           [os.path.join(build, o) for o in ('net/core/a.o', 'net/core/b.o', 'fs/c.o')],
                           check=True)
            subprocess.run(['ld', '-r', '-o', os.path.join(build, 'net/mod/d.ko'),
                            os.path.join(build, 'net/mod/d.o')], check=True)
            with open(os.path.join(build, 'modules.order'), 'w') as f:
                f.write('net/mod/d.ko\n')
            census = os.path.join(HARNESS, 'bench', 'tag-census.py')
            out = subprocess.run([census, '--cpus', '4', build, 'net/', 'fs/c'],
                                 capture_output=True, text=True, check=True).stdout
            self.assertEqual(out.splitlines(), [
                '10 call sites in 4 objects; a tag is 104 bytes with 4 possible CPUs '
                '(in a module, once it is loaded)',
                'net/ built in: 4 call sites in 2 objects; per file 2 tags fewer '
                '(20.0% of all), 208 bytes',
                'net/ in modules: 4 call sites in 1 objects; per file 3 tags fewer '
                '(30.0% of all), 312 bytes',
                'fs/c built in: 2 call sites in 1 objects; per file 1 tags fewer '
                '(10.0% of all), 104 bytes',
                'fs/c in modules: 0 call sites in 0 objects; per file 0 tags fewer '
                '(0.0% of all), 0 bytes'])
            # The objects and the linked tags disagree: an object left out.
            os.remove(os.path.join(build, 'fs/c.o'))
            r = subprocess.run([census, build, 'net/'], capture_output=True, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertEqual(r.stderr, 'tag-census: the objects have 8 tags, '
                             'vmlinux and the modules 10\n')


class CompilerWrapper(unittest.TestCase):
    """harness/build/kcc: what a source includes with .incbin reaches its object
    although ccache holds that object built from earlier contents (a new
    signing key, a relinked kernel's piggy.S, the config in configs.c)."""

    def build(self, cc, src, data):
        with open(os.path.join(self.dir, 'data.bin'), 'wb') as f:
            f.write(data)
        obj = os.path.splitext(src)[0] + '.o'
        subprocess.run(cc + ['gcc', '-Wp,-MMD,.%s.d' % obj, '-c', '-o', obj,
                             src], cwd=self.dir, env=self.env, check=True)
        with open(os.path.join(self.dir, obj), 'rb') as f:
            return f.read()

    def hits(self):
        out = subprocess.run(['ccache', '--print-stats'], env=self.env,
                             capture_output=True, text=True, check=True)
        stats = dict(l.split('\t') for l in out.stdout.splitlines())
        return int(stats['direct_cache_hit'])

    def test_incbin_sources_are_never_cached(self):
        sources = {
            'system_certificates.S': '\t.incbin "data.bin"\n',
            'piggy.S': '\t.section ".rodata..compressed","a"\n'
                       '\t.incbin "data.bin"\n',
            'configs.c': 'asm(".incbin \\"data.bin\\"");\n',
            'other.S': '\t.ascii "no included file"\n',
        }
        kcc = [os.path.join(HARNESS, 'build', 'kcc')]
        with tempfile.TemporaryDirectory() as d:
            self.dir = d
            self.env = dict(os.environ, CCACHE_DIR=os.path.join(d, 'cache'),
                            CCACHE_DEPEND='1')
            for name, text in sources.items():
                with open(os.path.join(d, name), 'w') as f:
                    f.write(text)
            for name in ('system_certificates.S', 'piggy.S', 'configs.c'):
                self.assertIn(b'version 202', self.build(kcc, name,
                                                         b'version 202'))
                self.assertIn(b'version 205', self.build(kcc, name,
                                                         b'version 205'))
            self.assertEqual(0, self.hits())
            # Any other object still goes through ccache.
            self.build(kcc, 'other.S', b'version 202')
            self.assertEqual(0, self.hits())
            self.build(kcc, 'other.S', b'version 205')
            self.assertEqual(1, self.hits())


class Bases(unittest.TestCase):
    """BASE= on make's command line chooses the base; a bad one is refused
    before anything is made."""

    def make(self, *args, env=None):
        r = subprocess.run(['make', '-s', '-C', os.path.join(HARNESS, '..')]
                           + list(args), capture_output=True, text=True,
                           env=dict(os.environ, **(env or {})))
        return r.returncode, r.stdout, r.stderr

    def build_dir(self, *args, env=None):
        rc, out, err = self.make('help', *args, env=env)
        self.assertEqual(rc, 0, err)
        return [line for line in out.splitlines()
                if line.startswith('make clean')]

    def test_default_and_6_12(self):
        self.assertEqual(self.build_dir(), ['make clean   remove build/'])
        self.assertEqual(self.build_dir('BASE=6.12'),
                         ['make clean   remove build/6.12/'])

    def test_the_last_on_the_command_line(self):
        self.assertEqual(self.build_dir('BASE=6.12', 'BASE=6.1'),
                         ['make clean   remove build/'])

    def test_environment_ignored(self):
        self.assertEqual(self.build_dir(env={'BASE': '6.12'}),
                         ['make clean   remove build/'])

    def test_unknown_or_empty(self):
        for base in ('7', '', '6.1 6.12', '../6.1'):
            rc, _, err = self.make('help', 'BASE=' + base)
            self.assertEqual(rc, 2, base)
            self.assertIn('BASE=%s: no such base (bases/: 6.1 6.12)'
                          % base, err)

    def test_target_the_base_lacks(self):
        rc, _, err = self.make('deb', 'check', 'arches', 'stress',
                               'BASE=6.12')
        self.assertEqual(rc, 2)
        self.assertIn('make arches stress is for BASE=6.1 only; BASE=6.12 '
                      'has: tree export check checkpatch deb deb-boot', err)


class Machines(unittest.TestCase):
    """Each Debian architecture's QEMU command: console, results channel."""

    def command(self, arch, drive=None, append='x=1', firmware=None):
        args = qemu.guest_args(arch=arch, kernel='K', initrd='I',
                                append=append, drive=drive,
                                firmware=firmware)
        return qemu.qemu_command(args, 'con.log', 'res.txt')

    def test_guest_args_are_boot_defaults(self):
        # make bench and make stress start guests with these: every
        # argument qemu_command() reads has the boot command's default.
        args = qemu.guest_args(name='g', smp=1, icount=True)
        self.assertEqual((args.name, args.arch, args.mode, args.timeout,
                          args.memory, args.smp, args.icount, args.kvm,
                          args.cpu, args.dtb, args.drive, args.append,
                          args.firmware, args.tcg_single),
                         ('g', 'amd64', 'check', 900, '1G', 1, True, False,
                          None, None, None, '', None, False))
        with self.assertRaisesRegex(TypeError, 'no such argument arc'):
            qemu.guest_args(arc='amd64')

    def test_amd64(self):
        cmd = self.command('amd64')
        self.assertEqual(cmd[0], 'qemu-system-x86_64')
        self.assertIn('console=ttyS0 panic=-1 harness.results=ttyS1 '
                      'harness.mode=check x=1', cmd)
        self.assertEqual(cmd[-4:], ['-serial', 'file:con.log',
                                    '-serial', 'file:res.txt'])

    def test_arm64_virtio_results(self):
        cmd = self.command('arm64')
        self.assertEqual(cmd[:5], ['qemu-system-aarch64', '-M', 'virt',
                                   '-cpu', 'cortex-a57'])
        self.assertIn('console=ttyAMA0 panic=-1 harness.results=hvc0 '
                      'harness.mode=check x=1', cmd)
        self.assertEqual(cmd[-6:], ['-device', 'virtio-serial-device',
                                    '-chardev', 'file,id=results,path=res.txt',
                                    '-device', 'virtconsole,chardev=results'])

    def test_tcg_single(self):
        cmd = self.command('amd64')
        self.assertEqual(cmd[cmd.index('-accel') + 1], 'tcg')
        args = qemu.guest_args(kernel='K', initrd='I', tcg_single=True)
        cmd = qemu.qemu_command(args, 'con.log', 'res.txt')
        self.assertEqual(cmd[cmd.index('-accel') + 1], 'tcg,thread=single')

    def test_no_disk_unless_asked(self):
        self.assertNotIn('-drive', self.command('amd64'))

    def test_virtio_disk(self):
        cmd = self.command('amd64', drive=['d.img', 'e.img'])
        self.assertEqual([cmd[i + 1] for i, a in enumerate(cmd)
                          if a == '-drive'],
                         ['file=d.img,if=virtio,format=raw',
                          'file=e.img,if=virtio,format=raw'])

    def test_firmware_boots_the_disk(self):
        # The disk's bootloader loads the kernel and gives its command line.
        cmd = self.command('amd64', drive=['d.img'], firmware='OVMF.fd')
        self.assertEqual(cmd[cmd.index('-bios') + 1], 'OVMF.fd')
        for option in ('-kernel', '-initrd', '-append'):
            self.assertNotIn(option, cmd)
        self.assertEqual(cmd[-4:], ['-serial', 'file:con.log',
                                    '-serial', 'file:res.txt'])

    def test_boot_asks_for_memory_and_cpu(self):
        cmd = self.command('amd64', append='harness.memory=3G y=2 '
                           'harness.cpu=qemu64,pdpe1gb=on')
        self.assertEqual(cmd[cmd.index('-m') + 1], '3G')
        self.assertEqual(cmd[cmd.index('-cpu') + 1], 'qemu64,pdpe1gb=on')
        cmd = self.command('amd64')
        self.assertEqual(cmd[cmd.index('-m') + 1], '1G')
        self.assertNotIn('-cpu', cmd)

    def test_armel_small_machine(self):
        cmd = self.command('armel')
        self.assertEqual(cmd[cmd.index('-m') + 1], '256M')
        self.assertNotIn('-smp', cmd)


def main():
    verdict_path = None
    if len(sys.argv) == 3 and sys.argv[1] == '--verdict':
        verdict_path = sys.argv[2]
    return ktap.run_unittests(sys.modules[__name__], 'harness', verdict_path)

if __name__ == '__main__':
    sys.exit(main())
