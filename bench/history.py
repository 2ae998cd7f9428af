#!/usr/bin/env python3
"""Writes, as a git fast-import stream, sessions that share one state:
<sessions> sessions <prefix>NNNNN (or one session <prefix> when there is
one), each a chain of <checkpoints> checkpoints whose tree holds the
given session.json and op.json and the manifest's files/<path> blobs.
With --reflog <marks> it instead writes each session's reflog from the
marks fast-import exported, as git session would have left it.
   history.py <session.json> <op.json> <prefix> <sessions> <checkpoints>
   history.py --reflog <marks> <gitdir> <prefix> <sessions> <checkpoints>"""
import json
import os
import sys

T0 = 1700000000
COMMIT_MARKS = 10 ** 9	# commits' marks, apart from the blobs'


def ids(prefix, sessions):
    return [prefix] if sessions == 1 else ["%s%05d" % (prefix, i) for i in range(sessions)]


def stream(state_path, op_path, prefix, sessions, checkpoints):
    state = json.load(open(state_path))
    op = open(op_path).read()
    out = sys.stdout
    mark = 0

    def blob(text):
        nonlocal mark
        mark += 1
        out.write("blob\nmark :%d\ndata %d\n%s\n" % (mark, len(text.encode()), text))
        return mark
    op_mark = blob(op)
    files = [(p, blob("int f%s;\n" % p)) for p in state.get("files", {})]
    for n, sid in enumerate(ids(prefix, sessions)):
        state["session_id"] = sid
        s_mark = blob(json.dumps(state, indent=2) + "\n")
        for i in range(checkpoints):
            msg = "note: \"%d\"\n\nSession-Id: %s\nSession-Op: note\n" % (i, sid)
            c_mark = COMMIT_MARKS + n * checkpoints + i
            out.write("commit refs/sessions/%s\nmark :%d\n" % (sid, c_mark))
            out.write("committer Bench <bench@example.com> %d +0000\n" % (T0 + i))
            out.write("data %d\n%s" % (len(msg.encode()), msg))
            if i:
                out.write("from :%d\n" % (c_mark - 1))
            out.write("M 100644 :%d session.json\nM 100644 :%d op.json\n" % (s_mark, op_mark))
            for path, m in files:
                out.write("M 100644 :%d files/%s\n" % (m, path))
            out.write("\n")


def reflogs(marks_path, gitdir, prefix, sessions, checkpoints):
    marks = {}
    for line in open(marks_path):
        m, oid = line.split()
        marks[int(m[1:])] = oid
    commits = [marks[m] for m in sorted(marks) if m >= COMMIT_MARKS]
    os.makedirs(os.path.join(gitdir, "logs/refs/sessions"), exist_ok=True)
    for n, sid in enumerate(ids(prefix, sessions)):
        old = "0" * 40
        with open(os.path.join(gitdir, "logs/refs/sessions", sid), "w") as f:
            for i in range(checkpoints):
                new = commits[n * checkpoints + i]
                f.write("%s %s Bench <bench@example.com> %d +0000\tsession: note\n" % (old, new, T0 + i))
                old = new


if sys.argv[1] == "--reflog":
    reflogs(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]))
else:
    stream(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
