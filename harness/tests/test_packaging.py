#!/usr/bin/python3
"""Tests of the packages of packaging/ (harness/debian/allocprof-deb.sh) and of the
repository make repo writes (harness/debian/repo.sh), without a kernel build: the
meta-packages are built for a release and version given here.

  test_packaging.py [--tree TREE] [--verdict FILE]

TREE is the kernel tree with the series (default build/linux of this
repo): the tool is built from its tools/vm/allocinfo.c. FILE gets the
results for the make check summary.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.dirname(HERE)
sys.path.insert(0, os.path.dirname(HARNESS))
from harness.verdict import ktap  # noqa: E402

TREE = os.path.join(HARNESS, '..', 'build', 'linux')
RELEASE = '6.1.0-57-cloud-amd64-allocprof'
VERSIONS = ('6.1.192-3+allocprof7', '6.1.192-3+allocprof8')
PACKAGES = ['allocinfo', 'linux-headers-allocprof-cloud-amd64',
            'linux-image-allocprof-cloud-amd64']
ARCH = subprocess.run(['dpkg', '--print-architecture'], capture_output=True,
                      text=True, check=True).stdout.strip()

built = {}  # version: the directory with its packages
workdir = None


def build(version, release=RELEASE, base='bases/6.1'):
    """allocprof-deb.sh for VERSION of BASE, once; returns the output
    directory."""
    if version not in built:
        out = os.path.join(workdir, version)
        os.makedirs(out)
        r = subprocess.run([os.path.join(HARNESS, 'debian', 'allocprof-deb.sh'), TREE, out,
                            'cloud-amd64', release, version],
                           capture_output=True, text=True,
                           env=dict(os.environ, BASE_DIR=base))
        if r.returncode:
            raise AssertionError('allocprof-deb.sh: ' + r.stdout + r.stderr)
        built[version] = out
    return built[version]


def deb(version, package):
    return os.path.join(build(version), '%s_%s_%s.deb' % (package, version,
                                                          ARCH))


def field(path, name):
    return subprocess.run(['dpkg-deb', '-f', path, name], capture_output=True,
                          text=True, check=True).stdout.strip()


def setUpModule():
    global workdir
    workdir = tempfile.mkdtemp(prefix='packaging-test-')


def tearDownModule():
    shutil.rmtree(workdir, ignore_errors=True)


class Packages(unittest.TestCase):
    maxDiff = None

    def test_the_packages(self):
        out = build(VERSIONS[0])
        self.assertEqual(sorted(f for f in os.listdir(out)
                                if f.endswith('.deb')),
                         ['%s_%s_%s.deb' % (p, VERSIONS[0], ARCH)
                          for p in PACKAGES])

    def test_allocinfo_contents(self):
        r = subprocess.run(['dpkg-deb', '-c', deb(VERSIONS[0], 'allocinfo')],
                           capture_output=True, text=True, check=True)
        files = {line.split()[-1] for line in r.stdout.splitlines()
                 if not line.startswith('d')}
        self.assertEqual(files, {
            './etc/default/allocinfo-textfile',
            './lib/systemd/system/allocinfo-textfile.service',
            './lib/systemd/system/allocinfo-textfile.timer',
            './usr/sbin/allocinfo',
            './usr/share/doc/allocinfo/changelog.Debian.gz',
            './usr/share/doc/allocinfo/copyright',
            './usr/share/man/man8/allocinfo.8.gz'})

    def test_allocinfo_scripts(self):
        """The timer enabled and started at install; the textfile goes with
        the package; /etc/default a conffile."""
        ctl = os.path.join(workdir, 'control')
        subprocess.run(['dpkg-deb', '-e', deb(VERSIONS[0], 'allocinfo'), ctl],
                       check=True)
        with open(os.path.join(ctl, 'postinst')) as f:
            postinst = f.read()
        self.assertIn("deb-systemd-helper enable 'allocinfo-textfile.timer'",
                      postinst)
        self.assertIn("'allocinfo-textfile.service' "
                      "'allocinfo-textfile.timer'", postinst)
        with open(os.path.join(ctl, 'postrm')) as f:
            self.assertIn('rm -f /var/lib/prometheus/node-exporter/'
                          'allocinfo.prom', f.read())
        with open(os.path.join(ctl, 'conffiles')) as f:
            self.assertEqual(f.read(), '/etc/default/allocinfo-textfile\n')

    def test_allocinfo_version(self):
        x = os.path.join(workdir, 'x')
        subprocess.run(['dpkg-deb', '-x', deb(VERSIONS[0], 'allocinfo'), x],
                       check=True)
        r = subprocess.run([os.path.join(x, 'usr/sbin/allocinfo'),
                            '--version'], capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stdout),
                         (0, 'allocinfo %s\n' % VERSIONS[0]))

    def test_meta_packages(self):
        image = deb(VERSIONS[0], 'linux-image-allocprof-cloud-amd64')
        self.assertEqual(field(image, 'Depends'),
                         'linux-image-%s (= %s)' % (RELEASE, VERSIONS[0]))
        self.assertEqual(field(image, 'Recommends'), 'allocinfo')
        headers = deb(VERSIONS[0], 'linux-headers-allocprof-cloud-amd64')
        self.assertEqual(field(headers, 'Depends'),
                         'linux-headers-%s (= %s), '
                         'linux-image-allocprof-cloud-amd64 (= %s)'
                         % (RELEASE, VERSIONS[0], VERSIONS[0]))

    def test_meta_packages_of_the_6_12_base(self):
        """Named as Debian's 6.12 meta-packages are, beside 6.1's: neither
        upgrades to the other."""
        release = '6.12.118+deb12-cloud-amd64-allocprof'
        version = '6.12.118-1~deb12u1+allocprof7'
        out = build(version, release, 'bases/6.12')
        self.assertEqual(sorted(f for f in os.listdir(out)
                                if f.endswith('.deb')),
                         ['%s_%s_%s.deb' % (p, version, ARCH) for p in
                          ('allocinfo',
                           'linux-headers-allocprof-6.12-cloud-amd64',
                           'linux-image-allocprof-6.12-cloud-amd64')])
        image = os.path.join(out, 'linux-image-allocprof-6.12-cloud-amd64'
                             '_%s_%s.deb' % (version, ARCH))
        self.assertEqual(field(image, 'Depends'),
                         'linux-image-%s (= %s)' % (release, version))
        self.assertEqual(field(image, 'Description').splitlines()[0],
                         'Linux 6.12 for cloud-amd64 with memory allocation '
                         'profiling (meta-package)')

    def test_man_page_has_every_option(self):
        tool = os.path.join(workdir, 'allocinfo')
        subprocess.run(['gcc', '-O2', '-o', tool,
                        os.path.join(TREE, 'tools/vm/allocinfo.c')],
                       check=True)
        help_text = subprocess.run([tool, '--help'], capture_output=True,
                                   text=True, check=True).stdout
        options = set(re.findall(r'--[a-z][a-z-]*', help_text))
        with open(os.path.join(HARNESS, '..', 'packaging', 'allocinfo.8')) as f:
            man = f.read().replace('\\-', '-')
        self.assertEqual(options, {
            '--top', '--sort', '--group', '--module', '--file', '--func',
            '--node', '--min-bytes', '--diff', '--shrunk', '--rate', '--raw',
            '--json', '--prometheus', '--output', '--check', '--gone',
            '--proc', '--help', '--version'})
        for option in sorted(options):
            self.assertIn(option, man)


class Repository(unittest.TestCase):
    """Two revisions in one repository, signed with its own key."""

    def test_signed_repository_keeps_revisions(self):
        repo = os.path.join(workdir, 'repo')
        env = dict(os.environ, REPO_KEY_HOME=os.path.join(workdir, 'gnupg'),
                   REPO_URL='https://apt.example.org/allocprof')
        for version in VERSIONS:
            out = build(version)
            with open(os.path.join(out, 'packages'), 'w') as f:
                f.write(''.join('%s_%s_%s.deb\n' % (p, version, ARCH)
                                for p in PACKAGES))
            r = subprocess.run([os.path.join(HARNESS, 'debian', 'repo.sh'), out, repo],
                               capture_output=True, text=True, env=env)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        dists = os.path.join(repo, 'dists', 'bookworm')
        r = subprocess.run(['gpgv', '--keyring',
                            os.path.join(repo, 'allocprof.gpg'),
                            os.path.join(dists, 'InRelease')],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(dists, 'main', 'binary-%s' % ARCH,
                               'Packages')) as f:
            entries = [(re.search(r'^Package: (\S+)$', p, re.M).group(1),
                        re.search(r'^Version: (\S+)$', p, re.M).group(1))
                       for p in f.read().strip().split('\n\n')]
        self.assertEqual(sorted(entries),
                         sorted((p, v) for p in PACKAGES for v in VERSIONS))
        with open(os.path.join(repo, 'allocprof.sources')) as f:
            self.assertEqual(f.read(),
                             'Types: deb\n'
                             'URIs: https://apt.example.org/allocprof\n'
                             'Suites: bookworm\nComponents: main\n'
                             'Signed-By: /etc/apt/keyrings/allocprof.gpg\n')
        # A Release file changed after signing is refused.
        with open(os.path.join(dists, 'InRelease')) as f:
            signed = f.read()
        with open(os.path.join(workdir, 'forged'), 'w') as f:
            f.write(signed.replace('Suite: bookworm', 'Suite: trixie'))
        r = subprocess.run(['gpgv', '--keyring',
                            os.path.join(repo, 'allocprof.gpg'),
                            os.path.join(workdir, 'forged')],
                           capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)

    def test_key_home_at_any_depth(self):
        """A GnuPG home whose agent sockets' paths are longer than a UNIX
        socket name may be (108 bytes), as make lifecycle's under a deep
        checkout; and no agent left running."""
        home = os.path.join(workdir, *['a-deep-key-home-%d' % i
                                       for i in range(6)], 'gnupg')
        self.assertGreater(len(home + '/S.gpg-agent.extra'), 108)
        repo = os.path.join(workdir, 'deep-repo')
        out = build(VERSIONS[0])
        with open(os.path.join(out, 'packages'), 'w') as f:
            f.write(''.join('%s_%s_%s.deb\n' % (p, VERSIONS[0], ARCH)
                            for p in PACKAGES))
        r = subprocess.run([os.path.join(HARNESS, 'debian', 'repo.sh'), out, repo],
                           capture_output=True, text=True,
                           env=dict(os.environ, REPO_KEY_HOME=home))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        r = subprocess.run(['gpgv', '--keyring',
                            os.path.join(repo, 'allocprof.gpg'),
                            os.path.join(repo, 'dists', 'bookworm',
                                         'InRelease')],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        # The agent removes its sockets as it exits.
        self.assertEqual([f for f in os.listdir(home)
                          if f.startswith('S.')], [])


def main():
    global TREE
    ap = argparse.ArgumentParser()
    ap.add_argument('--tree', default=TREE)
    ap.add_argument('--verdict')
    args = ap.parse_args()
    TREE = os.path.abspath(args.tree)
    return ktap.run_unittests(sys.modules[__name__], 'packaging',
                              args.verdict)

if __name__ == '__main__':
    sys.exit(main())
