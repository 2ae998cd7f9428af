#!/bin/sh
test_description='a team of three on a bare remote: agents record through their hooks, people commit, push, pull, resume, restore and blame, one session edited offline on both sides; nothing lost, nothing twice, every clone the same'
. ./lib.sh

# Each person is a clone with its own identity in its own config, and
# its own home where the agent CLIs keep their transcripts.
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
T=$TRASH_DIRECTORY

# on <who> <command>...: run it in who's clone, with who's home
on () { on_who=$1; shift; (cd "$T/$on_who" && HOME="$T/home-$on_who" && export HOME && "$@"); }

# The agents' own session ids and the transcripts their CLIs write.
claude_sid () { case $1 in alice) echo a11ce000-0000-4000-8000-00000000000a ;; *) echo ca401000-0000-4000-8000-00000000000c ;; esac; }
claude_file () { echo "$T/home-$1/.claude/projects/-team-$1/$(claude_sid $1).jsonl"; }
gemini_sid () { echo "b0b${2}0000-0000-4000-8000-000000000001"; }
gemini_file () { echo "$T/home-$1/.gemini/tmp/7e4a/chats/session-$(gemini_sid $1 $2).jsonl"; }
claude_agent () { echo "claude-$(claude_sid $1 | cut -c1-8)"; }
gemini_agent () { echo "gemini-$(gemini_sid $1 $2 | cut -c1-8)"; }

# claude <who> <event> [<more payload fields>]: who's Claude Code runs its hook
claude () {
	cl_who=$1 cl_event=$2; shift 2
	test_tick &&
	printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","hook_event_name":"%s"%s}' \
		"$(claude_sid $cl_who)" "$(claude_file $cl_who)" "$T/$cl_who" "$cl_event" "$*" |
		on $cl_who git-session hook claude-code $cl_event >"$T/hook.out" 2>"$T/hook.err" &&
	hook_stdout_ok $cl_event "$T/hook.out" && test_must_be_empty "$T/hook.err"
}
# gemini <who> <n> <event> [<more payload fields>]: who's n-th Gemini CLI chat runs its hook
gemini () {
	gm_who=$1 gm_n=$2 gm_event=$3; shift 3
	test_tick &&
	printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","hook_event_name":"%s","timestamp":"%s"%s}' \
		"$(gemini_sid $gm_who $gm_n)" "$(gemini_file $gm_who $gm_n)" "$T/$gm_who" "$gm_event" \
		"$(date -u -d "${GIT_AUTHOR_DATE% *}" +%Y-%m-%dT%H:%M:%SZ)" "$*" |
		on $gm_who git-session hook gemini-cli $gm_event >"$T/hook.out" 2>"$T/hook.err" &&
	hook_stdout_ok $gm_event "$T/hook.out" && test_must_be_empty "$T/hook.err"
}

# Transcript lines as the CLIs write them (texts without quotes or backslashes).
# cl <who> <line>...: appended to who's Claude Code transcript
cl () { cl_f=$(claude_file $1); shift; mkdir -p "${cl_f%/*}" && printf '%s\n' "$@" >>"$cl_f"; }
cl_user () { echo "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"$1\"}}"; }
# cl_tool <message id> <tool id> <tool> <input json>: the assistant calls a tool
cl_tool () {
	echo "{\"type\":\"assistant\",\"message\":{\"id\":\"$1\",\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"$2\",\"name\":\"$3\",\"input\":$4}],\"usage\":{\"input_tokens\":${5:-100},\"output_tokens\":${6:-10}}}}"
}
cl_result () { echo "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"$1\",\"content\":\"$2\"${3:+,\"is_error\":true}}]}}"; }
cl_reply () {
	echo "{\"type\":\"assistant\",\"message\":{\"id\":\"$1\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"$2\"}],\"usage\":{\"input_tokens\":${3:-100},\"output_tokens\":${4:-10}}}}"
}
# gl <who> <n> <line>...: appended to who's n-th Gemini CLI chat
gl () { gl_f=$(gemini_file $1 $2); shift 2; mkdir -p "${gl_f%/*}" && printf '%s\n' "$@" >>"$gl_f"; }
gl_user () { echo "{\"id\":\"$1\",\"timestamp\":\"2025-11-21T10:00:00Z\",\"type\":\"user\",\"content\":[{\"text\":\"$2\"}]}"; }
# gl_reply <id> <text> <tool or empty> <in> <out>
gl_reply () {
	gl_calls= && test -z "$3" || gl_calls="{\"name\":\"$3\"}"
	echo "{\"id\":\"$1\",\"timestamp\":\"2025-11-21T10:00:01Z\",\"type\":\"gemini\",\"content\":\"$2\",\"toolCalls\":[$gl_calls],\"tokens\":{\"input\":$4,\"output\":$5,\"cached\":0,\"thoughts\":0,\"tool\":0,\"total\":$(($4 + $5))}}"
}

# made <who> <notes | decisions> <text>: what who made in the active
# session, kept in made.<list>.<session> to find once in the end
made () {
	mk_id=$(on $1 git symbolic-ref --short SESSION_HEAD) &&
	printf '%s\n' "$3" >>"$T/made.$2.${mk_id#sessions/}"
}
note () { test_tick && on $1 git session note -q "$2" && made $1 notes "$2"; }
decide () { test_tick && on $1 git session decide -q "$2" --rationale "$3" && made $1 decisions "$2"; }
prompt_claude () { cl $1 "$(cl_user "$2")" && claude $1 UserPromptSubmit ",\"prompt\":\"$2\"" && made $1 notes "$2"; }
prompt_gemini () { gl $1 $2 "$(gl_user "u-${3%% *}" "$3")" && gemini $1 $2 BeforeAgent ",\"prompt\":\"$3\"" && made $1 notes "$3"; }
# commit <who> <message> <file>...: who commits the files
commit () { c_who=$1 c_msg=$2; shift 2; test_tick && on $c_who git add "$@" && on $c_who git commit -q -m "$c_msg"; }

