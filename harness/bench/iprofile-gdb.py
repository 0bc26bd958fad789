# Run by gdb (gdb -batch -nx -x iprofile-gdb.py) for iprofile.py: attach to
# a QEMU guest's gdbstub, wait for the benchmark module's first call of
# ktime_get() after IPROFILE_SKIP of them (the start of a timed loop), step
# every instruction until the next (its end), do so for the loop after,
# and write how often each address ran in each on the loop's own stack.
# The environment gives
# IPROFILE_SOCKET, IPROFILE_OUT, IPROFILE_SKIP and, in hex, IPROFILE_FINIT
# (the finit_module system call), IPROFILE_KTIME_GET, IPROFILE_SCHEDULE
# and IPROFILE_END (the end of vmlinux's text: modules lie above it).
import json
import os
import time

import gdb

SOCKET = os.environ['IPROFILE_SOCKET']
OUT = os.environ['IPROFILE_OUT']
FINIT = int(os.environ['IPROFILE_FINIT'], 16)
KTIME_GET = int(os.environ['IPROFILE_KTIME_GET'], 16)
END = int(os.environ['IPROFILE_END'], 16)
SKIP = int(os.environ['IPROFILE_SKIP'])
SCHEDULE = int(os.environ['IPROFILE_SCHEDULE'], 16)
# A loop of the benchmark is at most a few hundred thousand instructions.
MAX_STEPS = 2000000
# x86_64's THREAD_SIZE without KASAN (no bench kernel has it); a task's
# stack is aligned to it.
THREAD_SIZE = 16384

gdb.execute('set pagination off')
gdb.execute('set confirm off')
gdb.execute('set architecture i386:x86-64')
for _ in range(600):
    try:
        gdb.execute('target remote %s' % SOCKET, to_string=True)
        break
    except gdb.error:
        time.sleep(0.1)
else:
    raise SystemExit('iprofile: no gdbstub at %s' % SOCKET)

inferior = gdb.selected_inferior()


def reg(name):
    return int(gdb.parse_and_eval('$' + name)) & (2**64 - 1)


def caller():
    """The return address on the stack at a function's first instruction."""
    sp = reg('rsp')
    return int.from_bytes(inferior.read_memory(sp, 8).tobytes(), 'little')


def run_to(addr):
    gdb.execute('tbreak *0x%x' % addr, to_string=True)
    gdb.execute('continue', to_string=True)


def past_module_ktime_get(calls):
    """Continue through @calls calls of ktime_get() from the module, and
    back into the module from the last."""
    gdb.execute('break *0x%x' % KTIME_GET, to_string=True)
    while calls:
        gdb.execute('continue', to_string=True)
        if caller() > END:
            calls -= 1
    gdb.execute('delete', to_string=True)
    run_to(caller())


def past_schedule():
    """From __schedule()'s first instruction, run to its return in this
    task (the return address is shared by every task that schedules)."""
    ret, sp = caller(), reg('rsp')
    gdb.execute('break *0x%x' % ret, to_string=True)
    gdb.execute('continue', to_string=True)
    while reg('rsp') != sp + 8:
        gdb.execute('continue', to_string=True)
    gdb.execute('delete', to_string=True)


# Only after the module is being loaded: ktime_get() runs all the time.
run_to(FINIT)
past_module_ktime_get(SKIP + 1)

# Two loops, each counted apart: iprofile.py keeps the one with fewer
# instructions (a context switch or a timer in a loop only adds some).
loops = []
for i in range(2):
    if i:
        # Out of ktime_get() (the loop's end) and into the next loop.
        run_to(caller())
        past_module_ktime_get(1)
    # Only the benchmark's task is counted: under gdb the guest's clock
    # runs while each instruction is stepped, so other tasks (a grace
    # period's kthread after the module's load) and interrupts run inside
    # the loop. The scheduler is run through, not stepped; interrupts'
    # handlers are told by their stacks.
    stack = reg('rsp') // THREAD_SIZE
    counts = {}
    steps = others = switches = 0
    while True:
        pc = reg('pc')
        if pc == KTIME_GET and caller() > END:
            break
        if pc == SCHEDULE:
            past_schedule()
            switches += 1
            continue
        if reg('rsp') // THREAD_SIZE == stack:
            counts[pc] = counts.get(pc, 0) + 1
        else:
            others += 1
        steps += 1
        if steps > MAX_STEPS:
            raise SystemExit('iprofile: no ktime_get() after %d steps' % steps)
        gdb.execute('stepi', to_string=True)
    loops.append({'%x' % pc: n for pc, n in counts.items()})
    print('iprofile: loop %d: %d instructions stepped, %d on other stacks, '
          '%d calls of __schedule() run through'
          % (i, steps, others, switches))

with open(OUT, 'w') as f:
    json.dump(loops, f)
gdb.execute('detach', to_string=True)
