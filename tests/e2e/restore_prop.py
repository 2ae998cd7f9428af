#!/usr/bin/env python3
"""restore_prop.py <seed> <steps> - random edits, deletions, records,
commits, restores and undos in the repository here, checked after each
restore with plain git: every file of the restored checkpoint's manifest
holds the recorded blob (or is gone when recorded deleted), nothing
outside it moved, and the undo (restoring the checkpoint taken just
before) gives back exactly what was there. Among them, restores of
hostile checkpoints forged with plumbing (paths git refuses, files below
files or links, modes, binary and large blobs, missing blobs, trees given
as blobs): each is refused with nothing written, or writes exactly its
manifest, byte for byte; --dry-run exits as the real run does. Exits 1
on the first difference, saying which."""
import json, os, random, stat, subprocess, sys

rnd = random.Random(int(sys.argv[1]))
steps = int(sys.argv[2])
paths = ["a.txt", "b/c.txt", "b/d/e.txt", "f.txt", "g/h.txt"]


def run(*args, ok=(0,), text=True, inp=None):
    p = subprocess.run(args, capture_output=True, text=text, input=inp)
    if p.returncode not in ok:
        sys.exit("%s: exit %d\n%s%s" % (" ".join(args), p.returncode, p.stdout, p.stderr))
    return p


def git(*args, ok=(0,)):
    return run("git", *args, ok=ok).stdout.strip()


def snapshot(folders=False):
    """Every file and link under the top, .git aside: path -> its bytes (and x bit), or its target; folders too."""
    out = {}
    for root, dirs, files in os.walk("."):
        dirs[:] = [d for d in dirs if d != ".git"]
        for d in dirs:
            p = os.path.normpath(os.path.join(root, d))
            if os.path.islink(p):
                out[p] = ("link", os.readlink(p))
            elif folders:
                out[p] = "dir"
        for f in files:
            p = os.path.normpath(os.path.join(root, f))
            if os.path.islink(p):
                out[p] = ("link", os.readlink(p))
                continue
            with open(p, "rb") as fh:
                out[p] = (fh.read(), bool(os.lstat(p).st_mode & stat.S_IXUSR))
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
        elif not on_disk(p, rec):
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


# spellings git refuses, as verify_path does with core.protectNTFS and core.protectHFS on
REFUSED = ["/abs", "./x", "../x", "hp/../../x", "hp//x", ".git/x", ".GIT/config", ".git",
           "hp/.git/config", "hp/.GIT/x", "hp/.git./x", "git~1/x", "GIT~1/config", ".git\\x",
           "hp/.git\\config", ".g\u200cit/x", "hp/.git"]


def blob(data):
    return run("git", "hash-object", "-w", "--stdin", text=False, inp=data).stdout.decode().strip()


