#!/usr/bin/python3
"""Tests of the allocinfo tool (tools/vm/allocinfo.c in the kernel tree) on
the samples in testdata/allocinfo/:

  v1.txt           upstream's version 1.0, lines ending in a space as it
                   prints them, a module line
  v2.txt           version 2.0, two lines with accurate:no, a negative count
  modules.txt      module lines, module:unloaded (a module reloaded while its
                   old copy still holds memory: the same call site twice),
                   the same header line in several compilation units
  old.txt, new.txt two snapshots for --diff
  future.txt       version 2.1 with key:value tokens this tool does not know
  empty.txt, header-only.txt, no-newline.txt
  bad-*.txt        malformed: each one's error is in BAD below

and on inputs made here: a 50,000-line file, an overlong line, a NUL byte,
names that need escaping, every truncation of two samples, and --check's
faults, re-reads (a FIFO serves each read its own report) and coverage
(meminfo, slabinfo, zoneinfo and modules in a directory for --proc). The tool is
built with gcc into a temporary directory (never in the tree: make
export would refuse an uncommitted file); Prometheus output is checked
with promtool ($PROMTOOL, else build/tools/promtool: harness/build/deps.sh check
unpacks it from Debian's prometheus package).

  test_allocinfo_tool.py [--tree TREE] [--verdict FILE]

TREE is the kernel tree with the series ($ALLOCINFO_TREE, else build/linux
of this repo); FILE gets the results for the make check summary.
"""

import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.dirname(HERE)
sys.path.insert(0, os.path.dirname(HARNESS))
from harness.verdict import ktap  # noqa: E402
DATA = os.path.join(HERE, 'testdata', 'allocinfo')
TREE = os.path.abspath(os.environ.get(
    'ALLOCINFO_TREE', os.path.join(HARNESS, '..', 'build', 'linux')))
SOURCE = 'tools/vm/allocinfo.c'
# Unpacked from Debian's prometheus package by harness/build/deps.sh check.
PROMTOOL = os.environ.get('PROMTOOL', os.path.join(HARNESS, '..', 'build',
                                                   'tools', 'promtool'))

tool = None      # the tool, built with -Werror
asan_tool = None  # the same with AddressSanitizer and UBSan
builddir = None


def setUpModule():
    global tool, asan_tool, builddir
    builddir = tempfile.mkdtemp(prefix='allocinfo-test-')
    src = os.path.join(TREE, SOURCE)
    tool = os.path.join(builddir, 'allocinfo')
    asan_tool = os.path.join(builddir, 'allocinfo-asan')
    sanitize = ['-O1', '-g', '-fsanitize=address,undefined',
                '-fno-sanitize-recover=all']
    for out, flags in ((tool, ['-O2']), (asan_tool, sanitize)):
        subprocess.run(['gcc', '-Wall', '-Wextra', '-Werror'] + flags +
                       ['-o', out, src], check=True)


def tearDownModule():
    shutil.rmtree(builddir, ignore_errors=True)


def data(name):
    return os.path.join(DATA, name)


def run(*args, stdin=None, binary=None):
    """Runs the tool in DATA; returns (exit status, stdout, stderr)."""
    env = dict(os.environ, ASAN_OPTIONS='detect_leaks=0:abort_on_error=0',
               LC_ALL='C')
    r = subprocess.run([binary or tool] + list(args), cwd=DATA, input=stdin,
                       capture_output=True, env=env, timeout=120)
    return r.returncode, r.stdout, r.stderr


class Tool(unittest.TestCase):
    maxDiff = None

    def ok(self, *args, stdin=None):
        rc, out, err = run(*args, stdin=stdin)
        self.assertEqual((rc, err), (0, b''), args)
        return out.decode()

    def json(self, *args, stdin=None):
        return json.loads(self.ok('--json', *args, stdin=stdin))

    def error(self, *args, stdin=None, status=1):
        """A runtime error (status 1), or with status=2 bad usage."""
        rc, out, err = run(*args, stdin=stdin)
        self.assertEqual(rc, status, args)
        self.assertEqual(out, b'', args)
        return err.decode()

    def write(self, name, content):
        path = os.path.join(self.tmp.name, name)
        with open(path, 'wb') as f:
            f.write(content.encode() if isinstance(content, str) else content)
        return path

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def reads(self, contents, *args):
        """Serves CONTENTS to the tool's reads of a FIFO, one each, the
        tool run with ARGS (default --check) and the FIFO; returns its
        status, output (stderr for a failure) and how many it read."""
        fifo = tempfile.mktemp(prefix='fifo', dir=self.tmp.name)
        os.mkfifo(fifo)
        served = []
        done = threading.Event()

        def reader_gone():
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
                return False
            except OSError:     # ENXIO: no reader has it open
                return True

        def serve():
            for c in contents:
                with open(fifo, 'w') as f:
                    if done.is_set():
                        return
                    served.append(c)
                    f.write(c)
                # The next read must not see this one's writer.
                while not done.is_set() and not reader_gone():
                    time.sleep(0.01)

        t = threading.Thread(target=serve)
        t.start()
        rc, out, err = run(*(args or ('--check',)), fifo)
        if not args or rc == 0:
            self.assertEqual(err, b'', args)
        out = (out or err).decode()
        n = len(served)
        # Release a writer still waiting for a reader.
        done.set()
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        t.join()
        os.close(fd)
        return rc, out.replace(fifo, 'FIFO'), n


