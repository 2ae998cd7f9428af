#!/usr/bin/env python3
"""restore_prop.py <seed> <steps> - random edits, deletions, records,
commits, restores and undos in the repository here, checked after each
restore with plain git: every file of the restored checkpoint's manifest
holds the recorded blob (or is gone when recorded deleted), nothing
outside it moved, and the undo (restoring the checkpoint taken just
before) gives back exactly what was there. Exits 1 on the first
difference, saying which."""
import json, os, random, subprocess, sys

rnd = random.Random(int(sys.argv[1]))
steps = int(sys.argv[2])
paths = ["a.txt", "b/c.txt", "b/d/e.txt", "f.txt", "g/h.txt"]


def run(*args, ok=(0,)):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode not in ok:
        sys.exit("%s: exit %d\n%s%s" % (" ".join(args), p.returncode, p.stdout, p.stderr))
    return p


def git(*args, ok=(0,)):
    return run("git", *args, ok=ok).stdout.strip()


def snapshot():
    """Every file under the top, .git aside: path -> its bytes."""
    out = {}
    for root, dirs, files in os.walk("."):
        dirs[:] = [d for d in dirs if d != ".git"]
        for f in files:
            p = os.path.normpath(os.path.join(root, f))
            with open(p, "rb") as fh:
                out[p] = fh.read()
    return out


def manifest(rev):
    return json.loads(git("session", "show", "--json", rev))["files"]


def check_restored(rev, before):
    commit = git("rev-parse", rev)
    now = snapshot()
    files = manifest(commit)
    for p, rec in files.items():
        if rec["status"] == "deleted":
            if p in now:
                sys.exit("%s: recorded deleted in %s, still there" % (p, commit[:7]))
        elif p not in now or git("hash-object", p) != rec["oid"]:
            sys.exit("%s: not the blob %s recorded" % (p, commit[:7]))
        elif git("rev-parse", "%s:files/%s" % (commit, p)) != rec["oid"]:
            sys.exit("%s: the checkpoint's tree and its manifest disagree" % p)
    for p in set(now) | set(before):
        if p not in files and now.get(p) != before.get(p):
            sys.exit("%s: outside the manifest of %s, and it changed" % (p, commit[:7]))


def write(p, text):
    os.makedirs(os.path.dirname(p) or ".", exist_ok=True)
    with open(p, "w") as fh:
        fh.write(text)


checkpoints = 1
for step in range(steps):
    what = rnd.choice(["edit", "edit", "edit", "delete", "record", "record", "commit", "restore", "restore"])
    p = rnd.choice(paths)
    if what == "edit":
        write(p, "step %d %s\n" % (step, "x" * rnd.randrange(0, 50)))
    elif what == "delete" and os.path.exists(p):
        os.unlink(p)
    elif what == "record":
        # the paths given, and every one the manifest has again (gone ones as deleted)
        run("git", "session", "checkpoint", "-q", *[q for q in paths if os.path.exists(q)])
        checkpoints += 1
    elif what == "commit":
        git("add", "-A")
        git("commit", "-q", "--allow-empty", "-m", "step %d" % step)
    elif what == "restore":
        back = rnd.randrange(0, checkpoints)
        rev = "SESSION_HEAD~%d" % back
        before = snapshot()
        force = rnd.random() < 0.7
        tip = git("rev-parse", "SESSION_HEAD")
        r = run("git", "session", "restore", "--json", *(["--force"] if force else []), rev, ok=(0, 1))
        if r.returncode:
            if snapshot() != before or git("rev-parse", "SESSION_HEAD") != tip:
                sys.exit("a refused restore changed something: %s" % r.stderr)
            continue
        done = json.loads(r.stdout)
        check_restored(done["from"], before)
        if not done["files"]:
            continue
        checkpoints += 2
        if rnd.random() < 0.5:
            run("git", "session", "restore", "-q", "SESSION_HEAD~1")
            checkpoints += 2
            if snapshot() != before:
                sys.exit("undo of the restore from %s did not give back what was there" % done["from"][:7])
print("ok %d steps, %d checkpoints" % (steps, checkpoints))
