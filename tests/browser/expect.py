#!/usr/bin/env python3
"""expect.py - what a page of `git session html` must show, from what
`git session show --json` and `git session transcript --json` say of the
same checkpoint, and git's own commit messages; page-check.mjs reads it.

  expect.py [--hostile <text>] [--secret <text>] [--screenshot <png>] \
      [--index <index.html> <session-id>... --] <page.html> <checkpoint>...

Each <page.html> is followed by the checkpoint (a session id or a commit) it
was made from. Run in the repository.
"""
import datetime
import json
import re
import subprocess
import sys

SHELL_TOOLS = {"Bash", "bash", "shell", "run_shell_command", "exec_command", "local_shell"}


def git(*args):
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def token_points(commit):
    """How many checkpoints up to this one changed the session's tokens."""
    seen, points = None, 0
    for c in git("rev-list", "--reverse", commit).split():
        try:
            t = json.loads(git("show", c + ":session.json")).get("tokens") or {}
        except subprocess.CalledProcessError:
            continue
        now = (t.get("input", 0), t.get("output", 0), t.get("cached", 0))
        if now != seen and any(now):
            points += 1
        seen = now
    return points


def epoch(iso):
    return datetime.datetime.strptime(iso[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc).timestamp()


def times(s, phases, agents):
    """When each phase and agent started and each commit was made."""
    out = [{"kind": "phase", "id": p["id"], "t": epoch(p["started"])} for p in phases if p.get("started")]
    out += [{"kind": "agent", "id": a["id"], "t": epoch(a["started"])} for a in agents if a.get("started")]
    out += [{"kind": "commit", "id": c["id"], "t": epoch(c["timestamp"])} for c in s.get("commits") or [] if c.get("timestamp")]
    return out


def file_lines(files):
    """For each file recorded with content, a line of it its diff must add."""
    out = {}
    for path, f in files.items():
        if f.get("oid") and f.get("status") != "deleted":
            lines = [l for l in git("cat-file", "-p", f["oid"]).splitlines() if l.strip() and len(l) <= 200]
            if lines:
                out[path] = max(lines, key=len)
    return out


def body(commit):
    """A commit's body without its trailers (the page may show them or not)."""
    paras = git("log", "-1", "--format=%b", commit).strip().split("\n\n")
    if paras and all(re.match(r"^[A-Za-z0-9-]+: ", l) for l in paras[-1].splitlines()):
        paras.pop()
    return "\n\n".join(paras).strip()


def conversations(rev):
    run = subprocess.run(["git", "session", "transcript", rev, "--json"], capture_output=True, text=True)
    if run.returncode and "keeps no transcript" in run.stderr:
        return []
    run.check_returncode()
    items = [json.loads(l) for l in run.stdout.splitlines() if l.strip()]
    out = {}
    for i, item in enumerate(items):
        c = out.setdefault(item["agent"], {"agent": item["agent"], "prompts": [], "replies": 0, "said": [], "tools": 0,
                                           "tool_names": [], "shell_exits": []})
        kind = item["kind"]
        if kind == "prompt":
            c["prompts"].append(item["text"])
        elif kind == "reply":
            c["replies"] += 1
            if len(item["text"]) <= 500:	# a longer one may be cut
                c["said"].append(item["text"])
        elif kind == "tool":
            c["tools"] += 1
            c["tool_names"].append(item.get("tool") or "")
            if item.get("tool") in SHELL_TOOLS:
                result = next((r for r in items[i + 1:] if r["agent"] == item["agent"] and r["kind"] == "result"), None)
                # None: the agent did not say (Claude Code tells the status of a failure only)
                c["shell_exits"].append(result.get("exit") if result else None)
    return list(out.values())


def page(file, rev, hostile):
    try:
        commit = git("rev-parse", "--verify", "-q", "refs/sessions/" + rev).strip()
    except subprocess.CalledProcessError:
        commit = git("rev-parse", "--verify", rev + "^{commit}").strip()
    s = json.loads(git("session", "show", commit, "--json"))
    talks = conversations(commit)
    agents = s.get("agents") or []
    phases = s.get("phases") or []
    commits = [{"id": c["id"], "subject": c.get("subject") or "",
                "body": body(c["id"])} for c in s.get("commits") or []]
    points = token_points(commit)
    marks = []
    if any(p.get("retry_count") for p in phases) or any(p.get("status") == "failed" for p in phases) or \
            any(a.get("status") == "failed" for a in agents):
        marks.append("failure")
    if any(p.get("retry_count") for p in phases):
        marks.append("retry")
    if commits:
        marks.append("commit")
    if any(t["prompts"] for t in talks):
        marks.append("prompt")
    if any(a.get("compactions") for a in agents):
        marks.append("compact")
    lists = {"conversation": talks, "files": s.get("files") or {}, "commits": commits,
             "decisions": s.get("decisions") or [], "errors": s.get("errors") or [], "tasks": s.get("tasks") or [],
             "tokens": points}
    return {
        "file": file,
        "session_id": s["session_id"],
        "goal": s.get("goal") or "",
        "status": s.get("status"),
        "checkpoint": commit,
        "budget": (s.get("tokens") or {}).get("max") or 0,
        "phases": [{"id": p["id"], "name": p["name"]} for p in phases],
        "agents": [a["id"] for a in agents],
        "conversations": talks,
        "files": sorted((s.get("files") or {}).keys()),
        "file_lines": file_lines(s.get("files") or {}),
        "commits": commits,
        "decisions": [d["decision"] for d in s.get("decisions") or []],
        "errors": [e["message"] for e in s.get("errors") or []],
        "tasks": [{"title": t["title"], "status": t["status"]} for t in s.get("tasks") or []],
        "marks": marks,
        "token_points": points,
        "times": times(s, phases, agents),
        "span": max(1, epoch(s.get("updated")) - epoch(s.get("created"))) if s.get("updated") and s.get("created") else 1,
        "empty": [k for k, v in lists.items() if not v],
        "hostile": hostile if hostile and (hostile == s.get("goal") or any(hostile in t["prompts"] for t in talks)) else None,
    }


def main(argv):
    hostile = screenshot = secret = None
    index = None
    while argv and argv[0].startswith("--"):
        opt = argv.pop(0)
        if opt == "--hostile":
            hostile = argv.pop(0)
        elif opt == "--secret":
            secret = argv.pop(0)
        elif opt == "--screenshot":
            screenshot = argv.pop(0)
        elif opt == "--index":
            index = {"file": argv.pop(0), "sessions": [], "links": []}
            while argv and argv[0] != "--":
                index["sessions"].append(argv.pop(0))
            argv.pop(0)
        else:
            sys.exit("expect.py: unknown option " + opt)
    pages = [page(argv[i], argv[i + 1], hostile) for i in range(0, len(argv), 2)]
    for p in pages:
        p["secret"] = secret
    if index:
        index["links"] = [i.replace("%", "%25").replace("/", "%2F") + ".html" for i in index["sessions"]]
    json.dump({"pages": pages, "index": index, "screenshot": screenshot}, sys.stdout, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