class Build(Tool):


    def test_makefile_rule(self):
        """make -C tools/vm allocinfo, in a copy of the Makefiles."""
        copy = os.path.join(self.tmp.name, 'tools')
        shutil.copytree(os.path.join(TREE, 'tools', 'scripts'),
                        os.path.join(copy, 'scripts'))
        os.makedirs(os.path.join(copy, 'vm'))
        for f in ('Makefile', 'allocinfo.c'):
            shutil.copy(os.path.join(TREE, 'tools', 'vm', f),
                        os.path.join(copy, 'vm', f))
        vm = os.path.join(copy, 'vm')
        # LIBS= leaves out libapi, which allocinfo does not use.
        r = subprocess.run(['make', '-C', vm, 'allocinfo', 'LIBS='],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn('-o allocinfo allocinfo.c', r.stdout)
        self.assertNotIn('warning', r.stderr)
        r = subprocess.run([os.path.join(vm, 'allocinfo'), '--help'],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0)
        # It is one of the targets of all, install and clean.
        for target in ('all', 'clean', 'install'):
            r = subprocess.run(['make', '-n', '-B', '-C', vm, target,
                                'LIBS='],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertRegex(r.stdout, r'\ballocinfo\b', target)

    def test_checkpatch_clean(self):
        # Not from the tree: checkpatch would leave its CamelCase cache
        # there, and make export would take it for an uncommitted edit.
        r = subprocess.run([os.path.join(TREE, 'scripts', 'checkpatch.pl'),
                            '--strict', '--no-tree', '--quiet', '-f',
                            os.path.join(TREE, SOURCE)], cwd=self.tmp.name,
                           capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stdout), (0, ''))

    def test_help(self):
        out = self.ok('--help')
        self.assertTrue(out.startswith('Usage: allocinfo [OPTION]... '
                                       '[FILE]\n'))
        for o in ('--top', '--sort', '--group', '--module', '--file',
                  '--func', '--min-bytes', '--diff', '--shrunk', '--raw',
                  '--json', '--prometheus'):
            self.assertIn(o, out)

    def test_version(self):
        self.assertEqual(self.ok('--version'),
                         'allocinfo (built from the kernel tree)\n')
        # A package names its version.
        versioned = os.path.join(self.tmp.name, 'allocinfo')
        subprocess.run(['gcc', '-Wall', '-Werror', '-O2',
                        '-DALLOCINFO_VERSION="6.1.192-3+allocprof7"', '-o',
                        versioned, os.path.join(TREE, SOURCE)], check=True)
        self.assertEqual(run('-V', binary=versioned)[:2],
                         (0, b'allocinfo 6.1.192-3+allocprof7\n'))


class Output(Tool):
    """--output FILE: the whole output or none, never a partial file."""

    def test_writes_what_stdout_gets(self):
        out = os.path.join(self.tmp.name, 'allocinfo.prom')
        self.write('allocinfo.prom', 'the old file\n')
        old_inode = os.stat(out).st_ino
        rc, stdout, err = run('-p', '-g', 'module', '-o', out, 'v2.txt')
        self.assertEqual((rc, stdout, err), (0, b'', b''))
        with open(out) as f:
            self.assertEqual(f.read(), self.ok('-p', '-g', 'module', 'v2.txt'))
        # Renamed over the old file, not written into it.
        self.assertNotEqual(os.stat(out).st_ino, old_inode)
        self.assertEqual(os.listdir(self.tmp.name), ['allocinfo.prom'])

    def test_mode_follows_umask(self):
        out = os.path.join(self.tmp.name, 'a.txt')
        old = os.umask(0o027)
        try:
            self.ok('-o', out, 'v2.txt')
        finally:
            os.umask(old)
        self.assertEqual(os.stat(out).st_mode & 0o777, 0o640)

    def test_error_leaves_the_file(self):
        self.write('allocinfo.prom', 'the old file\n')
        out = os.path.join(self.tmp.name, 'allocinfo.prom')
        self.assertEqual(self.error('-p', '-o', out, 'bad-key.txt'),
                         'allocinfo: bad-key.txt:7: expected key:value, '
                         'got "garbage"\n')
        self.assertEqual(self.error('-o', out, 'missing.txt'),
                         'allocinfo: missing.txt: No such file or '
                         'directory\n')
        with open(out) as f:
            self.assertEqual(f.read(), 'the old file\n')
        self.assertEqual(os.listdir(self.tmp.name), ['allocinfo.prom'])

    def test_no_directory(self):
        out = os.path.join(self.tmp.name, 'none', 'a.prom')
        self.assertEqual(self.error('-o', out, 'v2.txt'),
                         'allocinfo: %s: cannot create a file beside it: '
                         'No such file or directory\n' % out)

    def test_write_error(self):
        with open('/dev/full', 'wb') as full:
            r = subprocess.run([tool, 'v2.txt'], cwd=DATA, stdout=full,
                               stderr=subprocess.PIPE)
        self.assertEqual((r.returncode, r.stderr),
                         (1, b'allocinfo: write error: No space left on '
                          b'device\n'))


class Text(Tool):
    def test_top_ten_by_bytes(self):
        self.assertEqual(self.ok('v2.txt'), '''\
     SIZE  CALLS  CALL SITE
  7.5 MiB   1920  mm/page_ext.c:298 func:alloc_page_ext
  3.0 MiB    768  mm/slub.c:1876 func:alloc_slab_page
  1.5 MiB    384  mm/percpu.c:512 func:pcpu_mem_zalloc
512.0 KiB    128  block/blk-mq.c:3400 func:blk_mq_alloc_rqs
256.0 KiB     64  fs/dcache.c:1787 func:__d_alloc accurate:no
 96.0 KiB     24  net/core/skbuff.c:577 func:kmalloc_reserve accurate:no
 20.0 KiB      5  fs/inode.c:261 func:alloc_inode
 16.0 KiB      4  kernel/workqueue.c:4300 func:alloc_unbound_pwq
  4.0 KiB      1  security/selinux/hooks.c:280 func:inode_alloc_security
  1.5 KiB      3  kernel/fork.c:947 func:dup_task_struct
 12.9 MiB   3302  total: 12 call sites, 10 shown
''')

    def test_all_raw_negative_last(self):
        out = self.ok('-n', '0', '--raw', 'v2.txt').splitlines()
        self.assertEqual(out[0], '    SIZE  CALLS  CALL SITE')
        self.assertEqual(out[-3:], [
            '       0      0  lib/xarray.c:1012 func:xas_alloc',
            '      -8      1  mm/slub.c:3400 func:__kmem_cache_alloc_node',
            '13510136   3302  total: 12 call sites'])
        self.assertEqual(len(out), 14)

    def test_sort_by_calls(self):
        self.assertEqual(self.ok('-s', 'calls', '-n', '3', '--raw',
                                 'v2.txt'), '''\
    SIZE  CALLS  CALL SITE
 7864320   1920  mm/page_ext.c:298 func:alloc_page_ext
 3145728    768  mm/slub.c:1876 func:alloc_slab_page
 1572864    384  mm/percpu.c:512 func:pcpu_mem_zalloc
13510136   3302  total: 12 call sites, 3 shown
''')
        # A tie in calls is broken by bytes.
        out = self.ok('-s', 'calls', '-n', '0', 'v2.txt').splitlines()
        self.assertEqual([l.split()[-1] for l in out[-4:-1]],
                         ['func:inode_alloc_security',
                          'func:__kmem_cache_alloc_node',
                          'func:xas_alloc'])

    def test_version_1_with_trailing_blanks(self):
        self.assertEqual(self.ok('v1.txt'), '''\
    SIZE  CALLS  CALL SITE
12.0 MiB   3072  mm/filemap.c:925 func:__filemap_add_folio
 1.4 MiB    360  mm/memory.c:5015 func:__pte_alloc
64.0 KiB      4  kernel/fork.c:320 func:alloc_thread_stack_node
 8.0 KiB      2  fs/ext4/super.c:1320 [ext4] func:ext4_alloc_inode
     0 B      0  mm/filemap.c:1234 func:filemap_alloc_folio
13.5 MiB   3438  total: 5 call sites
''')

    def test_modules_and_duplicate_lines(self):
        self.assertEqual(self.ok('modules.txt'), '''\
     SIZE  CALLS  CALL SITE
  2.0 MiB    512  mm/page_ext.c:298 func:alloc_page_ext
256.0 KiB     64  fs/inode.c:261 func:alloc_inode
128.0 KiB     32  fs/ext4/super.c:1320 [ext4] func:ext4_alloc_inode
 64.0 KiB      8  fs/ext4/mballoc.c:3290 [ext4] func:ext4_mb_init_backend
 48.0 KiB     12  include/linux/slab.h:600 func:kmalloc (2 lines)
 24.0 KiB      3  lib/test_alloc_tag.c:56 [test_alloc_tag] func:test_alloc_tag_init module:unloaded (2 lines)
 16.0 KiB      1  lib/test_alloc_tag.c:80 [test_alloc_tag] func:test_alloc_tag_init module:unloaded (2 lines)
 12.0 KiB      3  fs/jbd2/journal.c:2750 [jbd2] func:jbd2_alloc
  4.0 KiB      1  fs/jbd2/journal.c:2890 [jbd2] func:journal_init_common accurate:no module:unloaded
  4.0 KiB      1  include/linux/slab.h:600 [ext4] func:kmalloc
  2.5 MiB    637  total: 10 call sites
''')

    def test_group_by_module(self):
        self.assertEqual(self.ok('-g', 'module', 'modules.txt'), '''\
     SIZE  CALLS  LINES  MODULE
  2.3 MiB    588      4  vmlinux
196.0 KiB     41      3  ext4
 40.0 KiB      4      4  test_alloc_tag module:unloaded
 16.0 KiB      4      2  jbd2 accurate:no module:unloaded
  2.5 MiB    637     13  total: 4 modules
''')

    def test_group_by_file_directory_function(self):
        self.assertEqual(self.ok('-g', 'file', '-n', '3', 'modules.txt'), '''\
     SIZE  CALLS  LINES  FILE
  2.0 MiB    512      1  mm/page_ext.c
256.0 KiB     64      1  fs/inode.c
128.0 KiB     32      1  fs/ext4/super.c
  2.5 MiB    637     13  total: 7 files, 3 shown
''')
        self.assertEqual(self.ok('-g', 'dir', 'modules.txt'), '''\
     SIZE  CALLS  LINES  DIRECTORY
  2.0 MiB    512      1  mm
256.0 KiB     64      1  fs
192.0 KiB     40      2  fs/ext4
 52.0 KiB     13      3  include/linux
 40.0 KiB      4      4  lib module:unloaded
 16.0 KiB      4      2  fs/jbd2 accurate:no module:unloaded
  2.5 MiB    637     13  total: 6 directories
''')
        self.assertEqual(self.ok('-g', 'directory', '--raw', 'modules.txt'),
                         self.ok('--group=dir', '--raw', 'modules.txt'))
        out = self.ok('-g', 'function', '-s', 'calls', 'modules.txt')
        self.assertIn('\n 52.0 KiB     13      3  kmalloc\n', out)
        self.assertTrue(out.endswith('  2.5 MiB    637     13  '
                                     'total: 8 functions\n'))

    def test_units(self):
        values = [0, 1023, 1024, 1536, 1048575, 1048576 * 3 // 2,
                  3 << 40, (1 << 63) - 1, -2048, 10239]
        lines = ''.join('%12d %8d f.c:%d func:f\n' % (v, 1, i)
                        for i, v in enumerate(values))
        path = self.write('units.txt', 'allocinfo - version: 2.0\n' + lines)
        out = self.ok('-n', '0', path).splitlines()
        width = out[0].index('SIZE') + 4
        sizes = [l[:width].strip() for l in out[1:-1]]
        self.assertEqual(sizes, ['8.0 EiB', '3.0 TiB', '1.5 MiB', '1.0 MiB',
                                 '10.0 KiB', '1.5 KiB', '1.0 KiB', '1023 B',
                                 '0 B', '-2.0 KiB'])
        # The total saturates rather than overflowing.
        self.assertEqual(self.json('-n', '0', path)['total']['bytes'],
                         (1 << 63) - 1)

    def test_no_newline_at_end(self):
        self.assertEqual(self.ok('no-newline.txt'), '''\
    SIZE  CALLS  CALL SITE
 8.0 KiB      2  fs/inode.c:261 func:alloc_inode
 4.0 KiB      1  mm/slub.c:1876 func:alloc_slab_page
12.0 KiB      3  total: 2 call sites
''')

    def test_header_only(self):
        self.assertEqual(self.ok('header-only.txt'), '''\
SIZE  CALLS  CALL SITE
 0 B      0  total: 0 call sites
''')
        j = self.json('header-only.txt')
        self.assertEqual((j['entries'], j['total']['rows']), ([], 0))

    def test_stdin(self):
        with open(data('v2.txt'), 'rb') as f:
            v2 = f.read()
        self.assertEqual(self.ok('-', stdin=v2), self.ok('v2.txt'))
        self.assertEqual(self.json('-', stdin=v2)['input'], '-')
        err = self.error('-', stdin=b'junk\n')
        self.assertEqual(err, 'allocinfo: <stdin>:1: expected header '
                         '"allocinfo - version: N.N", got "junk"\n')

    def test_control_characters_are_escaped(self):
        path = self.write('esc.txt', 'allocinfo - version: 2.0\n'
                          '  1 1 a\x1b[31m.c:1 func:f x:\x7f\n')
        self.assertIn('a\\x1b[31m.c:1 func:f x:\\x7f\n', self.ok(path))


class Filters(Tool):
    def sites(self, *args):
        return ['%s:%d' % (e['file'], e['line'])
                for e in self.json('-n', '0', *args)['entries']]

    def test_module(self):
        self.assertEqual(self.sites('--module', 'ext4', 'modules.txt'),
                         ['fs/ext4/super.c:1320', 'fs/ext4/mballoc.c:3290',
                          'include/linux/slab.h:600'])
        self.assertEqual(self.sites('--module', 'vmlinux', 'modules.txt'),
                         ['mm/page_ext.c:298', 'fs/inode.c:261',
                          'include/linux/slab.h:600'])
        self.assertEqual(len(self.sites('--module', 'j*', '--module',
                                        'test_*', 'modules.txt')), 4)

    def test_file_substring_and_glob(self):
        self.assertEqual(self.sites('--file', 'slab', 'modules.txt'),
                         ['include/linux/slab.h:600'] * 2)
        # A glob matches the whole name, * also across /.
        self.assertEqual(self.sites('--file', 'fs/*', 'modules.txt'),
                         ['fs/inode.c:261', 'fs/ext4/super.c:1320',
                          'fs/ext4/mballoc.c:3290', 'fs/jbd2/journal.c:2750',
                          'fs/jbd2/journal.c:2890'])
        self.assertEqual(self.sites('--file', 'ext4', 'modules.txt'),
                         ['fs/ext4/super.c:1320', 'fs/ext4/mballoc.c:3290'])
        self.assertEqual(self.sites('--file', 'ext4*', 'modules.txt'), [])
        self.assertEqual(self.sites('--file', '*.[h]', 'modules.txt'),
                         ['include/linux/slab.h:600'] * 2)

    def test_func_and_combination(self):
        self.assertEqual(self.sites('--func', 'kmalloc', '--module', 'ext4',
                                    'modules.txt'),
                         ['include/linux/slab.h:600'])
        self.assertEqual(self.sites('--func', 'alloc', 'modules.txt'), [])
        self.assertEqual(self.sites('--func', '*alloc*', '--file', 'mm/',
                                    'modules.txt'), ['mm/page_ext.c:298'])

    def test_min_bytes(self):
        self.assertEqual(self.sites('--min-bytes', '1M', 'v2.txt'),
                         ['mm/page_ext.c:298', 'mm/slub.c:1876',
                          'mm/percpu.c:512'])
        self.assertEqual(self.sites('--min-bytes', '1.5MiB', 'v2.txt'),
                         self.sites('--min-bytes=1572864', 'v2.txt'))
        self.assertEqual(len(self.sites('--min-bytes', '0', 'v2.txt')), 11)
        self.assertEqual(self.sites('--min-bytes', '3g', 'v2.txt'), [])
        # After grouping: vmlinux holds 2.3 MiB, no module 1 MiB.
        j = self.json('-g', 'module', '--min-bytes', '256k', 'modules.txt')
        self.assertEqual([e['module'] for e in j['entries']], ['vmlinux'])
        self.assertEqual(j['total']['rows'], 1)
        out = self.ok('--min-bytes', '96K', '--file', 'mm/', 'v2.txt')
        self.assertTrue(out.endswith('  total: 3 call sites\n'), out)


class Diff(Tool):
    def test_what_grew(self):
        self.assertEqual(self.ok('--diff', 'old.txt', 'new.txt'), '''\
 SIZE DIFF  CALLS DIFF   OLD SIZE   NEW SIZE  CALL SITE
  +4.0 MiB       +1024  256.0 KiB    4.2 MiB  fs/dcache.c:1787 func:__d_alloc
+512.0 KiB        +128    3.0 MiB    3.5 MiB  mm/slub.c:1876 func:alloc_slab_page
+128.0 KiB         +32        0 B  128.0 KiB  fs/ext4/super.c:1320 [ext4] func:ext4_alloc_inode
  +4.0 KiB          +2    4.0 KiB    8.0 KiB  kernel/fork.c:947 func:dup_task_struct
  +4.6 MiB       +1168   10.9 MiB   15.5 MiB  total: 4 call sites grew, 2 shrank, 3 unchanged
''')

    def test_what_shrank(self):
        out = self.ok('-d', '--shrunk', '-n', '1', 'old.txt', 'new.txt')
        self.assertEqual(out, '''\
SIZE DIFF  CALLS DIFF   OLD SIZE  NEW SIZE  CALL SITE
 +4.0 MiB       +1024  256.0 KiB   4.2 MiB  fs/dcache.c:1787 func:__d_alloc
-64.0 KiB         -16   96.0 KiB  32.0 KiB  net/core/skbuff.c:577 func:kmalloc_reserve accurate:no
 +4.6 MiB       +1168   10.9 MiB  15.5 MiB  total: 4 call sites grew, 2 shrank, 3 unchanged
''')
        out = self.ok('-d', '--shrunk', 'old.txt', 'new.txt').splitlines()
        self.assertEqual(out[-3:-1], [
            '  -8.0 KiB          -2    8.0 KiB        0 B  '
            'drivers/net/virtio_net.c:1500 [virtio_net] '
            'func:add_recvbuf_small',
            ' -64.0 KiB         -16   96.0 KiB   32.0 KiB  '
            'net/core/skbuff.c:577 func:kmalloc_reserve accurate:no'])

    def test_group_by_module(self):
        self.assertEqual(self.ok('--diff', '-g', 'module', '--shrunk',
                                 'old.txt', 'new.txt'), '''\
 SIZE DIFF  CALLS DIFF  OLD SIZE   NEW SIZE  LINES  MODULE
  +4.4 MiB       +1138  10.9 MiB   15.3 MiB      6  vmlinux accurate:no
+128.0 KiB         +32  64.0 KiB  192.0 KiB      2  ext4
  -8.0 KiB          -2   8.0 KiB        0 B      1  virtio_net
  +4.6 MiB       +1168  10.9 MiB   15.5 MiB      9  total: 2 modules grew, 1 shrank, 0 unchanged
''')

    def test_json_from_and_to_zero(self):
        j = self.json('--diff', '--shrunk', '-n', '0', 'old.txt', 'new.txt')
        self.assertEqual((j['version'], j['old_version']), ('2.0', '2.0'))
        self.assertEqual((j['old'], j['new']), ('old.txt', 'new.txt'))
        by_func = {e['function']: e for e in j['entries']}
        self.assertEqual(len(by_func), 6)
        self.assertEqual(by_func['ext4_alloc_inode'], {
            'file': 'fs/ext4/super.c', 'line': 1320, 'module': 'ext4',
            'function': 'ext4_alloc_inode', 'old_bytes': 0,
            'new_bytes': 131072, 'delta_bytes': 131072, 'old_calls': 0,
            'new_calls': 32, 'delta_calls': 32, 'lines': 1,
            'accurate': True, 'module_unloaded': False, 'extra': {}})
        gone = by_func['add_recvbuf_small']
        self.assertEqual((gone['old_bytes'], gone['new_bytes'],
                          gone['delta_bytes'], gone['delta_calls']),
                         (8192, 0, -8192, -2))
        self.assertFalse(by_func['kmalloc_reserve']['accurate'])
        self.assertEqual(j['total'], {
            'old_bytes': 11468800, 'new_bytes': 16248832,
            'delta_bytes': 4780032, 'old_calls': 2792, 'new_calls': 3960,
            'delta_calls': 1168, 'lines': 9, 'rows': 9, 'grew': 4,
            'shrank': 2})

    def test_sort_by_calls_and_min_bytes(self):
        j = self.json('-d', '-s', 'calls', '--shrunk', '--min-bytes', '64K',
                      'old.txt', 'new.txt')
        self.assertEqual([e['function'] for e in j['entries']],
                         ['__d_alloc', 'alloc_slab_page', 'ext4_alloc_inode',
                          'kmalloc_reserve'])
        self.assertEqual(j['sort'], 'calls')

    def test_versions_and_stdin(self):
        with open(data('v2.txt'), 'rb') as f:
            v2 = f.read()
        out = self.ok('-d', '-n', '2', 'v1.txt', '-', stdin=v2)
        self.assertEqual(out, '''\
 SIZE DIFF  CALLS DIFF  OLD SIZE  NEW SIZE  CALL SITE
  +7.5 MiB       +1920       0 B   7.5 MiB  mm/page_ext.c:298 func:alloc_page_ext
  +3.0 MiB        +768       0 B   3.0 MiB  mm/slub.c:1876 func:alloc_slab_page
-606.5 KiB        -136  13.5 MiB  12.9 MiB  total: 10 call sites grew, 5 shrank, 2 unchanged
''')
        j = self.json('-d', 'v1.txt', 'v2.txt')
        self.assertEqual((j['old_version'], j['version']), ('1.0', '2.0'))

    def test_same_snapshot_is_no_change(self):
        out = self.ok('-d', '--shrunk', 'v2.txt', 'v2.txt')
        self.assertEqual(out.splitlines()[1:], [
            '      0 B           0  12.9 MiB  12.9 MiB  '
            'total: 0 call sites grew, 0 shrank, 12 unchanged'])


class Json(Tool):
    def test_entries(self):
        j = self.json('-n', '3', 'v2.txt')
        self.assertEqual(j['version'], '2.0')
        self.assertEqual(j['input'], 'v2.txt')
        self.assertEqual((j['group'], j['sort']), ('none', 'bytes'))
        self.assertEqual(j['total'], {'bytes': 13510136, 'calls': 3302,
                                      'lines': 12, 'rows': 12})
        self.assertEqual(j['entries'][0], {
            'file': 'mm/page_ext.c', 'line': 298, 'module': 'vmlinux',
            'function': 'alloc_page_ext', 'bytes': 7864320, 'calls': 1920,
            'lines': 1, 'accurate': True, 'module_unloaded': False,
            'extra': {}})
        self.assertEqual(len(j['entries']), 3)

    def test_accurate_no_and_negative(self):
        e = {x['function']: x for x in self.json('-n', '0',
                                                 'v2.txt')['entries']}
        self.assertFalse(e['__d_alloc']['accurate'])
        self.assertTrue(e['alloc_inode']['accurate'])
        self.assertEqual(e['__kmem_cache_alloc_node']['bytes'], -8)

    def test_modules_unloaded_and_groups(self):
        j = self.json('-n', '0', 'modules.txt')
        e = {(x['file'], x['line'], x['module']): x for x in j['entries']}
        t = e[('lib/test_alloc_tag.c', 56, 'test_alloc_tag')]
        self.assertEqual((t['bytes'], t['calls'], t['lines'],
                          t['module_unloaded']), (24576, 3, 2, True))
        self.assertEqual(e[('include/linux/slab.h', 600, 'vmlinux')]['lines'],
                         2)
        j = self.json('-g', 'module', 'modules.txt')
        self.assertEqual(j['group'], 'module')
        self.assertEqual(j['entries'][3], {
            'module': 'jbd2', 'bytes': 16384, 'calls': 4, 'lines': 2,
            'accurate': False, 'module_unloaded': True})
        for group, key in (('dir', 'directory'), ('file', 'file'),
                           ('function', 'function')):
            j = self.json('-g', group, 'modules.txt')
            self.assertEqual(j['group'], key)
            self.assertIn(key, j['entries'][0])
            self.assertEqual(j['total']['bytes'], 2666496)

    def test_unknown_tokens_are_kept(self):
        j = self.json('future.txt')
        self.assertEqual(j['version'], '2.1')
        e = j['entries']
        self.assertEqual(e[0]['extra'], {'tier': '1', 'cold': 'yes'})
        self.assertTrue(e[0]['module_unloaded'])
        self.assertEqual(e[1]['extra'], {'zone': 'dma32'})
        self.assertFalse(e[1]['accurate'])
        self.assertIn('func:add_recvbuf_small module:unloaded tier:1 cold:yes',
                      self.ok('future.txt'))

    def test_escaping(self):
        path = self.write('esc.txt', b'allocinfo - version: 2.0\n'
                          b'  1 1 dir/"q"\\b\x01\x1f\xc3\xa9\xff.c:7 '
                          b'[m\x7f] func:f\xe2\x82 k\\:v"\n')
        e = json.loads(self.ok('--json', path))['entries'][0]
        self.assertEqual(e['file'], 'dir/"q"\\b\x01\x1f\u00e9\ufffd.c')
        self.assertEqual(e['module'], 'm\x7f')
        self.assertEqual(e['function'], 'f\ufffd\ufffd')
        self.assertEqual(e['extra'], {'k\\': 'v"'})


class Prometheus(Tool):
    def promtool(self, text):
        promtool = PROMTOOL if os.access(PROMTOOL, os.X_OK) else \
            shutil.which('promtool')
        if not promtool:
            self.fail('no %s (harness/build/deps.sh check unpacks it)' % PROMTOOL)
        r = subprocess.run([promtool, 'check', 'metrics'], input=text,
                           capture_output=True)
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, b'', b''),
                         text)

    def samples(self, text):
        """{metric: {labels: value}}, every series once."""
        out = {}
        for line in text.decode().splitlines():
            if line.startswith('#'):
                continue
            m = re.fullmatch(r'(\w+)\{(.*)\} (-?\d+)', line)
            self.assertTrue(m, line)
            labels = tuple(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"',
                                      m.group(2)))
            series = out.setdefault(m.group(1), {})
            self.assertNotIn(labels, series, 'duplicate series ' + line)
            series[labels] = int(m.group(3))
        return out

    def test_call_sites(self):
        rc, out, err = run('-p', '-n', '0', 'modules.txt')
        self.assertEqual((rc, err), (0, b''))
        self.promtool(out)
        s = self.samples(out)
        self.assertEqual(set(s), {'allocinfo_bytes', 'allocinfo_calls'})
        key = (('file', 'lib/test_alloc_tag.c'), ('line', '56'),
               ('module', 'test_alloc_tag'),
               ('function', 'test_alloc_tag_init'))
        self.assertEqual(s['allocinfo_bytes'][key], 24576)
        self.assertEqual(s['allocinfo_calls'][key], 3)
        self.assertEqual(len(s['allocinfo_bytes']), 10)
        self.assertEqual(out.decode().splitlines()[:3], [
            '# HELP allocinfo_bytes Bytes allocated and not yet freed, '
            'from /proc/allocinfo.',
            '# TYPE allocinfo_bytes gauge',
            'allocinfo_bytes{file="mm/page_ext.c",line="298",'
            'module="vmlinux",function="alloc_page_ext"} 2097152'])

    def test_groups(self):
        for group, label in (('module', 'module'), ('file', 'file'),
                             ('dir', 'directory'), ('function', 'function')):
            rc, out, err = run('--prometheus', '-g', group, 'modules.txt')
            self.assertEqual((rc, err), (0, b''))
            self.promtool(out)
            s = self.samples(out)
            self.assertEqual(set(s), {'allocinfo_bytes', 'allocinfo_calls',
                                      'allocinfo_lines'})
            self.assertTrue(all(k[0][0] == label for k in
                                s['allocinfo_bytes']))
        self.assertEqual(s['allocinfo_lines'][(('function', 'kmalloc'),)], 3)

    def test_negative_and_empty(self):
        rc, out, err = run('-p', '-n', '0', 'v2.txt')
        self.promtool(out)
        self.assertIn(b',function="__kmem_cache_alloc_node"} -8\n', out)
        rc, out, err = run('-p', 'header-only.txt')
        self.assertEqual(rc, 0)
        self.promtool(out)

    def test_label_escaping(self):
        path = self.write('esc.txt', b'allocinfo - version: 2.0\n'
                          b'  1 1 a"b\\c\xff.c:7 func:f\n'
                          b'  2 1 a"b\\c\xff.c:7 func:g\n')
        rc, out, err = run('-p', path)
        self.promtool(out)
        self.assertIn('allocinfo_bytes{file="a\\"b\\\\c\ufffd.c",line="7",'
                      'module="vmlinux",function="g"} 2\n', out.decode())


