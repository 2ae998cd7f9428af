#!/usr/bin/env python3
"""real_cycle.py <case folder>: a session file (or folder) as its users wrote
it, through the cycle every imported file must pass, in repositories under
./real/ (made on first use; sessions of several cases side by side, a case
whose id another already holds in a repository of its own):

 1. import as a user would (the file; for CCW and maestro-flow the
    .workflow/ folder); a case named x* must be refused: an `error:` line,
    a non-zero exit, no session ref written. The session answers to the id
    its file gives.
 2. the phases the source has are the session's: count, order, statuses,
    ids or keys, names where the source names them, never an empty name
    in `status`; every phase of an archived file done: a completed session.
 3. an export in the same format right away equals the source as data
    (same_data.py, as t0071 runs it; a Copilot file below 3.0 as
    apex-recall migrates it).
 4. unarchive, resume or `reopen` where the session is archived, paused or
    finished; `switch`, `note`, `phase add`, export again: all of the
    source is still there (same_data.py --subset), the note and the new
    phase aside; no field only git-session keeps (`seen`); for Copilot the
    new phase named in a warning, not written as a step.
 5. upstream's reader on our exports wherever it reads the source
    (Maestro 1.6.4's handlers, bmit-2026's validator, maestro-flow's
    schemas), from $GS_UPSTREAM_DIR; skipped, saying so, where absent.

The expectation is read from the source file itself, per format. Every
failing step is printed, the first one first ("step N (what): message");
the exit code is 1 when any step failed. The case folder is only read."""
import contextlib
import io
import json
import os
import re
import runpy
import shutil
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
UP = os.environ.get("GS_UPSTREAM_DIR") or os.path.join(HERE, "..", "..", "..", "shared", "upstream")
WORK = os.path.abspath("real")
NOTE = "real-cycle note 7f3c: the import was checked"
PHASE = "Extra"
FORMATS = {"maestro": "maestro", "ccw": "ccw", "copilot": "copilot", "claude": "claude",
           "bmad": "bmad", "maestroflow": "maestro-flow"}
# a session id the project accepts verbatim (ref-name safe); others may be slugged
PLAIN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class Steps:
    """The failures of a case, in the order found."""

    def __init__(self):
        self.failed = []
        self.notes = []

    def fail(self, step, msg):
        self.failed.append("step %s: %s" % (step, msg.rstrip()))

    def note(self, msg):
        self.notes.append(msg)


def run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, errors="replace")
    return p.returncode, p.stdout, p.stderr


def gs(repo, *args):
    return run(["git", "session"] + list(args), repo)


def first_lines(text, n=6):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    more = " (+%d lines)" % (len(lines) - n) if len(lines) > n else ""
    return " | ".join(lines[:n]) + more


# ---- the documents ---------------------------------------------------------

def same(kind, a, b, subset=False, excepts=()):
    """same_data.py on two files, in this process; its report, "" when equal."""
    argv = ["same_data.py"] + (["--subset"] if subset else [])
    for e in excepts:
        argv += ["--except", e]
    argv += [kind, a, b]
    saved, out = sys.argv, io.StringIO()
    sys.argv = argv
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(os.path.join(HERE, "same_data.py"), run_name="__main__")
    except SystemExit as e:
        code = e.code
    except Exception as e:  # an export that does not parse
        return "cannot read %s as %s: %s" % (os.path.basename(b), kind, e)
    finally:
        sys.argv = saved
    return out.getvalue() if code else ""


# a document as same_data.py reads it (md: front matter and body)
load = runpy.run_path(os.path.join(HERE, "same_data.py"))["load"]


def marked(x):
    s = json.dumps(x, ensure_ascii=False, default=str)
    return NOTE in s or ('"%s' % PHASE) in s


def prune(src, exp):
    """exp without what the note and the added phase put into it: list
    entries that hold them, and text that grew by them; the rest as is."""
    if isinstance(src, dict) and isinstance(exp, dict):
        return {k: prune(src[k], v) if k in src else v for k, v in exp.items()}
    if isinstance(src, list) and isinstance(exp, list):
        if len(exp) > len(src):
            kept = [x for x in exp if not marked(x)]
            if len(kept) == len(src):
                exp = kept
        if len(exp) == len(src):
            return [prune(a, b) for a, b in zip(src, exp)]
        return exp
    if isinstance(src, str) and isinstance(exp, str) and exp != src and src in exp:
        added = exp.replace(src, "", 1)
        if NOTE in added or PHASE in added:
            return src
    return exp


