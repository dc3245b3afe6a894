#!/usr/bin/env python3
# Counts passed/failed/skipped tests in meson testlog.json files and prints one summary line.
# With --total the line is the plain 'N passed, N failed, N skipped' form CI reads.
import json
import sys


def count(paths):
    c = {'passed': 0, 'failed': 0, 'skipped': 0}
    for p in paths:
        try:
            with open(p) as f:
                for line in f:
                    r = json.loads(line).get('result')
                    if r in ('OK', 'EXPECTEDFAIL'):
                        c['passed'] += 1
                    elif r == 'SKIP':
                        c['skipped'] += 1
                    else:
                        c['failed'] += 1
        except FileNotFoundError:
            c['failed'] += 1  # a suite that never ran counts as a failure
    return c


def main():
    args = [a for a in sys.argv[1:] if a != '--total']
    c = count(args)
    line = '%d passed, %d failed, %d skipped' % (c['passed'], c['failed'], c['skipped'])
    print(('tests: ' if '--total' in sys.argv else '') + line)


if __name__ == '__main__':
    main()