class Errors(Tool):
    BAD = [
        ('empty.txt', 1, 'expected header "allocinfo - version: N.N", got '
         'end of file'),
        ('bad-no-header.txt', 1, 'expected header "allocinfo - version: '
         'N.N", got "     7864320     1920 mm/page_ext.c:298 ..."'),
        ('bad-version.txt', 1, 'expected version 1.x or 2.x, got "3.0"'),
        ('bad-calls.txt', 4, 'expected an unsigned 64-bit call count, got '
         '"many"'),
        ('bad-bytes.txt', 3, 'expected a signed 64-bit byte count, got '
         '"99999999999999999999"'),
        ('bad-truncated.txt', 5, 'expected func:NAME, got end of line'),
        ('bad-truncated-counter.txt', 6, 'expected an unsigned 64-bit call '
         'count, got end of line'),
        ('bad-missing-func.txt', 5, 'expected func:NAME, got "__d_alloc"'),
        ('bad-module.txt', 8, 'expected [module], got "[ext4"'),
        ('bad-empty-line.txt', 6, 'expected a call site line, got an empty '
         'line'),
        ('bad-key.txt', 7, 'expected key:value, got "garbage"'),
        ('bad-v1-flag.txt', 4, 'expected accurate:no or end of line, got '
         '"module:unloaded"'),
        ('bad-line-number.txt', 10, 'expected file:line, got '
         '"fs/inode.c:261a"'),
        ('bad-dup-key.txt', 5, 'expected each key once, got "accurate:" '
         'again'),
    ]

    def test_malformed_samples(self):
        for name, line, msg in self.BAD:
            for fmt in ([], ['--json'], ['-p']):
                self.assertEqual(self.error(name, *fmt),
                                 'allocinfo: %s:%d: %s\n' % (name, line, msg))
        # Either side of a diff.
        self.assertEqual(self.error('-d', 'v2.txt', 'bad-key.txt'),
                         'allocinfo: bad-key.txt:7: expected key:value, '
                         'got "garbage"\n')

    def check(self, content, line, msg):
        path = self.write('in.txt', content)
        self.assertEqual(self.error(path),
                         'allocinfo: %s:%d: %s\n' % (path, line, msg))

    def test_generated(self):
        head = 'allocinfo - version: 2.0\n#\n'
        self.check('allocinfo - version: 1\n', 1,
                   'expected a version N.N, got "1"')
        self.check('allocinfo - version: 2.0 beta\n', 1,
                   'expected a version N.N, got "2.0 beta"')
        self.check(head + '  1 1 a.c:1 func:f\x00\n', 3,
                   'expected text, got a NUL byte')
        self.check(head + '  1 1 a.c:1\n', 3,
                   'expected func:NAME, got end of line')
        self.check(head + '  1 1 a.c:1 [] func:f\n', 3,
                   'expected [module], got "[]"')
        self.check(head + '  1 1 :1 func:f\n', 3,
                   'expected file:line, got ":1"')
        self.check(head + '  1 1 a.c:4294967296 func:f\n', 3,
                   'expected file:line, got "a.c:4294967296"')
        self.check(head + '  1 -1 a.c:1 func:f\n', 3,
                   'expected an unsigned 64-bit call count, got "-1"')
        self.check(head + '  0x10 1 a.c:1 func:f\n', 3,
                   'expected a signed 64-bit byte count, got "0x10"')
        self.check(head + '  1 1 a.c:1 func:\n', 3,
                   'expected func:NAME, got "func:"')
        self.check(head + '  1 1 a.c:1 func:f :v\n', 3,
                   'expected key:value, got ":v"')
        self.check(head + '  1 1 a.c:1 func:f \x1b:\n', 3,
                   'expected key:value, got "\\x1b:"')
        self.check(head + '\n', 3,
                   'expected a call site line, got an empty line')
        self.check(head + '  1 1 ' + 'x' * 50 + '\n', 3,
                   'expected file:line, got "' + 'x' * 40 + '..."')
        # Two concatenated files.
        with open(data('v2.txt')) as f:
            v2 = f.read()
        self.check(v2 + v2, 15, 'expected a signed 64-bit byte count, got '
                   '"allocinfo"')

    def test_line_length(self):
        head = 'allocinfo - version: 2.0\n#\n'
        line = '  1 1 a.c:1 func:'
        fits = line + 'f' * (4096 - len(line))
        path = self.write('in.txt', head + fits + '\n')
        self.assertTrue(self.ok(path).endswith(' total: 1 call site\n'))
        self.check(head + fits + 'f\n', 3,
                   'expected a line of at most 4096 bytes, got a longer one')
        self.check(head + 'x' * 1000000, 3,
                   'expected a line of at most 4096 bytes, got a longer one')

    def test_files_and_usage(self):
        self.assertEqual(self.error('missing.txt'),
                         'allocinfo: missing.txt: No such file or '
                         'directory\n')
        self.assertEqual(self.error(DATA), 'allocinfo: %s: Is a directory\n'
                         % DATA)
        usage = [
            (['-x'], 'unknown option -x'),
            (['-jx'], 'unknown option -x'),
            (['--bogus'], 'unknown or ambiguous option --bogus'),
            (['--m', 'x'], 'unknown or ambiguous option --m'),
            (['v2.txt', '-n'], '-n: expected an argument'),
            (['v2.txt', '--module'], '--module: expected an argument'),
            (['--json=yes', 'v2.txt'], '--json=yes: expected no argument'),
            (['-n', 'ten'], "-n: expected a number of rows, got 'ten'"),
            (['-n', '-1'], "-n: expected a number of rows, got '-1'"),
            (['-s', 'size'], "-s: expected bytes or calls, got 'size'"),
            (['-g', 'nodes'], '-g: expected none, module, file, dir, '
             "function or node, got 'nodes'"),
            (['--node', 'one'], "--node: expected a node number, got 'one'"),
            (['--node', '-1'], "--node: expected a node number, got '-1'"),
            (['--node', '2147483648'], '--node: expected a node number, got '
             "'2147483648'"),
            (['--min-bytes', '1X'], '--min-bytes: expected a size (64K, '
             "1.5M), got '1X'"),
            (['--min-bytes', '-1'], '--min-bytes: expected a size (64K, '
             "1.5M), got '-1'"),
            (['--min-bytes', '99999999999T'], '--min-bytes: expected a size '
             "(64K, 1.5M), got '99999999999T'"),
            (['-j', '-p', 'v2.txt'], '--json and --prometheus exclude each '
             'other'),
            (['v1.txt', 'v2.txt'], 'expected one FILE, got 2'),
            (['--shrunk', 'v2.txt'], '--shrunk needs --diff'),
            (['--diff', 'v2.txt'], '--diff: expected two files OLD NEW'),
            (['--diff', '-', '-'], '--diff: only one of OLD and NEW can be -'),
            (['-d', '-p', 'old.txt', 'new.txt'], '--diff: a change is not a '
             'metric; no --prometheus'),
            (['-o', '', 'v2.txt'], '--output: expected a file name'),
        ]
        for args, msg in usage:
            self.assertEqual(self.error(*args, status=2), 'allocinfo: %s\nTry '
                             "'allocinfo --help' for more information.\n"
                             % msg, args)