INTERNAL = ("seen",)


def internal_paths(doc, at="$"):
    """Where doc holds a field only git-session keeps (the staleness time)."""
    if isinstance(doc, dict):
        return [("%s.%s" % (at, k)) for k in doc if k in INTERNAL] + \
            [p for k, v in doc.items() for p in internal_paths(v, "%s.%s" % (at, k))]
    if isinstance(doc, list):
        return [p for i, v in enumerate(doc) for p in internal_paths(v, "%s[%d]" % (at, i))]
    return []


def write_like(kind, doc, path):
    """doc written back in the source's syntax, for same_data.py."""
    with open(path, "w", encoding="utf-8") as f:
        if kind == "json":
            json.dump(doc, f, ensure_ascii=False, indent=2, default=str)
        elif kind == "jsonl":
            f.writelines(json.dumps(x, ensure_ascii=False) + "\n" for x in doc)
        elif kind == "yaml":
            yaml.safe_dump(doc, f, allow_unicode=True, sort_keys=False)
        else:
            f.write("---\n" + json.dumps(doc["front_matter"], ensure_ascii=False, indent=2, default=str)
                    + "\n---\n" + doc["body"])


# ---- what each format's source says -----------------------------------------

def unquote(v):
    # Maestro files written with JSON escapes inside YAML: \"x\" means x
    if isinstance(v, str) and v.startswith('\\"') and v.endswith('\\"') and len(v) >= 4:
        return v[2:-2]
    return v


STATUS = {"complete": "completed", "completed": "completed", "done": "completed",
          "sealed": "completed", "in_progress": "in_progress", "running": "in_progress",
          "active": "in_progress", "pending": "pending", "failed": "failed",
          "skipped": "skipped"}


def phase(ident, name, status, key=None):
    status = unquote(status)
    return {"id": ident, "key": key, "name": unquote(name),
            "status": STATUS.get(status, status)}


def files_under(case, name):
    """The case's files called name, or ending in it when it starts with a dot."""
    return sorted(os.path.join(r, f) for r, _, fs in os.walk(case) for f in fs
                  if f == name or (name.startswith(".") and f.endswith(name)))


def expect_maestro(case):
    path = files_under(case, ".md")[0]
    sessions = []
    try:
        fm = load("md", path)["front_matter"]
    except Exception:  # no front matter, or none YAML reads: an x case
        fm = None
    if isinstance(fm, dict):
        sessions.append({
            "id": unquote(str(fm.get("session_id"))), "doc": path, "kind": "md",
            "phases": [phase(p.get("id"), p.get("name"), p.get("status"))
                       for p in fm.get("phases") or [] if isinstance(p, dict)]})
    return {"import": path, "sessions": sessions}


def copilot_expected(path):
    """The document an export should equal: the source, or for a 1.0/2.0 file
    the source as apex-recall migrates it to 3.0 (its own code, when there),
    a step "3.5" standing for the template's "3_5" (README: no second
    governance step beside it)."""
    doc = load("json", path)
    try:
        version = float(str(doc.get("schema_version", "1.0")))
    except ValueError:
        version = 1.0
    if version >= 3.0:
        return None, None
    src = os.path.join(UP, "apex", "tools", "apex-recall", "src")
    if not os.path.isdir(src):
        return None, "apex-recall is not in %s: a %s file is compared as a subset" % (UP, version)
    sys.path.insert(0, src)
    sys.dont_write_bytecode = True  # nothing written into upstream's folder
    from apex_recall.state_writer import migrate_to_v3
    had = set(doc.get("steps") or {})
    doc = migrate_to_v3(doc)
    if "3.5" in had and "3_5" not in had:
        del doc["steps"]["3_5"]
    return doc, None


def step_order(key):
    """Where a step stands: by its number (3_5 and 3.5 between 3 and 4), the
    keys that are no number after, as they come (sorted() is stable)."""
    try:
        return float(key.replace("_", "."))
    except ValueError:
        return float("inf")


# apex's template steps, which its migration adds where a file lacks them
TEMPLATE_STEPS = {"1": "Requirements", "2": "Architecture", "3": "Design", "3_5": "Governance",
                  "4": "IaC Plan", "5": "IaC Code", "6": "Deploy", "7": "As-Built"}


