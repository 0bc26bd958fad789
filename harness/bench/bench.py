#!/usr/bin/python3
"""make bench: what memory allocation profiling costs, measured.

  bench.py --tree TREE --base KOUT --prof KOUT --off KOUT --out DIR
           [--total KOUT] [--numa KOUT --node KOUT]
           [--up-base KOUT --up-prof KOUT --up-off KOUT]
           [--rounds N] [--repeat N] [--ms MS] [--memory SIZE] [--icount]
           [--only 1,3,...]
  bench.py --tree TREE --debian KDIR --ours KDIR --out DIR [...]
  bench.py --list

KOUT: kernel builds without profiling (base), with it on by default (prof)
and with it off by default (off); otherwise the same. --total: prof with
total_calls, configuration (14); --numa, --node: prof with NUMA, without
and with per-node counters, (17) and (18). --up-base,
--up-prof, --up-off: the same three of upstream's implementation (make
bench UPSTREAM=1), whose configurations (u1), (u2), ... are compared with
(u1) as ours are with (1); a last table puts the instructions (or ns)
each adds beside ours.

Boots one guest per configuration and round, the configurations in turn
within each round (interleaved, so that a slow spell of the host hits them
all alike). Each guest has one CPU, on which the module alloc_tag_bench
(lib/alloc_tag_bench.c) times kmalloc/kfree of 8-240 bytes, single and
order-2 pages and 4-page vmalloc areas, REPEAT times each. The time table
gives ns per allocation and free: the median and min-max over every
measurement of a configuration, and the median's difference from
configuration (1), then the seed's targets met or missed. The memory
table gives what profiling adds, from the kernels' images and from the
guests of (1) and (3) right after boot.

--list prints the configurations, (1) to (18), (u1) to (u4) and (u7),
and (d1) to (d12), with what each measures: the legend of the tables.

--icount runs QEMU with -icount shift=0 (the guest clock advances one
nanosecond per instruction): the ratios are then instruction count
ratios, independent of the host's load.

--debian, --ours (make bench DEBIAN=1, from harness/bench/debian.sh):
Debian's own kernel and make deb's, each a directory with vmlinuz, System.map and
alloc_tag_bench.ko built against the kernel's headers package; the
configurations (d1), (d2), ... are compared with Debian's kernel, with the
targets for distribution kernels, and the memory table is theirs.

Writes DIR/results.md (printed too) and DIR/samples.json; every guest's
logs are in DIR/rN-cK/. Exits 1 if a guest failed, printed a kernel splat
or did not run the configuration it was meant to.
"""

import argparse
import collections
import json
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..'))
from harness.guest import qemu  # noqa: E402
from harness.verdict import ktap  # noqa: E402
from harness.verdict.splats import find_splats  # noqa: E402

# One guest's configuration: its label, what it measures, the kernel, the
# boot arguments, the guest's setup, the module's parameters and the
# profiling state the module must report.
Config = collections.namedtuple(
    'Config', 'label description kernel append setup params state')

CONFIGS = [
    ('1', 'baseline, `CONFIG_MEM_ALLOC_PROFILING=n`', 'base', '', '', '',
     'not built'),
    ('2', 'compiled in, off at boot (`sysctl.vm.mem_profiling=0`; '
     '`ENABLED_BY_DEFAULT=n`)', 'off', 'sysctl.vm.mem_profiling=0', '', '',
     'disabled'),
    ('3', 'enabled by default', 'prof', '', '', '', 'enabled'),
    ('4', 'off at boot, enabled via the sysctl (`ENABLED_BY_DEFAULT=n`)',
     'off', 'sysctl.vm.mem_profiling=0', 'sysctl-on', '', 'enabled'),
    ('5', 'baseline + `__GFP_ACCOUNT` in a memory cgroup', 'base', '',
     'memcg', 'account=1', 'not built'),
    ('6', 'baseline + `page_owner=on`', 'base', 'page_owner=on', '', '',
     'not built'),
    ('7', 'kernel (3) booted with `sysctl.vm.mem_profiling=0`', 'prof',
     'sysctl.vm.mem_profiling=0', '', '', 'disabled'),
    # As on a systemd machine: memory cgroups in use (their static key on),
    # most allocations not charged to one.
    ('8', 'kernel (3) in a memory cgroup, unaccounted', 'prof', '', 'memcg',
     '', 'enabled'),
    ('9', 'kernel (3) + `__GFP_ACCOUNT` in a memory cgroup', 'prof', '',
     'memcg', 'account=1', 'enabled'),
    ('10', 'kernel (3), page tags compressed '
     '(`sysctl.vm.mem_profiling=1,compressed`)', 'prof',
     'sysctl.vm.mem_profiling=1,compressed', '', '', 'enabled'),
    # What a flagged call site costs: the module's own sites flagged in
    # the control file when it is loaded (alloc_tag=).
    ('11', 'kernel (3), the benchmark\'s sites switched off (`-p`)',
     'prof', '', '', 'alloc_tag=-p', 'enabled'),
    ('12', 'kernel (3), the benchmark\'s sites recording stacks (`+s`)',
     'prof', '', '', 'alloc_tag=+s', 'enabled'),
    ('13', 'kernel (3), page tags as pointers in page_ext '
     '(`sysctl.vm.mem_profiling=1,pointers`)', 'prof',
     'sysctl.vm.mem_profiling=1,pointers', '', '', 'enabled'),
    ('14', 'kernel (3) with `CONFIG_MEM_ALLOC_PROFILING_TOTAL_CALLS`: '
     'every allocation also counted in total_calls', 'total', '', '', '',
     'enabled'),
]


