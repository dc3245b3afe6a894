#!/usr/bin/env bash
# Every Python file of the tree (benchmarks, tools, tests) through pyflakes: undefined names, unused imports,
# f-strings with nothing to format.  The harnesses run only by hand (bench/) fail nowhere else before a user runs them.
set -euo pipefail
root=${1:?usage: pyflakes.sh SOURCE_ROOT}
cd "$root"
py=
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import pyflakes' 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || { echo "pyflakes.sh: no python3 with pyflakes (Debian: python3-pyflakes, which tools/deps.sh installs)" >&2; exit 1; }
if [ -d .git ] || [ -f .git ]; then
  mapfile -t files < <(git ls-files '*.py')
else
  mapfile -t files < <(find . -name '*.py' -not -path './build*' -not -path './.*' | sort)
fi
((${#files[@]})) || { echo "pyflakes.sh: no Python files under $root" >&2; exit 1; }
echo "pyflakes: ${#files[@]} files"
"$py" -m pyflakes "${files[@]}"
