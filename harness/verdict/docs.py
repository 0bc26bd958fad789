#!/usr/bin/python3
"""make check's documentation step.

  docs.py TREE OUTDIR VERDICT

TREE is make tree's tree: the series as commits on tag base.

- `make htmldocs` (Sphinx from Debian), limited with SPHINXDIRS to the
  Documentation directories that hold the files the series adds or changes,
  builds, and prints no warning located in a file the series adds or on a
  line the series adds to a file. (Warnings elsewhere in a changed file
  are the base's own: a partial build leaves references to other
  directories undefined.)
- scripts/kernel-doc finds no warning in a source file the series adds or
  changes, and that the documentation includes kernel-doc from, that it does
  not find in the base version of that file (messages compared without
  line numbers).

One test per file; VERDICT gets them for the make check summary.
"""

import collections
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..'))
from harness.verdict.ktap import Verdict  # noqa: E402


def git(tree, *args):
    return subprocess.run(['git', '-C', tree] + list(args), check=True,
                          capture_output=True, text=True,
                          errors='replace').stdout


def changed_files(tree, top):
    """Paths under TOP the series adds or changes (deleted ones left out)."""
    return sorted(git(tree, 'diff', '--name-only', '--diff-filter=d',
                      'base', 'HEAD', '--', top).split())


def kernel_doc_sources(tree):
    """Source files some .rst pulls kernel-doc comments from."""
    sources = set()
    directive = re.compile(r'^\.\. kernel-doc::\s+(\S+)')
    for root, _dirs, files in os.walk(os.path.join(tree, 'Documentation')):
        for f in files:
            if not f.endswith('.rst'):
                continue
            with open(os.path.join(root, f), errors='replace') as rst:
                for line in rst:
                    m = directive.match(line)
                    if m:
                        sources.add(m.group(1))
    return sources


def kernel_doc_warnings(tree, path, text):
    """kernel-doc's warnings for TEXT (the file PATH), without line numbers."""
    tmp = os.path.join('/tmp', 'kdoc-%d-%s' % (os.getpid(),
                                               os.path.basename(path)))
    with open(tmp, 'w') as f:
        f.write(text)
    try:
        r = subprocess.run([os.path.join(tree, 'scripts/kernel-doc'),
                            '-none', tmp], capture_output=True, text=True)
    finally:
        os.unlink(tmp)
    warnings = collections.Counter()
    for line in r.stderr.splitlines():
        if 'warning' in line.lower() or 'error' in line.lower():
            warnings[re.sub(r'^\S*?:\d+: ', '', line)] += 1
    return warnings


def check_kernel_doc(tree, verdict):
    pulled = kernel_doc_sources(tree)
    for path in changed_files(tree, '.'):
        if path.startswith('Documentation/') or path not in pulled:
            continue
        with open(os.path.join(tree, path), errors='replace') as f:
            ours = kernel_doc_warnings(tree, path, f.read())
        base = subprocess.run(['git', '-C', tree, 'show',
                               'base:' + path], capture_output=True,
                              text=True, errors='replace')
        theirs = (kernel_doc_warnings(tree, path, base.stdout)
                  if base.returncode == 0 else collections.Counter())
        new = ours - theirs
        verdict.add('kernel-doc: ' + path,
                    'fail' if new else 'pass',
                    '; '.join(sorted(new.elements())))


def added_lines(tree, path):
    """Lines of PATH the series adds; None for a file it adds."""
    if subprocess.run(['git', '-C', tree, 'cat-file', '-e', 'base:' + path],
                      capture_output=True).returncode:
        return None
    added, line = set(), 0
    for text in git(tree, 'diff', '-U0', 'base', 'HEAD', '--',
                    path).splitlines():
        m = re.match(r'^@@ -\d+(?:,\d+)? \+(\d+)', text)
        if m:
            line = int(m.group(1))
        elif text.startswith('+') and not text.startswith('+++'):
            added.add(line)
            line += 1
    return added


def check_htmldocs(tree, outdir, verdict):
    docs = [p for p in changed_files(tree, 'Documentation')
            if p.endswith(('.rst', '.txt'))]
    dirs = sorted({p.split('/')[1] for p in docs if p.count('/') >= 2})
    r = subprocess.run(['make', '-s', '-C', tree,
                        'O=' + os.path.abspath(outdir),
                        'SPHINXDIRS=' + ' '.join(dirs), 'htmldocs'],
                       capture_output=True, text=True, errors='replace')
    log = (r.stdout + r.stderr).splitlines()
    with open(os.path.join(outdir, 'htmldocs.log'), 'w') as f:
        f.write('\n'.join(log) + '\n')
    verdict.add('htmldocs: SPHINXDIRS=' + ' '.join(dirs),
                'pass' if r.returncode == 0 else 'fail',
                '' if r.returncode == 0 else '\n'.join(log[-20:]))
    for path in docs:
        name = os.path.join(os.path.abspath(tree), path)
        ours = added_lines(tree, path)
        bad = []
        for l in log:
            m = re.match(re.escape(name) + r':(\d+): ', l)
            if (m and re.search(r'\b(WARNING|ERROR|SEVERE)\b', l) and
                    (ours is None or int(m.group(1)) in ours)):
                bad.append(l)
        verdict.add('htmldocs: ' + path, 'fail' if bad else 'pass',
                    '\n'.join(bad))


def main():
    tree, outdir, out = sys.argv[1:4]
    os.makedirs(outdir, exist_ok=True)
    verdict = Verdict('docs')
    check_htmldocs(tree, outdir, verdict)
    check_kernel_doc(tree, verdict)
    for name, status, detail in verdict.tests:
        if status != 'pass':
            print('FAIL docs: %s\n%s' % (name, detail))
    c = verdict.counts()
    print('docs: %d passed, %d failed' % (c['pass'], c['fail']))
    with open(out, 'w') as f:
        json.dump(verdict.to_json(), f)
    return 0 if not c['fail'] else 1


if __name__ == '__main__':
    sys.exit(main())
