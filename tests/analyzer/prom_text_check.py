#!/usr/bin/env python3
# A strict check of the Prometheus text exposition format (version 0.0.4) on a /metrics page: every sample
# line is NAME{LABELS} VALUE, label values escaped (\\, \", \n only); prints the decoded samples as JSON lines.
# Usage: prom_text_check.py PAGE > SAMPLES.jsonl  (exit 1 naming the first bad line)
import json
import re
import sys

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
VALUE = re.compile(r"[-+]?(?:[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?|Inf|NaN)")


def parse(line):
    """(name, labels, value) of one sample line; ValueError naming what is wrong."""
    m = NAME.match(line)
    if not m:
        raise ValueError("no metric name")
    name, i, labels = m.group(), m.end(), {}
    if i < len(line) and line[i] == "{":
        i += 1
        while line[i] != "}":
            m = LABEL.match(line, i)
            if not m or line[m.end() : m.end() + 2] != '="':
                raise ValueError(f"bad label name at column {i}")
            key, i, val = m.group(), m.end() + 2, []
            while line[i] != '"':
                if line[i] == "\\":
                    esc = {"\\": "\\", '"': '"', "n": "\n"}.get(line[i + 1])
                    if esc is None:
                        raise ValueError(f"bad escape \\{line[i + 1]} at column {i}")
                    val.append(esc)
                    i += 2
                else:
                    val.append(line[i])
                    i += 1
            if key in labels:
                raise ValueError(f"label {key} twice")
            labels[key] = "".join(val)
            i += 1
            if line[i] == ",":
                i += 1
            elif line[i] != "}":
                raise ValueError(f"expected , or }} at column {i}")
        i += 1
    parts = line[i:].split(" ")
    if parts[0] != "" or len(parts) not in (2, 3) or not VALUE.fullmatch(parts[1]):
        raise ValueError("expected one space and a value (and an optional timestamp)")
    return name, labels, parts[1]


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    if not text.endswith("\n"):
        sys.exit("the page does not end with a newline")
    for n, line in enumerate(text[:-1].split("\n"), 1):
        if line.startswith("#"):
            if not re.fullmatch(r"# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .*", line):
                sys.exit(f"line {n}: bad comment: {line!r}")
            continue
        try:
            name, labels, value = parse(line)
        except (ValueError, IndexError) as e:
            sys.exit(f"line {n}: {e or 'ends early'}: {line!r}")
        print(json.dumps({"name": name, "labels": labels, "value": value}))


main()