# Kernel KERNEL (described as WHAT) with slab objects, then pages, left out
# of the profiled families, as configurations LABELS.
def family_configs(labels, kernel, what):
    return [Config(label, '%s, %s not profiled (`alloc_tag.families=%s`)' % (
        what, family, profiled), kernel, 'alloc_tag.families=' + profiled,
        '', '', 'enabled') for label, family, profiled in zip(
            labels, ('slab objects', 'pages'),
            ('page,vmalloc,percpu', 'slab,vmalloc,percpu'))]


CONFIGS += family_configs(('15', '16'), 'prof', 'kernel (3)')
# Per-node counters need NUMA, which the other kernels lack: (17) is their
# baseline. One node, as the counters cost the same on any.
CONFIGS += [
    ('17', 'kernel (3) with `CONFIG_NUMA` (one node)', 'numa', '', '', '',
     'enabled'),
    ('18', 'kernel (17) with `CONFIG_MEM_ALLOC_PROFILING_PER_NODE`: every '
     'allocation also counted on its node', 'node', '', '', '', 'enabled'),
]
# Upstream's implementation (Linux 6.12), where it has the same settings.
UPSTREAM_CONFIGS = [
    ('u1', 'upstream 6.12, `CONFIG_MEM_ALLOC_PROFILING=n`', 'upbase', '', '',
     '', 'not built'),
    ('u2', 'upstream 6.12, compiled in, off at boot '
     '(`ENABLED_BY_DEFAULT=n`)', 'upoff', 'sysctl.vm.mem_profiling=0', '',
     '', 'disabled'),
    ('u3', 'upstream 6.12, enabled by default', 'upprof', '', '', '',
     'enabled'),
    ('u4', 'upstream 6.12, (u2) enabled via the sysctl', 'upoff',
     'sysctl.vm.mem_profiling=0', 'sysctl-on', '', 'enabled'),
    ('u7', 'upstream 6.12, (u3) booted with `sysctl.vm.mem_profiling=0`',
     'upprof', 'sysctl.vm.mem_profiling=0', '', '', 'disabled'),
]
# make bench DEBIAN=1: Debian's kernel and make deb's (Debian's cloud
# configuration with profiling). The memory cgroup rows are compared with
# Debian's kernel in a memory cgroup too (DEBIAN_BASELINE).
DEBIAN_CONFIGS = [
    ('d1', 'Debian\'s own kernel of the base', 'debian', '', '', '',
     'not built'),
    ('d2', 'ours, on by default', 'ours', '', '', '', 'enabled'),
    ('d3', 'ours booted off (`sysctl.vm.mem_profiling=0`)', 'ours',
     'sysctl.vm.mem_profiling=0', '', '', 'disabled'),
    ('d4', 'ours booted off, switched on with the sysctl', 'ours',
     'sysctl.vm.mem_profiling=0', 'sysctl-on', '', 'enabled'),
    ('d5', 'ours, `,compressed` asked (no room in `page->flags`: indices '
     'in page_ext)', 'ours', 'sysctl.vm.mem_profiling=1,compressed', '', '',
     'enabled'),
    ('d6', 'ours, page tags as pointers (`,pointers`)', 'ours',
     'sysctl.vm.mem_profiling=1,pointers', '', '', 'enabled'),
    ('d7', 'Debian\'s kernel in a memory cgroup, unaccounted', 'debian', '',
     'memcg', '', 'not built'),
    ('d8', 'ours in a memory cgroup, unaccounted', 'ours', '', 'memcg', '',
     'enabled'),
    ('d9', 'Debian\'s kernel, `__GFP_ACCOUNT` in a memory cgroup', 'debian',
     '', 'memcg', 'account=1', 'not built'),
    ('d10', 'ours, `__GFP_ACCOUNT` in a memory cgroup', 'ours', '', 'memcg',
     'account=1', 'enabled'),
]
DEBIAN_CONFIGS += family_configs(('d11', 'd12'), 'ours', 'ours')
# Written above as tuples, for brevity.
CONFIGS = [Config(*c) for c in CONFIGS]
UPSTREAM_CONFIGS = [Config(*c) for c in UPSTREAM_CONFIGS]
DEBIAN_CONFIGS = [Config(*c) for c in DEBIAN_CONFIGS]
# --upstream: make deb's packages carry upstream's profiling (BASE=6.12),
# which has no `,compressed`, no `,pointers` and no families.
UPSTREAM_DEBIAN_CONFIGS = [
    c._replace(description=c.description.replace('ours', 'upstream\'s'))
    for c in DEBIAN_CONFIGS if c.label in ('d1', 'd2', 'd3', 'd4', 'd7', 'd8',
                                           'd9', 'd10')]