class Check(Tool):
    """--check: counter and module faults, re-reads, coverage."""
    HEAD = 'allocinfo - version: 2.0\n#     <size>  <calls> <tag info>\n'

    def check(self, *args, stdin=None):
        rc, out, err = run('--check', *args, stdin=stdin)
        self.assertEqual(err, b'', args)
        return rc, out.decode()

    def proc(self, modules='', meminfo=None, slabinfo=None, zoneinfo=''):
        d = os.path.join(self.tmp.name, 'proc')
        os.makedirs(d, exist_ok=True)
        files = {'modules': modules, 'zoneinfo': zoneinfo,
                 'meminfo': meminfo or 'MemTotal: 1000 kB\nMemFree: 400 kB\n'
                 'Slab: 0 kB\n', 'slabinfo': slabinfo}
        for name, text in files.items():
            if text is not None:
                self.write(os.path.join('proc', name), text)
        return d

    def test_clean_report(self):
        self.assertEqual(self.check('v1.txt'), (0, (
            'check: 5 lines (1 of modules, 0 accurate:no; unloaded modules '
            'hold 0 B): 0 faults\n')))
        self.assertEqual(self.check('modules.txt'), (0, (
            'check: 13 lines (9 of modules, 1 accurate:no; unloaded modules '
            'hold 36.0 KiB): 0 faults\n')))

    def test_counter_faults(self):
        path = self.write('in.txt', self.HEAD +
                          '  4096 1 a.c:1 func:f\n'
                          '  -8 1 a.c:2 func:f\n'
                          '  4096 0 a.c:3 func:f\n'
                          '  0 2 a.c:4 [m] func:g\n'
                          '  0 0 a.c:5 func:f accurate:no\n')
        t0 = time.monotonic()
        self.assertEqual(self.check('--raw', path), (3, (
            '%s:4: negative bytes: -8 1 a.c:2 func:f\n'
            '%s:5: bytes without calls: 4096 0 a.c:3 func:f\n'
            '%s:6: calls without bytes: 0 2 a.c:4 [m] func:g\n'
            'check: 5 lines (1 of modules, 1 accurate:no; unloaded modules '
            'hold 0): 3 faults\n') % (path, path, path)))
        # Read three times, 0.2 s apart, since the faults stayed.
        self.assertGreaterEqual(time.monotonic() - t0, 0.4)
        # Standard input is read once.
        with open(path, 'rb') as f:
            rc, out = self.check('-', stdin=f.read())
        self.assertEqual(rc, 3)
        self.assertIn('<stdin>:5: bytes without calls: 4096 0 a.c:3 '
                      'func:f\n', out)

    def test_a_fault_of_one_read_is_not_reported(self):
        ok = self.HEAD + '  4096 1 a.c:1 func:f\n  64 1 b.c:1 func:f\n'
        bad = self.HEAD + '  4096 0 a.c:1 func:f\n  64 1 b.c:1 func:f\n'
        rc, out, n = self.reads([bad, ok, bad])
        self.assertEqual((rc, n), (0, 2))
        self.assertTrue(out.endswith('): 0 faults\n'), out)

    def test_a_fault_of_every_read_is_reported_as_last_read(self):
        a = self.HEAD + '  4096 0 a.c:1 func:f\n  64 1 b.c:1 func:f\n'
        ab = self.HEAD + '  8192 0 a.c:1 func:f\n  64 0 b.c:1 func:f\n'
        moved = self.HEAD + '  0 0 c.c:1 func:f\n' \
            '  12288 0 a.c:1 func:f\n  64 0 b.c:1 func:f\n'
        rc, out, n = self.reads([a, ab, moved])
        self.assertEqual((rc, n), (3, 3))
        self.assertEqual(out, (
            'FIFO:4: bytes without calls: 12288 0 a.c:1 func:f\n'
            'check: 3 lines (0 of modules, 0 accurate:no; unloaded modules '
            'hold 0 B): 1 fault\n'))

    def test_faults_matched_whatever_their_order(self):
        a = '  4096 0 a.c:1 func:f\n'
        b = '  4096 0 b.c:1 func:f\n'
        c = '  4096 0 c.c:1 func:f\n'
        b_ok = '  4096 1 b.c:1 func:f\n'
        first = self.HEAD + a + b + c
        later = self.HEAD + c + b_ok + a
        rc, out, n = self.reads([first, later, later])
        self.assertEqual((rc, n), (3, 3))
        self.assertEqual(out, (
            'FIFO:3: bytes without calls: 4096 0 c.c:1 func:f\n'
            'FIFO:5: bytes without calls: 4096 0 a.c:1 func:f\n'
            'check: 3 lines (0 of modules, 0 accurate:no; unloaded modules '
            'hold 0 B): 2 faults\n'))

    def test_modules(self):
        path = self.write('in.txt', self.HEAD +
                          '  64 1 a.c:1 [loaded] func:f\n'
                          '  64 1 a.c:1 [notloaded] func:f\n'
                          '  0 0 a.c:1 [drained] func:f module:unloaded\n'
                          '  0 0 a.c:2 [drained] func:f module:unloaded\n'
                          '  0 0 a.c:1 [leaky] func:f module:unloaded\n'
                          '  128 2 a.c:2 [leaky] func:f module:unloaded\n'
                          '  64 1 a.c:1 [leaky] func:f\n'
                          '  64 1 a.c:9 func:f module:unloaded\n')
        proc = self.proc(modules='loaded 16384 0 - Live 0x0\n'
                         'leaky 16384 0 - Live 0x0\n')
        rc, out = self.check('--proc', proc, '--gone', 'loaded', path)
        self.assertEqual(rc, 3)
        self.assertEqual(out.replace(path, 'IN').split('\ncoverage: ')[0], (
            'IN:3: a line of a module unloaded before (--gone): 64 1 a.c:1 '
            '[loaded] func:f\n'
            'IN:4: the module is not loaded, the line not marked '
            'module:unloaded: 64 1 a.c:1 [notloaded] func:f\n'
            'IN:5: an unloaded module holds nothing but is still listed: '
            '0 0 a.c:1 [drained] func:f\n'
            'IN:10: module:unloaded on a built-in line: 64 1 a.c:9 func:f\n'
            'check: 8 lines (7 of modules, 0 accurate:no; unloaded modules '
            'hold 192 B): 4 faults'))
        # Without /proc files the loaded modules are not known.
        rc, out = self.check(path)
        self.assertEqual(rc, 3)
        self.assertNotIn('not loaded', out)
        # A kernel without modules has no /proc/modules.
        os.unlink(os.path.join(proc, 'modules'))
        rc, out = self.check('--proc', proc, path)
        self.assertIn('IN:3: the module is not loaded', out.replace(path, 'IN'))

    SLABINFO = (
        'slabinfo - version: 2.1\n'
        '# name <active_objs> <num_objs> <objsize> <objperslab> '
        '<pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : '
        'slabdata <active_slabs> <num_slabs> <sharedavail>\n'
        'kmalloc-128 1000 1024 128 32 1 : tunables 0 0 0 : slabdata 32 32 0\n'
        'task_struct 100 112 9792 3 8 : tunables 0 0 0 : slabdata 38 38 0\n')
    ZONEINFO = ('Node 0, zone DMA32\n  pagesets\n    cpu: 0\n'
                '              count: 100\n              high:  378\n'
                '    cpu: 1\n              count: 23\n')

    def test_coverage(self):
        path = self.write('in.txt', self.HEAD +
                          '  4096000 100 mm/slub.c:1805 func:alloc_slab_page\n'
                          '  8192 2 mm/percpu-vm.c:95 func:pcpu_alloc_pages\n'
                          '  1000000 10 a.c:1 func:f\n'
                          '  2000000 20 b.c:2 [m] func:g\n')
        proc = self.proc(modules='m 16384 0 - Live 0x0\n',
                         meminfo='MemTotal:  1000000 kB\nMemFree: 400000 kB\n'
                         'MemAvailable: 500000 kB\nSlab: 20000 kB\n',
                         slabinfo=self.SLABINFO, zoneinfo=self.ZONEINFO)
        # Used 614400000; free slab space 24 * 4096 / 32 + 12 * 8 * 4096 / 3
        # = 134144 (not meminfo's Slab, which has large kmallocs too);
        # per-cpu lists 123 pages.
        self.assertEqual(self.check('--raw', '--proc', proc, path), (0, (
            'check: 4 lines (1 of modules, 0 accurate:no; unloaded modules '
            'hold 0): 0 faults\n'
            'coverage: 3000000 of 613762048 held (0.5%): MemTotal - MemFree '
            '614400000, less free slab space 134144, less per-cpu free '
            'pages 503808; slab and percpu pages (4104192) counted as their '
            'objects\n')))
        # Slab objects or percpu areas not profiled (alloc_tag.families=):
        # their pages are counted instead, and the families are named.
        os.makedirs(os.path.join(proc, 'sys/vm'))
        tail = ('coverage: {} of 613762048 held ({}): MemTotal - MemFree '
                '614400000, less free slab space 134144, less per-cpu free '
                'pages 503808; {}; profiled: {}\n')
        for families, charged, share, pages in (
                ('page,vmalloc', 7104192, '1.2%',
                 'slab and percpu pages counted as pages'),
                ('slab,page', 3008192, '0.5%',
                 'slab pages (4096000) counted as their objects'),
                ('vmalloc,percpu', 7096000, '1.2%',
                 'percpu pages (8192) counted as their objects')):
            self.write('proc/sys/vm/mem_profiling_families', families + '\n')
            rc, out = self.check('--raw', '--proc', proc, path)
            self.assertEqual((rc, out.split('\n', 1)[1]), (0, tail.format(
                charged, share, pages, families)))
        os.unlink(os.path.join(proc, 'sys/vm/mem_profiling_families'))
        # Without slabinfo (no SLUB_DEBUG) slab space counts as held.
        os.unlink(os.path.join(proc, 'slabinfo'))
        rc, out = self.check('--proc', proc, path)
        self.assertIn('less free slab space 0 B (no slabinfo), ', out)

    def test_bad_proc_files(self):
        path = self.write('in.txt', self.HEAD + '  64 1 a.c:1 func:f\n')
        proc = self.proc(meminfo='MemTotal: 1000 kB\n', slabinfo='')
        rc, out, err = run('--check', '--proc', proc, path)
        self.assertEqual((rc, err.decode()), (1, 'allocinfo: %s/meminfo: no '
                                              'MemFree\n' % proc))
        self.proc(slabinfo=self.SLABINFO + 'junk 1 2\n')
        rc, out, err = run('--check', '--proc', proc, path)
        self.assertEqual((rc, err.decode()), (1, (
            'allocinfo: %s/slabinfo: expected name active total size '
            'per-slab pages, got junk 1 2\n' % proc)))
        os.unlink(os.path.join(proc, 'zoneinfo'))
        rc, out, err = run('--check', '--proc', proc, path)
        self.assertEqual((rc, err.decode()), (1, (
            'allocinfo: %s/zoneinfo: No such file or directory\n' % proc)))

    def test_usage(self):
        for args, msg in (
                (['--check', '-n', '3'], '--check takes no option but '
                 '--gone, --proc and --raw'),
                (['--check', '-j'], '--check takes no option but --gone, '
                 '--proc and --raw'),
                (['--check', 'a', 'b'], 'expected one FILE, got 2'),
                (['--gone', 'm', 'v1.txt'], '--gone and --proc need --check'),
                (['--proc', '/proc', 'v1.txt'],
                 '--gone and --proc need --check'),
                (['--check', '--proc=', 'v1.txt'],
                 '--proc: expected a directory')):
            self.assertEqual(self.error(*args, status=2), (
                'allocinfo: %s\nTry \'allocinfo --help\' for more '
                'information.\n' % msg), args)


