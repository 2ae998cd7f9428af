#!/usr/bin/env python3
"""Writes, as a git fast-import stream, a session with a large state grown
from a small session's session.json: N agents, N files in the manifest
(each with its blob under files/), N errors and N decisions.
   bigstate.py <session.json> <id> <agents> <files> <errors> <decisions>"""
import copy
import json
import sys

src, sid = sys.argv[1], sys.argv[2]
n_agents, n_files, n_errors, n_decisions = map(int, sys.argv[3:7])
state = json.load(open(src))
state["session_id"] = sid
agent, error, decision = state["agents"][0], state["errors"][0], state["decisions"][0]
state["agents"] = []
for i in range(n_agents):
    a = copy.deepcopy(agent)
    a["id"] = "agent-%05d" % i
    a["task"] = "task %d of the big session" % i
    state["agents"].append(a)
state["phases"][0]["agents"] = [a["id"] for a in state["agents"]]
state["errors"] = []
for i in range(n_errors):
    e = copy.deepcopy(error)
    e["agent"] = "agent-%05d" % (i % n_agents)
    e["message"] = "error %d: something went wrong" % i
    state["errors"].append(e)
state["decisions"] = []
for i in range(n_decisions):
    d = copy.deepcopy(decision)
    d["decision"] = "decision %d" % i
    state["decisions"].append(d)
entry = next(iter(state["files"].values()))
state["files"] = {}
paths = ["src/d%03d/f%05d.c" % (i // 100, i) for i in range(n_files)]
for p in paths:
    state["files"][p] = dict(entry)

out = sys.stdout
def data(b):
    out.write("data %d\n" % len(b.encode()))
    out.write(b + "\n")
blob = json.dumps(state, indent=2) + "\n"
out.write("blob\nmark :1\n"); data(blob)
out.write("blob\nmark :2\n"); data('{"op": "session.import"}\n')
out.write("blob\nmark :3\n"); data("int f;\n")
msg = "import: big\n\nSession-Id: %s\nSession-Op: session.import\n" % sid
out.write("commit refs/sessions/%s\ncommitter Bench <bench@example.com> 1700000000 +0000\n" % sid)
data(msg)
out.write("M 100644 :1 session.json\nM 100644 :2 op.json\n")
for p in paths:
    out.write("M 100644 :3 files/%s\n" % p)
out.write("\n")