DEBIAN_BASELINE = {'d7': 'd7', 'd8': 'd7', 'd9': 'd9', 'd10': 'd9'}
# Added instructions per allocation and free allowed on Debian's kernel,
# profiling on; booted off, at most +1% on every path.
DEBIAN_TARGETS = {'kmalloc': 50, 'page': 60, 'order2': 70, 'vmalloc': 300}
TESTS = [('kmalloc', 'kmalloc 8-240 B'), ('page', 'page'),
         ('order2', 'order-2 pages'), ('vmalloc', 'vmalloc 4 pages')]

MOD = r'alloc_tag_bench: '
STATE_RE = re.compile(MOD + r'cpu (\d+), '
                      r'profiling (enabled|disabled|not built), (\S+)$')
RESULT_RE = re.compile(MOD + r'(\w+) ops (\d+) ns (\d+) ')
PAGE_EXT_RE = re.compile(r'allocated (\d+) bytes of page_ext$')
KMALLOC_CLASSES = [8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096,
                   8192]
PAGE_SIZE = 4096


class BenchError(Exception):
    pass


def sections(results):
    """The results channel's "## name" sections, as {name: [lines]}."""
    out, cur = {}, None
    for line in results.splitlines():
        if line.startswith('## '):
            cur = out.setdefault(line[3:].strip(), [])
        elif cur is not None and not line.startswith('# harness:'):
            cur.append(line)
    return out


def boot(args, cfg, rnd, kernels):
    """One guest of configuration @cfg: its samples and facts."""
    label, kernel, append = cfg.label, cfg.kernel, cfg.append
    setup, params = cfg.setup, cfg.params
    # One CPU: under multi-threaded TCG, a static key switched at run time
    # (the memory cgroup's, the sysctl's) can leave a CPU running a stale
    # int3 of the patching, which the kernel then takes for a real one.
    bench = 'ms=%d,repeat=%d,cpu=0' % (args.ms, args.repeat)
    if params:
        bench += ',' + params
    append = 'harness.bench=%s %s %s' % (
        bench, 'harness.bench_setup=' + setup if setup else '', append)
    per_run = len(TESTS) * args.repeat * args.ms / 1000.0
    ns = qemu.guest_args(
        name='r%d-c%s' % (rnd, label), mode='bench',
        kernel=image_of(kernels[kernel]),
        initrd=os.path.join(args.out, 'initramfs-%s.cpio.gz' % kernel),
        outdir=os.path.join(args.out, 'r%d-c%s' % (rnd, label)),
        timeout=int(120 + per_run * (20 if args.icount else 4)),
        memory=args.memory, kvm=False, smp=1, icount=args.icount,
        cpu='max',
        append=' '.join(append.split()))
    console, results, timed_out, status, elapsed = qemu.run_guest(ns)
    where = '(%s) round %d, logs in %s' % (label, rnd, ns.outdir)
    if timed_out or status != 0:
        raise BenchError('%s: the guest did not finish' % where)
    samples, facts = judge(cfg, args.repeat, console, results, where)
    facts['seconds'] = elapsed
    return samples, facts


def image_of(kout):
    """A kernel build's bzImage, or a packaged kernel's vmlinuz."""
    image = os.path.join(kout, 'arch/x86/boot/bzImage')
    return image if os.path.exists(image) else os.path.join(kout, 'vmlinuz')


