#!/usr/bin/python3
"""Find the uses of the allocator names we turned into macros that are not
plain calls, in the whole kernel tree.

  treewide.py scan TREE REVIEWED [--json OUT] [--verdict FILE]
      Prints every risky use (FILE:LINE: NAME KIND: text) and fails on
      one that REVIEWED does not list (or a listed one no longer found).
      FILE gets the one test's result for make check's summary.

A converted name is one the overlay defines as a function-like macro in a
file where the base declared a function of that name: kmalloc(...) is now
alloc_hooks(kmalloc_noprof(...)). Any use that is not a call breaks or
changes meaning: taking its address or passing it (`= kmalloc`,
`&vmalloc`, EXPORT_SYMBOL(kmalloc)), calling a struct member or a pointer
named like it (`ops->kmalloc(...)`, `(*kmalloc)(...)`), pasting tokens,
redefining or #undef'ing it, declaring or defining a function of that name
(`void * __weak vmalloc(...)`).
"""

import argparse
import json
import re
import subprocess
import sys

# Lines of the tree not compiled into the kernel, and the architectures
# Debian 12 does not build.
DEBIAN_ARCHES = {'x86', 'arm64', 'arm', 'mips', 'powerpc', 's390'}
EXCLUDE = [':!Documentation', ':!tools', ':!scripts', ':!samples',
           ':!usr', ':!*.S']
DEFINE_RE = re.compile(r'^\+\s*#\s*define\s+([A-Za-z_]\w*)\(')
KEYWORDS = {'return', 'if', 'while', 'for', 'else', 'case', 'do', 'goto',
            'sizeof', 'typeof', '__typeof__', 'switch'}


def git(tree, *args):
    return subprocess.run(['git', '-C', tree] + list(args), check=True,
                          capture_output=True, text=True).stdout


def converted_names(tree):
    """{name: [file, ...]} for each converted name: the files defining
    its macro."""
    names = {}
    files = git(tree, 'diff', '--name-only', 'base', '--', '*.h', '*.c')
    for f in files.split():
        if f.startswith('tools/') or re.search(r'(^|/)(test_|.*_test)', f):
            continue
        diff = git(tree, 'diff', '-U0', 'base', '--', f)
        added = {m.group(1) for m in map(DEFINE_RE.match, diff.splitlines())
                 if m}
        removed = {m.group(1) for m in
                   map(DEFINE_RE.match,
                       ['+' + l[1:] for l in diff.splitlines()
                        if l.startswith('-')]) if m}
        try:
            old = git(tree, 'show', 'base:' + f)
        except subprocess.CalledProcessError:
            continue
        for name in added - removed:
            if name.endswith('_noprof'):
                continue
            decl = re.compile(r'^[^#\n]*[\w\*]\s*\b%s\s*\(|^%s\s*\(' %
                              (name, name), re.M)
            if decl.search(old):
                names.setdefault(name, []).append(f)
    return names


def strip_line(text):
    """The code of one line: comments and string literals removed."""
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    text = re.sub(r'/\*.*?\*/', ' ', text)
    text = re.sub(r'//.*', '', text)
    text = re.sub(r'/\*.*', '', text)
    return text


def classify(code, name, start, end):
    """The kind of risky use of NAME at code[start:end], or None."""
    before = code[:start]
    after = code[end:]
    called = re.match(r'\s*\(', after)
    if re.search(r'##\s*$', before) or re.match(r'\s*##', after):
        return 'pasted'
    if re.match(r'\s*#\s*(undef|ifdef|ifndef)\b', before + ' ') or \
            re.search(r'defined\s*\(?\s*$', before):
        return 'preprocessor'
    if re.match(r'\s*#\s*define\s*$', before):
        return 'redefined'
    if re.search(r'(->|\.)\s*$', before):
        return 'member call' if called else None
    if re.search(r'\(\s*\*\s*$', before) and re.match(r'\s*\)', after):
        return 'pointer named'
    if not called:
        return 'value'
    # A definition, its type on the line before, starts at column 0.
    if not before:
        return 'declared'
    words = re.findall(r'[A-Za-z_]\w*|[^\s\w]', before)
    if words and all(re.match(r'[A-Za-z_]\w*$|\*$', w) for w in words) and \
            words[0] not in KEYWORDS:
        return 'declared'
    return None


