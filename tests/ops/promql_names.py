#!/usr/bin/env python3
# Every PromQL expression of the Grafana dashboards and the Prometheus rules may only name metrics a
# running collector or analyzer exports (names taken from scrapes of their /metrics, histograms with
# their _bucket/_sum/_count series) or series Prometheus itself makes (up, ALERTS).  Each dashboard
# must also be provisionable from a file: a "datasource" template variable, no __inputs.
# Usage: promql_names.py METRICS.txt[,METRICS.txt...] RULES.yml DASHBOARD.json...
import json
import re
import sys

PROMETHEUS_MADE = {"up", "ALERTS", "ALERTS_FOR_STATE"}
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless",
            "offset", "inf", "nan"}


def exported(path):
    names = set()
    for line in open(path):
        m = re.match(r"# TYPE (\S+) (\S+)", line)
        if m:
            names.add(m.group(1))
            if m.group(2) in ("histogram", "summary"):
                names.update(m.group(1) + s for s in ("_bucket", "_sum", "_count"))
        elif line.strip() and not line.startswith("#"):
            names.add(re.match(r"[^{ ]+", line).group(0))
    return names


def metric_names(expr):
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)          # strings (label values, format args)
    e = re.sub(r"\{[^}]*\}", "", e)                        # label matchers
    e = re.sub(r"\[[^\]]*\]", "", e)                       # ranges and subqueries
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)
    e = re.sub(r"\b[a-zA-Z_][a-zA-Z0-9_]*\s*\(", "(", e)    # function and aggregation names
    e = re.sub(r"\b\d+(\.\d+)?(e[+-]?\d+)?\b", " ", e)     # numbers
    return {w for w in re.findall(r"[a-zA-Z_:][a-zA-Z0-9_:]*", e) if w.lower() not in KEYWORDS}


def rule_exprs(path):
    # the rules file is plain YAML written by us: "expr:" either inline or as a "|" block
    lines = open(path).read().splitlines()
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"(\s*)expr:\s*(.*)", lines[i])
        if m:
            if m.group(2).strip() in ("|", ">"):
                block, ind = [], len(m.group(1))
                i += 1
                while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > ind):
                    block.append(lines[i])
                    i += 1
                out.append(("rule", " ".join(block)))
                continue
            out.append(("rule", m.group(2)))
        i += 1
    return out


def panels(board):
    for p in board.get("panels", []):
        yield p
        yield from p.get("panels", [])   # collapsed rows


def main():
    have = set().union(*(exported(p) for p in sys.argv[1].split(",")))
    bad, n = [], 0
    exprs = rule_exprs(sys.argv[2])
    for path in sys.argv[3:]:
        board = json.load(open(path))
        if "__inputs" in board:
            bad.append("%s: has __inputs (not provisionable from a file)" % path)
        var = [v for v in board.get("templating", {}).get("list", []) if v.get("type") == "datasource"]
        if not var or var[0].get("query") != "prometheus":
            bad.append("%s: no Prometheus datasource template variable" % path)
        for p in panels(board):
            if p.get("type") == "row":
                continue
            if p.get("datasource", {}).get("uid") != "${datasource}":
                bad.append("%s: panel '%s' does not use the datasource variable" % (path, p["title"]))
            if not p.get("targets"):
                bad.append("%s: panel '%s' has no query" % (path, p["title"]))
            for t in p.get("targets", []):
                exprs.append(("%s: panel '%s'" % (path, p["title"]), t["expr"]))
        for v in board.get("templating", {}).get("list", []):
            if v.get("type") == "query":
                q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
                m = re.match(r"label_values\((.*),\s*\w+\)$", q)
                exprs.append(("%s: variable %s" % (path, v["name"]), m.group(1) if m else q))
    for where, e in exprs:
        names = metric_names(e)
        n += 1
        if not names:
            bad.append("%s: no metric in '%s'" % (where, e))
        for name in sorted(names - have - PROMETHEUS_MADE):
            bad.append("%s: '%s' is exported by neither the collector nor the analyzer (%s)" % (where, name, e))
    for b in bad:
        print(b)
    if bad:
        sys.exit(1)
    print("%d PromQL expressions name only exported metrics (%d names exported)" % (n, len(have)))


main()
