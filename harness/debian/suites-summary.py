#!/usr/bin/python3
"""make suites' summary: a line per suite of each boot, and the tests that
fail on our kernel but pass on Debian's own (failures of ours) apart from
those that fail on both (failures of the base).

  suites-summary.py OURS_VERDICT [DEBIAN_VERDICT]

The verdicts are ktest.py boot's (tests named kselftest.suite-NAME.TEST
and kselftest.allocinfo-check.after_NAME). Prints our boot's "N passed,
N failed, N skipped" last, and exits 1 if ours failed anything that
Debian's kernel passed, or had problems (splats, a hang, cut output).
"""

import collections
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..'))
from harness.verdict import ktap  # noqa: E402


def load(path):
    with open(path) as f:
        return ktap.Verdict.from_json(json.load(f))


def by_suite(verdict):
    suites = collections.OrderedDict()
    for name, status, detail in verdict.tests:
        parts = name.split('.', 2)
        suite = parts[1] if len(parts) > 2 else name
        suites.setdefault(suite, {})[parts[-1]] = (status, detail)
    return suites


def counts(tests):
    c = collections.Counter(s for s, _ in tests.values())
    return '%d passed, %d failed, %d skipped' % (c['pass'], c['fail'],
                                                 c['skip'])


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    ours = load(argv[1])
    theirs = load(argv[2]) if len(argv) == 3 else None
    our_suites = by_suite(ours)
    their_suites = by_suite(theirs) if theirs else {}
    ours_only = []
    for suite, tests in our_suites.items():
        line = 'suites: %s: ours %s' % (suite, counts(tests))
        if suite in their_suites:
            line += "; Debian's kernel %s" % counts(their_suites[suite])
        print(line)
        for test, (status, detail) in tests.items():
            if status != 'fail':
                continue
            theirs_status = their_suites.get(suite, {}).get(test, (None,))[0]
            where = ('fails on Debian\'s kernel too' if theirs_status == 'fail'
                     else 'ours only')
            print('  FAIL %s: %s (%s)' % (test, where, detail))
            if theirs_status != 'fail':
                ours_only.append(test)
    for v in (ours, theirs):
        for problem, lines in (v.problems if v else []):
            print('problem in %s: %s' % (v.name, problem))
    c = ours.counts()
    print("ours: %d passed, %d failed, %d skipped (%d of the failures fails "
          "on Debian's kernel too)" % (c['pass'], c['fail'], c['skip'],
                                       c['fail'] - len(ours.problems) -
                                       len(ours_only)))
    return 1 if ours_only or ours.problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