def comment_lines(path):
    """Numbers of the lines of PATH that are wholly inside a block comment
    (a comment's first line is not: code may precede it)."""
    with open(path, errors='replace') as f:
        text = f.read()
    inside = set()
    for m in re.finditer(r'/\*.*?\*/', text, re.S):
        first = text.count('\n', 0, m.start()) + 1
        last = text.count('\n', 0, m.end()) + 1
        inside.update(range(first + 1, last + 1))
    return inside


def arch_of(path):
    m = re.match(r'arch/([^/]+)/', path)
    return m.group(1) if m else None


def scan(tree, names, defining):
    pattern = r'\b(%s)\b' % '|'.join(sorted(names))
    out = subprocess.run(['git', '-C', tree, 'grep', '-n', '-P', '-I',
                          pattern, '--', '*.c', '*.h'] + EXCLUDE,
                         capture_output=True, text=True).stdout
    word = re.compile(pattern)
    found = []
    comments = {}
    for line in out.splitlines():
        path, lineno, text = line.split(':', 2)
        arch = arch_of(path)
        if arch and arch not in DEBIAN_ARCHES:
            continue
        stripped = text.lstrip()
        if stripped.startswith(('*', '/*', '//')) or \
                re.match(r'#\s*include\b', stripped):
            continue
        code = strip_line(text)
        for m in word.finditer(code):
            # A name only architectures' headers convert is theirs alone.
            homes = {arch_of(f) for f in defining[m.group(1)]}
            if None not in homes and arch not in homes:
                continue
            kind = classify(code, m.group(1), m.start(), m.end())
            if kind is None:
                continue
            # The overlay's own macros.
            if kind == 'redefined' and path in defining[m.group(1)]:
                continue
            # Read for comments only where a risky use is seen.
            if path not in comments:
                comments[path] = comment_lines('%s/%s' % (tree, path))
            if int(lineno) in comments[path]:
                break
            found.append({'file': path, 'line': int(lineno),
                          'name': m.group(1), 'kind': kind,
                          'text': text.strip()})
    return found


def read_reviewed(path):
    """{(file, name, kind): reason} from lines 'FILE NAME KIND: REASON'."""
    reviewed = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            m = re.match(r'(\S+) (\S+) ([a-z ]+?): (.+)$', line)
            if not m:
                sys.exit('%s:%d: not FILE NAME KIND: REASON' % (path, n))
            reviewed[m.group(1, 2, 3)] = m.group(4)
    return reviewed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    s = sub.add_parser('scan')
    s.add_argument('tree')
    s.add_argument('reviewed')
    s.add_argument('--json')
    s.add_argument('--verdict')
    args = ap.parse_args()

    defining = converted_names(args.tree)
    found = scan(args.tree, set(defining), defining)
    reviewed = read_reviewed(args.reviewed)
    new = []
    seen = set()
    for f in found:
        key = (f['file'], f['name'], f['kind'])
        seen.add(key)
        mark = 'reviewed' if key in reviewed else 'NEW'
        if key not in reviewed:
            new.append(f)
        print('%s:%d: %s %s [%s]: %s' % (f['file'], f['line'], f['name'],
                                         f['kind'], mark, f['text']))
    stale = sorted(set(reviewed) - seen)
    for key in stale:
        print('reviewed but not found: %s %s %s' % key)
    files = sorted({f['file'] for f in found})
    print('treewide: %d converted names, %d risky uses in %d files, '
          '%d not reviewed, %d stale entries' %
          (len(defining), len(found), len(files), len(new), len(stale)))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'names': defining, 'found': found, 'files': files},
                      f, indent=1)
    if args.verdict:
        bad = ['%s:%d: %s %s: %s' % (f['file'], f['line'], f['name'],
                                      f['kind'], f['text']) for f in new]
        bad += ['reviewed but not found: %s %s %s' % key for key in stale]
        with open(args.verdict, 'w') as f:
            json.dump({'name': 'treewide', 'tests': [
                ['scan', 'fail' if bad else 'pass', '\n'.join(bad)]],
                'problems': []}, f)
    return 1 if new or stale else 0


if __name__ == '__main__':
    sys.exit(main())