# team.py <command> <clone>...: what the team checks, with plain git, in
# one process for all the clones given (it says every problem it finds):
#   whole <clone> <rev>  the whole state at a checkpoint, as lib.sh's
#       session_json puts it together, but one git process for all the
#       blobs: a manifest in shards under state/files/ has hundreds
#   shared  every session's whole state, as shared.<clone>.<session>.json
#   end  at each tip: each note and decision made (made.*.<session>) once;
#       each operation once: the lists hold one entry an operation of the
#       history (merges replay, and make none of their own), the tokens add
#       up to what the turns' subjects say; every agent's transcript parts
#       1..n, as many as session.json counts
#   resume  with git status clean, resume lists no modified file and no new
#       commit the session recorded already
cat >"$T/team.py" <<'EOF'
import json, os, re, subprocess, sys

def git(clone, *args, stdin=None):
    return subprocess.run(("git", "-C", clone) + args, check=True, capture_output=True,
                          input=stdin, text=stdin is None).stdout

def whole(clone, rev):
    names = [l.split("\t", 1)[1] for l in git(clone, "ls-tree", "-r", rev, "--", "session.json", "state").splitlines()]
    batch = git(clone, "cat-file", "--batch", stdin="".join("%s:%s\n" % (rev, n) for n in names).encode())
    blobs = {}
    for n in names:
        header, batch = batch.split(b"\n", 1)
        size = int(header.split()[2])
        blobs[n], batch = json.loads(batch[:size]), batch[size + 1:]
    state = blobs.pop("session.json")
    for key, value in list(state.items()):
        kept = isinstance(value, dict) and value.get("chunks") == "state/" + key
        if value == "state/" + key or kept:
            parts = [blobs[n] for n in sorted(blobs) if n.startswith("state/%s/" % key)]
            if key == "files":
                state[key] = dict(sorted(kv for p in parts for kv in p.items()))
            else:
                state[key] = [e for p in parts for e in p] + (value["tail"] if kept else [])
    return state

def made(what, session):
    path = "%s/made.%s.%s" % (T, what, session)
    return open(path).read().splitlines() if os.path.exists(path) else []

def end(clone, session, d, check):
    tip = "refs/sessions/" + session
    notes = [n["text"] for n in d["notes"]]
    check(sorted(notes) == sorted(made("notes", session)), "notes: %s" % sorted(notes))
    decisions = [x["decision"] for x in d["decisions"]]
    check(sorted(decisions) == sorted(made("decisions", session)), "decisions: %s" % decisions)
    ids = [a["id"] for a in d["agents"]]
    check(len(ids) == len(set(ids)), "agents twice: %s" % ids)
    commits = [c["id"] for c in d["commits"]]
    check(len(commits) == len(set(commits)), "commits twice: %s" % commits)
    ops, tokens = {}, {}
    log = git(clone, "log", "--no-merges", "--format=%s%x09%(trailers:key=Session-Op,valueonly,separator=)", tip)
    for line in log.splitlines():
        subject, op = line.rsplit("\t", 1)
        ops[op] = ops.get(op, 0) + 1
        m = re.match(r"(?:turn of (\S+):|agent (\S+) done:).*\(\+(\d+) in, \+(\d+) out", subject)
        if m:
            t = tokens.setdefault(m.group(1) or m.group(2), [0, 0])
            t[0] += int(m.group(3))
            t[1] += int(m.group(4))
    for op, n in (("note", len(notes)), ("decide", len(decisions)), ("commit.record", len(commits))):
        check(ops.get(op, 0) == n, "%d %s operations, %d in the state" % (ops.get(op, 0), op, n))
    by_agent = {a: [v["input"], v["output"]] for a, v in d["tokens"]["by_agent"].items()}
    check(by_agent == tokens, "tokens by agent: %s, the turns say %s" % (by_agent, tokens))
    total = [sum(t[0] for t in tokens.values()), sum(t[1] for t in tokens.values())]
    check([d["tokens"]["input"], d["tokens"]["output"]] == total, "tokens %s, the turns say %s" % (d["tokens"], total))
    for a in d["agents"]:
        n = a.get("transcript", {}).get("parts", 0)
        have = git(clone, "ls-tree", "-r", "--name-only", tip, "transcripts/%s/" % a["id"]).split()
        want = ["transcripts/%s/000/%06d" % (a["id"], i) for i in range(1, n + 1)]
        check(have == want, "%s: session.json counts %d parts, the tree holds %s" % (a["id"], n, have))

def resume(clone, session, d, check):
    check(git(clone, "status", "--porcelain") == "", "git status is not clean")
    r = json.loads(git(clone, "session", "resume", session, "--dry-run", "--json"))
    files = [(f["path"], f["kind"]) for f in r["files"] if f["kind"] not in ("clean", "committed")]
    check(not files, "resume: files %s" % files)
    new = [c if isinstance(c, str) else c["id"] for c in r["head"]["commits"]]
    recorded = [c["id"] for c in d["commits"]]
    again = [c[:7] for c in new if any(x.startswith(c) for x in recorded)]
    check(not again, "resume: new commits it recorded already: %s" % again)

def shared(clone, session, d, check):
    json.dump(d, open("shared.%s.%s.json" % (os.path.basename(clone), session), "w"), indent=2)

command, T = sys.argv[1], os.path.dirname(os.path.abspath(sys.argv[0]))
if command == "whole":
    print(json.dumps(whole(sys.argv[2], sys.argv[3]), indent=2))
    sys.exit(0)
