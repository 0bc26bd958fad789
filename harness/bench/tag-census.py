#!/usr/bin/python3
"""What tagging some files per file would save in a kernel build.

    tag-census.py [--cpus N] BUILD_DIR PREFIX...

Counts the allocation tags of each compiled object of BUILD_DIR (the size
of its alloc_tags section; objects linked from others, such as a
composite module's, are skipped) and prints, for each path PREFIX (as
CONFIG_MEM_ALLOC_PROFILING_FILE_TAGS takes them), the call sites of the
objects under it, the objects that have any (one tag each when tagged
per file) and the memory the difference saves: each tag is a struct
alloc_tag in the image and a pair of u64 counters per possible CPU
(allocated at load for a module's). The total is checked against
vmlinux's __start_alloc_tags..__stop_alloc_tags and the tags of the
modules of modules.order.
"""
import argparse
import os
import struct
import sys

TAG_SIZE = 40           # struct alloc_tag: codetag (32) + counters pointer
COUNTERS_SIZE = 16      # struct alloc_tag_counters: bytes, calls


def sections(path):
    """{name: (addr, offset, size)} of a 64-bit little-endian ELF object."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:4] != b'\x7fELF' or data[4] != 2 or data[5] != 1:
        return {}       # the real-mode boot code: 32-bit, allocates nothing
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    heads = [struct.unpack_from('<IIQQQQ', data, shoff + i * shentsize) for i in range(shnum)]
    names = heads[shstrndx][4]
    return {data[names + h[0]:data.index(b'\0', names + h[0])].decode(): h[3:6]
            for h in heads}


def tags_of(path):
    size = sections(path).get('alloc_tags', (0, 0, 0))[2]
    return size // TAG_SIZE


def vmlinux_tags(path):
    """nm would do; the symbols are read from .symtab to need no binutils."""
    with open(path, 'rb') as f:
        data = f.read()
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum = struct.unpack_from('<HH', data, 0x3a)
    heads = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize) for i in range(shnum)]
    symtab = next(h for h in heads if h[1] == 2)        # SHT_SYMTAB
    strtab = heads[symtab[6]][4]
    found = {}
    for off in range(symtab[4], symtab[4] + symtab[5], 24):
        name, _, _, _, value, _ = struct.unpack_from('<IBBHQQ', data, off)
        name = data[strtab + name:data.index(b'\0', strtab + name)]
        if name in (b'__start_alloc_tags', b'__stop_alloc_tags'):
            found[name] = value
    return (found[b'__stop_alloc_tags'] - found[b'__start_alloc_tags']) // TAG_SIZE


def compiled_objects(build):
    """(path, part of a module) of each .o kbuild compiled, not linked."""
    for d, _, names in os.walk(build):
        for n in names:
            if not n.endswith('.o') or n.endswith('.mod.o'):
                continue
            try:
                with open(os.path.join(d, f'.{n}.cmd')) as f:
                    cmd = f.readline().split(':=', 1)[1].split()
            except (OSError, IndexError):
                continue
            if cmd and cmd[0] != 'ld' and not cmd[0].endswith('-ld'):
                yield os.path.relpath(os.path.join(d, n), build), '-DMODULE' in cmd


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--cpus', type=int, default=os.cpu_count(),
                    help='possible CPUs, for the per-cpu counters (default: this host\'s)')
    ap.add_argument('build')
    ap.add_argument('prefixes', nargs='+')
    args = ap.parse_args()

    objects = {}
    for o, modular in compiled_objects(args.build):
        if (n := tags_of(os.path.join(args.build, o))):
            objects[o] = (n, modular)
    total = sum(n for n, _ in objects.values())
    linked = vmlinux_tags(os.path.join(args.build, 'vmlinux'))
    with open(os.path.join(args.build, 'modules.order')) as f:
        linked += sum(tags_of(os.path.join(args.build, m.strip())) for m in f)
    if linked != total:
        raise SystemExit(f'tag-census: the objects have {total} tags, vmlinux and the modules {linked}')
    per_tag = TAG_SIZE + COUNTERS_SIZE * args.cpus
    print(f'{total} call sites in {len(objects)} objects; a tag is {per_tag} bytes '
          f'with {args.cpus} possible CPUs (in a module, once it is loaded)')
    for prefix in args.prefixes:
        for modular in (False, True):
            under = [n for o, (n, m) in objects.items() if o.startswith(prefix) and m == modular]
            saved = sum(under) - len(under)
            print(f'{prefix} {"in modules" if modular else "built in"}: {sum(under)} call sites '
                  f'in {len(under)} objects; per file {saved} tags fewer '
                  f'({saved * 100 / total:.1f}% of all), {saved * per_tag} bytes')
    return 0


if __name__ == '__main__':
    sys.exit(main())
