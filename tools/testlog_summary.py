#!/usr/bin/env python3
# Counts passed/failed/skipped tests in meson testlog.json files and prints one summary line.
# With --total the line is the plain 'N passed, N failed, N skipped' form CI reads; with --slowest N, the
# N longest tests follow (seconds, result, name) and the sum of every test's duration.
import json
import sys


def load(paths):
    """Every test's line of the files; a file that is missing stands for one failed test (a suite that never ran)."""
    tests, missing = [], 0
    for p in paths:
        try:
            with open(p) as f:
                tests += [json.loads(line) for line in f if line.strip()]
        except FileNotFoundError:
            missing += 1
    return tests, missing


def count(tests, missing):
    c = {'passed': 0, 'failed': missing, 'skipped': 0}
    for t in tests:
        r = t.get('result')
        if r in ('OK', 'EXPECTEDFAIL'):
            c['passed'] += 1
        elif r == 'SKIP':
            c['skipped'] += 1
        else:
            c['failed'] += 1
    return c


def main():
    args, slowest = [], 0
    it = iter(sys.argv[1:])
    for a in it:
        if a == '--slowest':
            v = next(it, '')
            if not v.isdigit():
                print('testlog_summary.py: --slowest needs a count', file=sys.stderr)
                sys.exit(2)
            slowest = int(v)
        elif a != '--total':
            args.append(a)
    tests, missing = load(args)
    c = count(tests, missing)
    line = '%d passed, %d failed, %d skipped' % (c['passed'], c['failed'], c['skipped'])
    print(('tests: ' if '--total' in sys.argv else '') + line)
    if slowest:
        tests.sort(key=lambda t: -t.get('duration', 0))
        for t in tests[:slowest]:
            print('  %7.1f s  %-5s %s' % (t.get('duration', 0), t.get('result'), t.get('name')))
        print('  %7.1f s  sum of %d tests' % (sum(t.get('duration', 0) for t in tests), len(tests)))


if __name__ == '__main__':
    main()