problems = []
for clone in sys.argv[2:]:
    for session in git(clone, "for-each-ref", "--format=%(refname:lstrip=2)", "refs/sessions/").split():
        def check(ok, what):
            if not ok:
                problems.append("%s %s: %s" % (os.path.basename(clone), session, what))
        globals()[command](clone, session, whole(clone, "refs/sessions/" + session), check)
print("\n".join(problems))
sys.exit(1 if problems else 0)
EOF
# team <command> <who>...: team.py on those clones
team () { tm_cmd=$1; shift; python3 "$T/team.py" $tm_cmd $(for tm_who in "$@"; do echo "$T/$tm_who"; done); }

# state <who> [<rev>]: the session's whole state in who's clone, in state.<who>
state () { python3 "$T/team.py" whole "$T/$1" "${2:-refs/sessions/todo}" >"$T/state.$1"; }
# field <who> <python expression of d>: of that state
field () { json_field "$T/state.$1" "$2"; }

test_expect_success 'setup: a bare remote, three clones, three people, every hook installed' '
	git init -q --bare -b main ../remote.git &&
	mkdir -p "$T/home-alice" "$T/home-bob" "$T/home-carol" &&
	git clone -q ../remote.git ../alice 2>/dev/null &&
	on alice git symbolic-ref HEAD refs/heads/main &&
	on alice git config user.name "Alice Liddell" && on alice git config user.email alice@example.com &&
	printf "_items = []\n\ndef add(x):\n    _items.append(x)\n" >../alice/todo.py &&
	printf "from todo import add\n\ndef test_add():\n    add(1)\n" >../alice/test_todo.py &&
	commit alice "todo: a list to add to" todo.py test_todo.py &&
	on alice git push -q -u origin main &&
	git clone -q ../remote.git ../bob && git clone -q ../remote.git ../carol &&
	on bob git config user.name "Bob Builder" && on bob git config user.email bob@example.com &&
	on carol git config user.name "Carol Danvers" && on carol git config user.email carol@example.com &&
	for who in alice bob carol
	do
		on $who git config pull.rebase false &&
		on $who git session hooks install >/dev/null &&
		on $who git session hooks install --agent claude-code >/dev/null &&
		on $who git session hooks install --agent gemini-cli >/dev/null &&
		printf "/.claude/\n/.gemini/\n" >>"$T/$who/.git/info/exclude" &&
		on $who git session hooks status >out &&
		grep "post-commit  *installed" out &&
		grep "claude-code  *installed" out && grep "gemini-cli  *installed" out &&
		test -z "$(on $who git status --porcelain)" || return 1
	done
'

test_expect_success 'Alice: her Claude Code records a session, a sub-agent, shell commands; her commits too' '
	test_tick && on alice git session start "Todo module" --id todo --goal "a todo module with tests" -q &&
	claude alice SessionStart ",\"source\":\"startup\"" &&
	prompt_claude alice "P1 write remove for the todo list" &&
	printf "_items = []\n\ndef add(x):\n    _items.append(x)\n\ndef remove(i):\n    return _items.pop(i)\n" >../alice/todo.py &&
	cl alice "$(cl_tool a1 ta1 Edit "{\"file_path\":\"$T/alice/todo.py\",\"old_string\":\"x\",\"new_string\":\"y\"}" 1200 40)" \
		"$(cl_result ta1 edited)" &&
	claude alice PostToolUse ",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$T/alice/todo.py\",\"old_string\":\"x\",\"new_string\":\"y\"},\"tool_response\":{\"filePath\":\"$T/alice/todo.py\"}" &&
	cl alice "$(cl_tool a2 ta2 Bash "{\"command\":\"python3 -m pytest -q\"}" 1300 20)" "$(cl_result ta2 "1 passed")" &&
	claude alice PostToolUse ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"python3 -m pytest -q\"},\"tool_response\":{\"stdout\":\"1 passed\",\"stderr\":\"\",\"interrupted\":false,\"isImage\":false}" &&
	cl alice "$(cl_reply a3 "Alicewords remove is written and the test passes" 1400 30)" &&
	claude alice Stop ",\"stop_hook_active\":false,\"last_assistant_message\":\"Alicewords remove is written and the test passes\"" &&
	commit alice "todo: remove() an item" todo.py &&
	prompt_claude alice "P2 have a helper write the usage docs" &&
	sub_file="${T}/home-alice/.claude/projects/-team-alice/$(claude_sid alice)/subagents/agent-5ab5ab5ab5.jsonl" &&
	mkdir -p "${sub_file%/*}" &&
	claude alice SubagentStart ",\"agent_id\":\"5ab5ab5ab5\",\"agent_type\":\"general-purpose\"" &&
	mkdir -p ../alice/docs && printf "# Usage\n\nadd(x), remove(i)\n" >../alice/docs/USAGE.md &&
	claude alice PostToolUse ",\"agent_id\":\"5ab5ab5ab5\",\"agent_type\":\"general-purpose\",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$T/alice/docs/USAGE.md\",\"content\":\"x\"},\"tool_response\":{\"type\":\"create\",\"filePath\":\"$T/alice/docs/USAGE.md\"}" &&
	printf "%s\n" "$(cl_user "sub task write docs/USAGE.md")" "$(cl_reply s1 "Subwords the usage docs are written" 300 15)" >"$sub_file" &&
	claude alice SubagentStop ",\"agent_id\":\"5ab5ab5ab5\",\"agent_type\":\"general-purpose\",\"agent_transcript_path\":\"$sub_file\",\"last_assistant_message\":\"Subwords the usage docs are written\"" &&
	cl alice "$(cl_tool a4 ta4 Agent "{\"description\":\"Write usage docs\",\"prompt\":\"sub task\",\"subagent_type\":\"general-purpose\"}" 1500 25)" \
		"$(cl_result ta4 "Subwords the usage docs are written")" "$(cl_reply a5 "Alicewords the helper wrote the usage docs" 1600 35)" &&
	claude alice Stop ",\"last_assistant_message\":\"Alicewords the helper wrote the usage docs\"" &&
	commit alice "docs: how to use the todo list" docs/USAGE.md &&
	on alice git push -q &&
	on alice git session push >out &&
	grep "new  *todo" out &&
	on alice git log --format=%s refs/sessions/todo >log &&
	grep "^agent $(claude_agent alice) started (claude-code)$" log &&
	grep "^agent general-purpose-5ab5ab5a started (general-purpose)$" log &&
	grep "^run by $(claude_agent alice): \"python3 -m pytest -q\" (exit 0)$" log &&
	test $(grep -c "^commit [0-9a-f]*: " log) = 2 &&
	on alice git ls-tree -r --name-only refs/sessions/todo transcripts/ >parts &&
	grep "^transcripts/$(claude_agent alice)/000/000002$" parts &&
	grep "^transcripts/general-purpose-5ab5ab5a/000/000001$" parts &&
	git -C ../remote.git rev-parse -q --verify refs/sessions/todo &&
	on alice git rev-parse refs/sessions/todo >../alice.pushed
