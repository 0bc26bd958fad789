#!/usr/bin/python3
"""Find the uses of the allocator names we turned into macros that are not
plain calls, in the whole kernel tree.

  treewide.py scan TREE REVIEWED [--json OUT] [--verdict FILE]
      Prints every risky use (FILE:LINE: NAME KIND: text) and fails on
      one that REVIEWED does not list (or a listed one no longer found).
      FILE gets the one test's result for make check's summary.
  treewide.py compile TREE FOUND OUT --arch ARCH --config TARGET [--full]
      Configures TREE for ARCH (the kernel's ARCH; x86_64 or arm64) with
      make TARGET in OUT and compiles every file of the scan's FOUND
      (its --json) that this architecture can build: a .c file as its
      object, a header through the .c files that include it, its use
      proved by the objects' dependency lists. --full also builds the
      kernel image and its modules. Fails if anything fails to compile.

A converted name is one the series defines as a function-like macro in a
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
import os
import re
import subprocess
import sys
import time

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
            # The series' own macros.
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


# The kernel's ARCH: its source directory, cross compiler and image.
BUILD_ARCHES = {'x86_64': ('x86', '', 'bzImage'),
                'arm64': ('arm64', 'aarch64-linux-gnu-', 'Image')}
INCLUDERS = 8


def include_name(header):
    """How a .c file names HEADER: (name, directory it must be in)."""
    m = re.match(r'(?:arch/[^/]+/)?include/(.+)$', header)
    if m:
        return m.group(1), None
    return os.path.basename(header), os.path.dirname(header)


def includers(tree, header, srcarch, suffix='*.c'):
    """The files (SUFFIX) of this architecture or generic code that
    include HEADER, those of the header's own directory first."""
    name, where = include_name(header)
    quote = '"' if where else '[<"]'
    pattern = r'^\s*#\s*include\s*%s%s[>"]' % (quote, re.escape(name))
    out = subprocess.run(['git', '-C', tree, 'grep', '-l', '-E', pattern,
                          '--', '%s/%s' % (where, suffix) if where else suffix]
                         + EXCLUDE, capture_output=True, text=True).stdout
    # Not the boot decompressors: kbuild builds them apart from the kernel.
    files = [f for f in out.split() if arch_of(f) in (None, srcarch) and
             not re.match(r'arch/[^/]+/boot/', f)]
    home = os.path.dirname(header)
    return sorted(files, key=lambda f: (not f.startswith(home), f))


def compile_units(tree, files, srcarch):
    """{file of FILES this architecture can build: [.c file, ...]}."""
    units = {}
    for f in files:
        if arch_of(f) not in (None, srcarch):
            continue
        if f.endswith('.c'):
            units[f] = [f]
            continue
        direct = includers(tree, f, srcarch)
        if not direct:
            # Included only by headers (asm-generic): their includers.
            for h in includers(tree, f, srcarch, '*.h'):
                direct += includers(tree, h, srcarch)
        units[f] = direct[:INCLUDERS]
    return units


def make(tree, out, karch, *targets):
    cross = BUILD_ARCHES[karch][1]
    cmd = ['make', '-C', tree, 'O=' + os.path.abspath(out), 'ARCH=' + karch,
           'CROSS_COMPILE=' + cross, 'CC=ccache %sgcc' % cross,
           '-j%d' % os.cpu_count()] + list(targets)
    with open(os.path.join(out, 'build.log'), 'a') as log:
        log.write('$ %s\n' % ' '.join(cmd))
        log.flush()
        return subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT,
                              env=dict(os.environ, KBUILD_MODPOST_WARN='1')
                              ).returncode == 0


def dependencies(out, obj):
    """The source files kbuild recorded for OUT/OBJ, or None if OBJ was not
    built."""
    if not os.path.exists(os.path.join(out, obj)):
        return None
    cmd = os.path.join(out, os.path.dirname(obj),
                       '.%s.cmd' % os.path.basename(obj))
    with open(cmd) as f:
        return set(re.findall(r'(\S+\.[ch])\b', f.read()))


