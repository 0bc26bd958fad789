#!/usr/bin/python3
"""The patch series: the source of the kernel side.

patches/series names the patches of patches/ in the order they apply to
the base (quilt's layout; each patch is a mail git am takes). The base is
Debian's kernel source with the fixes patches/base/series names, which the
test kernels need and the series does not carry.

  series.py tree TARBALL LABEL REPO TREE [--force]
      Lay the kernel source into TREE as a git repo (commit "base: LABEL",
      tag source), the base fixes on it (tag base) and the series on
      those, one commit per patch (made without
      touching the work tree, with the author and date of the patch as
      committer too, so the same series always gives the same commits).
      Only files that differ are rewritten, so O= builds stay
      incremental. Refuses to drop commits or edits in TREE that are not
      in the series, unless --force.
  series.py export REPO TREE
      Write TREE's commits on base back into REPO/patches (fixup! and
      squash! commits folded into theirs first); the work tree must have
      no edits that are not committed. The series file's comments (the
      banners that group the patches) are kept.
  series.py format REPO TREE OUT
      The series to send or carry (make series): OUT/NNNN-*.patch with a
      cover letter (REPO/patches/cover-letter, the shortlog and the
      diffstat) and OUT/series.
  series.py verify TREE OUT VERDICT
      make check's step: OUT's patches applied with git am to the base
      give exactly TREE's tree.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..'))
from harness.verdict import ktap  # noqa: E402

APPLIED = 'refs/series/applied'


def die(msg):
    sys.exit('series: ' + msg)


def git(tree, *args, env=None, stdin=None, check=True, raw=False):
    """git's output, stripped unless RAW; the result if not CHECK."""
    r = subprocess.run(['git', '-C', tree] + list(args), input=stdin,
                       capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})))
    if check and r.returncode:
        die('git %s: %s' % (' '.join(args[:2]), r.stderr.strip()))
    if not check:
        return r
    return r.stdout if raw else r.stdout.strip()


def rev(tree, name):
    r = git(tree, 'rev-parse', '--verify', '-q', name, check=False)
    return r.stdout.strip() if r.returncode == 0 else None


def series_names(repo, sub='patches'):
    """The patch file names of REPO/SUB/series, in order; a patch file
    the series does not name is an error, not left out quietly."""
    path = os.path.join(repo, sub, 'series')
    if sub != 'patches' and not os.path.exists(path):
        return []
    names = []
    with open(path) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                names.append(line)
    unnamed = sorted(set(f for f in os.listdir(os.path.dirname(path))
                         if f.endswith('.patch')) - set(names))
    if unnamed:
        die('%s/series does not name %s' % (sub, ', '.join(unnamed)))
    return names


def make_base(tarball, label, tree):
    print('series: extracting %s into %s' % (tarball, tree))
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(tree)
    # Debian compresses it in blocks: xz decompresses them on every core.
    subprocess.run(['tar', '-I', 'xz -T0', '-xf', tarball, '-C', tree,
                    '--strip-components=1'], check=True)
    git(tree, 'init', '-q', '-b', 'work')
    for key, value in (('user.name', 'series'),
                       ('user.email', 'series@localhost'),
                       ('core.autocrlf', 'false'), ('gc.auto', '0')):
        git(tree, 'config', key, value)
    git(tree, 'add', '-A', '-f')
    # Dated, so that the same base and series give the same commits.
    when = '2000-01-01 00:00:00 +0000'
    git(tree, 'commit', '-q', '-m', 'base: ' + label,
        env={'GIT_AUTHOR_DATE': when, 'GIT_COMMITTER_DATE': when})
    git(tree, 'tag', '-f', 'source')


def worktree_id(tree):
    """Stage the whole work tree and return its tree id. The base's
    .gitignore files do not apply (Debian's ignores everything at the top
    level, so new files would be missed); only editor and patch leftovers
    are left out."""
    git(tree, 'add', '-u')
    others = git(tree, 'ls-files', '-o', '-z', '--exclude=*.orig',
                 '--exclude=*.rej', '--exclude=*~', '--exclude=.*.sw?',
                 '--exclude=*.pyc')
    files = [f for f in others.split('\0') if f]
    for i in range(0, len(files), 500):
        git(tree, 'add', '-f', '--', *files[i:i + 500])
    return git(tree, 'write-tree')


