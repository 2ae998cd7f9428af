#!/bin/sh
test_description='resume: where the work stands and what changed behind its back'
. ./lib.sh

id=2025-11-21-resume-me
old_time=202001010000	# files written "long ago" get a stat cache

# kind_of <json> <path>: the kind resume gives a path
kind_of () { json_field "$1" "[f[\"kind\"] for f in d[\"files\"] if f[\"path\"] == \"$2\"][0]"; }

test_expect_success 'setup: a paused session with a manifest and a plan' '
	mkdir -p src docs &&
	for f in a b c d e; do echo "$f" >src/$f.c; done &&
	echo "# plan" >docs/plan.md &&
	touch -t $old_time src/*.c docs/plan.md &&
	git session start "resume me" --plan docs/plan.md --phase Build --phase Test -q &&
	git session phase start 1 -q &&
	git session agent start c1 --type coder --task "write the code" -q &&
	git session file created src/a.c src/b.c src/c.c src/d.c --agent c1 -q &&
	git session agent done c1 --summary "done" -q &&
	git session phase complete 1 --context "all of src" -q &&
	git session pause -q
'

test_expect_success 'nothing changed: no conflicts, exit 0, and no file read' '
	git session resume --dry-run --json --exit-code >r.json &&
	test "$(json_field r.json "d[\"conflicts\"]")" = "[]" &&
	test "$(json_field r.json "d[\"manifest\"][\"files\"]")" = 4 &&
	test "$(json_field r.json "d[\"manifest\"][\"hashed\"]")" = 0 &&
	test "$(json_field r.json "[f[\"kind\"] for f in d[\"files\"]]")" = \
		"[\"clean\", \"clean\", \"clean\", \"clean\"]" &&
	test "$(json_field r.json "d[\"branch\"][\"changed\"]")" = false &&
	test "$(json_field r.json "d[\"head\"][\"new_commits\"]")" = 0 &&
	test "$(json_field r.json "d[\"head\"][\"moved\"]")" = false &&
	test "$(json_field r.json "d[\"plans\"][0][\"changed\"]")" = false &&
	test "$(json_field r.json "d[\"activated\"]")" = false &&
	test "$(json_field r.json "d[\"status\"]")" = paused &&
	test "$(json_field r.json "[p[\"id\"] for p in d[\"done\"]]")" = "[1]" &&
	test "$(json_field r.json "[p[\"id\"] for p in d[\"pending\"]]")" = "[2]" &&
	test "$(json_field r.json "d[\"in_progress\"]")" = "[]" &&
	test "$(json_field r.json "d[\"next\"][\"command\"]")" = "git session resume $id"
'

test_expect_success 'resume un-pauses, activates and prints the brief' '
	rm .git/SESSION_HEAD &&
	git session resume $id --no-color >out &&
	echo "ref: refs/sessions/$id" >expect && test_cmp expect .git/SESSION_HEAD &&
	git log -1 --format=%s SESSION_HEAD >subject &&
	echo "session $id: paused -> in_progress" >expect && test_cmp expect subject &&
	grep "^Done" out && grep "1 Build .* all of src" out &&
	grep "^Pending" out && grep "2 Test" out &&
	grep "^Changed since the checkpoint" out &&
	grep "nothing: 4 files checked, 0 read" out &&
	grep "^Next: start phase 2" out
'

test_expect_success 'a file recorded while its phase was in progress: partial' '
	git session phase start 2 -q &&
	git session phase step 2 "unit tests" -q &&
	git session agent start t1 --type tester --task "run the tests" -q &&
	git session file modified src/e.c --agent t1 -q &&
	git session resume --dry-run --json >r.json &&
	test "$(kind_of r.json src/e.c)" = partial &&
	test "$(json_field r.json "[(f[\"path\"], f[\"kind\"]) for f in d[\"conflicts\"]]")" = "[[\"src/e.c\", \"partial\"]]" &&
	test "$(json_field r.json "[(p[\"id\"], p[\"sub_step\"], [a[\"id\"] for a in p[\"agents\"]]) for p in d[\"in_progress\"]]")" = \
		"[[2, \"unit tests\", [\"t1\"]]]" &&
	git session resume --dry-run --no-color >out &&
	grep "2 Test, at \"unit tests\"" out &&
	grep "t1 0%: run the tests" out &&
	grep "partial    src/e.c: recorded while its phase or agent was still at work" out &&
	grep "^Next: wait for the agents of phase 2" out
'

test_expect_success 'every kind: modified, deleted, recreated, committed' '
	git session agent done t1 -q &&
	git session file deleted src/d.c -q &&
	echo "more" >>src/a.c &&
	rm src/b.c &&
	echo "back" >src/d.c &&
	git add src/c.c && git commit -q -m "commit c" &&
	git session resume --dry-run --json >r.json &&
	test "$(kind_of r.json src/a.c)" = modified &&
	test "$(kind_of r.json src/b.c)" = deleted &&
	test "$(kind_of r.json src/c.c)" = committed &&
	test "$(kind_of r.json src/d.c)" = recreated &&
	test "$(kind_of r.json src/e.c)" = partial &&
	test "$(json_field r.json "[(f[\"path\"], f[\"kind\"]) for f in d[\"conflicts\"]]")" = \
		"[[\"src/a.c\", \"modified\"], [\"src/b.c\", \"deleted\"], [\"src/d.c\", \"recreated\"], [\"src/e.c\", \"partial\"]]" &&
	test "$(json_field r.json "[f for f in d[\"files\"] if f[\"path\"] == \"src/a.c\"][0]")" = \
		"{\"path\": \"src/a.c\", \"kind\": \"modified\", \"recorded_status\": \"created\", \"recorded_oid\": \"$(git rev-parse SESSION_HEAD:files/src/a.c)\", \"current_oid\": \"$(git hash-object src/a.c)\", \"head_oid\": null, \"phase\": 1, \"agent\": \"c1\", \"detail\": null}" &&
	test "$(json_field r.json "[f[\"head_oid\"] for f in d[\"files\"] if f[\"path\"] == \"src/c.c\"][0]")" = "$(git rev-parse HEAD:src/c.c)" &&
	test "$(json_field r.json "d[\"manifest\"][\"modified\"]")" = 1 &&
	test_expect_code 1 git session resume --dry-run --exit-code >/dev/null
'

test_expect_success 'resume --diff shows the change against the recorded blob' '
	git session resume --dry-run --diff --no-color >out &&
	grep "^diff --git a/src/a.c b/src/a.c" out &&
	grep "^+more$" out &&
	git session resume --dry-run --diff --json >r.json &&
	json_field r.json "d[\"diffs\"][\"src/a.c\"]" | grep "^+more$"
'

test_expect_success 'HEAD advanced: how many commits, and which' '
	git session checkpoint -q &&
	test_commit () { echo "$1" >"$1.t" && git add "$1.t" && git commit -q -m "$1"; } &&
	test_commit one && test_commit two && test_commit three &&
	git session resume --dry-run --json >r.json &&
	test "$(json_field r.json "d[\"head\"][\"new_commits\"]")" = 3 &&
	test "$(json_field r.json "[c[\"subject\"] for c in d[\"head\"][\"commits\"]]")" = "[\"three\", \"two\", \"one\"]" &&
	test "$(json_field r.json "d[\"head\"][\"rewritten\"]")" = false &&
	test "$(json_field r.json "d[\"head\"][\"moved\"]")" = true &&
	git session resume --dry-run --no-color >out &&
	grep "HEAD: 3 new commits since the checkpoint" out &&
	grep "$(git rev-parse --short=7 HEAD) three" out
'

test_expect_success 'history rewritten: the recorded head is no longer an ancestor' '
	git session checkpoint -q &&
	git commit -q --amend -m "three, amended" &&
	git session resume --dry-run --json >r.json &&
	test "$(json_field r.json "d[\"head\"][\"rewritten\"]")" = true &&
	git session resume --dry-run --no-color >out &&
	grep "History was rewritten" out
'

test_expect_success 'branch switched, then deleted' '
	git session checkpoint -q &&
	git checkout -q -b other &&
	git session resume --dry-run --json >r.json &&
	test "$(json_field r.json "d[\"branch\"]")" = \
		"{\"recorded\": \"main\", \"current\": \"other\", \"changed\": true, \"recorded_exists\": true}" &&
	git session resume --dry-run --no-color >out &&
	grep "Branch: the checkpoint was taken on main, now on other" out &&
	git branch -q -D main &&
	git session resume --dry-run --json >r.json &&
	test "$(json_field r.json "d[\"branch\"][\"recorded_exists\"]")" = false &&
	git session resume --dry-run --no-color >out &&
	grep "Branch main no longer exists" out &&
	git branch -q main
'

test_expect_success 'the plan document was edited' '
	echo "# plan, v2" >docs/plan.md &&
	git session resume --dry-run --json >r.json &&
	test "$(json_field r.json "d[\"plans\"][0][\"changed\"]")" = true &&
	test "$(json_field r.json "d[\"plans\"][0][\"current_oid\"]")" = "$(git hash-object docs/plan.md)" &&
	git session resume --dry-run --no-color >out &&
	grep "Plan docs/plan.md changed since the checkpoint" out
'

test_expect_success 'a file that became a directory, and a FIFO: reported, no crash, no hang' '
	git rm -q --cached src/c.c && rm src/c.c && mkdir src/c.c && echo x >src/c.c/inner &&
	rm -f src/e.c && mkfifo src/e.c &&
	git session resume --dry-run --json >r.json &&
	test "$(kind_of r.json src/c.c)" = deleted &&
	test "$(json_field r.json "[f[\"detail\"] for f in d[\"files\"] if f[\"path\"] == \"src/c.c\"][0]")" = "now a directory" &&
	test "$(kind_of r.json src/e.c)" = unreadable &&
	test "$(json_field r.json "[f[\"detail\"] for f in d[\"files\"] if f[\"path\"] == \"src/e.c\"][0]")" = "not a regular file" &&
	test_must_fail git session file modified src/e.c 2>err &&
	grep "^error: .src/e.c. is not a regular file" err &&
	rm -rf src/c.c src/e.c
'

test_expect_success NOT_ROOT 'a file that cannot be read is reported' '
	echo secret >src/a.c && chmod 000 src/a.c &&
	git session resume --dry-run --json >r.json &&
	chmod 644 src/a.c &&
	test "$(kind_of r.json src/a.c)" = unreadable
'

test_expect_success 'a symlink in the manifest compares by its target, as git stores it' '
	git session phase complete 2 -q &&
	ln -s a.c src/link.c && touch -h -t $old_time src/link.c &&
	git session file created src/link.c -q &&
	git session resume --dry-run --json >r.json &&
	test "$(kind_of r.json src/link.c)" = clean &&
	test "$(git cat-file -p SESSION_HEAD:files/src/link.c)" = a.c
'

test_expect_success 'resumed in another worktree, and after that worktree is removed' '
	git session checkpoint -q &&
	git worktree add -q ../wt2 -b wt2 &&
	(
		cd ../wt2 &&
		git session resume $id --dry-run --json >r.json &&
		test "$(json_field r.json "d[\"session_id\"]")" = $id &&
		test "$(kind_of r.json src/a.c)" = deleted &&	# never committed: not in this worktree
		test "$(json_field r.json "d[\"branch\"][\"current\"]")" = wt2 &&
		git session resume $id -q &&
		git session note "from the other worktree" -q
	) &&
	git worktree remove --force ../wt2 &&
	git session resume --json >r.json &&
	test "$(json_field r.json "d[\"activated\"]")" = true &&
	test "$(json_field r.json "d[\"branch\"][\"recorded\"]")" = wt2
'

test_expect_success 'a closed session has nothing to resume, but --dry-run shows where it ended' '
	git session close -q &&
	test_expect_code 1 git session resume $id 2>err &&
	grep "^error: session .$id. is completed: there is nothing to resume" err &&
	git session resume $id --dry-run --json >r.json &&
	test "$(json_field r.json "d[\"status\"]")" = completed &&
	! test -f .git/SESSION_HEAD
'


SID=5e5e5e5e-aaaa-bbbb-cccc-000000000001
AGENT=claude-5e5e5e5e
T="$HOME/.claude/projects/repo/$SID.jsonl"
claude () {
	ev claude-code "$1" "{\"session_id\":\"$SID\",\"transcript_path\":\"$T\",\"cwd\":\"$PWD\",\"hook_event_name\":\"$1\"$2}"
}
# a checkpoint of the active session whose session.json python code $1 (on d, one line) changed: as hooks write it
edit_state () {
	ref=$(git symbolic-ref SESSION_HEAD) &&
	git show $ref:session.json >s.json &&
	python3 -c "import json,sys; d=json.load(open(\"s.json\")); exec(\" \".join(sys.argv[1].split())); json.dump(d, open(\"s.json\", \"w\"), indent=2)" "$1" &&
	blob=$(git hash-object -w s.json) &&
	git ls-tree $ref | sed "s/blob [0-9a-f]*	session.json\$/blob $blob	session.json/" >t.txt &&
	git update-ref $ref $(git log -1 --format=%B $ref | git commit-tree $(git mktree <t.txt) -p $ref)
}

test_expect_success 'an agent session: status and resume show its agent, files and commits, and no phases' '
	git init -q ../agents && cd ../agents &&
	test_commit_() { echo "$1" >"$1" && git add "$1" && git commit -q -m "$2"; } &&
	test_commit_ base "base" && git session hooks install >/dev/null &&
	mkdir -p "$HOME/.claude/projects/repo" && : >"$T" &&
	claude SessionStart ",\"source\":\"startup\"" &&
	claude UserPromptSubmit ",\"prompt\":\"Create todo.py with add and list, unit tests for both, and a README section\"" &&
	session=$(cat .git/SESSION_HEAD | sed "s|ref: refs/sessions/||") &&
	test "$session" = 2025-11-21-create-todo-py-with-add-and-list &&
	echo x >todo.py &&
	claude PostToolUse ",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$PWD/todo.py\",\"content\":\"x\"}" &&
	claude Stop "" &&
	git add todo.py && git commit -q -m "add todo.py" &&
	git session status >out &&
	grep "^Agents$" out &&
	grep "^  . $AGENT  claude-code$" out &&
	grep "^      Files     1: todo.py$" out &&
	grep "^Files     1 touched: todo.py$" out &&
	grep "^Commits   1, the latest: $(git rev-parse --short=7 HEAD) add todo.py$" out &&
	grep "^Tokens    0 (no budget)$" out &&
	! grep "phases\|critical" out &&
	grep "^Next: continue with your agent $AGENT: its hooks record the next prompt$" out &&
	git session status --json >s.json &&
	test "$(json_field s.json "[d[\"agents\"][0][k] for k in (\"cli\", \"session\", \"resume\")]")" = \
		"[\"claude-code\", \"$SID\", \"claude --resume $SID\"]" &&
	test "$(json_field s.json "d[\"files_touched\"]")" = "{\"count\": 1, \"paths\": [\"todo.py\"]}" &&
	test "$(json_field s.json "[c[\"subject\"] for c in d[\"recent_commits\"]]")" = "[\"add todo.py\"]" &&
	test "$(json_field s.json "d[\"next\"][\"command\"]")" = null &&
	claude SessionEnd ",\"reason\":\"prompt_input_exit\"" &&
	git session resume --dry-run >out &&
	grep "^Agents$" out && grep "^Commits   1" out && ! grep "phases\|partial" out &&
	grep "^Next: resume the agent $AGENT: its hooks record the next prompt$" out &&
	grep "^      claude --resume $SID$" out
'

test_expect_success 'an agent session: who ran each agent, its prompts, reply, commands, sub-agents under it' '
	cd ../agents &&
	edit_state "a = d[\"agents\"][0]; a.update(by=\"Alice <alice@example.com>\", cli=\"claude-code\", prompts=3,
		last_prompt=\"link the usage docs from the README \" * 4, last_reply=\"README links\nthe usage docs now.\",
		commands={\"run\": 3, \"failed\": 1, \"last\": [{\"command\": \"make test\", \"exit\": 2, \"ms\": 5, \"at\": \"x\"},
			{\"command\": \"make test\", \"exit\": 0, \"ms\": 5, \"at\": \"y\"}]});
		d[\"agents\"].append(dict(a, id=\"general-purpose-1\", type=\"general-purpose\", parent=a[\"id\"],
			session=None, by=None, prompts=None, last_prompt=None, commands=None, last_reply=\"wrote docs/USAGE.md\"));
		d[\"agents\"].append(dict(a, id=\"Explore-2\", type=\"Explore\", parent=\"general-purpose-1\",
			session=None, prompts=None, last_prompt=None, commands=None, last_reply=\"\\u001b[31mfound 3\"));
		d[\"files\"][\"docs/USAGE.md\"] = dict(d[\"files\"][\"todo.py\"], agent=\"general-purpose-1\")" &&
	COLUMNS=72 git session status >out &&
	grep "^  . $AGENT  claude-code, run by Alice <alice@example.com>, completed$" out &&
	grep "^      Prompts   3, the last: \"link the usage docs from the README link\(…\|\.\.\.\)$" out &&
	python3 -c "import re; assert all(len(l) <= 72 for l in open(\"out\", encoding=\"utf-8\").read().splitlines() if re.match(\" +(Prompts|Replied|Files|Commands|Tokens) \", l))" &&
	grep "^      Replied   \"README links the usage docs now.\"$" out &&
	grep "^      Commands  3 run, 1 failed; exit 2: make test$" out &&
	grep "^      Files     1: todo.py$" out &&
	grep "^      . general-purpose-1  general-purpose sub-agent, completed$" out &&
	grep "^          Files     1: docs/USAGE.md$" out &&
	grep "^          . Explore-2  Explore sub-agent" out &&
	grep "^              Replied   \"^\[\[31mfound 3\"$" out &&
	grep "^Files     2 touched: docs/USAGE.md, todo.py$" out &&
	git session status --json >s.json &&
	test "$(json_field s.json "[d[\"agents\"][0][\"commands\"][\"last_failed\"][\"command\"], d[\"agents\"][1][\"parent\"], d[\"agents\"][0][\"prompts\"]]")" = \
		"[\"make test\", \"$AGENT\", 3]" &&
	git session resume --dry-run >out &&
	grep "^      Commands  3 run, 1 failed; exit 2: make test$" out &&
	grep "^          Files     1: docs/USAGE.md$" out &&
	grep "^Noted     Create todo.py" out &&
	edit_state "d[\"agents\"][0][\"last_prompt\"] = d[\"notes\"][-1][\"text\"]" &&
	git session status >out &&
	grep "^      Prompts   3, the last: \"Create todo.py" out &&
	! grep "^Noted" out
'

test_done