def judge(cfg, repeat, console, results, where):
    """The samples and facts of a guest's logs; BenchError if it failed."""
    setup, params, state = cfg.setup, cfg.params, cfg.state
    if results is None or ktap.DONE_MARK not in results:
        raise BenchError('%s: the guest did not finish' % where)
    lines = [ktap.clean(l) for l in console.splitlines()]
    splats = find_splats(console.splitlines())
    if splats:
        raise BenchError('%s: kernel splat: %s' % (where, splats[0][0]))
    sec = sections(results)
    if sec.get('insmod', [''])[-1:] != ['rc=0']:
        raise BenchError('%s: insmod failed: %s' % (where, sec.get('insmod')))
    states = [m for m in map(STATE_RE.search, lines) if m]
    gfp = '__GFP_ACCOUNT' if 'account=1' in params else 'unaccounted'
    if len(states) != 1 or states[0].group(2, 3) != (state, gfp):
        raise BenchError('%s: expected profiling %s, %s; the module says %s'
                         % (where, state, gfp, [m.group(0) for m in states]))
    samples = {}
    for m in filter(None, map(RESULT_RE.search, lines)):
        samples.setdefault(m.group(1), []).append(
            int(m.group(3)) / int(m.group(2)))
    if any(len(samples.get(t, [])) != repeat for t, _ in TESTS) or \
            not any(l.endswith(MOD + 'done') for l in lines):
        raise BenchError('%s: expected %d measurements of each test, got %s'
                         % (where, repeat, samples))
    page_ext = [int(m.group(1)) for m in map(PAGE_EXT_RE.search, lines) if m]
    facts = {'page_ext': page_ext[0] if page_ext else 0, 'sections': sec}
    # The guest's shell entered the cgroup, so insmod was charged there.
    if setup == 'memcg' and not int((sec.get('memcg-peak') or ['0'])[0]):
        raise BenchError('%s: the memory cgroup was not set up' % where)
    return samples, facts


def meminfo(sec):
    out = {}
    for line in sec.get('meminfo', []):
        m = re.match(r'(\S+):\s+(\d+) kB', line)
        if m:
            out[m.group(1)] = int(m.group(2)) * 1024
    return out


def kmalloc_size(size):
    for c in KMALLOC_CLASSES:
        if size <= c:
            return c
    pages = 1
    while pages * PAGE_SIZE < size:
        pages *= 2
    return pages * PAGE_SIZE


def slab_tag_bytes(sec, header, per_object=2):
    """What profiling gives every slab in /proc/slabinfo: a kmalloc of
    HEADER bytes (the address of the slab's first object, and memory
    cgroups' vector pointer with CONFIG_MEMCG_KMEM: 8 or 16) and a 16-bit
    call site index per object. Memory cgroups' own
    vectors (a pointer per charged slab's object) are not counted: a
    kernel without profiling has them too. Upstream's: no header and
    PER_OBJECT 16 (a tag pointer beside memory cgroups' pointer)."""
    total = 0
    for line in sec.get('slabinfo', []):
        f = line.split()
        if len(f) < 15 or f[0].startswith('#') or f[0] == 'slabinfo':
            continue
        objperslab, num_slabs = int(f[4]), int(f[14])
        total += num_slabs * kmalloc_size(header + per_object * objperslab)
    return total


def symbols(kout, names):
    out = {}
    with open(os.path.join(kout, 'System.map')) as f:
        for line in f:
            addr, _, name = line.split()
            if name in names:
                out[name] = int(addr, 16)
    return out


def size_of(kout):
    """text, data, bss and total of `size vmlinux`."""
    out = subprocess.run(['size', os.path.join(kout, 'vmlinux')], check=True,
                         capture_output=True, text=True).stdout
    return [int(x) for x in out.splitlines()[1].split()[:4]]


def code_size(kout):
    """The size of every function in vmlinux, without section padding."""
    out = subprocess.run(['nm', '-S', os.path.join(kout, 'vmlinux')],
                         check=True, capture_output=True, text=True).stdout
    return sum(int(f[1], 16) for f in map(str.split, out.splitlines())
               if len(f) == 4 and f[2] in 'tT')


def config_has(kout, option):
    with open(os.path.join(kout, '.config')) as f:
        return ('%s=y\n' % option) in f.read()


def possible_cpus(sec):
    s = (sec.get('possible') or ['0'])[0].strip()
    first, _, last = s.partition('-')
    return int(last or first) - int(first) + 1


def fmt_cell(values, base):
    med = statistics.median(values)
    cell = '%.1f [%.1f-%.1f]' % (med, min(values), max(values))
    if base is not None:
        cell += ' %+.1f%%' % ((med / base - 1) * 100)
    return cell


def medians_of(configs, samples):
    """{label: {test: median}} of every configuration."""
    return {c.label: {t: statistics.median(samples[c.label][t])
                      for t, _ in TESTS}
            for c in configs}


def baseline(label):
    """The configuration @label is compared with: its kernel family's (1)."""
    if label.startswith('d'):
        return DEBIAN_BASELINE.get(label, 'd1')
    return 'u1' if label.startswith('u') else '1'