def chain(repo, tree, sub='patches', start='base'):
    """Commit REPO/SUB/series's patches on START without touching the
    work tree; return the last commit."""
    prev = rev(tree, start)
    tmp = tempfile.mkdtemp()
    env = {'GIT_INDEX_FILE': os.path.join(tmp, 'index')}
    try:
        git(tree, 'read-tree', start, env=env)
        for name in series_names(repo, sub):
            path = os.path.join(repo, sub, name)
            if not os.path.exists(path):
                die('%s/series names %s, which does not exist' % (sub, name))
            msg, diff = os.path.join(tmp, 'msg'), os.path.join(tmp, 'diff')
            with open(path, 'rb') as f:
                info = subprocess.run(['git', 'mailinfo', msg, diff],
                                      stdin=f, capture_output=True,
                                      check=True).stdout.decode()
            head = dict(l.split(': ', 1) for l in info.splitlines()
                        if ': ' in l)
            r = git(tree, 'apply', '--cached', diff, env=env, check=False)
            if r.returncode:
                die('%s does not apply:\n%s' % (name, r.stderr.strip()))
            with open(msg) as f:
                body = f.read().strip()
            who = {'GIT_AUTHOR_NAME': head['Author'],
                   'GIT_AUTHOR_EMAIL': head['Email'],
                   'GIT_AUTHOR_DATE': head['Date'],
                   'GIT_COMMITTER_NAME': head['Author'],
                   'GIT_COMMITTER_EMAIL': head['Email'],
                   'GIT_COMMITTER_DATE': head['Date']}
            prev = git(tree, 'commit-tree', git(tree, 'write-tree', env=env),
                       '-p', prev, '-F', '-', env=who,
                       stdin=head['Subject'] + '\n\n' + body + '\n')
    finally:
        shutil.rmtree(tmp)
    return prev


def cmd_tree(args):
    repo, tree = os.path.abspath(args.repo), args.tree
    label = 'base: ' + args.label
    if os.path.isdir(os.path.join(tree, '.git')):
        # A tree made before the base had fixes: its base is the source.
        if rev(tree, 'source') is None and rev(tree, 'base') is not None:
            git(tree, 'tag', 'source', 'base')
        if git(tree, 'log', '-1', '--format=%s', 'source',
               check=False).stdout.strip() != label:
            if (worktree_id(tree) != rev(tree, 'HEAD^{tree}') or
                    rev(tree, APPLIED) not in (None, rev(tree, 'HEAD'))) \
                    and not args.force:
                die('%s has edits or commits not exported and the base '
                    'changed to %s; run make export, or make tree FORCE=1 '
                    'to discard them' % (tree, args.label))
            make_base(args.tarball, args.label, tree)
    else:
        make_base(args.tarball, args.label, tree)

    git(tree, 'tag', '-f', 'base', chain(repo, tree, 'patches/base',
                                         'source'))
    target = chain(repo, tree)
    head = rev(tree, 'HEAD')
    work = worktree_id(tree)
    if work == rev(tree, target + '^{tree}') and \
            rev(tree, APPLIED) in (None, head, target):
        git(tree, 'reset', '-q', '--soft', target)
        git(tree, 'update-ref', APPLIED, target)
        print('series: %s is up to date with the series' % tree)
        return
    applied = rev(tree, APPLIED)
    unexported = work != rev(tree, 'HEAD^{tree}') or \
        (applied is not None and head != applied)
    if unexported and not args.force:
        print('series: edits or commits in %s that are not in the series:'
              % tree, file=sys.stderr)
        print(git(tree, 'diff', '--cached', '--stat', applied or head),
              file=sys.stderr)
        die('commit them and run make export to keep them, or make tree '
            'FORCE=1 to discard them')
    git(tree, 'reset', '-q', '--hard', target)
    git(tree, 'clean', '-q', '-fdx')
    git(tree, 'update-ref', APPLIED, target)
    print('series: %s updated to base + %d patches'
          % (tree, len(series_names(repo))))