class Rate(Tool):
    """--rate: two reads of total_calls:, SECONDS apart (a FIFO serves
    each its own report); allocations per second, fastest first."""
    HEAD = 'allocinfo - version: 2.0\n#     <size>  <calls> <tag info>\n'
    OLD = HEAD + ('  4096 1 mm/a.c:10 func:fa total_calls:100\n'
                  '  128 2 mm/b.c:20 func:fb total_calls:5\n'
                  '  0 0 lib/c.c:3 [m] func:fc total_calls:7\n'
                  '  64 1 lib/d.c:4 [gone] func:fd total_calls:50 '
                  'module:unloaded\n')
    NEW = HEAD + ('  8192 2 mm/a.c:10 func:fa total_calls:300\n'
                  '  128 2 mm/b.c:20 func:fb total_calls:5\n'
                  '  64 1 lib/c.c:3 [m] func:fc total_calls:107\n')

    def test_json(self):
        rc, out, n = self.reads([self.OLD, self.NEW], '--rate', '0.3', '-j')
        self.assertEqual((rc, n), (0, 2), out)
        j = json.loads(out)
        t = j['interval']
        self.assertGreaterEqual(t, 0.3)
        self.assertLess(t, 5)
        # Fastest first; b allocated nothing, d's module is gone.
        self.assertEqual([(e['file'], e['module'], e['bytes'], e['calls'])
                          for e in j['entries']],
                         [('mm/a.c', 'vmlinux', 8192, 2),
                          ('lib/c.c', 'm', 64, 1)])
        for e, allocs in zip(j['entries'], (200, 100)):
            self.assertAlmostEqual(e['allocs_per_sec'], allocs / t, delta=0.06)
        self.assertEqual((j['total']['rows'], j['total']['allocated']), (4, 2))

    def test_text_and_groups(self):
        rc, out, _ = self.reads([self.OLD, self.NEW], '--rate', '0.3')
        self.assertEqual(rc, 0, out)
        self.assertRegex(out, r'^ALLOCS/S     SIZE  CALLS  CALL SITE\n'
                         r' +\d+\.\d  8\.0 KiB      2  mm/a\.c:10 func:fa\n'
                         r' +\d+\.\d     64 B      1  lib/c\.c:3 \[m\] func:fc\n'
                         r' +\d+\.\d  8\.2 KiB      5  total: 2 of 4 call sites '
                         r'allocated in 0\.\d\d s\n$')
        rc, out, _ = self.reads([self.OLD, self.NEW], '--rate', '0.3',
                                '-g', 'module', '-n', '1')
        self.assertEqual(rc, 0, out)
        self.assertRegex(out, r'^ALLOCS/S     SIZE  CALLS  LINES  MODULE\n'
                         r' +\d+\.\d  8\.1 KiB      4      2  vmlinux\n'
                         r' +\d+\.\d  8\.2 KiB      5      4  total: 2 of 3 modules '
                         r'allocated in 0\.\d\d s\n$')

    def test_no_total_calls(self):
        with open(data('v2.txt')) as f:
            v2 = f.read()
        rc, err, n = self.reads([v2, v2], '--rate', '0.1')
        self.assertEqual((rc, n), (1, 2))
        self.assertEqual(err, 'allocinfo: FIFO: no total_calls: counts (a kernel '
                         'without CONFIG_MEM_ALLOC_PROFILING_TOTAL_CALLS?)\n')

    def test_usage(self):
        for args, msg in (
                (('--rate', '0', 'v2.txt'), "--rate: expected seconds (0.5, 10; "
                 "at most 86400), got '0'"),
                (('--rate', '-1', 'v2.txt'), "--rate: expected seconds (0.5, 10; "
                 "at most 86400), got '-1'"),
                (('--rate', '1x', 'v2.txt'), "--rate: expected seconds (0.5, 10; "
                 "at most 86400), got '1x'"),
                (('--rate', '86401', 'v2.txt'), "--rate: expected seconds (0.5, "
                 "10; at most 86400), got '86401'"),
                (('--rate', '1', '-'), '--rate reads FILE twice: not -'),
                (('--rate', '1', '-d', 'old.txt', 'new.txt'),
                 '--rate takes neither --diff nor --prometheus'),
                (('--rate', '1', '-p', 'v2.txt'),
                 '--rate takes neither --diff nor --prometheus')):
            self.assertEqual(self.error(*args, status=2),
                             'allocinfo: %s\nTry \'allocinfo --help\' for more '
                             'information.\n' % msg, args)

    def test_a_malformed_count(self):
        bad = self.HEAD + '  0 0 a.c:1 func:f total_calls:x\n'
        path = self.write('bad.txt', bad)
        self.assertEqual(self.error(path), 'allocinfo: %s:3: expected '
                         'total_calls:COUNT, got "total_calls:x"\n' % path)