def random_bytes():
    n = rnd.choice([0, 1, 10, 300, 5000, 70000, rnd.randrange(0, 2 << 20)])
    kind = rnd.choice(["text", "binary", "zeros"])
    if kind == "text":
        return (("line %d\r\n" if rnd.random() < 0.3 else "line %d\n") * (n // 8 + 1) % tuple(range(n // 8 + 1)) if False
                else "".join("line %d\n" % i for i in range(n // 8 + 1)).encode()[:n])
    if kind == "zeros":
        return b"\0" * n
    return bytes(rnd.randrange(256) for _ in range(min(n, 70000)))


def forge(files):
    """A checkpoint whose manifest is files, on the active session's latest (kept by refs/forged/prop); its id."""
    tip = git("rev-parse", "SESSION_HEAD")
    s = json.loads(git("show", tip + ":session.json"))
    s["files"] = files
    sj = blob(json.dumps(s, indent=2).encode())
    tree = run("git", "mktree", text=False, inp=("100644 blob %s\tsession.json\n" % sj).encode()).stdout.decode().strip()
    c = git("commit-tree", tree, "-p", tip, "-m", "checkpoint: forged")
    git("update-ref", "refs/forged/prop", c)
    return c


def hostile_manifest():
    """A random manifest and whether restore must refuse it."""
    files, refuse = {}, False
    for _ in range(rnd.randrange(1, 4)):
        kind = rnd.choice(["good"] * 6 + ["deleted"] * 2 + ["mode"] * 3 +
                          ["path", "link-then-below", "file-then-below", "missing", "tree"])
        name = "hp/f%d" % len(files)	# each its own: a later entry never hides a bad one
        e = {"status": rnd.choice(["created", "modified"]), "oid": blob(random_bytes()), "phase": None, "agent": None}
        if kind == "path":
            name = rnd.choice(REFUSED)
            refuse = True
        elif kind == "link-then-below":
            files[name] = dict(e, oid=blob(rnd.choice([b"../.git/hooks", b"/tmp", b"f0"])), mode="120000")
            name += "/post-commit"
            refuse = True
        elif kind == "file-then-below":
            files[name] = dict(e)
            name += "/below"
            refuse = True
        elif kind == "mode":
            m = rnd.choice(["160000", "040000", "100644,%s,zz" % e["oid"], "644", "100755", "120000", "100644"])
            e["mode"] = m
            refuse = refuse or m not in ("100755", "120000", "100644")
        elif kind == "missing":
            e["oid"] = "%040x" % rnd.getrandbits(160)
            refuse = True
        elif kind == "tree":
            e["oid"] = git("rev-parse", "HEAD^{tree}") if git("rev-parse", "-q", "--verify", "HEAD", ok=(0, 1)) else \
                git("mktree", "--missing", ok=(0,))
            refuse = True
        elif kind == "deleted":
            e = {"status": "deleted", "oid": None, "phase": None, "agent": None}
        files[name] = e
    return files, refuse


def on_disk(p, rec):
    """Whether the working tree holds p exactly as rec records it, by plain git."""
    mode = rec.get("mode") or "100644"
    data = run("git", "cat-file", "blob", rec["oid"], text=False).stdout
    if mode == "120000":
        return os.path.islink(p) and os.readlink(p.encode()) == data
    if os.path.islink(p) or not os.path.isfile(p):
        return False
    with open(p, "rb") as fh:
        same = fh.read() == data
    return same and bool(os.lstat(p).st_mode & stat.S_IXUSR) == (mode == "100755")


def hostile_restore():
    files, refuse = hostile_manifest()
    c = forge(files)
    before, tip = snapshot(True), git("rev-parse", "SESSION_HEAD")
    dry = run("git", "session", "restore", "--dry-run", "--force", c, ok=(0, 1))
    r = run("git", "session", "restore", "-q", "--force", c, ok=(0, 1))
    if dry.returncode != r.returncode:
        sys.exit("dry-run exit %d, restore exit %d for %s\n%s%s" % (dry.returncode, r.returncode, json.dumps(files),
                                                                   dry.stderr, r.stderr))
    if r.returncode:
        if snapshot(True) != before or git("rev-parse", "SESSION_HEAD") != tip:
            sys.exit("a refused restore changed something: %s\n%s" % (json.dumps(files), r.stderr))
        outcomes["refused"] += 1
        return 0
    outcomes["written"] += 1
    if refuse:
        sys.exit("restore of a manifest it must refuse succeeded: %s" % json.dumps(files))
    for p, rec in files.items():
        if rec["status"] == "deleted":
            if os.path.lexists(p):
                sys.exit("%s: recorded deleted, still there" % p)
        elif not on_disk(p, rec):
            sys.exit("%s: not the bytes or mode of blob %s" % (p, rec["oid"]))
    run("rm", "-rf", "hp")
    return 2



checkpoints = 1
outcomes = {"refused": 0, "written": 0}
for step in range(steps):
    what = rnd.choice(["edit", "edit", "edit", "delete", "record", "record", "commit", "restore", "restore",
                       "hostile"])
    if what == "hostile":
        checkpoints += hostile_restore()
        continue
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
print("ok %d steps, %d checkpoints; hostile restores: %d refused, %d written" % (
    steps, checkpoints, outcomes["refused"], outcomes["written"]))