def slug(subject):
    return re.sub(r'[^A-Za-z0-9_.]+', '-', subject).strip('-.')[:64] \
        .rstrip('-.')


def write_series(path, names):
    """Write NAMES to the series file PATH, keeping its comments: each
    block of comment and blank lines stays above the patch it preceded;
    a block whose patch is gone (dropped or renamed) goes above the patch
    that now follows the one before it, unless a block of its own heads
    that patch or none follows (the group is gone with its patches); a
    patch line keeps its comment."""
    blocks, after, lines, block, anchor = {}, {}, {}, [], None
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.rstrip('\n') + '\n'
                name = line.split('#', 1)[0].strip()
                if not name:
                    block.append(line)
                elif name in names:
                    blocks[name], lines[name], block = block, line, []
                    anchor = name
                else:
                    after.setdefault(anchor, []).extend(block)
                    block = []
    out, pending = [], after.pop(None, [])
    for n in names:
        if n in blocks:
            out += (blocks[n] or pending) + [lines[n]]
            pending = after.pop(n, [])
        else:
            out += pending + [n + '\n']
            pending = []
    with open(path, 'w') as f:
        f.write(''.join(out + block))


def cmd_export(args):
    repo, tree = os.path.abspath(args.repo), args.tree
    if not os.path.isdir(os.path.join(tree, '.git')):
        die('%s does not exist: run make tree first' % tree)
    if worktree_id(tree) != rev(tree, 'HEAD^{tree}'):
        print(git(tree, 'diff', '--cached', '--stat', 'HEAD'),
              file=sys.stderr)
        die('edits in %s are not committed: commit each into the patch it '
            'belongs to (git commit --fixup=COMMIT) or as a new patch, then '
            'run make export' % tree)
    subjects = git(tree, 'log', '--format=%s', 'base..HEAD').splitlines()
    if any(re.match(r'(fixup|squash|amend)! ', s) for s in subjects):
        r = git(tree, 'rebase', '-q', '-i', '--autosquash', 'base',
                env={'GIT_SEQUENCE_EDITOR': 'true', 'GIT_EDITOR': 'true'},
                check=False)
        if r.returncode:
            die('folding the fixups failed (finish or abort the rebase in '
                '%s):\n%s' % (tree, r.stderr.strip()))
    if git(tree, 'rev-list', '--merges', 'base..HEAD'):
        die('the commits on base must be a line, without merges')
    commits = git(tree, 'rev-list', '--reverse', 'base..HEAD').split()
    pdir = os.path.join(repo, 'patches')
    os.makedirs(pdir, exist_ok=True)
    names = []
    for c in commits:
        name = slug(git(tree, 'log', '-1', '--format=%s', c)) + '.patch'
        if name in names:
            die('two patches named %s: change one subject' % name)
        names.append(name)
        text = git(tree, 'format-patch', '-1', '--stdout', '--no-signature',
                   '--zero-commit', '--no-numbered', '--abbrev=12', c,
                   raw=True)
        path = os.path.join(pdir, name)
        old = open(path).read() if os.path.exists(path) else None
        if old != text:
            with open(path, 'w') as f:
                f.write(text)
            print('series: wrote patches/%s' % name)
    for f in sorted(os.listdir(pdir)):
        if f.endswith('.patch') and f not in names:
            os.unlink(os.path.join(pdir, f))
            print('series: removed patches/%s' % f)
    write_series(os.path.join(pdir, 'series'), names)
    target = chain(repo, tree)
    if rev(tree, target + '^{tree}') != rev(tree, 'HEAD^{tree}'):
        die('the exported series does not give the tree of %s' % tree)
    git(tree, 'reset', '-q', '--soft', target)
    git(tree, 'update-ref', APPLIED, target)