def compile_found(args):
    srcarch, _, image = BUILD_ARCHES[args.arch]
    with open(args.found) as f:
        files = json.load(f)['files']
    units = compile_units(args.tree, files, srcarch)
    os.makedirs(args.out, exist_ok=True)
    start = time.time()
    if not os.path.exists(os.path.join(args.out, '.config')) and \
            not make(args.tree, args.out, args.arch, args.config):
        sys.exit('treewide: make %s failed (see %s/build.log)' %
                 (args.config, args.out))
    objs = sorted({u[:-2] + '.o' for us in units.values() for u in us})
    for o in objs:
        path = os.path.join(args.out, o)
        if os.path.exists(path):
            os.unlink(path)
    # One failure stops kbuild's other single targets: then one at a time.
    if not make(args.tree, args.out, args.arch, '-k', 'prepare', *objs):
        for o in objs:
            make(args.tree, args.out, args.arch, o)
    tree = os.path.abspath(args.tree)
    built = {}
    # Kbuild builds a single target whatever the configuration: an object
    # that is not there failed.
    failed = []
    for o in objs:
        deps = dependencies(args.out, o)
        if deps is None:
            failed.append(o)
            continue
        built[o[:-2] + '.c'] = {os.path.relpath(d, tree) for d in deps
                                if d.startswith(tree + '/')} | \
            {d for d in deps if not d.startswith('/')}
    # A file outside the configuration can fail as a single target for
    # reasons of its own: ours only if the base tree builds it.
    base_fails = set()
    if failed:
        base = os.path.join(args.out, 'base')
        if not os.path.isdir(os.path.join(base, 'tree')):
            subprocess.run(['git', '-C', args.tree, 'worktree', 'add', '-f',
                            os.path.abspath(os.path.join(base, 'tree')),
                            'base'], check=True, capture_output=True)
        os.makedirs(os.path.join(base, 'out'), exist_ok=True)
        with open(os.path.join(args.out, '.config')) as src, \
                open(os.path.join(base, 'out', '.config'), 'w') as dst:
            dst.write(src.read())
        make(os.path.join(base, 'tree'), os.path.join(base, 'out'),
             args.arch, 'olddefconfig')
        for o in failed:
            if not make(os.path.join(base, 'tree'),
                        os.path.join(base, 'out'), args.arch, o):
                base_fails.add(o)
    failed = [o for o in failed if o not in base_fails]
    compiled = 0
    for f, us in sorted(units.items()):
        # A header is compiled by any object that depends on it.
        users = sorted(u for u in built if f in built[u])
        if any(u[:-2] + '.o' in failed for u in us):
            state = 'FAILED'
        elif not users and any(u[:-2] + '.o' in base_fails for u in us):
            state = 'fails in the base tree too (not in make %s)' % \
                args.config
        elif users:
            state = 'compiled' + ('' if users == [f] else
                                  ' in %s%s' % (', '.join(users[:3]),
                                                ', ...' * (len(users) > 3)))
            compiled += 1
        else:
            state = 'not in make %s' % args.config
        print('%s %s: %s' % (args.arch, f, state))
    skipped = [f for f in files if f not in units]
    print('%s: %d of %d files compiled (%d objects), %d not in make %s, '
          '%d of other architectures, %d failed, %ds' %
          (args.arch, compiled, len(files), len(built),
           len(units) - compiled, args.config, len(skipped), len(failed),
           time.time() - start))
    ok = not failed
    if args.full:
        start = time.time()
        ok = make(args.tree, args.out, args.arch, image, 'modules') and ok
        print('%s: make %s modules %s, %ds' %
              (args.arch, image, 'done' if ok else 'FAILED',
               time.time() - start))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    s = sub.add_parser('scan')
    s.add_argument('tree')
    s.add_argument('reviewed')
    s.add_argument('--json')
    s.add_argument('--verdict')
    c = sub.add_parser('compile')
    c.add_argument('tree')
    c.add_argument('found')
    c.add_argument('out')
    c.add_argument('--arch', required=True, choices=sorted(BUILD_ARCHES))
    c.add_argument('--config', required=True)
    c.add_argument('--full', action='store_true')
    args = ap.parse_args()
    if args.cmd == 'compile':
        return compile_found(args)

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