def time_table(args, configs, samples):
    mode = ('QEMU TCG (`-cpu max`, one CPU) with `-icount shift=0`: the '
            'guest clock counts '
            'instructions, ratios are instruction-count ratios'
            if args.icount else
            'QEMU TCG (`-cpu max`, one CPU): wall-clock time, '
            'subject to the host\'s load')
    out = ['## Time per allocation and free (ns/op)', '',
           'Mode: %s. Each cell: median [min-max] over %d rounds x %d '
           'measurements of about %d ms, and the median\'s difference from '
           '(1) (upstream\'s rows: from (u1)).' % (
               mode, args.rounds, args.repeat, args.ms), '',
           '| configuration | ' + ' | '.join(t[1] for t in TESTS) + ' |',
           '|---' * (len(TESTS) + 1) + '|']
    medians = medians_of(configs, samples)
    base = medians['1']
    for label, desc in ((c.label, c.description) for c in configs):
        ref = baseline(label)
        out.append('| (%s) %s | ' % (label, desc) + ' | '.join(
            fmt_cell(samples[label][t],
                     None if label == ref else medians[ref][t])
            for t, _ in TESTS) + ' |')
    spread = {t: (max(samples['1'][t]) - min(samples['1'][t])) / base[t] * 100
              for t, _ in TESTS}
    out += ['', 'Spread of (1), (max-min)/median: ' + ', '.join(
        '%s %.1f%%' % (t, spread[t]) for t, _ in TESTS) + '.', '']
    return out + targets(samples, base, spread, args.icount)


def added_table(args, configs, samples, facts):
    """What each configuration adds to its own baseline, ours beside
    upstream's, and page_ext per page."""
    unit = 'instructions' if args.icount else 'ns'
    pages = parse_size(args.memory) // PAGE_SIZE
    medians = medians_of(configs, samples)
    out = ['## Added %s per allocation and free, ours and upstream\'s' % unit,
           '', 'Each cell: the median less its baseline\'s ((1) for ours, '
           '(u1) for upstream 6.12). page_ext: bytes per page of the guest\'s '
           'RAM, from the boot log ("allocated N bytes of page_ext"), less '
           'the baseline\'s.', '',
           '| configuration | ' + ' | '.join(t[1] for t in TESTS) +
           ' | page_ext per page |', '|---' * (len(TESTS) + 2) + '|']
    for label, desc in ((c.label, c.description) for c in configs):
        ref = baseline(label)
        if label == ref:
            continue
        ext = (facts[label]['page_ext'] - facts[ref]['page_ext']) / pages
        out.append('| (%s) %s | ' % (label, desc) + ' | '.join(
            '%+.1f' % (medians[label][t] - medians[ref][t])
            for t, _ in TESTS) + ' | %.1f B |' % ext)
    out.append('')
    for ours, theirs in (('2', 'u2'), ('3', 'u3'), ('4', 'u4'), ('7', 'u7'),
                         ('10', 'u3')):
        out.append('- (%s) against (%s): ' % (ours, theirs) + ', '.join(
            '%s %s' % (t, 'below' if medians[ours][t] - medians['1'][t] <
                       medians[theirs][t] - medians['u1'][t] else 'NOT below')
            for t, _ in TESTS))
    return out


def targets(samples, base, spread, icount):
    """The seed's figures (its cover letter), met or missed."""
    def change(label, test):
        return (statistics.median(samples[label][test]) / base[test] - 1) * 100

    out = ['Against the seed\'s figures:', '']
    for test, limit, what in (('kmalloc', 6.4, 'at or below +6.4%'),
                              ('page', 20.0, 'well below +40% (at most '
                               '+20%)')):
        got = change('3', test)
        out.append('- (3) %s %+.1f%%, target %s: %s' % (
            test, got, what, 'met' if got <= limit else 'MISSED'))
    for test, _ in TESTS:
        got = change('2', test)
        if icount:
            out.append('- (2) %s %+.1f%%: the instructions it adds (this '
                       'mode has no noise to be within)' % (test, got))
            continue
        out.append('- (2) %s %+.1f%%, target within the spread of (1) '
                   '(%.1f%%): %s' % (test, got, spread[test],
                                     'met' if abs(got) <= spread[test]
                                     else 'MISSED'))
    return out