def expect_copilot(case):
    path = files_under(case, "00-session-state.json")[0]
    doc, why = copilot_expected(path)
    steps = dict((doc or load("json", path)).get("steps") or {})
    if why:  # no apex-recall here: its migration's steps, from its template
        for k, name in TEMPLATE_STEPS.items():
            if k not in steps and not (k == "3_5" and "3.5" in steps):
                steps[k] = {"name": name, "status": "pending"}
    phases = []
    for k, v in sorted(steps.items(), key=lambda kv: step_order(kv[0])):
        v = v if isinstance(v, dict) else {}
        if re.fullmatch(r"[1-9][0-9]*", k):
            phases.append(phase(int(k), v.get("name"), v.get("status")))
        else:
            phases.append(phase(None, v.get("name"), v.get("status"), key=k))
    return {"import": path, "sessions": [{
        "id": load("json", path).get("project"), "doc": path, "kind": "json",
        "expected": doc, "why": why, "phases": phases, "subset_only": why is not None}]}


def expect_claude(case):
    path = files_under(case, ".json")[0]
    doc = load("json", path)
    phases = [phase(p.get("id"), p.get("name"), p.get("status"))
              for p in doc.get("phases") or [] if isinstance(p, dict)]
    return {"import": path, "sessions": [{"id": doc.get("session_id"), "doc": path,
                                          "kind": "json", "phases": phases}]}


def expect_bmad(case):
    path = files_under(case, ".yaml")[0]
    doc = load("yaml", path)
    return {"import": path, "sessions": [{"id": doc.get("session_id"), "doc": path,
                                          "kind": "yaml", "phases": []}]}


def ccw_phases(doc):
    ph = doc.get("phases")
    if ph is None:  # CCW 2.0 names its phases checkpoints
        ph = doc.get("checkpoints")
    if isinstance(ph, dict):
        return [phase(None, k, v.get("status") if isinstance(v, dict) else v)
                for k, v in ph.items()]
    if isinstance(ph, list):
        return [phase(p.get("id"), p.get("name"), p.get("status"))
                for p in ph if isinstance(p, dict)]
    return []


def expect_ccw(case):
    wf = os.path.join(case, ".workflow")
    sessions = []
    for path in files_under(case, "workflow-session.json"):
        try:
            doc = load("json", path)
        except ValueError:
            continue
        sessions.append({"id": doc.get("session_id"), "doc": path, "kind": "json",
                         "phases": ccw_phases(doc)})
    reg = os.path.join(wf, "session_status.jsonl")
    registry = load("jsonl", reg) if os.path.exists(reg) else []
    known = {s["id"] for s in sessions}
    for line in registry:
        if line.get("id") not in known:
            sessions.append({"id": line.get("id"), "doc": None, "kind": None, "phases": []})
    return {"import": wf, "sessions": sessions, "registry": reg if registry else None}


def expect_maestro_flow(case):
    sessions = []
    for path in files_under(case, "session.json"):
        doc = load("json", path)
        chain = doc.get("chain")
        if chain is None:
            chain = (doc.get("orchestration") or {}).get("chain") or []
        sessions.append({
            "id": doc.get("session_id"), "doc": path, "kind": "json",
            "folder": os.path.dirname(path),
            "phases": [phase(None, None, s.get("status"), key=s.get("step_id"))
                       for s in chain if isinstance(s, dict)]})
    return {"import": os.path.join(case, ".workflow"), "sessions": sessions}


EXPECT = {"maestro": expect_maestro, "copilot": expect_copilot, "claude": expect_claude,
          "bmad": expect_bmad, "ccw": expect_ccw, "maestro-flow": expect_maestro_flow}

# the value that says when a file was last written, per format: a note moves it
UPDATED = {"maestro": ["$.front_matter.updated", "$.front_matter.total_phases"],
           "copilot": ["$.updated"], "claude": ["$.updated"], "bmad": ["$.last_updated"],
           "ccw": ["$.updated_at"],
           "maestro-flow": ["$.updated_at", "$.activity_revision", "$.orchestration_revision"]}
# what `reopen` changes, besides
REOPENED = {"maestro": ["$.front_matter.status"], "copilot": [], "claude": ["$.status"],
            "bmad": ["$.status"], "ccw": ["$.status"],
            "maestro-flow": ["$.status", "$.completed_at", "$.archived_at", "$.lifecycle.sealed_at"]}


# ---- the repositories ------------------------------------------------------