'

test_expect_success 'Bob: a clone brings no session; pull does; he resumes it, his Gemini CLI works in it' '
	on bob git pull -q &&
	on bob git session list >out &&
	! grep todo out &&
	on bob git session pull >out &&
	grep "new  *todo" out &&
	test_tick && on bob git session resume -q todo &&
	test "$(on bob git symbolic-ref SESSION_HEAD)" = refs/sessions/todo &&
	gl bob 1 "{\"sessionId\":\"$(gemini_sid bob 1)\",\"projectHash\":\"7e4a\",\"startTime\":\"2025-11-21T10:00:00Z\",\"lastUpdated\":\"2025-11-21T10:00:00Z\",\"messages\":[]}" &&
	gemini bob 1 SessionStart ",\"source\":\"startup\"" &&
	prompt_gemini bob 1 "B1 make remove return None on a bad index" &&
	printf "_items = []\n\ndef add(x):\n    _items.append(x)\n\ndef remove(i):\n    if not 0 <= i < len(_items):\n        return None\n    return _items.pop(i)\n" >../bob/todo.py &&
	gemini bob 1 AfterTool ",\"tool_name\":\"replace\",\"tool_input\":{\"file_path\":\"$T/bob/todo.py\",\"old_string\":\"x\",\"new_string\":\"y\"},\"tool_response\":{\"llmContent\":\"Successfully modified file: $T/bob/todo.py (1 replacements).\"}" &&
	gemini bob 1 AfterTool ",\"tool_name\":\"run_shell_command\",\"tool_input\":{\"command\":\"python3 -m pytest -q\"},\"tool_response\":{\"llmContent\":\"<untrusted_context>\nOutput: 1 passed\nExit Code: 0\nProcess Group PGID: 4242\n</untrusted_context>\",\"returnDisplay\":\"1 passed\"}" &&
	gl bob 1 "$(gl_reply g1 "" replace 2000 40)" "$(gl_reply g2 "Bobwords remove now returns None on a bad index" "" 2100 50)" &&
	gemini bob 1 AfterAgent ",\"prompt\":\"B1\",\"prompt_response\":\"Bobwords remove now returns None on a bad index\",\"stop_hook_active\":false" &&
	commit bob "todo: remove() returns None on a bad index" todo.py &&
	on bob git push -q &&
	on bob git session push >out &&
	grep "pushed  *todo" out &&
	on bob git log --format="%an | %s" refs/sessions/todo >log &&
	grep "^Bob Builder | agent $(gemini_agent bob 1) started (gemini-cli)$" log &&
	grep "^Bob Builder | run by $(gemini_agent bob 1): \"python3 -m pytest -q\" (exit 0)$" log &&
	grep "^Bob Builder | turn of $(gemini_agent bob 1): \"Bobwords remove now returns None on a bad index\" (+4100 in, +90 out; transcript part 1" log &&
	grep "^Bob Builder | commit [0-9a-f]*: \"todo: remove() returns None on a bad index\"" log &&
	state bob &&
	test "$(field bob "[a[\"by\"] for a in d[\"agents\"] if a[\"id\"] == \"$(gemini_agent bob 1)\"]")" = "[\"Bob Builder <bob@example.com>\"]"
'

test_expect_success 'Carol: her Claude Code starts a session of her own with its first prompt' '
	on carol git session pull -q &&
	test_must_fail on carol git rev-parse -q --verify SESSION_HEAD &&
	prompt_claude carol "C1 write a contributing guide" &&
	carol_id=$(on carol git symbolic-ref --short SESSION_HEAD | sed "s|^sessions/||") &&
	case $carol_id in *contributing-guide*) ;; *) echo "id $carol_id"; false ;; esac &&
	echo $carol_id >../carol.id &&
	on carol git pull -q &&
	printf "# Contributing\n\nRun python3 -m pytest before you push.\n" >../carol/CONTRIBUTING.md &&
	cl carol "$(cl_tool c1 tc1 Write "{\"file_path\":\"$T/carol/CONTRIBUTING.md\",\"content\":\"x\"}" 900 30)" "$(cl_result tc1 written)" &&
	claude carol PostToolUse ",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$T/carol/CONTRIBUTING.md\",\"content\":\"x\"},\"tool_response\":{\"type\":\"create\",\"filePath\":\"$T/carol/CONTRIBUTING.md\"}" &&
	cl carol "$(cl_tool c2 tc2 Bash "{\"command\":\"python3 -m pytest -q\"}" 950 10)" "$(cl_result tc2 "1 failed" error)" &&
	claude carol PostToolUseFailure ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"python3 -m pytest -q\"},\"error\":\"Exit code 1\",\"is_interrupt\":false" &&
	cl carol "$(cl_reply c3 "Carolwords the guide is written and one test fails" 1000 20)" &&
	claude carol Stop ",\"last_assistant_message\":\"Carolwords the guide is written and one test fails\"" &&
	commit carol "docs: a contributing guide" CONTRIBUTING.md &&
	on carol git push -q &&
	on carol git session push >out &&
	grep "new  *$carol_id" out &&
	on carol git log --format=%s refs/sessions/$carol_id >log &&
	grep "^run by $(claude_agent carol): \"python3 -m pytest -q\" (exit 1)$" log &&
	grep "^commit [0-9a-f]*: \"docs: a contributing guide\"" log
