"""Kernel splats: console lines that mean the kernel is not healthy,
whatever the tests said."""

import re

from harness.verdict.ktap import clean

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