def ledger():
    path = os.path.join(WORK, "ledger.json")
    return json.load(open(path)) if os.path.exists(path) else {"repos": {}}


def save_ledger(led):
    with open(os.path.join(WORK, "ledger.json"), "w") as f:
        json.dump(led, f)


def pick_repo(led, ids):
    """The first repository where none of the case's ids is a session yet:
    cases of the same run (the same id) go to different ones."""
    low = {str(i).lower() for i in ids}
    for name in sorted(led["repos"]):
        if not low & {i.lower() for i in led["repos"][name]}:
            return name
    name = "repo%d" % (len(led["repos"]) + 1)
    path = os.path.join(WORK, name)
    subprocess.run(["git", "init", "-q", "-b", "main", path], check=True)
    subprocess.run(["git", "-C", path, "commit", "-q", "--allow-empty", "-m", "init"], check=True)
    led["repos"][name] = []
    return name


def refs(repo):
    """The sessions, live and archived: id -> "live" or "archived"."""
    _, out, _ = run(["git", "for-each-ref", "--format=%(refname)", "refs/sessions/",
                     "refs/archive/sessions/"], repo)
    return {l.split("sessions/", 1)[1]: "archived" if l.startswith("refs/archive/") else "live"
            for l in out.split()}


def has_reopen(repo):
    rc, out, err = gs(repo, "reopen", "-h")
    return "not a git session command" not in err + out


# ---- the cycle -------------------------------------------------------------

def step1_import(st, repo, fmt, exp, refused):
    before = refs(repo)
    rc, out, err = gs(repo, "import", exp["import"])
    after = refs(repo)
    made = set(after) - set(before)
    if refused:
        if rc == 0 or not re.search(r"^error: ", err, re.M) or made:
            st.fail("1 (import refused)", "exit %d, stderr %r, sessions written %s" %
                    (rc, first_lines(err), sorted(made)))
        return None
    if rc != 0:
        st.fail("1 (import)", "exit %d: %s" % (rc, first_lines(err)))
        return None
    if not made:
        st.fail("1 (import)", "exit 0 and no session written (stdout %r, stderr %r)" % (
            first_lines(out, 3), first_lines(err, 3)))
        return None
    ids = {}
    all_refs = set(after)
    for s in exp["sessions"]:
        want = str(s["id"])
        if want in all_refs:
            ids[want] = want
            continue
        near = [r for r in all_refs if r.lower() == want.lower()]
        if near and PLAIN_ID.match(want):
            st.fail("1 (id)", "session %r answers only as %r" % (want, near[0]))
            ids[want] = near[0]
        elif PLAIN_ID.match(want) or len(made) != 1:
            st.fail("1 (id)", "no session %r; the import made %s" % (want, sorted(made)))
        else:
            ids[want] = next(iter(made))
            st.note("id %r is no plain id: the session is %r" % (want, ids[want]))
    return ids, after


def show(repo, sid):
    rc, out, err = gs(repo, "show", "--json", sid)
    if rc != 0:
        return None, first_lines(err)
    return json.loads(out), None


def step2_phases(st, repo, s, sid):
    d, err = show(repo, sid)
    if d is None:
        st.fail("2 (phases)", "show %s: %s" % (sid, err))
        return None
    got = d.get("phases") or []
    want = s["phases"]
    if len(got) != len(want):
        st.fail("2 (phases)", "%s: %d phases, the source has %d: %s" % (
            sid, len(got), len(want), [(p.get("id"), p.get("key"), p.get("name"), p.get("status")) for p in got]))
        return d
    found = {}
    for i, (g, w) in enumerate(zip(got, want)):
        bad = []
        if g.get("status") != w["status"]:
            bad.append("status %r, not %r" % (g.get("status"), w["status"]))
        if w["id"] is not None and g.get("id") != w["id"] and str(g.get("key")) != str(w["id"]):
            bad.append("id %r (key %r), not %r" % (g.get("id"), g.get("key"), w["id"]))
        if w["key"] is not None and not carries(g, w["key"]):
            bad.append("key %r (id %r), not %r" % (g.get("key"), g.get("id"), w["key"]))
        if w["name"] and unquote(g.get("name")) != w["name"]:
            bad.append("name %r, not %r" % (g.get("name"), w["name"]))
        if bad:
            found.setdefault("; ".join(bad), []).append("#%d" % (i + 1))
    for msg, where in found.items():
        st.fail("2 (phases)", "%s phase %s: %s" % (sid, ",".join(where), msg))
    if any(w["name"] is None for w in want):
        unnamed_shown(st, repo, sid)
    if archived_source(s) and want and all(w["status"] == "completed" for w in want) \
            and d.get("status") != "completed":
        st.fail("2 (status)", "%s: every phase completed in an archive, yet %r" % (sid, d.get("status")))
    return d