def memory_table(args, kernels, facts):
    ram = parse_size(args.memory)
    base_sec, prof_sec = facts['1']['sections'], facts['3']['sections']
    cpus = possible_cpus(prof_sec)
    sym = symbols(kernels['prof'], ('__start_alloc_tags', '__stop_alloc_tags'))
    section = sym['__stop_alloc_tags'] - sym['__start_alloc_tags']
    # Built-in call sites: the report's lines less its two header lines.
    tags = int(prof_sec['allocinfo-lines'][0]) - 2
    header = 8 + 8 * config_has(kernels['prof'], 'CONFIG_MEMCG')
    sizes = [size_of(kernels[k]) for k in ('base', 'prof')]
    mem_base, mem_prof = meminfo(base_sec), meminfo(prof_sec)
    used = [ram - m['MemFree'] for m in (mem_base, mem_prof)]
    rows = [
        ('tags: the `alloc_tags` section, %d call sites' % tags, section),
        ('counters: %d x 16 B per-cpu, %d possible CPUs' % (tags, cpus),
         tags * 16 * cpus),
        ('page_ext: a tag reference per page (boot log of (3))',
         facts['3']['page_ext'] - facts['1']['page_ext']),
        ('slab tags: 2 B per object and %d B per slab, every slab at boot '
         '(`/proc/slabinfo` of (3), kmalloc size classes)' % header,
         slab_tag_bytes(prof_sec, header)),
        ('`Slab:` in `/proc/meminfo` after boot, (3) - (1)',
         mem_prof['Slab'] - mem_base['Slab']),
        ('memory in use after boot (RAM - `MemFree`), (3) - (1)',
         used[1] - used[0]),
        ('for comparison: page_ext of `page_owner=on` (6)',
         facts['6']['page_ext'] - facts['1']['page_ext']),
    ]
    rows += family_rows(facts, '1', '3', '15', '16')
    if '17' in facts and '18' in facts:
        free = [meminfo(facts[c]['sections'])['MemFree'] for c in ('17', '18')]
        rows.append(('per-node counters: memory in use after boot, (18) - '
                     '(17)', free[0] - free[1]))
    if '10' in facts:
        mem_comp = meminfo(facts['10']['sections'])
        rows += [
            ('page tags compressed (10): page_ext (boot log)',
             facts['10']['page_ext'] - facts['1']['page_ext']),
            ('page tags compressed (10): memory in use after boot, '
             '(10) - (1)', ram - mem_comp['MemFree'] - used[0]),
        ]
    out = ['## Memory', '',
           'Guest RAM %s; kernels (1) and (3) as built, guests right after '
           'boot.' % args.memory, '',
           '| what | bytes | of guest RAM |', '|---|---|---|']
    for what, n in rows:
        out.append('| %s | %d | %.3f%% |' % (what, n, n * 100.0 / ram))
    out += ['', '`size vmlinux`:', '',
            '| kernel | text | data | bss | total |', '|---|---|---|---|---|']
    for name, s in (('(1) baseline', sizes[0]), ('(3) profiling', sizes[1])):
        out.append('| %s | %s |' % (name, ' | '.join(map(str, s))))
    out.append('| difference | %s |' % ' | '.join(
        '%+d' % (b - a) for a, b in zip(*sizes)))
    code = [code_size(kernels[k]) for k in ('base', 'prof')]
    out += ['', 'The functions themselves (`nm -S`) grow from %d to %d bytes '
            '(%+d, %+.1f%%). `text` also holds the padding before the entry '
            'code, which is aligned to 2 MiB, so its difference can be '
            'smaller or larger; the kernel frees that padding at boot '
            '("Freeing unused kernel image (text/rodata gap)").' % (
                code[0], code[1], code[1] - code[0],
                (code[1] / code[0] - 1) * 100)]
    return out


def family_rows(facts, base, on, no_slab, no_page):
    """What leaving slab objects (@no_slab) or pages (@no_page) out of the
    profiled families saves against all of them (@on), measured in the
    guests after boot; rows only for configurations that ran."""
    rows = []
    mem_on = meminfo(facts[on]['sections'])
    if no_slab in facts:
        mem = meminfo(facts[no_slab]['sections'])
        rows += [('slab objects not profiled (%s): `Slab:` after boot, '
                  '(%s) - (%s)' % (no_slab, no_slab, on),
                  mem['Slab'] - mem_on['Slab']),
                 ('slab objects not profiled (%s): memory in use after '
                  'boot, (%s) - (%s)' % (no_slab, no_slab, on),
                  mem_on['MemFree'] - mem['MemFree'])]
    if no_page in facts:
        mem = meminfo(facts[no_page]['sections'])
        rows += [('pages not profiled (%s): page_ext (boot log), (%s) - '
                  '(%s)' % (no_page, no_page, base),
                  facts[no_page]['page_ext'] - facts[base]['page_ext']),
                 ('pages not profiled (%s): memory in use after boot, '
                  '(%s) - (%s)' % (no_page, no_page, on),
                  mem_on['MemFree'] - mem['MemFree'])]
    return rows