class Node(Tool):
    """/proc/allocinfo_node: a line per call site and NUMA node."""
    HEAD = 'allocinfo - version: 2.0\n#     <size>  <calls> <tag info>\n'
    NODES = HEAD + ('        4096        1 mm/a.c:10 func:fa node:0\n'
                    '        8192        2 mm/a.c:10 func:fa node:1\n'
                    '         128        2 lib/b.c:5 [m] func:fb node:1 '
                    'accurate:no\n'
                    '       12288        3 mm/c.c:7 func:fc node:0\n')

    def test_a_row_per_call_site_and_node(self):
        path = self.write('nodes.txt', self.NODES)
        self.assertEqual(self.ok(path), '''\
    SIZE  CALLS  CALL SITE
12.0 KiB      3  mm/c.c:7 func:fc node:0
 8.0 KiB      2  mm/a.c:10 func:fa node:1
 4.0 KiB      1  mm/a.c:10 func:fa node:0
   128 B      2  lib/b.c:5 [m] func:fb node:1 accurate:no
24.1 KiB      8  total: 4 call sites
''')

    def test_group_and_filter(self):
        path = self.write('nodes.txt', self.NODES)
        self.assertEqual(self.ok('-g', 'node', '--raw', path), '''\
 SIZE  CALLS  LINES  NODE
16384      4      2  0
 8320      4      2  1 accurate:no
24704      8      4  total: 2 nodes
''')
        self.assertEqual(self.ok('--node', '01', '-g', 'module', '--raw', path),
                         '''\
SIZE  CALLS  LINES  MODULE
8192      2      1  vmlinux
 128      2      1  m accurate:no
8320      4      2  total: 2 modules
''')
        self.assertEqual(self.ok('--node', '0', '--node', '1', '--raw', path),
                         self.ok('--raw', path))
        self.assertEqual(self.ok('--node', '7', '--raw', path), '''\
SIZE  CALLS  CALL SITE
   0      0  total: 0 call sites
''')

    def test_json_and_prometheus(self):
        path = self.write('nodes.txt', self.NODES)
        entries = self.json('--node', '1', path)['entries']
        self.assertEqual([(e['file'], e['node'], e['bytes'], e['extra'])
                          for e in entries],
                         [('mm/a.c', 1, 8192, {}), ('lib/b.c', 1, 128, {})])
        self.assertEqual(self.ok('-p', '--node', '0', path).splitlines()[2:4], [
            'allocinfo_bytes{file="mm/c.c",line="7",module="vmlinux",'
            'function="fc",node="0"} 12288',
            'allocinfo_bytes{file="mm/a.c",line="10",module="vmlinux",'
            'function="fa",node="0"} 4096'])
        self.assertEqual(self.ok('-p', '-g', 'node', path).splitlines()[2:4], [
            'allocinfo_bytes{node="0"} 16384',
            'allocinfo_bytes{node="1"} 8320'])

    def test_errors(self):
        v2 = self.write('v2.txt', self.HEAD + '  1 1 a.c:1 func:f\n')
        for args in (('-g', 'node', v2), ('--node', '0', v2)):
            self.assertEqual(self.error(*args), 'allocinfo: %s: no line has '
                             'node:N (-g node and --node read '
                             '/proc/allocinfo_node)\n' % v2)
        for bad in ('node:x', 'node:-1', 'node:2147483648', 'node:'):
            path = self.write('bad.txt', self.HEAD + '  1 1 a.c:1 func:f %s\n'
                              % bad)
            err = self.error(path)
            self.assertTrue(err.startswith('allocinfo: %s:3: expected ' % path),
                            err)
        if not os.path.exists('/proc/allocinfo_node'):
            self.assertEqual(self.error('-g', 'node'), 'allocinfo: '
                             '/proc/allocinfo_node: No such file or directory '
                             '(a kernel without '
                             'CONFIG_MEM_ALLOC_PROFILING_PER_NODE?)\n')