def archived_source(s):
    """The file lies where its tool puts finished sessions."""
    if not s["doc"]:
        return False
    parts = os.path.relpath(s["doc"], s["case"]).split(os.sep)
    return bool({"archive", "archives", "orchestrator-history"} & set(parts))


def carries(g, key):
    """The phase keeps its source's key: as its key, its number (3_5 is
    3.5), or a field of its own (maestro-flow's step_id)."""
    return g.get("key") == key or str(g.get("id")) == key.replace("_", ".") or \
        key in (v for v in g.values() if isinstance(v, str))


def unnamed_shown(st, repo, sid):
    """A phase its file does not name is still shown as something: never as
    an empty name ("") in `git session status`."""
    rc, out, err = gs(repo, "status", sid)
    blank = [l.strip() for l in out.splitlines() if '""' in l]
    if rc != 0 or blank:
        st.fail("2 (phases)", "%s: status shows unnamed phases blank: %s" % (
            sid, first_lines(err) if rc else " | ".join(blank[:4])))


def export(repo, fmt, sid, out, extra=(), warnings=None):
    """Why the export failed, or None; its warnings appended to warnings."""
    if fmt == "maestro-flow":
        shutil.rmtree(out, ignore_errors=True)
    rc, so, err = gs(repo, "export", "--format", fmt, "-o", out, *extra, *([sid] if sid else []))
    if warnings is not None:
        warnings += [l for l in err.splitlines() if l.startswith("warning: ")]
    return None if rc == 0 else "export exit %d: %s" % (rc, first_lines(err))


def no_place(st, s, out, warnings):
    """Copilot has a step for each of its own keys only: a phase added is
    named in a warning, not written as a step of its own."""
    source = s.get("expected") or load("json", s["doc"])
    steps = load("json", out).get("steps") or {}
    added = sorted(k for k, v in steps.items()
                   if k not in (source.get("steps") or {}) and isinstance(v, dict) and v.get("name") == PHASE)
    if added:
        st.fail("4 (export)", "%s: the added phase is written as step %s" % (s["id"], ", ".join(added)))
    if not any(PHASE in w for w in warnings):
        st.fail("4 (export)", "%s: no warning names the added phase %r: %s" % (
            s["id"], PHASE, " | ".join(warnings) or "no warning"))


def compare_doc(s, fmt, got, subset, excepts, scratch):
    """The export `got` against the source of session s; a report or ""."""
    kind, src = s["kind"], s["doc"]
    if s.get("expected") is not None:
        src = os.path.join(scratch, "expected.json")
        write_like("json", s["expected"], src)
    elif s.get("subset_only"):
        subset, excepts = True, list(excepts) + ["$.schema_version"]
    if subset:
        try:
            source, mine = load(kind, src), load(kind, got)
        except Exception as e:
            return "cannot read the export: %s" % e
        leaked = sorted(set(internal_paths(mine)) - set(internal_paths(source)))
        if leaked:
            leaked = "internal field written: %s\n" % " ".join(leaked)
        pruned = prune(source, mine)
        got2 = got + ".pruned"
        write_like(kind, pruned, got2)
        got = got2
        return (leaked or "") + same(kind, src, got, subset=subset, excepts=excepts)
    return same(kind, src, got, subset=subset, excepts=excepts)


def flow_files(s):
    return sorted(os.path.relpath(os.path.join(r, f), s["folder"])
                  for r, _, fs in os.walk(s["folder"]) for f in fs if f.endswith(".json"))


def compare(st, step, s, fmt, out, subset, excepts, scratch):
    if fmt == "maestro-flow":
        reports = []
        for rel in flow_files(s):
            got = os.path.join(out, str(s["id"]), rel)
            if not os.path.exists(got):
                reports.append("%s: not written" % rel)
                continue
            one = dict(s, doc=os.path.join(s["folder"], rel))
            r = compare_doc(one, fmt, got, subset, excepts if rel == "session.json" else (), scratch)
            if r:
                reports.append("%s: %s" % (rel, first_lines(r, 4)))
        report = "\n".join(reports)
    else:
        report = compare_doc(s, fmt, out, subset, excepts, scratch)
    if report:
        st.fail(step, "%s: %s" % (s["id"], first_lines(report, 8)))
        return False
    return True


