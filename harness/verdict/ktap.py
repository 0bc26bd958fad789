"""The verdict of a boot or a run: its tests and its problems, read from
(K)TAP (KUnit's on the console, the kselftests' on the results channel),
and unittest's results written as one."""

import json
import re
import sys
import unittest

DONE_MARK = '# harness: done'

TIMESTAMP_RE = re.compile(r'^\[\s*\d+\.\d+\]\s?')
RESULT_RE = re.compile(
    r'^(?P<indent>\s*)(?P<ok>ok|not ok) (?P<num>\d+)(?: -)? ?(?P<name>[^#]*?)'
    r'\s*(?:#\s*(?P<directive>\S+)(?P<reason>.*))?$')
PLAN_RE = re.compile(r'^(?P<indent>\s*)1\.\.(?P<count>\d+)\s*$')
SUBTEST_RE = re.compile(r'^(?P<indent>\s*)# Subtest: (?P<name>\S+)')
# A failed check's diagnostic: kselftest's "# file.c:LINE:test:Expected ..."
# and TH_LOG() lines, KUnit's "# case: EXPECTATION FAILED at file.c:LINE".
WHERE_RE = re.compile(r'^\s*#\s*(?P<text>.*\S+\.c:\d+.*)$')


def clean(line):
    """Strip the printk timestamp and line-end junk from a console line."""
    return TIMESTAMP_RE.sub('', line.rstrip('\r\n').replace('\r', ''))


class Verdict:
    def __init__(self, name):
        self.name = name
        self.tests = []      # (name, 'pass'|'fail'|'skip', detail)
        self.problems = []   # boot-level failures: (cause, [lines])

    def add(self, name, status, detail=''):
        self.tests.append((name, status, detail))

    def problem(self, cause, lines=()):
        self.problems.append((cause, list(lines)))

    def counts(self):
        c = {'pass': 0, 'fail': 0, 'skip': 0}
        for _, status, _ in self.tests:
            c[status] += 1
        c['fail'] += len(self.problems)
        return c

    def to_json(self):
        return {'name': self.name, 'tests': self.tests,
                'problems': self.problems}

    @classmethod
    def from_json(cls, data):
        v = cls(data['name'])
        v.tests = [tuple(t) for t in data['tests']]
        v.problems = [(c, list(l)) for c, l in data['problems']]
        return v


def status_of(m):
    directive = (m.group('directive') or '').upper()
    if directive == 'SKIP':
        return 'skip'
    if m.group('ok') == 'ok':
        return 'pass'
    if directive == 'TODO':
        return 'skip'
    return 'fail'


def parse_tap(lines, prefix, verdict, what, stop_when_planned=False):
    """Parse (K)TAP whose nesting is 4-space indentation (KUnit's KTAP).

    Leaf results become tests named PREFIX.suite.case ("# Subtest:" names
    the suites); a failed leaf is detailed with the first two file:line
    diagnostics printed before it. A suite whose plan is not met, or that
    never printed its own result, is reported as truncated. With
    STOP_WHEN_PLANNED, parsing ends once the top-level plan is met (later
    TAP on the console is not KUnit's). Returns the number of lines consumed.
    """
    levels = []
    notes = []

    def level(d):
        while len(levels) <= d + 1:
            levels.append({'plan': None, 'seen': 0, 'name': None})
        return levels[d]

    for i, raw in enumerate(lines):
        line = clean(raw)
        m = SUBTEST_RE.match(line)
        if m:
            level(depth_of(m.group('indent')))['name'] = m.group('name')
            continue
        m = PLAN_RE.match(line)
        if m:
            level(depth_of(m.group('indent')))['plan'] = int(m.group('count'))
            continue
        m = RESULT_RE.match(line)
        if not m:
            m = WHERE_RE.match(line)
            if m:
                notes.append(m.group('text'))
            continue
        d = depth_of(m.group('indent'))
        here = level(d)
        child = levels[d + 1]
        name = m.group('name').strip() or m.group('num')
        path = '.'.join([prefix] + [l['name'] or '?' for l in levels[1:d + 1]]
                        + [name])
        st = status_of(m)
        if child['seen'] == 0:
            detail = (m.group('reason') or '').strip()
            if st == 'fail' and not detail:
                detail = ' | '.join(notes[:2])
            verdict.add(path, st, detail)
        else:
            if child['plan'] is not None and child['seen'] != child['plan']:
                verdict.problem('%s %s: planned %d results, got %d' %
                                (what, path, child['plan'], child['seen']))
            if st == 'fail' and not any(
                    t[1] == 'fail' and t[0].startswith(path + '.')
                    for t in verdict.tests):
                verdict.add(path, 'fail', 'suite failed')
        del levels[d + 1:]
        notes = []
        here['seen'] += 1
        if stop_when_planned and d == 0 and here['seen'] == here['plan']:
            return i + 1
    for d, l in enumerate(levels):
        if d == 0 and l['plan'] is not None and l['seen'] != l['plan']:
            verdict.problem('%s: planned %d results, got %d '
                            '(output truncated?)' % (what, l['plan'],
                                                     l['seen']))
        elif d > 0 and (l['seen'] or l['name']):
            verdict.problem('%s: suite %s never finished (output truncated?)'
                            % (what, l['name'] or '?'))
    return len(lines)