'

test_expect_success 'Alice pulls: she sees Bob'"'"'s agent; blame names each line'"'"'s agent and person' '
	on alice git pull -q &&
	on alice git session pull >out &&
	grep "fast-forward  *todo" out &&
	grep "new  *$(cat ../carol.id)" out &&
	on alice git session blame --json todo.py >blame.json &&
	json_field blame.json "sorted(set((l[\"agent\"], l[\"author\"]) for l in d if l[\"text\"] in (\"def remove(i):\", \"        return None\")))" >who &&
	test "$(cat who)" = "[[\"$(claude_agent alice)\", \"Alice Liddell\"], [\"$(gemini_agent bob 1)\", \"Bob Builder\"]]" &&
	on alice git session blame todo.py >blame &&
	grep "$(gemini_agent bob 1) .*Bob Builder .*return None$" blame &&
	grep "$(claude_agent alice) .*Alice Liddell .*def remove(i):$" blame
'

# Bob's change is committed: restoring over it is what Alice asks, by name and with --force
test_expect_success 'Alice restores her own todo.py from before Bob'"'"'s change, and undoes it' '
	pushed=$(cat ../alice.pushed) &&
	# her files have sat for a while, as a person'"'"'s do between two commands
	old=$(($(date +%s) - 3600)) &&
	(cd ../alice && git ls-files -z | xargs -0 touch -d @$old) &&
	on alice git session restore --force $pushed -- todo.py >out &&
	cat out &&
	on alice git show $pushed:files/todo.py >expect && test_cmp expect ../alice/todo.py &&
	undo=$(sed -n "s/^To undo: //p" out) &&
	test -n "$undo" &&
	on alice $undo >out &&
	on alice git diff --exit-code &&
	test -z "$(on alice git status --porcelain)"
'

# tips <who> <name>: the session's tip in who's clone, kept as ../<name>
tip () { on $1 git rev-parse refs/sessions/todo >"$T/$2"; }

test_expect_success 'offline, both sides of the session: Alice compacts and prompts, notes, decides, sums up, commits' '
	claude alice PreCompact ",\"trigger\":\"manual\",\"custom_instructions\":\"\"" &&
	cl alice "$(cl_user /compact)" "{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"content\":\"Conversation compacted\",\"compactMetadata\":{\"trigger\":\"manual\"}}" \
		"{\"type\":\"user\",\"isCompactSummary\":true,\"message\":{\"role\":\"user\",\"content\":\"Summary: todo.py has add and remove\"}}" &&
	claude alice SessionStart ",\"source\":\"compact\"" &&
	prompt_claude alice "P5 add count and make the tests pass" &&
	printf "\ndef count():\n    return len(_items)\n" >>../alice/todo.py &&
	cl alice "$(cl_tool a6 ta6 Edit "{\"file_path\":\"$T/alice/todo.py\",\"old_string\":\"x\",\"new_string\":\"y\"}" 800 20)" "$(cl_result ta6 edited)" &&
	claude alice PostToolUse ",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$T/alice/todo.py\",\"old_string\":\"x\",\"new_string\":\"y\"},\"tool_response\":{\"filePath\":\"$T/alice/todo.py\"}" &&
	cl alice "$(cl_tool a7 ta7 Bash "{\"command\":\"python3 -m pytest -q\"}" 850 20)" "$(cl_result ta7 "NameError count" error)" &&
	claude alice PostToolUseFailure ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"python3 -m pytest -q\"},\"error\":\"Exit code 1\\nNameError: count\",\"is_interrupt\":false" &&
	cl alice "$(cl_tool a8 ta8 Bash "{\"command\":\"python3 -m pytest -q\"}" 900 20)" "$(cl_result ta8 "2 passed")" &&
	claude alice PostToolUse ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"python3 -m pytest -q\"},\"tool_response\":{\"stdout\":\"2 passed\",\"stderr\":\"\",\"interrupted\":false,\"isImage\":false}" &&
	cl alice "$(cl_reply a9 "Alicewords count is added after a NameError and both tests pass" 950 40)" &&
	claude alice Stop ",\"last_assistant_message\":\"Alicewords count is added after a NameError and both tests pass\"" &&
	note alice "alice: offline, count() needs a docstring" &&
	decide alice "count() is len() of the list" "no cache to keep in step" &&
	test_tick && on alice git session summary -q "Alice: count() done; next a CLI" &&
	commit alice "todo: count()" todo.py &&
	tip alice alice1 &&
	on alice git log --format=%s refs/sessions/todo >log &&
	grep "^agent $(claude_agent alice) compacts its context (manual)$" log &&
	grep "^run by $(claude_agent alice): \"python3 -m pytest -q\" (exit 1)$" log
'