def registry_compare(st, step, repo, reg, scratch, worked=None):
    """The registry export's lines of the source's sessions against the
    source's registry; the status of the session worked on aside."""
    out = os.path.join(scratch, step[0] + "-registry.jsonl")
    err = export(repo, "ccw", None, out, ["--registry"])
    if err:
        st.fail(step, "registry: " + err)
        return
    src = load("jsonl", reg)
    by_id = {x.get("id"): x for x in load("jsonl", out)}
    mine = os.path.join(scratch, step[0] + "-registry.mine.jsonl")
    write_like("jsonl", [by_id.get(x.get("id"), {"missing": x.get("id")}) for x in src], mine)
    excepts = ["$[%d].status" % i for i, x in enumerate(src) if worked and x.get("id") == worked]
    report = same("jsonl", reg, mine, subset=step[0] == "4", excepts=excepts)
    if report:
        st.fail(step, "registry: " + first_lines(report, 6))


def step4_work(st, repo, fmt, s, sid, d, where, reopen_ok):
    """Work on the session as a user would: unarchive, resume or reopen it
    first where it is archived, paused or finished. The places of the
    source the export may change: None when the work was refused."""
    status = (d or {}).get("status")
    excepts = list(UPDATED[fmt])
    if where == "archived":
        rc, _, err = gs(repo, "unarchive", sid)
        if rc != 0:
            st.fail("4 (unarchive)", "unarchive %s: %s" % (sid, first_lines(err)))
            return None
        st.note("%s was imported archived: unarchived" % sid)
    if status == "paused":
        rc, _, err = gs(repo, "resume", "-q", sid)
        if rc != 0:
            st.fail("4 (resume)", "resume %s: %s" % (sid, first_lines(err)))
            return None
        excepts += REOPENED[fmt]
        st.note("%s was imported paused: resumed" % sid)
    if status in ("completed", "aborted"):
        if not reopen_ok:
            st.fail("4 (reopen)", "%s is %s and this git-session has no `reopen`" % (sid, status))
            return None
        rc, _, err = gs(repo, "reopen", sid)
        if rc != 0:
            st.fail("4 (reopen)", "reopen %s: %s" % (sid, first_lines(err)))
            return None
        excepts += REOPENED[fmt]
    for args in (["switch", sid], ["note", NOTE], ["phase", "add", PHASE]):
        rc, _, err = gs(repo, *args)
        if rc != 0:
            st.fail("4 (work)", "%s: exit %d: %s" % (" ".join(args[:2]), rc, first_lines(err)))
            return None
    return excepts


# ---- upstream's readers ----------------------------------------------------

def node_ok():
    return shutil.which("node") is not None


def upstream_maestro(st, scratch, docs):
    """Maestro 1.6.4's handlers (tests/upstream/maestro-check.js) on the
    source and on each export, each as docs/maestro/state/active-session.md
    of a project of its own."""
    mo = os.path.join(UP, "maestro-orchestrate")
    if not (node_ok() and os.path.isdir(os.path.join(mo, "src", "mcp", "handlers"))):
        st.note("upstream: Maestro's handlers are not in %s: skipped" % UP)
        return
    roots = []
    for name, doc in docs:
        root = os.path.join(scratch, "up-" + name)
        os.makedirs(os.path.join(root, "docs", "maestro", "state"), exist_ok=True)
        shutil.copyfile(doc, os.path.join(root, "docs", "maestro", "state", "active-session.md"))
        roots.append(root)
    rc, out, err = run(["node", os.path.join(HERE, "..", "upstream", "maestro-check.js"), mo] + roots, scratch)
    try:
        res = json.loads(out)
    except ValueError:
        st.fail("5 (maestro)", "maestro-check.js: exit %d: %s" % (rc, first_lines(err)))
        return
    src = res[0]
    if "error" in src:
        st.note("upstream: Maestro's handlers refuse the source (%s): not run on the export" % src["error"])
        return
    for (name, _), r in zip(docs[1:], res[1:]):
        if "error" in r:
            st.fail("5 (maestro)", "Maestro's handlers refuse the %s export: %s" % (name, r["error"]))
        elif name == "fresh" and r["before"] != src["before"]:
            st.fail("5 (maestro)", "Maestro reads the fresh export otherwise: %s" % first_lines(
                "\n".join("%s: %r != %r" % (k, src["before"].get(k), r["before"].get(k))
                          for k in sorted(set(src["before"]) | set(r["before"]))
                          if src["before"].get(k) != r["before"].get(k)), 4))
        else:
            st.note("upstream: Maestro's handlers read, update and transition the %s export" % name)


