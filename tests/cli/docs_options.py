#!/usr/bin/env python3
"""The option tables in docs/*.md against the programs' own tables (PROGRAM --help-markdown).

A table in the docs sits between `<!-- options: PROGRAM [SUBCOMMAND] -->` and `<!-- /options -->`.
docs_options.py BUILD SRC          exit 1 and show the difference when a table is not the generated one
docs_options.py BUILD SRC --update rewrite the tables from the programs
"""
import glob
import os
import re
import subprocess
import sys

PROGRAMS = {  # the first word of a marker: where the build puts the program
    "hopwatch-collector": "collector/hopwatch-collector",
    "hopwatch-analyzer": "analyzer/hopwatch-analyzer",
    "hopwatch-gen": "gen/hopwatch-gen",
    "hopwatch-records": "tools/hopwatch-records",
}
BLOCK = re.compile(r"(<!-- options: ([^>]+?) -->\n)(.*?)(<!-- /options -->)", re.S)


def generated(build, command):
    words = command.split()
    exe = os.path.join(build, PROGRAMS[words[0]])
    r = subprocess.run([exe] + words[1:] + ["--help-markdown"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{command} --help-markdown: exit status {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def main():
    build, src = sys.argv[1], sys.argv[2]
    update = "--update" in sys.argv[3:]
    bad = found = 0
    for path in sorted(glob.glob(os.path.join(src, "docs", "*.md"))):
        text = open(path).read()

        def one(m):
            nonlocal bad, found
            found += 1
            want = generated(build, m.group(2))
            if m.group(3) != want:
                bad += 1
                if not update:
                    print(f"{os.path.relpath(path, src)}: the table of '{m.group(2)}' is not the program's:")
                    have, gen = m.group(3).splitlines(), want.splitlines()
                    for line in sorted(set(have) - set(gen)):
                        print("  docs only:    " + line)
                    for line in sorted(set(gen) - set(have)):
                        print("  program only: " + line)
            return m.group(1) + want + m.group(4)

        new = BLOCK.sub(one, text)
        if update and new != text:
            open(path, "w").write(new)
    if not found:
        sys.exit("no option tables found in docs/*.md")
    if bad and not update:
        print(f"{bad} of {found} tables differ; regenerate with: {sys.argv[0]} BUILD SRC --update")
        sys.exit(1)
    print(f"{found} option tables {'written' if update else 'match the programs'}")


main()