test_expect_success 'status says how many checkpoints Alice has not pushed' '
	n=$(on alice git rev-list --count refs/remotes/origin/sessions/todo..refs/sessions/todo) &&
	test $n -gt 5 &&
	on alice git session status todo >out &&
	grep "^Remote  *origin: $n checkpoints not pushed" out &&
	on alice git session status todo --json >status.json &&
	test "$(json_field status.json "d[\"remote\"]")" = "{\"name\": \"origin\", \"ahead\": $n, \"behind\": 0}"
'

test_expect_success 'offline, both sides of the session: Bob'"'"'s new Gemini chat tests, he notes, decides, sums up, commits' '
	gl bob 2 "{\"sessionId\":\"$(gemini_sid bob 2)\",\"projectHash\":\"7e4a\",\"startTime\":\"2025-11-21T11:00:00Z\",\"lastUpdated\":\"2025-11-21T11:00:00Z\",\"messages\":[]}" &&
	gemini bob 2 SessionStart ",\"source\":\"startup\"" &&
	prompt_gemini bob 2 "B3 test remove on a bad index" &&
	printf "\ndef test_remove_bad_index():\n    assert remove(9) is None\n" >>../bob/test_todo.py &&
	sed -i "s/^from todo import add$/from todo import add, remove/" ../bob/test_todo.py &&
	sed -i "1s/.*/_items = []  # what is left to do/" ../bob/todo.py &&
	for f in test_todo.py todo.py
	do
		gemini bob 2 AfterTool ",\"tool_name\":\"replace\",\"tool_input\":{\"file_path\":\"$T/bob/$f\",\"old_string\":\"x\",\"new_string\":\"y\"},\"tool_response\":{\"llmContent\":\"Successfully modified file: $T/bob/$f (1 replacements).\"}" || return 1
	done &&
	gemini bob 2 AfterTool ",\"tool_name\":\"run_shell_command\",\"tool_input\":{\"command\":\"python3 -m pytest -q\"},\"tool_response\":{\"llmContent\":\"<untrusted_context>\nOutput: 2 passed\nExit Code: 0\nProcess Group PGID: 4343\n</untrusted_context>\",\"returnDisplay\":\"2 passed\"}" &&
	gl bob 2 "$(gl_reply g3 "" replace 700 30)" "$(gl_reply g4 "Bobwords a bad index is tested and passes" "" 750 35)" &&
	gemini bob 2 AfterAgent ",\"prompt\":\"B3\",\"prompt_response\":\"Bobwords a bad index is tested and passes\",\"stop_hook_active\":false" &&
	gemini bob 2 PreCompress ",\"trigger\":\"manual\"" &&
	note bob "bob: offline, remove() is covered" &&
	decide bob "a bad index gives None, not an exception" "callers check for None" &&
	test_tick && on bob git session summary -q "Bob: remove() tested; next the docs" &&
	commit bob "test: remove() on a bad index" test_todo.py todo.py &&
	tip bob bob1 &&
	on bob git log --format=%s refs/sessions/todo >log &&
	grep "^agent $(gemini_agent bob 2) started (gemini-cli)$" log &&
	grep "^turn of $(gemini_agent bob 2): \"Bobwords a bad index is tested and passes\"" log
'

test_expect_success 'Alice pushes first; Bob'"'"'s session push merges, and says what it merged and whose summary it kept' '
	on alice git push -q &&
	on alice git session push >out &&
	grep "pushed  *todo" out &&
	on bob git pull -q --no-edit && on bob git push -q &&
	on bob git session push >out &&
	cat out &&
	tip bob merged1 &&
	test "$(git -C ../remote.git rev-parse refs/sessions/todo)" = "$(cat ../merged1)" &&
	test "$(on bob git rev-list --parents -1 refs/sessions/todo | wc -w)" = 3 &&
	grep "todo.*merge" out &&
	grep "summary changed on both sides; kept" out &&
	state bob &&
	test "$(field bob "d[\"context_summary\"]")" = "Bob: remove() tested; next the docs"
'

test_expect_success 'the conflict line names whose summary was kept' '
	grep "summary changed on both sides; kept Bob" out
'

# subset <who> <rev> <rev>: every transcript part in the first tip is in the second, the same blob
subset () {
	on $1 git ls-tree -r $2 transcripts/ | sort >"$T/parts.a" &&
	on $1 git ls-tree -r $3 transcripts/ | sort >"$T/parts.b" &&
	test -s "$T/parts.a" &&
	comm -23 "$T/parts.a" "$T/parts.b" >"$T/parts.lost" &&
	test_must_be_empty "$T/parts.lost"
}

test_expect_success 'the merged tip holds both sides'"'"' transcript parts; transcript and grep find both sides'"'"' words' '
	on alice git pull -q --no-edit && on alice git session pull -q &&
	on carol git pull -q --no-edit && on carol git session pull -q &&
	for who in alice bob carol
	do
		test "$(on $who git rev-parse refs/sessions/todo)" = "$(cat ../merged1)" || return 1
	done &&
	subset bob $(cat ../alice1) $(cat ../merged1) &&
	subset bob $(cat ../bob1) $(cat ../merged1) &&
	on bob git session transcript todo >all &&
	grep "Alicewords count is added after a NameError" all &&
	grep "Bobwords a bad index is tested" all &&
	on bob git session grep Alicewords >out &&
	test $(grep -c Alicewords out) -ge 3 &&
	on bob git session grep -c Bobwords >out &&
	grep "todo.*[2-9]" out
'

test_expect_success 'right after the merge, a restore that names no checkpoint reverts no committed code' '
	for who in alice bob carol
	do
		on $who git session restore >out 2>&1
		test $? -le 129 &&
		on $who git diff --exit-code HEAD || { cat out; return 1; }
	done
'

# the merged state takes project.head and a file's record from one side:
# resume judges by content, and knows the commits either side recorded
test_expect_success 'right after the merge, resume on each clone reports only real differences' '
	team resume alice bob carol
'

# fixtures <who>: what an agent's shell command generates, a file per case
fixtures () {
	mkdir -p "$T/$1/fixtures/$1" &&
	for f in $(seq -w 1 $FIXTURES)
	do
		echo "case $f of $1" >"$T/$1/fixtures/$1/case$f.txt" || return 1
	done
}
# together more files than session.json keeps: the manifest goes to shards
FIXTURES=140

test_expect_success 'a second offline round: Bob pushes first, Alice'"'"'s pull merges; its --json says what it merged' '
	prompt_claude alice "P6 give count a docstring and generate its fixtures" &&
	printf "\n# count() is the number of items\n" >>../alice/todo.py &&
	fixtures alice &&
	cl alice "$(cl_tool a10 ta10 Bash "{\"command\":\"python3 gen.py\"}" 650 15)" "$(cl_result ta10 generated)" &&
	claude alice PostToolUse ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"python3 gen.py\"},\"tool_response\":{\"stdout\":\"\",\"stderr\":\"\",\"interrupted\":false,\"isImage\":false}" &&
	cl alice "$(cl_reply a11 "Alicewords count has its docstring now" 700 25)" &&
	claude alice Stop ",\"last_assistant_message\":\"Alicewords count has its docstring now\"" &&
	note alice "alice: second round" &&
	test_tick && on alice git session summary -q "Alice: count() documented" &&
	commit alice "todo: say what count() is; its fixtures" todo.py fixtures &&
	tip alice alice2 &&
	prompt_gemini bob 2 "B4 test count on generated fixtures" &&
	printf "\ndef test_count():\n    assert count() >= 0\n" >>../bob/test_todo.py &&
	sed -i "s/^from todo import add, remove$/from todo import add, remove, count/" ../bob/test_todo.py &&
	fixtures bob &&
	gemini bob 2 AfterTool ",\"tool_name\":\"run_shell_command\",\"tool_input\":{\"command\":\"python3 gen.py\"},\"tool_response\":{\"llmContent\":\"<untrusted_context>\nOutput: (empty)\nProcess Group PGID: 4444\n</untrusted_context>\",\"returnDisplay\":\"\"}" &&
	gl bob 2 "$(gl_reply g5 "Bobwords count is tested too" "" 500 20)" &&
	gemini bob 2 AfterAgent ",\"prompt\":\"B4\",\"prompt_response\":\"Bobwords count is tested too\",\"stop_hook_active\":false" &&
	note bob "bob: second round" &&
	test_tick && on bob git session summary -q "Bob: count() tested" &&
	commit bob "test: count(), on fixtures" test_todo.py fixtures &&
	tip bob bob2 &&
	on carol git session switch -q todo &&
	note carol "carol: offline, the docs read well" &&
	on carol git session switch -q $(cat ../carol.id) &&
	on bob git push -q && on bob git session push -q &&
	on alice git pull -q --no-edit &&
	on alice git session pull --json >pull.json &&
	cat pull.json &&
	tip alice merged2 &&
	test "$(on alice git rev-list --parents -1 refs/sessions/todo | wc -w)" = 3 &&
	json_field pull.json "[(r[\"action\"], r[\"merged\"]) for r in d if r[\"id\"] == \"todo\"]" >got &&
	test "$(cat got)" = "[[\"merge\", \"$(cat ../merged2)\"]]" &&
	json_field pull.json "[c for r in d if r[\"id\"] == \"todo\" for c in r[\"conflicts\"]]" >conflicts.pull &&
	grep "summary changed on both sides; kept" conflicts.pull &&
	subset alice $(cat ../alice2) $(cat ../merged2) &&
	subset alice $(cat ../bob2) $(cat ../merged2) &&
	for t in alice2 bob2 merged2
	do
		state alice $(cat ../$t) && field alice "sorted(d[\"files\"])" >files.$t || return 1
	done &&
	python3 -c "
import json
ours, theirs, merged = (set(json.load(open(\"files.\" + t))) for t in (\"alice2\", \"bob2\", \"merged2\"))
assert len(merged) > 256 and ours | theirs == merged, (len(merged), sorted((ours | theirs) ^ merged)[:5])
" &&
	on alice git session push -q && on alice git push -q
'

test_expect_success 'a third offline round: the push that merges says so in --json too' '
	on bob git pull -q --no-edit && on bob git session pull -q &&
	test "$(on bob git rev-parse refs/sessions/todo)" = "$(cat ../merged2)" &&
	test_tick && on alice git session set -q release "\"1.0\"" &&
	test_tick && on bob git session summary -q "Bob: all tested" &&
	note bob "bob: third round" &&
	test_tick && on bob git session set -q release "\"1.1\"" &&
	tip bob bob3 &&
	note alice "alice: third round" &&
	decide alice "ship it" "the tests pass" &&
	test_tick && on alice git session summary -q "Alice: ready to ship" &&
	tip alice alice3 &&
	on bob git session push -q &&
	on alice git session push --json >push.json &&
	cat push.json &&
	tip alice merged3 &&
	test "$(git -C ../remote.git rev-parse refs/sessions/todo)" = "$(cat ../merged3)" &&
	test "$(on alice git rev-list --parents -1 refs/sessions/todo | wc -w)" = 3 &&
	state alice &&
	test "$(field alice "[d[\"context_summary\"], d[\"extra\"][\"release\"]]")" = "[\"Alice: ready to ship\", \"1.1\"]" &&
	json_field push.json "[(r[\"action\"], r[\"merged\"]) for r in d if r[\"id\"] == \"todo\"]" >got &&
	test "$(cat got)" = "[[\"pushed\", \"$(cat ../merged3)\"]]" &&
	json_field push.json "[c for r in d if r[\"id\"] == \"todo\" for c in r[\"conflicts\"]]" >conflicts.push &&
	grep "summary changed on both sides; kept" conflicts.push &&
	grep "release changed on both sides; kept" conflicts.push
'

test_expect_success 'the conflicts in --json name whose value was kept' '
	grep "summary changed on both sides; kept Bob" conflicts.pull &&
	grep "summary changed on both sides; kept Alice" conflicts.push &&
	grep "release changed on both sides; kept Bob" conflicts.push
'

test_expect_success 'a last round: Carol'"'"'s pull merges her offline note; every clone ends the same as the remote' '
	on carol git pull -q --no-edit &&
	on carol git session pull >out &&
	cat out &&
	grep "merge.* todo" out &&
	! grep "conflict" out &&
	on carol git session push -q &&
	for who in alice bob carol
	do
		on $who git pull -q --no-edit && on $who git session pull -q || return 1
	done &&
	git -C ../remote.git for-each-ref --format="%(refname) %(objectname)" refs/sessions/ >expect &&
	test_line_count = 2 expect &&
	for who in alice bob carol
	do
		on $who git for-each-ref --format="%(refname) %(objectname)" refs/sessions/ >got &&
		test_cmp expect got &&
		test "$(on $who git rev-parse HEAD)" = "$(git -C ../remote.git rev-parse main)" || return 1
	done
'

test_expect_success 'status says every clone is in step with the remote' '
	for who in alice bob carol
	do
		on $who git session status todo --json >status.json &&
		test "$(json_field status.json "[d[\"remote\"][k] for k in (\"ahead\", \"behind\")]")" = "[0, 0]" || return 1
	done
'

test_expect_success 'Carol notes in her own session and pushes it; the others pull' '
	note carol "carol: the guide is done" &&
	on carol git session push >carol.push &&
	on bob git session pull >bob.pull &&
	on alice git session pull >alice.pull &&
	for out in carol.push bob.pull alice.pull
	do
		grep "$(cat ../carol.id)" $out || return 1
	done
'

test_expect_success 'a push and a pull print only the sessions that moved' '
	for out in carol.push bob.pull alice.pull
	do
		! grep todo $out || return 1
	done
'

test_expect_success 'nothing lost, nothing twice: every note, decision, turn and transcript part, once, on every clone' '
	carol_id=$(cat ../carol.id) &&
	test_line_count = 14 ../made.notes.todo && test_line_count = 3 ../made.decisions.todo &&
	test_line_count = 2 ../made.notes.$carol_id &&
	team end alice bob carol &&
	for who in alice bob carol
	do
		for t in alice3 bob3
		do
			subset $who $(cat ../$t) refs/sessions/todo || return 1
		done &&
		state $who &&
		field $who "sorted((a[\"id\"], a[\"by\"]) for a in d[\"agents\"])" >agents &&
		cat >expect <<-EOF &&
		[["$(claude_agent alice)", "Alice Liddell <alice@example.com>"], ["$(gemini_agent bob 1)", "Bob Builder <bob@example.com>"], ["$(gemini_agent bob 2)", "Bob Builder <bob@example.com>"], ["general-purpose-5ab5ab5a", "Alice Liddell <alice@example.com>"]]
		EOF
		test_cmp expect agents &&
		on $who git session transcript todo >all &&
		for w in "Alicewords remove is written" "Alicewords the helper wrote" "Subwords the usage docs" \
			"Alicewords count is added after a NameError" "Alicewords count has its docstring" \
			"Bobwords remove now returns None" "Bobwords a bad index is tested" "Bobwords count is tested too"
		do
			test $(grep -c "^$w" all) = 1 || { echo "$who: $w"; return 1; }
		done &&
		on $who git session grep -F "Bobwords count is tested too" >out &&
		grep "transcript\[$(gemini_agent bob 2)\]" out &&
		on $who git session grep -F "Alicewords count has its docstring" >out &&
		grep "transcript\[$(claude_agent alice)\]" out || return 1
	done
'

test_expect_success 'at the end, resume on each clone reports only real differences' '
	team resume alice bob carol
'

test_expect_success 'blame in a clone that wrote none of it names each line'"'"'s agent and person' '
	on carol git session blame --json todo.py >blame.json &&
	json_field blame.json "[(l[\"text\"], l[\"agent\"], l[\"author\"]) for l in d if l[\"text\"] in (\"_items = []  # what is left to do\", \"        return None\", \"def count():\")]" >got &&
	cat >expect <<-EOF &&
	[["_items = []  # what is left to do", "$(gemini_agent bob 2)", "Bob Builder"], ["        return None", "$(gemini_agent bob 1)", "Bob Builder"], ["def count():", "$(claude_agent alice)", "Alice Liddell"]]
	EOF
	test_cmp expect got
'

test_expect_success 'the shared state of every session, as every clone has it' '
	team shared alice bob carol &&
	ls shared.*.json >list &&
	test_line_count = 6 list
'

test_expect_success 'no clone'"'"'s own path is in the shared session.json' '
	! grep -F "$T" shared.*.json
'

test_expect_success 'no clone'"'"'s file stat data is in the shared session.json' '
	ok=0 &&
	for f in shared.*.json
	do
		json_field $f "sorted(p + \": \" + k for p, r in d[\"files\"].items() for k in r if k in (\"size\", \"mtime\", \"ino\", \"dev\", \"ctime\"))" >stat &&
		test "$(cat stat)" = "[]" || { echo "$f: $(cat stat)"; ok=1; }
	done &&
	return $ok
'

test_expect_success 'fsck is ok on all three clones and the remote' '
	for who in alice bob carol
	do
		on $who git session fsck --all >out &&
		test $(grep -c "^ok " out) = 2 &&
		on $who git fsck --strict --no-dangling || return 1
	done &&
	git -C ../remote.git fsck --strict --no-dangling
'

test_done
