#!/usr/bin/env python3
"""same_data.py [--subset] [--except PATH]... <kind> <a> <b>: exits 0 when
two documents are equal as data (same keys, same values; key order and
layout aside), else prints where they differ. With --subset, b may hold
more keys than a. --except $.x.y leaves that place out of the comparison.
kind: json, jsonl, yaml, md (YAML or JSON front matter + body)."""
import json
import sys

import yaml


def load(kind, path):
    text = open(path, encoding="utf-8").read()
    if kind == "json":
        return json.loads(text)
    if kind == "jsonl":
        return [json.loads(l) for l in text.splitlines() if l.strip()]
    if kind == "yaml":
        return yaml.safe_load(text)
    if kind == "md":
        assert text.startswith("---\n"), "no front matter"
        end = text.index("\n---", 3)
        rest = text[end + 4:]
        rest = rest[1:] if rest.startswith("\n") else rest
        fm = text[4:end + 1]
        fm = json.loads(fm) if fm.lstrip().startswith("{") else yaml.safe_load(fm)
        return {"front_matter": fm, "body": rest}
    raise SystemExit("unknown kind " + kind)


def norm(v):
    # YAML reads unquoted times as datetimes; the files carry them as text
    if hasattr(v, "isoformat"):
        return v.isoformat().replace("+00:00", "Z")
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    if isinstance(v, list):
        return [norm(x) for x in v]
    return v


SUBSET = False
EXCEPT = []


def diff(a, b, at="$"):
    if at in EXCEPT:
        return []
    if type(a) != type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float))
                                   and not isinstance(a, bool) and not isinstance(b, bool)):
        return ["%s: %r != %r" % (at, a, b)]
    if isinstance(a, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if SUBSET and k not in a:
                continue
            if k not in a or k not in b:
                out.append("%s.%s: only in %s" % (at, k, "first" if k in a else "second"))
            else:
                out += diff(a[k], b[k], "%s.%s" % (at, k))
        return out
    if isinstance(a, list):
        if len(a) != len(b):
            return ["%s: %d != %d entries" % (at, len(a), len(b))]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in diff(x, y, "%s[%d]" % (at, i))]
    return [] if a == b else ["%s: %r != %r" % (at, a, b)]


if __name__ == "__main__":
    args = sys.argv[1:]
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--subset":
            SUBSET = True
        elif opt == "--except":
            EXCEPT.append(args.pop(0))
        else:
            raise SystemExit("unknown option " + opt)
    kind, a, b = args
    d = diff(norm(load(kind, a)), norm(load(kind, b)))
    for line in d:
        print(line)
    sys.exit(1 if d else 0)