def debian_tables(args, configs, samples, facts, kernels):
    """make bench DEBIAN=1: instructions added to Debian's own kernel, the
    targets met or missed, and the memory of the guests after boot."""
    medians = medians_of(configs, samples)
    unit = 'instructions' if args.icount else 'ns'
    out = ['## Per allocation and free (%s), against Debian\'s kernel' % unit,
           '', 'QEMU TCG (`-cpu max`, one CPU, %s)%s. Each cell: median '
           '[min-max] over %d rounds x %d measurements, then what it adds to '
           'its baseline: (d1), or for the memory cgroup rows Debian\'s '
           'kernel in the same setting ((d7), (d9)).' % (
               args.memory, ' with `-icount shift=0`: the guest clock counts '
               'instructions' if args.icount else '', args.rounds,
               args.repeat), '',
           '| configuration | ' + ' | '.join(t[1] for t in TESTS) + ' |',
           '|---' * (len(TESTS) + 1) + '|']
    for label, desc in ((c.label, c.description) for c in configs):
        ref = baseline(label)
        cells = []
        for t, _ in TESTS:
            med = medians[label][t]
            cell = '%.1f [%.1f-%.1f]' % (med, min(samples[label][t]),
                                         max(samples[label][t]))
            if label != ref:
                cell += ' %+.1f (%+.1f%%)' % (med - medians[ref][t],
                                               (med / medians[ref][t] - 1) * 100)
            cells.append(cell)
        out.append('| (%s) %s | %s |' % (label, desc, ' | '.join(cells)))
    out += ['', 'Targets:', '']
    for t, _ in TESTS:
        added = medians['d2'][t] - medians['d1'][t]
        out.append('- (d2) on by default, %s: %+.1f, target +%d: %s' % (
            t, added, DEBIAN_TARGETS[t],
            'met' if added <= DEBIAN_TARGETS[t] else 'MISSED'))
    for t, _ in TESTS:
        pct = (medians['d3'][t] / medians['d1'][t] - 1) * 100
        out.append('- (d3) booted off, %s: %+.2f%%, target +1%%: %s' % (
            t, pct, 'met' if pct <= 1 else 'MISSED'))

    ram = parse_size(args.memory)
    pages = ram // PAGE_SIZE
    deb, ours = facts['d1']['sections'], facts['d2']['sections']
    mem_deb, mem_ours = meminfo(deb), meminfo(ours)
    sym = symbols(kernels['ours'], ('__start_alloc_tags', '__stop_alloc_tags'))
    tags = int(ours['allocinfo-lines'][0]) - 2
    cpus = possible_cpus(ours)
    rows = [('tags: the `alloc_tags` section, %d call sites' % tags,
             sym['__stop_alloc_tags'] - sym['__start_alloc_tags']),
            ('counters: %d x 16 B per-cpu, %d possible CPUs' % (tags, cpus),
             tags * 16 * cpus)]
    for label in [l for l in ('d2', 'd3', 'd6') if l in facts]:
        ext = facts[label]['page_ext'] - facts['d1']['page_ext']
        rows.append(('page_ext of (%s) (boot log), %.1f B a page' % (
            label, ext / pages), ext))
    if args.upstream:
        slab_row = ('slab vectors: 16 B per object (a tag pointer beside '
                    'memory cgroups\' pointer, which a charged slab has '
                    'without profiling too), every slab at boot '
                    '(`/proc/slabinfo` of (d2), kmalloc size classes)',
                    slab_tag_bytes(ours, 0, 16))
    else:
        slab_row = ('slab tags: 2 B per object and 16 B per slab, every slab '
                    'at boot (`/proc/slabinfo` of (d2), kmalloc size classes)',
                    slab_tag_bytes(ours, 16))
    rows += [slab_row,
             ('`Slab:` after boot, (d2) - (d1)',
              mem_ours['Slab'] - mem_deb['Slab']),
             ('memory in use after boot (RAM - `MemFree`), (d2) - (d1)',
              mem_deb['MemFree'] - mem_ours['MemFree'])]
    rows += family_rows(facts, 'd1', 'd2', 'd11', 'd12')
    out += ['', '## Memory, busybox guests right after boot', '',
            'Guest RAM %s; `Slab:` of (d1) %d kB.' % (
                args.memory, mem_deb['Slab'] // 1024), '',
            '| what | bytes | of guest RAM |', '|---|---|---|']
    for what, n in rows:
        out.append('| %s | %d | %.3f%% |' % (what, n, n * 100.0 / ram))
    return out


def parse_size(s):
    units = {'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}
    return int(s[:-1]) * units[s[-1].upper()] if s[-1].upper() in units \
        else int(s) << 20


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--tree')
    ap.add_argument('--base', help='kernel build without profiling')
    ap.add_argument('--prof',
                    help='kernel build with profiling on by default')
    ap.add_argument('--off', help='kernel build with profiling off by default')
    ap.add_argument('--numa', help='kernel build with profiling and NUMA')
    ap.add_argument('--node', help='kernel build with profiling, NUMA and '
                    'per-node counters')
    ap.add_argument('--total', help='kernel build with profiling and '
                    'CONFIG_MEM_ALLOC_PROFILING_TOTAL_CALLS')
    ap.add_argument('--debian',
                    help='Debian\'s kernel (harness/bench/debian.sh)')
    ap.add_argument('--ours',
                    help='make deb\'s kernel (harness/bench/debian.sh)')
    ap.add_argument('--upstream', action='store_true',
                    help='--ours has upstream\'s profiling (BASE=6.12)')
    ap.add_argument('--up-base', help='upstream kernel without profiling')
    ap.add_argument('--up-prof', help='upstream kernel, on by default')
    ap.add_argument('--up-off', help='upstream kernel, off by default')
    ap.add_argument('--out')
    ap.add_argument('--list', action='store_true',
                    help='print the configurations and what each measures')
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--repeat', type=int, default=3)
    ap.add_argument('--ms', type=int, default=1000)
    ap.add_argument('--memory', default='1G')
    ap.add_argument('--icount', action='store_true')
    ap.add_argument('--only', help='boot only these configurations (1,3,...)'
                    ': a quick look, no tables')
    args = ap.parse_args()
    if args.list:
        for c in CONFIGS + UPSTREAM_CONFIGS + DEBIAN_CONFIGS:
            print('(%s) %s' % (c.label, c.description))
        return 0
    if not args.out or not args.tree:
        ap.error('--tree and --out are required')
    if args.rounds < 1 or args.repeat < 1 or args.ms < 1:
        ap.error('--rounds, --repeat and --ms must be positive')
    upstream = [args.up_base, args.up_prof, args.up_off]
    if any(upstream) and not all(upstream):
        ap.error('--up-base, --up-prof and --up-off go together')
    debian = bool(args.debian or args.ours)
    if debian and not (args.debian and args.ours):
        ap.error('--debian and --ours go together')
    if debian == bool(args.base or args.prof or args.off) or \
            not debian and not (args.base and args.prof and args.off):
        ap.error('either --base, --prof and --off or --debian and --ours')
    if debian and any(upstream):
        ap.error('--debian does not take upstream\'s kernels')
    if args.upstream and not debian:
        ap.error('--upstream goes with --debian and --ours')
    if debian and (args.total or args.numa or args.node):
        ap.error('--total, --numa and --node are for the tinyconfig kernels')
    if bool(args.numa) != bool(args.node):
        ap.error('--numa and --node go together')
    kernels = {'base': args.base, 'prof': args.prof, 'off': args.off,
               'total': args.total, 'numa': args.numa, 'node': args.node}
    configs = CONFIGS
    if debian:
        kernels = {'debian': args.debian, 'ours': args.ours}
        configs = UPSTREAM_DEBIAN_CONFIGS if args.upstream else DEBIAN_CONFIGS
    if all(upstream):
        kernels.update(upbase=args.up_base, upprof=args.up_prof,
                       upoff=args.up_off)
        configs = CONFIGS + UPSTREAM_CONFIGS
    # Without --total (--numa, --node), no configuration of its kernel.
    kernels = {k: v for k, v in kernels.items() if v}
    configs = [c for c in configs if c.kernel in kernels]
    os.makedirs(args.out, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    for name, kout in kernels.items():
        subprocess.run([os.path.join(here, '..', 'guest', 'initramfs.sh'),
                        os.path.join(args.out, 'initramfs-%s.cpio.gz' % name),
                        args.tree, '', kout], check=True)
    samples = {c.label: {t: [] for t, _ in TESTS} for c in configs}
    facts = {}
    try:
        for rnd in range(1, args.rounds + 1):
            for cfg in configs:
                if args.only and cfg.label not in args.only.split(','):
                    continue
                got, fact = boot(args, cfg, rnd, kernels)
                for t, _ in TESTS:
                    samples[cfg.label][t] += got[t]
                facts.setdefault(cfg.label, fact)
                print('bench: round %d/%d (%s) %s  %.0fs' % (
                    rnd, args.rounds, cfg.label, '  '.join(
                        '%s %.1f' % (t, statistics.median(got[t]))
                        for t, _ in TESTS), fact['seconds']), flush=True)
    except BenchError as e:
        print('bench: FAILED: %s' % e, file=sys.stderr)
        return 1
    if args.only:
        return 0
    with open(os.path.join(args.out, 'samples.json'), 'w') as f:
        json.dump(samples, f, indent=1)
    lines = ['# Overhead of memory allocation profiling', '',
             'Command: `%s`; host: %s, %d CPUs.' % (
                 os.environ.get('BENCH_COMMAND', 'make bench'), host_cpu(),
                 os.cpu_count()), '']
    if debian:
        lines += debian_tables(args, configs, samples, facts, kernels)
    else:
        lines += time_table(args, configs, samples) + [''] + \
            memory_table(args, kernels, facts)
    if all(upstream):
        lines += [''] + added_table(args, configs, samples, facts)
    text = '\n'.join(lines) + '\n'
    with open(os.path.join(args.out, 'results.md'), 'w') as f:
        f.write(text)
    print(text, end='')
    print('bench: written to %s' % os.path.join(args.out, 'results.md'))
    return 0


def host_cpu():
    with open('/proc/cpuinfo') as f:
        for line in f:
            if line.startswith('model name'):
                return line.split(':', 1)[1].strip()
    return 'unknown CPU'


if __name__ == '__main__':
    sys.exit(main())