def upstream_bmit(st, scratch, docs):
    """bmit-2026's validator on the source and on each export: the export may
    have no error the source has not."""
    bm = os.path.join(UP, "bmit-2026")
    script = os.path.join(bm, "scripts", "validate-session-state.mjs")
    if not (node_ok() and os.path.isfile(script)):
        st.note("upstream: bmit-2026's validator is not in %s: skipped" % UP)
        return
    v = os.path.join(scratch, "bmit")
    shutil.rmtree(v, ignore_errors=True)
    tdir = os.path.join(v, ".github", "skills", "azure-artifacts", "templates")
    os.makedirs(tdir)
    shutil.copy(os.path.join(bm, "templates", "00-session-state.template.json"), tdir)
    for name, doc in docs:
        os.makedirs(os.path.join(v, "agent-output", name))
        shutil.copyfile(doc, os.path.join(v, "agent-output", name, "00-session-state.json"))
    _, out, err = run(["node", script], v)
    errors = {}
    for line in (out + err).splitlines():
        m = re.match(r"\s*❌ agent-output/([^/]+)/00-session-state.json: (.*)", line)
        if m:
            errors.setdefault(m.group(1), set()).add(m.group(2))
    src = errors.get("source", set())
    for name, _ in docs[1:]:
        new = errors.get(name, set()) - src
        if new:
            st.fail("5 (bmit)", "the validator refuses the %s export: %s" % (name, "; ".join(sorted(new))))
        else:
            st.note("upstream: bmit-2026's validator finds no error in the %s export%s" % (
                name, " the source has not" if src else ""))


def upstream_maestro_flow(st, scratch, dirs):
    """maestro-flow's own schemas (tests/upstream/maestro-flow-check.mjs, zod
    from tests/mcp/node_modules) on the source folder and each export's: an
    export may have no error the source has not."""
    check = os.path.join(HERE, "..", "upstream", "maestro-flow-check.mjs")
    mf = os.path.join(UP, "maestro-flow")
    zod = os.path.join(HERE, "..", "mcp", "node_modules", "zod")
    if not (node_ok() and os.path.isfile(check) and os.path.isfile(os.path.join(mf, "src", "run", "schemas.ts"))
            and os.path.isdir(zod)):
        st.note("upstream: no maestro-flow reader (%s, %s, zod): skipped" % (os.path.basename(check), mf))
        return
    rc, out, err = run(["node", check, mf, zod] + [d for _, d in dirs], scratch)
    try:
        res = {r["folder"]: set(r["errors"]) for r in map(json.loads, out.splitlines())}
    except (ValueError, KeyError, TypeError):
        st.fail("5 (maestro-flow)", "maestro-flow-check.mjs: exit %d: %s" % (rc, first_lines(err)))
        return
    src = res.get(dirs[0][1], set())
    for name, d in dirs[1:]:
        new = res.get(d, {"not read"}) - src
        if new:
            st.fail("5 (maestro-flow)", "maestro-flow refuses the %s export: %s" % (name, "; ".join(sorted(new))))
        else:
            st.note("upstream: maestro-flow's schemas find no error in the %s export%s" % (
                name, " the source has not" if src else ""))


# ---- one case ----------------------------------------------------------------

