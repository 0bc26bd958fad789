#!/usr/bin/python3
"""make debian-run's memory table: the Debian 12 system once booted to
default.target, on Debian's own kernel and on ours, as allocprof-check's
`memory` check recorded it in each boot's results channel.

  memory.py [--upstream] RAM_MIB DEBIAN_RESULTS OURS_ON_RESULTS \
      OURS_OFF_RESULTS

RAM_MIB: the guests' memory. --upstream: the packages carry upstream's
profiling (BASE=6.12): page tags are pointers, slab tags 16 B per object
(a tag pointer beside memory cgroups' pointer) with no header; the
targets are ours, printed for the comparison.
Prints the table and the distribution-kernel targets met or missed:
page tags 2 bytes a page, everything profiling adds at most 0.1% of RAM,
the slab tags (their indices and headers) at most 1% of `Slab:`. What
profiling adds is the sum of its parts (page_ext, slab tags, the tags,
per-cpu counters): the
memory in use differs between two boots of the same system by more than
that (the page cache, journald).
"""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..'))
from harness.bench import bench  # noqa: E402

FACT_RE = re.compile(r'^# (meminfo: (\w+):\s+(\d+) kB|page_ext: (\d+)|'
                     r'slabinfo: (.*)|alloc_tags: (\d+)|call sites: (\d+))$')
PAGE = 4096
# The header of a slab's extensions with memory cgroups: the address of
# the slab's first object and memcg's vector.
SLAB_EXT_HEADER = 16


def facts(path, upstream=False):
    """{name: bytes or count} of one boot's `memory` check."""
    out = {}
    slabinfo = []
    try:
        text = open(path).read()
    except OSError:
        return out
    for line in text.splitlines():
        m = FACT_RE.match(line)
        if not m:
            continue
        if m.group(2):
            out[m.group(2)] = int(m.group(3)) * 1024
        elif m.group(4):
            out['page_ext'] = int(m.group(4))
        elif m.group(5):
            slabinfo.append(m.group(5))
        elif m.group(6):
            out['tags'] = int(m.group(6))
        else:
            out['sites'] = int(m.group(7))
    # Recorded while profiling is on, which gives every slab a vector.
    if upstream:
        out['vectors'] = bench.slab_tag_bytes({'slabinfo': slabinfo}, 0, 16)
    else:
        out['vectors'] = bench.slab_tag_bytes({'slabinfo': slabinfo},
                                              SLAB_EXT_HEADER)
    return out


def table(ram, deb, on, off, upstream=False):
    """The table's lines, then the targets'."""
    boots = (deb, on, off)
    if any('MemTotal' not in b for b in boots):
        return ['debian-run: memory: a boot recorded no /proc/meminfo']
    used = [b['MemTotal'] - b['MemFree'] for b in boots]
    rows = [('in use (MemTotal - MemFree)', used)]
    for key in ('Slab', 'SUnreclaim', 'Percpu'):
        rows.append(('`%s:`' % key, [b.get(key, 0) for b in boots]))
    rows.append(('page_ext', [b.get('page_ext', 0) for b in boots]))
    if upstream:
        what = ('slab vectors (16 B per object: a tag pointer beside memory '
                'cgroups\' pointer; every slab in `/proc/slabinfo`)')
    else:
        what = ('slab tags (2 B per object, %d B per slab, every slab in '
                '`/proc/slabinfo`)' % SLAB_EXT_HEADER)
    rows.append((what, [b.get('vectors', 0) for b in boots]))
    rows.append(('the tags (`alloc_tags` section)',
                 [b.get('tags', 0) for b in boots]))
    ours = 'upstream\'s' if upstream else 'ours'
    out = ['debian-run: memory once booted (kB; %s: and the difference '
           'from Debian\'s kernel):' % ours, '',
           '| | Debian\'s kernel | %s, on | %s, booted off |' % (ours, ours),
           '|---|---|---|---|']
    for what, (d, o, f) in rows:
        out.append('| %s | %d | %d (%+d) | %d (%+d) |' % (
            what, d // 1024, o // 1024, (o - d) // 1024, f // 1024,
            (f - d) // 1024))
    pages = ram // PAGE
    counters = on['Percpu'] - deb['Percpu']
    added = (on.get('page_ext', 0) + on.get('vectors', 0) +
             on.get('tags', 0) + counters)
    tag_bytes = on.get('page_ext', 0) / pages
    vec_share = on.get('vectors', 0) / on['Slab'] * 100
    out += ['', 'Our targets%s:' % (', against upstream\'s profiling'
                                    if upstream else ''),
            '- page tags: %.2f B a page of RAM, target 2: %s' % (
                tag_bytes, 'met' if tag_bytes <= 2 else 'MISSED'),
            '- all profiling adds (page_ext, slab tags, tags, `Percpu:` on - '
            'Debian\'s): %d kB, %.3f%% of RAM, target 0.1%%: %s' % (
                added // 1024, added * 100 / ram,
                'met' if added * 100 / ram <= 0.1 else 'MISSED'),
            '- slab tags: %.2f%% of `Slab:`, target 1%%: %s' % (
                vec_share, 'met' if vec_share <= 1 else 'MISSED')]
    return out


def main():
    args = sys.argv[1:]
    upstream = args[:1] == ['--upstream']
    args = args[upstream:]
    if len(args) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    ram = int(args[0]) << 20
    boots = [facts(a, upstream) for a in args[1:]]
    print('\n'.join(table(ram, *boots, upstream=upstream)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
