#!/usr/bin/env python3
"""Writes, as a git fast-import stream, a long session grown from a small
session's session.json: N notes, N decisions and N errors, each list kept
as git session keeps it (full chunks of 64 under state/<key>/, the rest
in session.json beside their count), at the tip of a chain of
<checkpoints> checkpoints (each with an op.json of its own, as a note
leaves it).
   longstate.py <session.json> <id> <entries> <checkpoints>"""
import json
import sys

CHUNK = 64	# a list's chunk when its tail is in session.json (STATE_LIST_CHUNK)
T0 = 1700000000
src, sid = sys.argv[1], sys.argv[2]
n_notes, n_decisions, n_errors, checkpoints = map(int, sys.argv[3:7])
state = json.load(open(src))
state["session_id"] = sid
at = "2025-01-02T03:04:05Z"
lists = {
    "notes": [{"text": "note %d of a long session" % i, "agent": None, "timestamp": at} for i in range(n_notes)],
    "decisions": [{"decision": "decision %d" % i, "rationale": None, "timestamp": at, "agent": None}
                  for i in range(n_decisions)],
    "errors": [{"agent": None, "phase": 1, "timestamp": at, "type": "runtime",
                "message": "error %d" % i, "resolution": "pending", "resolved": False} for i in range(n_errors)],
}
out = sys.stdout
mark = 0


def blob(text):
    global mark
    mark += 1
    out.write("blob\nmark :%d\ndata %d\n%s\n" % (mark, len(text.encode()), text))
    return mark


parts = []
for key, entries in lists.items():
    if len(entries) > 256:
        full = len(entries) // CHUNK * CHUNK
        state[key] = {"chunks": "state/" + key, "chunked": full, "chunk": CHUNK, "tail": entries[full:]}
        for c in range(0, full, CHUNK):
            text = json.dumps(entries[c:c + CHUNK], indent=2) + "\n"
            parts.append(("state/%s/%06d.json" % (key, c // CHUNK), blob(text)))
    else:
        state[key] = entries
core = blob(json.dumps(state, indent=2) + "\n")
files = [("files/" + p, blob("int f%s;\n" % p)) for p in state.get("files", {})]
for i in range(checkpoints):
    op = blob(json.dumps({"op": "note", "at": at, "args": {"text": "checkpoint %d" % i}}) + "\n")
    msg = "note: \"checkpoint %d\"\n\nSession-Id: %s\nSession-Op: note\n" % (i, sid)
    out.write("commit refs/sessions/%s\ncommitter Bench <bench@example.com> %d +0000\n" % (sid, T0 + i))
    out.write("data %d\n%s" % (len(msg.encode()), msg))
    if i == 0:
        out.write("M 100644 :%d session.json\n" % core)
        for path, m in parts + files:
            out.write("M 100644 :%d %s\n" % (m, path))
    out.write("M 100644 :%d op.json\n\n" % op)