class Large(Tool):
    """A /proc/allocinfo of a big machine has about 30,000 lines."""

    def generate(self, seed, n=50000):
        rnd = random.Random(seed)
        lines = ['allocinfo - version: 2.0',
                 '#     <size>  <calls> <tag info>']
        sites = {}
        for i in range(n):
            # Every 100th line repeats a header call site.
            if i % 100 == 0:
                f, ln, mod, fn = 'include/linux/slab.h', 600, None, 'kmalloc'
            else:
                f = 'dir%d/sub%d/file%d.c' % (i % 37, i % 11, i % 1999)
                ln, fn = i, 'fn_%d' % (i % 4001)
                mod = 'mod%d' % (i % 23) if i % 9 == 0 else None
            b = rnd.randrange(0, 1 << 32) if i % 3 else 0
            c = b // 4096 + rnd.randrange(0, 3)
            flag = ' accurate:no' if i % 1000 == 7 else ''
            lines.append('%12d %8d %s:%d%s func:%s%s' % (
                b, c, f, ln, ' [%s]' % mod if mod else '', fn, flag))
            key = (f, ln, mod or 'vmlinux', fn)
            ob, oc = sites.get(key, (0, 0))
            sites[key] = (ob + b, oc + c)
        return '\n'.join(lines) + '\n', sites

    def test_fifty_thousand_lines(self):
        text, sites = self.generate(1)
        path = self.write('big.txt', text)
        start = time.monotonic()
        j = self.json('-n', '0', path)
        self.assertLess(time.monotonic() - start, 20)
        self.assertEqual(len(j['entries']), len(sites))
        self.assertEqual(j['total']['lines'], 50000)
        self.assertEqual(j['total']['bytes'],
                         sum(b for b, _ in sites.values()))
        want = sorted(sites.items(), key=lambda kv: (-kv[1][0], -kv[1][1],
                                                     kv[0]))
        got = [((e['file'], e['line'], e['module'], e['function']),
                (e['bytes'], e['calls'])) for e in j['entries']]
        self.assertEqual(got, want)
        slab = [e for e in j['entries'] if e['function'] == 'kmalloc']
        self.assertEqual(slab[0]['lines'], 500)
        text_out = self.ok(path)
        self.assertEqual(len(text_out.splitlines()), 12)
        self.assertTrue(text_out.endswith(
            'total: %d call sites, 10 shown\n' % len(sites)))
        rc, prom, err = run('-p', '-n', '0', path)
        self.assertEqual(rc, 0)
        self.assertEqual(prom.count(b'\nallocinfo_bytes{'), len(sites))
        mods = self.json('-g', 'module', '-n', '0', path)['entries']
        self.assertEqual(len(mods), 24)

    def test_fifty_thousand_line_diff(self):
        old, old_sites = self.generate(1)
        new, new_sites = self.generate(2)
        a = self.write('old.txt', old)
        b = self.write('new.txt', new)
        j = self.json('-d', '--shrunk', '-n', '5', a, b)
        deltas = sorted(((new_sites.get(k, (0, 0))[0] -
                          old_sites.get(k, (0, 0))[0]), k)
                        for k in set(old_sites) | set(new_sites))
        got = [e['delta_bytes'] for e in j['entries']]
        self.assertEqual(got[:5], [d for d, _ in deltas[::-1][:5]])
        self.assertEqual(got[5:], [d for d, _ in deltas[:5]][::-1])
        self.assertEqual(j['total']['delta_bytes'],
                         sum(d for d, _ in deltas))