def depth_of(indent):
    return len(indent.expandtabs(4)) // 4


def ktap_section(lines):
    """The console lines from KUnit's top-level KTAP header on."""
    for i, raw in enumerate(lines):
        line = clean(raw)
        if line in ('KTAP version 1', 'TAP version 14'):
            return lines[i:]
    return []


def parse_results(text, verdict):
    """Split the results channel into per-program TAP and parse each."""
    lines = text.splitlines()
    if DONE_MARK not in lines:
        verdict.problem('results channel incomplete: no "%s" line '
                        '(guest died or output was cut)' % DONE_MARK,
                        lines[-5:])
    current, body = None, []
    for line in lines:
        m = re.match(r'^# harness: begin (\S+)$', line)
        if m:
            current, body = m.group(1), []
            continue
        m = re.match(r'^# harness: end (\S+) rc=(\d+)$', line)
        if m and current == m.group(1):
            before = len(verdict.tests)
            parse_tap(body, 'kselftest.' + current, verdict,
                      'kselftest ' + current)
            ran = verdict.tests[before:]
            rc = int(m.group(2))
            if not ran:
                verdict.problem('kselftest %s printed no TAP results (rc=%d)'
                                % (current, rc), body[-10:])
            elif rc != 0 and rc != 4 and \
                    not any(t[1] == 'fail' for t in ran):
                verdict.problem('kselftest %s exited %d with no failed test'
                                % (current, rc), body[-10:])
            current = None
            continue
        if current is not None:
            body.append(line)
    if current is not None:
        verdict.problem('kselftest %s did not finish' % current, body[-10:])


def report(v, out=sys.stdout):
    c = v.counts()
    for test, status, detail in v.tests:
        if status == 'fail':
            print('FAIL %s: %s%s' % (v.name, test,
                                      ': ' + detail if detail else ''),
                  file=out)
    for cause, lines in v.problems:
        print('FAIL %s: %s' % (v.name, cause), file=out)
        for l in lines:
            print('    | ' + l, file=out)
    print('%s: %d passed, %d failed, %d skipped' %
          (v.name, c['pass'], c['fail'], c['skip']), file=out)




class VerdictResult(unittest.TextTestResult):
    """Also records each test for the make check summary."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.verdict = Verdict('harness')

    def addSuccess(self, test):
        super().addSuccess(test)
        self.verdict.add(test.id(), 'pass')

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.verdict.add(test.id(), 'fail', self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        self.verdict.add(test.id(), 'fail', self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.verdict.add(test.id(), 'skip', reason)


def run_unittests(module, name, verdict_path=None):
    """Run @module's unittest tests; write their verdict, named @name, to
    @verdict_path if given. The exit status: 0 if all passed."""
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    result = unittest.TextTestRunner(resultclass=VerdictResult,
                                     verbosity=1).run(suite)
    result.verdict.name = name
    if verdict_path:
        with open(verdict_path, 'w') as f:
            json.dump(result.verdict.to_json(), f, indent=1)
    return 0 if result.wasSuccessful() else 1
