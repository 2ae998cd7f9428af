#!/bin/sh
test_description='transcript: the real agent CLIs, offline, read back as conversations; only the conversation stored'
. ./lib.sh

agents="$TEST_DIRECTORY/../agents"
test_have_prereq CLAUDE_CODE ||
	say "# the Claude Code tests are skipped: no Node.js, or no tests/agents/node_modules (make deps installs it)"
test_have_prereq GEMINI_CLI ||
	say "# the Gemini CLI tests are skipped: no Node.js, or no tests/agents/node_modules (make deps installs it)"

R="$TRASH_DIRECTORY/repo"


claude_run () {
	prompt=$1 && shift &&
	env HOME="$TRASH_DIRECTORY/claude-home" ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=test \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 IS_SANDBOX=1 \
		timeout 120 "$agents/node_modules/@anthropic-ai/claude-code/bin/claude.exe" -p "$prompt" \
		--allowedTools Write,Edit,Read,Bash,Agent --dangerously-skip-permissions "$@" >>claude.out 2>>claude.err
}

gemini_run () {
	prompt=$1 && shift &&
	env HOME="$TRASH_DIRECTORY/gemini-home" GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$PORT" GEMINI_API_KEY=test \
		GEMINI_CLI_NO_RELAUNCH=true timeout 120 node "$agents/node_modules/@google/gemini-cli/bundle/gemini.js" \
		-p "$prompt" -m gemini-2.5-flash -y "$@" >>gemini.out 2>>gemini.err
}

# The model answers each conversation in order; a resumed conversation
# counts the tool calls of the earlier prompts, so each is padded with
# as many calls it never makes.
cat >"$TRASH_DIRECTORY/script.py" <<'EOF'
import json, sys
R = sys.argv[1]
W = lambda p, c: {"name": "Write", "input": {"file_path": R + "/" + p, "content": c}}
E = lambda p, a, b: {"name": "Edit", "input": {"file_path": R + "/" + p, "old_string": a, "new_string": b}}
Rd = lambda p: {"name": "Read", "input": {"file_path": R + "/" + p}}
B = lambda c, d: {"name": "Bash", "input": {"command": c, "description": d}}
p1 = [W("todo.py", "items = []\ndef add(x):\n    items.append(x)\n"), B("python3 -c 'print(1 + 1)'", "Run the tests")]
p2 = [Rd("todo.py"), E("todo.py", "items = []", "_items = []")]
p3 = [{"name": "Agent", "input": {"description": "Write usage docs", "prompt": "sub task: write USAGE.md",
       "subagent_type": "general-purpose"}}, W("README.md", "# todo\nSee USAGE.md\n")]
p5 = [B("python3 -c 'import sys; sys.exit(\"IndexError: list index out of range\")'", "Run the tests"),
      E("todo.py", "_items = []", "_items = []  # fixed"), B("echo 'all 3 tests passed'", "Run the tests again")]
pad = lambda n: [Rd("todo.py")] * n
print(json.dumps([
    {"match": "P5 fix", "calls": p5, "answer": "Fixed the IndexError; all tests pass."},
    {"match": "sub task", "calls": [W("USAGE.md", "# Usage\n")], "answer": "Wrote USAGE.md."},
    {"match": "P3 docs", "calls": pad(len(p1) + len(p2)) + p3, "answer": "README links the usage docs now."},
    {"match": "P2 private", "calls": pad(len(p1)) + p2, "answer": "Decision: keep the list private."},
    {"match": "P1 create", "calls": p1, "answer": "Created todo.py; the test passes."}]))
EOF