def cmd_format(args):
    repo, tree, out = os.path.abspath(args.repo), args.tree, args.out
    head = rev(tree, APPLIED)
    if head is None or head != rev(tree, 'HEAD'):
        die('%s is not the series: run make tree (or make export)' % tree)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    # The cover letter is from the series' author, as each patch is.
    author = git(tree, 'log', '-1', '--format=%an\n%ae', head).split('\n')
    files = git(tree, '-c', 'user.name=' + author[0],
                '-c', 'user.email=' + author[1],
                'format-patch', '--cover-letter', '--numbered',
                '--no-signature', '--zero-commit', '--abbrev=12',
                '-o', os.path.abspath(out), 'base..' + head).splitlines()
    with open(os.path.join(repo, 'patches', 'cover-letter')) as f:
        subject, _, blurb = f.read().partition('\n')
    cover = files[0]
    with open(cover) as f:
        text = f.read()
    text = text.replace('*** SUBJECT HERE ***', subject.strip(), 1)
    text = text.replace('*** BLURB HERE ***', blurb.strip(), 1)
    with open(cover, 'w') as f:
        f.write(text)
    with open(os.path.join(out, 'series'), 'w') as f:
        f.write(''.join(os.path.basename(p) + '\n' for p in files[1:]))
    print('series: %d patches and a cover letter in %s'
          % (len(files) - 1, out))


def cmd_verify(args):
    tree, out = args.tree, args.out
    v = ktap.Verdict('series')
    want = rev(tree, 'HEAD^{tree}')
    with open(os.path.join(out, 'series')) as f:
        patches = [os.path.abspath(os.path.join(out, l.strip()))
                   for l in f if l.strip()]
    work = tempfile.mkdtemp(prefix='series-am-', dir=os.path.dirname(
        os.path.abspath(out)))
    os.rmdir(work)
    # Only the files the patches touch are checked out: git am needs no
    # others, and writing the whole kernel tree costs more than the rest.
    paths = set()
    for p in patches:
        with open(p) as f:
            for line in f:
                m = re.match(r'diff --git a/(\S+) b/(\S+)$', line)
                if m:
                    paths.update(m.groups())
    git(tree, 'worktree', 'add', '-q', '--no-checkout', '--detach', work,
        'base')
    try:
        git(work, 'sparse-checkout', 'set', '--no-cone', '--stdin',
            stdin=''.join('/%s\n' % p for p in sorted(paths)))
        git(work, 'checkout', '-q')
        r = git(work, 'am', '-q', *patches, check=False)
        v.add('series_applies_with_git_am', 'fail' if r.returncode else
              'pass', (r.stdout + r.stderr).strip())
        got = rev(work, 'HEAD^{tree}')
        count = len(git(work, 'rev-list', 'base..HEAD').split())
        v.add('series_gives_the_tree_of_make_tree',
              'pass' if got == want and count == len(patches) else 'fail',
              '%d of %d patches applied; tree %s, make tree gives %s'
              % (count, len(patches), got, want))
    finally:
        git(work, 'am', '--abort', check=False)
        git(tree, 'worktree', 'remove', '--force', work, check=False)
        shutil.rmtree(work, ignore_errors=True)
        git(tree, 'worktree', 'prune')
    for name, status, detail in v.tests:
        print('%s %s%s' % ('ok' if status == 'pass' else 'not ok', name,
                           '' if status == 'pass' else ': ' + detail))
    with open(args.verdict, 'w') as f:
        json.dump(v.to_json(), f)
    return 1 if v.counts()['fail'] else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('tree')
    p.add_argument('tarball')
    p.add_argument('label')
    p.add_argument('repo')
    p.add_argument('tree')
    p.add_argument('--force', action='store_true')
    p.set_defaults(func=cmd_tree)
    p = sub.add_parser('export')
    p.add_argument('repo')
    p.add_argument('tree')
    p.set_defaults(func=cmd_export)
    p = sub.add_parser('format')
    p.add_argument('repo')
    p.add_argument('tree')
    p.add_argument('out')
    p.set_defaults(func=cmd_format)
    p = sub.add_parser('verify')
    p.add_argument('tree')
    p.add_argument('out')
    p.add_argument('verdict')
    p.set_defaults(func=cmd_verify)
    args = ap.parse_args()
    sys.exit(args.func(args))


if __name__ == '__main__':
    main()
