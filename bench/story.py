#!/usr/bin/env python3
"""Prints the git session commands of a typical orchestrated session --
10 phases, 5 agents each (50 in all) reporting progress, token use, notes
and decisions, each phase completed -- cut or padded with notes to
exactly <checkpoints> checkpoints.
   story.py <checkpoints>"""
import sys

want = int(sys.argv[1])
cmds = ["git session start 'Add OAuth login' --id storage --goal 'log in with GitHub' -q " +
        " ".join("--phase 'Phase %d'" % p for p in range(1, 11))]
body = []
for p in range(1, 11):
    body.append("git session phase start %d -q" % p)
    for a in range(1, 6):
        agent = "agent-%d-%d" % (p, a)
        body.append("git session agent start %s --type coder --task 'part %d of phase %d' -q" % (agent, a, p))
        for pct in (20, 40, 60, 80):
            body.append("git session agent progress %s %d -q" % (agent, pct))
        body.append("git session tokens add --agent %s --input %d --output %d -q" % (agent, 1200 + a, 800 + p))
        body.append("git session note 'agent %s: the tests pass' -q" % agent)
        body.append("git session agent done %s --summary 'part %d done' -q" % (agent, a))
    body.append("git session decide 'phase %d: keep the design' --rationale 'it holds' -q" % p)
    body.append("git session phase complete %d --context 'phase %d is done' -q" % (p, p))
phase_end = [i for i, c in enumerate(body) if "phase complete" in c]
# pad with notes spread over the phases, or cut the story short
pad = max(0, want - 1 - len(body))
out, n = [], 0
for i, c in enumerate(body):
    out.append(c)
    if i in phase_end:
        share = pad // 10 + (1 if phase_end.index(i) < pad % 10 else 0)
        out += ["git session note 'progress report %d' -q" % (n + k) for k in range(share)]
        n += share
print("set -e")
print("\n".join((cmds + out)[:want]))