test_expect_success CLAUDE_CODE 'Claude Code: five prompts, a sub-agent, a failing command, a compaction' '
	mkdir -p "$TRASH_DIRECTORY/claude-home" &&
	git session hooks install --agent claude-code >/dev/null &&
	python3 "$TRASH_DIRECTORY/script.py" "$R" >script.json &&
	serve script.json &&
	claude_run "P1 create todo.py and run its test" &&
	claude_run "P2 private list, please" --continue &&
	claude_run "P3 docs: have a helper write USAGE.md, then link it" --continue &&
	claude_run "/compact" --continue &&
	claude_run "P5 fix the failing test" --continue ; rc=$?; stop_server; test $rc = 0 &&
	test_must_be_empty claude.err &&
	grep "Fixed the IndexError" claude.out &&
	git log --format=%s SESSION_HEAD >log &&
	agent=$(sed -n "s/^agent \(claude-[0-9a-f]*\) started (claude-code)$/\1/p" log) &&
	test -n "$agent" && echo $agent >agent
'

test_expect_success CLAUDE_CODE 'the stored transcript is the conversation: under 150 KB, without the CLI records' '
	git ls-tree -r -l SESSION_HEAD transcripts >parts &&
	bytes=$(awk "{ s += \$4 } END { print s }" parts) &&
	ondisk=$(cat "$TRASH_DIRECTORY"/claude-home/.claude/projects/*/*.jsonl | wc -c) &&
	say "# transcripts stored: $bytes bytes (the main transcript on disk: $ondisk)" &&
	test $bytes -lt 150000 &&
	test $bytes -lt $((ondisk / 3)) &&
	awk "{ print \$3 }" parts | while read -r blob
	do
		git cat-file -p $blob || return 1
	done >all &&
	! grep -e "\"type\":\"queue-operation\"" -e "\"type\":\"api-request" -e "\"type\":\"attachment\"" all &&
	grep -c "\"type\":\"assistant\"" all
'

test_expect_success CLAUDE_CODE 'transcript: turn by turn, prompt, reply, tool calls and their results' '
	agent=$(cat agent) &&
	git session transcript --agent $agent >out &&
	grep "^── turn 1 · $agent ──$" out &&
	grep "^> P1 create todo.py and run its test$" out &&
	grep "^  → Write: todo.py$" out &&
	grep "^  → Bash: python3 -c .print(1 + 1).$" out &&
	grep "^    ✓ 2$" out &&
	grep "^Created todo.py; the test passes.$" out &&
	grep "^  → Agent: Write usage docs (general-purpose)$" out &&
	grep "^  · context compacted (manual)$" out &&
	grep "^> /compact$" out &&
	grep "^    ✗ exit 1 · IndexError: list index out of range$" out &&
	grep "^    ✓ all 3 tests passed$" out &&
	grep "^  tokens: [0-9]* in, [0-9]* out$" out &&
	test $(grep -c "^── turn" out) = 5 &&
	! grep -e parentUuid -e "\"type\"" out
'

test_expect_success CLAUDE_CODE 'transcript --turn, --json, --raw; the sub-agent has its own' '
	agent=$(cat agent) &&
	git session transcript --agent $agent --turn 5 >out &&
	test $(grep -c "^── turn" out) = 1 &&
	grep "^> P5 fix the failing test$" out &&
	! grep P1 out &&
	git session transcript --turn 2 --json >j &&
	python3 -c "
import json
items = [json.loads(l) for l in open(\"j\")]
assert items and all(i[\"turn\"] == 2 for i in items), items
kinds = [i[\"kind\"] for i in items]
assert kinds[0] == \"prompt\" and \"tool\" in kinds and \"result\" in kinds and \"usage\" in kinds, kinds
assert any(i.get(\"tool\") == \"Edit\" for i in items)
" &&
	git session transcript --raw --agent $agent >raw &&
	git cat-file -p SESSION_HEAD:transcripts/$agent/000/000001 >first &&
	head -c $(wc -c <first) raw | cmp - first &&
	sub=$(git log --format=%s SESSION_HEAD | sed -n "s/^agent \(general-purpose-[0-9a-f]*\) started.*/\1/p") &&
	test -n "$sub" &&
	git session transcript --agent $sub >out &&
	grep "^── turn 1 · $sub ──$" out &&
	grep "^> sub task: write USAGE.md$" out &&
	test_must_fail git session transcript --turn 9 --agent $agent 2>err &&
	grep "^error: no turn 9" err &&
	test_expect_code 129 git session transcript --raw --turn 1
'

test_expect_success CLAUDE_CODE 'grep: what was said, where, and the checkpoint that stored it' '
	agent=$(cat agent) &&
	git session grep IndexError >out &&
	grep " transcript\[$agent\] turn 5 result: IndexError: list index out of range$" out &&
	grep " transcript\[$agent\] turn 5 reply: Fixed the IndexError; all tests pass.$" out &&
	c=$(sed -n "s/^[^ ]* \([0-9a-f]*\) .* result: IndexError.*/\1/p" out) &&
	git cat-file -p $c:op.json >op && grep -q "transcripts/$agent/" op &&
	test_expect_code 1 git session grep "You are powered by the model"
'

test_expect_success GEMINI_CLI 'Gemini CLI: a failing then passing shell command, read back' '
	git session close -q &&
	gemini_home "$TRASH_DIRECTORY/gemini-home" "$R" &&
	git session hooks install --agent gemini-cli >/dev/null &&
	cat >script.json <<-EOF &&
	[{"match": "B2 fix", "calls": [{"name": "write_file", "input": {"file_path": "$R/notes.md", "content": "x"}},
	  {"name": "run_shell_command", "input": {"command": "sh -c \"echo boom >&2; exit 3\"", "description": "tests"}},
	  {"name": "run_shell_command", "input": {"command": "echo ok", "description": "tests again"}}], "answer": "Tests pass now."},
	 {"match": "B1 write", "calls": [{"name": "write_file", "input": {"file_path": "$R/notes.md", "content": "# notes\\n"}}], "answer": "Wrote notes.md."}]
	EOF
	serve script.json &&
	gemini_run "B1 write notes.md" &&
	gemini_run "B2 fix the tests" --resume latest ; rc=$?; stop_server; test $rc = 0 &&
	grep "Tests pass now." gemini.out &&
	agent=$(git log --format=%s SESSION_HEAD | sed -n "s/^agent \(gemini-[0-9a-f]*\) started (gemini-cli)$/\1/p") &&
	git session transcript --agent $agent >out &&
	grep "^── turn 1 · $agent ──$" out &&
	grep "^> B1 write notes.md$" out &&
	grep "^  → write_file: notes.md$" out &&
	grep "^Wrote notes.md.$" out &&
	grep "^> B2 fix the tests$" out &&
	grep "^    ✗ exit 3 · boom$" out &&
	grep "^    ✓ ok$" out &&
	grep "^Tests pass now.$" out &&
	test $(grep -c "^> " out) = 2 &&
	git ls-tree -r SESSION_HEAD transcripts/$agent | awk "{ print \$3 }" | while read -r blob
	do
		git cat-file -p $blob || return 1
	done >all &&
	! grep -e "\"\$set\"" -e "session_context" all &&
	git session grep boom >out && grep " transcript\[$agent\] turn 2 result: Output: boom$" out
'

test_expect_success 'a transcript no dialect reads well: its lines passed over, what reads shown' '
	git session start hostile --id hostile --pause-current -q &&
	SID=7a7a7a7a-0000 &&
	T="$HOME/.claude/projects/h/$SID.jsonl" &&
	mkdir -p "${T%/*}" &&
	printf "%s\n" "not json" "{" "[1,2]" "{\"type\":\"user\",\"message\":{\"content\":\"hello \\u0007 there\"}}" \
		"{\"type\":\"assistant\",\"message\":{\"id\":\"m\",\"content\":[{\"type\":\"text\",\"text\":\"\\u001b[31mred\"}]}}" >"$T" &&
	for e in SessionStart Stop
	do
		printf "%s" "{\"session_id\":\"$SID\",\"transcript_path\":\"$T\",\"hook_event_name\":\"$e\"}" |
			git-session hook claude-code $e || return 1
	done &&
	git session transcript >out &&
	grep "^> hello ^G there$" out &&
	grep "^^\[\[31mred$" out &&
	test_must_fail git session transcript --agent nobody 2>err &&
	grep "keeps no transcript of agent .nobody." err
'

test_done