class NeverCrashes(Tool):
    """Every truncation and many corruptions, under ASan and UBSan."""

    def check_run(self, path):
        rc, out, err = run(path, '-n', '0', binary=asan_tool)
        self.assertIn(rc, (0, 1), err)
        if rc:
            self.assertRegex(err.decode(errors='replace'),
                             r'\Aallocinfo: [^\n]*:\d+: expected [^\n]*\n\Z')
        else:
            self.assertEqual(err, b'')
        return rc

    def test_every_truncation(self):
        for name in ('v1.txt', 'future.txt'):
            with open(data(name), 'rb') as f:
                content = f.read()
            rcs = set()
            for n in range(len(content) + 1):
                rcs.add(self.check_run(self.write('cut.txt', content[:n])))
            self.assertEqual(rcs, {0, 1})

    def test_corruptions(self):
        with open(data('modules.txt'), 'rb') as f:
            content = f.read()
        rnd = random.Random(6)
        junk = b' \t\n\0:[]-#x9\xff'
        for _ in range(300):
            b = bytearray(content)
            for _ in range(rnd.randrange(1, 4)):
                b[rnd.randrange(len(b))] = rnd.choice(junk)
            self.check_run(self.write('bad.txt', bytes(b)))
        for args in (['-g', 'dir'], ['--json'], ['-p', '-g', 'function'],
                     ['-d', '--shrunk', '-g', 'file', 'old.txt']):
            rc, out, err = run(*args, 'modules.txt', binary=asan_tool)
            self.assertEqual((rc, err), (0, b''), args)


def main():
    args = sys.argv[1:]
    verdict_path = None
    global TREE
    while args:
        if args[0] == '--verdict' and len(args) > 1:
            verdict_path = args[1]
        elif args[0] == '--tree' and len(args) > 1:
            TREE = os.path.abspath(args[1])
        else:
            sys.exit(__doc__)
        args = args[2:]
    return ktap.run_unittests(sys.modules[__name__], 'allocinfo-tool',
                              verdict_path)

if __name__ == '__main__':
    sys.exit(main())