class Case:
    """One case folder: its format, what its files say, its repository."""

    def __init__(self, case, st):
        self.path, self.st = os.path.abspath(case), st
        self.name = os.path.basename(self.path)
        self.fmt = FORMATS.get(os.path.basename(os.path.dirname(self.path)))
        collection = os.path.basename(os.path.dirname(os.path.dirname(self.path)))
        self.scratch = os.path.join(WORK, "cases", collection + "-" + self.name)

    def out(self, what, sid):
        # maestro-flow writes a folder per session, the others one file
        return os.path.join(self.scratch, "%s-%s%s" % (
            what, re.sub(r"[^\w.-]", "_", sid), "" if self.fmt == "maestro-flow" else ".out"))

    def setup(self):
        shutil.rmtree(self.scratch, ignore_errors=True)
        os.makedirs(self.scratch)
        self.exp = EXPECT[self.fmt](self.path)
        for s in self.exp["sessions"]:
            s["case"] = self.path
            if s.get("why"):
                self.st.note(s["why"])
        self.with_doc = [s for s in self.exp["sessions"] if s["doc"]]
        # the session worked on: the first with a file of its own, else the registry's first
        self.main = (self.with_doc or self.exp["sessions"] or [None])[0]
        self.led = ledger()
        rname = pick_repo(self.led, [s["id"] for s in self.exp["sessions"]])
        self.repo = os.path.join(WORK, rname)
        if "reopen" not in self.led:
            self.led["reopen"] = has_reopen(self.repo)
        return rname

    def step3(self):
        self.fresh = {}
        for s in self.with_doc:
            sid = self.ids.get(str(s["id"]))
            if not sid:
                continue
            out = self.out("fresh", sid)
            err = export(self.repo, self.fmt, sid, out)
            if err and self.where.get(sid) == "archived":
                # refused as archived: say so, and compare what unarchiving lets out
                self.st.fail("3 (export)", "%s: %s" % (sid, err))
                if gs(self.repo, "unarchive", sid)[0] == 0:
                    self.where[sid] = "live"
                    self.st.note("%s was imported archived: unarchived to export it" % sid)
                    err = export(self.repo, self.fmt, sid, out)
            if err:
                self.st.fail("3 (export)", "%s: %s" % (sid, err))
            else:
                compare(self.st, "3 (export)", s, self.fmt, out, False, (), self.scratch)
                self.fresh[s["id"]] = out
        if self.exp.get("registry"):
            registry_compare(self.st, "3 (export)", self.repo, self.exp["registry"], self.scratch)

    def step4(self):
        self.worked = None
        main = self.main
        if main is None or str(main["id"]) not in self.ids:
            return
        sid = self.ids[str(main["id"])]
        excepts = step4_work(self.st, self.repo, self.fmt, main, sid, self.states.get(main["id"]),
                             self.where.get(sid), self.led["reopen"])
        if excepts is None:
            return
        if main["doc"]:
            out, warnings = self.out("worked", sid), []
            err = export(self.repo, self.fmt, sid, out, warnings=warnings)
            if err:
                self.st.fail("4 (export)", "%s: %s" % (sid, err))
            else:
                compare(self.st, "4 (export)", main, self.fmt, out, True, excepts, self.scratch)
                if self.fmt == "copilot":
                    no_place(self.st, main, out, warnings)
                self.worked = out
        if self.exp.get("registry"):
            registry_compare(self.st, "4 (export)", self.repo, self.exp["registry"], self.scratch,
                             str(main["id"]))

    def step5(self):
        main = self.main
        if main is None or not main["doc"] or main["id"] not in self.fresh:
            return
        docs = [("source", main["doc"]), ("fresh", self.fresh[main["id"]])]
        docs += [("worked", self.worked)] if self.worked else []
        if self.fmt == "maestro":
            upstream_maestro(self.st, self.scratch, docs)
        elif self.fmt == "copilot":
            upstream_bmit(self.st, self.scratch, docs)
        elif self.fmt == "maestro-flow":
            dirs = [("source", main["folder"])]
            dirs += [(n, os.path.join(d, str(main["id"]))) for n, d in docs[1:]]
            upstream_maestro_flow(self.st, self.scratch, dirs)

    def run(self):
        if self.fmt is None:
            self.st.fail("0 (format)", "%s: no format is known for its folder" % self.path)
            return
        rname = self.setup()
        got = step1_import(self.st, self.repo, self.fmt, self.exp, self.name.startswith("x"))
        self.led["repos"][rname] = sorted(refs(self.repo))
        save_ledger(self.led)
        if got is None:
            return
        self.ids, self.where = got
        self.states = {s["id"]: step2_phases(self.st, self.repo, s, self.ids[str(s["id"])])
                       for s in self.exp["sessions"] if str(s["id"]) in self.ids}
        self.step3()
        self.step4()
        self.step5()


def run_case(case):
    st = Steps()
    os.makedirs(WORK, exist_ok=True)
    Case(case, st).run()
    return st


def main():
    st = run_case(sys.argv[1])
    for n in st.notes:
        print("note: " + n)
    for f in st.failed:
        print(f)
    sys.exit(1 if st.failed else 0)


if __name__ == "__main__":
    main()
