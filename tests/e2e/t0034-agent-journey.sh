#!/bin/sh
test_description='an agent session from start to end through the real CLIs: each view says what the scripted model did'
. ./lib.sh

# The scripted model (tests/agents/model-server.js) drives Claude Code and
# Gemini CLI through prompts, file writes and edits, a sub-agent, a shell
# command that fails then passes, git commits and a compaction; every view
# is then held to what the script did. Each check names, in a comment, the
# feature it needs.
agents="$TEST_DIRECTORY/../agents"
test_have_prereq CLAUDE_CODE ||
	say "# the Claude Code journey is skipped: no Node.js, or no tests/agents/node_modules (make deps installs it)"
test_have_prereq GEMINI_CLI ||
	say "# the Gemini CLI journey is skipped: no Node.js, or no tests/agents/node_modules (make deps installs it)"

R="$TRASH_DIRECTORY/repo"
SID=3d1f6a52-7c1e-4b8a-9f00-0a1b2c3d4e5f	# Claude Code's own session id
# the identity git and git-session both read (no GIT_AUTHOR_* to differ)
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
git -C "$R" config user.name "Jo Journey" && git -C "$R" config user.email jo@example.com || exit 1
# this script's own files in the work tree are no agent's doing
printf '%s\n' claude.out claude.err gemini.out gemini.err script.json port s st raw rj log turns out two sub \
	parts all none ours theirs before >>"$R/.git/info/exclude" || exit 1


# The agents swallow what their hooks print: a sanitized build's reports go
# to files, checked at the end.
asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$TRASH_DIRECTORY/asan"
ubsan="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$TRASH_DIRECTORY/ubsan"

# claude_run <prompt> [<args>...]: one headless Claude Code process; its
# output is appended to claude.out, its errors to claude.err
claude_run () {
	prompt=$1 && shift &&
	env ASAN_OPTIONS="$asan" UBSAN_OPTIONS="$ubsan" HOME="$TRASH_DIRECTORY/claude-home" ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=test \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 IS_SANDBOX=1 \
		timeout 120 "$agents/node_modules/@anthropic-ai/claude-code/bin/claude.exe" -p "$prompt" \
		--dangerously-skip-permissions "$@" >>claude.out 2>>claude.err
}

gemini_run () {
	prompt=$1 && shift &&
	env ASAN_OPTIONS="$asan" UBSAN_OPTIONS="$ubsan" HOME="$TRASH_DIRECTORY/gemini-home" GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$PORT" GEMINI_API_KEY=test \
		GEMINI_CLI_NO_RELAUNCH=true timeout 120 node "$agents/node_modules/@google/gemini-cli/bundle/gemini.js" \
		-m gemini-2.5-flash -y -p "$prompt" "$@" >>gemini.out 2>>gemini.err
}

# the subjects of the session's checkpoints, through plain git
subjects () { git log --format=%s "${1:-SESSION_HEAD}"; }
# how many lines of file $2 hold the fixed string $1
count () { grep -c -F -e "$1" "$2"; }
# has <file> <grep options and pattern>: a line matches, else say what the file holds
has () {
	f=$1 && shift &&
	grep -q "$@" "$f" && return 0
	echo "no line of $f matches: $*"; sed -n 1,60p "$f"; return 1
}
hasnt () {
	f=$1 && shift &&
	! grep "$@" "$f" && return 0
	echo "^ lines of $f that should not be there: $*"; return 1
}
# expect_json <file> <python expression on d> <its JSON text>
expect_json () {
	got=$(json_field "$1" "$2") &&
	test "$got" = "$3" && return 0
	printf '%s\n wanted: %s\n got:    %s\n' "$2" "$3" "$got"; return 1
}

test_expect_success CLAUDE_CODE 'Claude Code: five prompts, a Write and an Edit, a sub-agent, a failing then passing command, commits' '
	mkdir -p "$TRASH_DIRECTORY/claude-home" &&
	git session hooks install >/dev/null &&
	git session hooks install --agent claude-code >/dev/null &&
	cat >script.json <<-EOF &&
	[{"match": "<task-notification>", "calls": [], "answer": "The sub-agent wrote sub.txt."},
	 {"match": "write notes", "calls": [{"name": "Write", "input": {"file_path": "$R/notes.txt", "content": "first line\\n"}}],
	  "answer": "Wrote notes.txt."},
	 {"match": "edit notes", "calls": [{"name": "Read", "input": {"file_path": "$R/notes.txt"}},
	  {"name": "Edit", "input": {"file_path": "$R/notes.txt", "old_string": "first line", "new_string": "first line, edited"}}],
	  "answer": "Edited notes.txt."},
	 {"match": "run the checks", "calls": [{"name": "Bash", "input": {"command": "cat missing.txt", "description": "show missing.txt"}},
	  {"name": "Bash", "input": {"command": "cat notes.txt && echo checks-passed", "description": "show notes.txt"}}],
	  "answer": "The checks pass now."},
	 {"match": "sub task", "calls": [{"name": "Write", "input": {"file_path": "$R/sub.txt", "content": "from the sub-agent\\n"}}],
	  "answer": "Sub-agent finished."},
	 {"match": "delegate", "calls": [{"name": "Agent", "input": {"description": "Write sub.txt", "prompt": "sub task: write sub.txt",
	  "subagent_type": "general-purpose"}}], "answer": "Delegated to a sub-agent."},
	 {"match": "wrap up", "calls": [], "answer": "All done: notes edited, checks green."},
	 {"match": "/compact", "summary": "Notes were written, edited and checked; a sub-agent wrote sub.txt."}]
	EOF
	serve script.json &&
	claude_run "write notes into notes.txt" --session-id $SID &&
	claude_run "edit notes: the first line says edited" --resume $SID &&
	git add notes.txt && git commit -q -m "Notes: their first version" &&
	claude_run "run the checks" --resume $SID &&
	claude_run "delegate sub.txt to a sub-agent" --resume $SID &&
	claude_run "wrap up the work" --resume $SID &&
	git add sub.txt && git commit -q -m "Sub: what the helper agent wrote" ; rc=$?; stop_server; test $rc = 0 &&
	test_must_be_empty claude.err &&
	for reply in "Wrote notes.txt." "Edited notes.txt." "The checks pass now." "Delegated to a sub-agent." \
		"The sub-agent wrote sub.txt." "All done: notes edited, checks green."
	do
		grep -q -F "$reply" claude.out || return 1
	done &&
	test "$(cat notes.txt)" = "first line, edited" &&
	test "$(cat sub.txt)" = "from the sub-agent" &&
	session_json >s &&
	AGENT=$(json_field s "[a[\"id\"] for a in d[\"agents\"] if a[\"type\"] == \"claude-code\"][0]") &&
	SUB=$(json_field s "[a[\"id\"] for a in d[\"agents\"] if a[\"type\"] == \"general-purpose\"][0]") &&
	ID=$(json_field s "d[\"session_id\"]") &&
	test -n "$AGENT" && test -n "$SUB" && test -n "$ID"
'

# capture: the compaction is the agent'"'"'s, once, with its tokens; the compactor is no agent
test_expect_success CLAUDE_CODE 'Claude Code: /compact is recorded once, with its tokens, and no sub-agent comes of it' '
	session_json >before &&
	serve script.json &&
	claude_run "/compact" --resume $SID ; rc=$?; stop_server; test $rc = 0 &&
	test_must_be_empty claude.err &&
	subjects >log &&
	test "$(grep -c "compact" log)" = 1 || { cat log; return 1; } &&
	session_json >s &&
	expect_json s "[a[\"compactions\"] for a in d[\"agents\"] if a[\"id\"] == \"$AGENT\"]" "[1]" &&
	expect_json s "len(d[\"agents\"])" "2" &&
	t0=$(json_field before "d[\"tokens\"][\"by_agent\"][\"$AGENT\"][\"output\"]") &&
	t1=$(json_field s "d[\"tokens\"][\"by_agent\"][\"$AGENT\"][\"output\"]") &&
	test "$t1" -gt "$t0" || { echo "the agent'"'"'s output tokens: $t0 before /compact, $t1 after"; return 1; }
'

# capture: "cli", "by", "prompts", "last_prompt", "last_reply" on the agent
test_expect_success CLAUDE_CODE 'Claude Code: the agent records who ran it, its CLI, its prompts and its last reply' '
	session_json >s &&
	expect_json s "[(a.get(\"cli\"), a.get(\"by\"), a.get(\"prompts\"), a.get(\"last_prompt\"), a.get(\"last_reply\"))
		for a in d[\"agents\"] if a[\"id\"] == \"$AGENT\"]" "[[\"claude-code\", \"Jo Journey <jo@example.com>\", 5, \"wrap up the work\", \"All done: notes edited, checks green.\"]]"
'

# capture: "parent", "cli" and "last_reply" of a sub-agent, its tokens, its file credited to it
test_expect_success CLAUDE_CODE 'Claude Code: the sub-agent is under its parent, with its reply, tokens and file' '
	session_json >s &&
	expect_json s "[(a.get(\"parent\"), a.get(\"cli\"), a[\"status\"], a.get(\"last_reply\"))
		for a in d[\"agents\"] if a[\"id\"] == \"$SUB\"]" "[[\"$AGENT\", \"claude-code\", \"completed\", \"Sub-agent finished.\"]]" &&
	expect_json s "d[\"tokens\"][\"by_agent\"][\"$SUB\"][\"output\"] > 0" "true" &&
	expect_json s "d[\"files\"][\"sub.txt\"][\"agent\"]" "$SUB" &&
	expect_json s "d[\"files\"][\"notes.txt\"][\"agent\"]" "$AGENT"
'

# capture: files a turn with a shell command changed are the agent'"'"'s; only those
test_expect_success CLAUDE_CODE 'Claude Code: the files credited to the agents are the ones they wrote, no others' '
	session_json >s &&
	expect_json s "sorted((p, f[\"agent\"]) for p, f in d[\"files\"].items() if f.get(\"agent\"))" \
		"[[\"notes.txt\", \"$AGENT\"], [\"sub.txt\", \"$SUB\"]]"
'

# capture: "commands" {run, failed, last} from Bash (PostToolUse and PostToolUseFailure)
test_expect_success CLAUDE_CODE 'Claude Code: the shell commands are recorded, the failed one with its exit status' '
	session_json >s &&
	expect_json s "[(a[\"commands\"][\"run\"], a[\"commands\"][\"failed\"]) for a in d[\"agents\"] if a[\"id\"] == \"$AGENT\"]" "[[2, 1]]" &&
	expect_json s "[(c[\"command\"], c[\"exit\"], c[\"ms\"] is None or c[\"ms\"] >= 0)
		for a in d[\"agents\"] if a[\"id\"] == \"$AGENT\" for c in a[\"commands\"][\"last\"]]" "[[\"cat missing.txt\", 1, true], [\"cat notes.txt && echo checks-passed\", 0, true]]"
'

# capture: one turn checkpoint per prompt, its subject the reply; views: none
test_expect_success CLAUDE_CODE 'Claude Code: one turn checkpoint per prompt, each subject saying the reply' '
	subjects >log &&
	grep "^turn of $AGENT" log >turns &&
	for reply in "Wrote notes.txt." "Edited notes.txt." "The checks pass now." "Delegated to a sub-agent." \
		"All done: notes edited, checks green."
	do
		test "$(count "$reply" turns)" = 1 || { echo "not one turn saying $reply:"; cat log; return 1; }
	done &&
	git session log -- --format=%H >ours &&
	git log --format=%H SESSION_HEAD >theirs &&
	test_cmp theirs ours
'

# capture (hooks record the commits): both commits, their files at their content
test_expect_success CLAUDE_CODE 'Claude Code: the commits are the session'"'"'s, and plain git agrees with it' '
	session_json >s &&
	expect_json s "[c[\"id\"] for c in d[\"commits\"]]" "[\"$(git rev-parse HEAD~1)\", \"$(git rev-parse HEAD)\"]" &&
	test "$(git rev-parse SESSION_HEAD:files/notes.txt)" = "$(git hash-object notes.txt)" &&
	test "$(git rev-parse SESSION_HEAD:files/sub.txt)" = "$(git hash-object sub.txt)" &&
	test "$(git rev-parse refs/sessions/$ID)" = "$(git rev-parse SESSION_HEAD)" &&
	git session status --json >st &&
	expect_json st "d[\"checkpoint\"]" "$(git rev-parse SESSION_HEAD)" &&
	expect_json st "d[\"counts\"][\"commits\"]" "2" &&
	expect_json st "sorted(a[\"id\"] for a in d[\"agents\"])" "[\"$AGENT\", \"$SUB\"]" &&
	git cat-file -p SESSION_HEAD:session.json >raw &&
	expect_json raw "d[\"session_id\"]" "$ID"
'

# transcript storage filter: the conversation only, < 150 KB for five prompts
test_expect_success CLAUDE_CODE 'Claude Code: the stored transcripts are the conversation, under 150 KB' '
	git ls-tree -r -l SESSION_HEAD transcripts/ >parts &&
	test -s parts &&
	size=$(awk "{ s += \$4 } END { print s }" parts) &&
	say "# stored transcript bytes: $size" &&
	test "$size" -lt 153600 &&
	git ls-tree -r --name-only SESSION_HEAD transcripts/ | sed "s|^|SESSION_HEAD:|" | git cat-file --batch >all &&
	has all -q "write notes into notes.txt" &&
	hasnt all -q "\"type\":\"api-request-shape\"" &&
	hasnt all -q "\"type\":\"queue-operation\""
'

# views: status of an agent session without phases
test_expect_success CLAUDE_CODE 'Claude Code: status says who ran which agent, prompts, last prompt and reply' '
	git session status --no-color >out &&
	has out "claude-code" &&
	has out "Jo Journey" &&
	has out -i -E "(^|[^0-9])5 prompts|prompts:? +5([^0-9]|$)" &&
	has out -F "wrap up the work" &&
	has out -F "All done: notes edited, checks green." &&
	has out "$SUB" &&
	hasnt out -i "plan the work in phases"
'

# views: files, commits and commands in status
test_expect_success CLAUDE_CODE 'Claude Code: status lists files, commits and the command that failed' '
	git session status --no-color >out &&
	has out "notes.txt" &&
	has out "sub.txt" &&
	has out -F "Sub: what the helper agent wrote" &&
	has out -F "cat missing.txt" &&
	has out -E "exit(ed| code| status)?:? *1([^0-9]|$)"
'

# views: resume of an agent session
test_expect_success CLAUDE_CODE 'Claude Code: resume --dry-run briefs the next person on the agent session' '
	git session resume --dry-run --no-color >out &&
	has out "claude-code" &&
	has out "Jo Journey" &&
	has out -i -E "(^|[^0-9])5 prompts|prompts:? +5([^0-9]|$)" &&
	has out -F "Sub: what the helper agent wrote" &&
	has out -F "wrap up the work" &&
	has out -F "All done: notes edited, checks green." &&
	has out "notes.txt" &&
	has out -F "cat missing.txt" &&
	hasnt out -i "plan the work in phases" &&
	git session resume --dry-run --json >rj &&
	! json_field rj "d[\"next\"][\"text\"]" | grep -i "phase"
'

# transcript: the readable view, per turn
test_expect_success CLAUDE_CODE 'Claude Code: transcript reads as prompts, replies and tool calls' '
	git session transcript >out &&
	has out -F "write notes into notes.txt" &&
	has out -F "Wrote notes.txt." &&
	has out "Write.*notes.txt" &&
	has out "Bash.*cat missing.txt" &&
	has out "exit 1" &&
	has out -F "wrap up the work" &&
	hasnt out "^{" &&
	hasnt out "api-request" &&
	git session transcript --turn 2 >two &&
	has two -F "edit notes: the first line says edited" &&
	has two "Edit.*notes.txt" &&
	hasnt two -F "write notes into notes.txt" &&
	git session transcript --agent $SUB >sub &&
	has sub -F "sub task: write sub.txt" &&
	has sub -F "Sub-agent finished."
'

# transcript: --raw is the stored JSONL
test_expect_success CLAUDE_CODE 'Claude Code: transcript --raw is the stored JSON lines' '
	git session transcript --raw --agent $AGENT >raw &&
	has raw -q -F "write notes into notes.txt" &&
	python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1]) if l.strip()]" raw
'

# grep: what was said, with session, turn and checkpoint; not the CLI'"'"'s own records
test_expect_success CLAUDE_CODE 'Claude Code: grep finds what was said, where and when, and nothing internal' '
	git session grep "checks pass now" >out &&
	has out "$ID" &&
	has out -i "turn 3" &&
	has out -E "(^|[^0-9a-f])[0-9a-f]{7,40}([^0-9a-f]|$)" &&
	test "$(wc -l <out)" -le 3 &&
	test "$(git session grep -c "checks pass now")" = "$ID:$(wc -l <out | tr -d " ")" &&
	{ git session grep "Claude Agent SDK" >none || :; } && test_must_be_empty none &&
	{ git session grep "api-request-shape" >none || :; } && test_must_be_empty none
'

# blame: author, date, and the sub-agent credited
test_expect_success CLAUDE_CODE 'Claude Code: blame names the author and date, and credits the sub-agent' '
	git session blame notes.txt >out &&
	has out "$AGENT" &&
	has out "Jo Journey" &&
	has out -E "20[0-9]{2}-[01][0-9]-[0-3][0-9]" &&
	git session blame sub.txt >out &&
	has out "$SUB" &&
	git session blame --porcelain sub.txt >out &&
	has out "^agent $SUB$" &&
	has out "^author Jo Journey$"
'

test_expect_success GEMINI_CLI 'Gemini CLI: three prompts, write and replace, a failing then passing command' '
	git session close -q &&
	gemini_home "$TRASH_DIRECTORY/gemini-home" "$R" &&
	git session hooks install --agent gemini-cli >/dev/null &&
	cat >script.json <<-EOF &&
	[{"match": "write plans", "calls": [{"name": "write_file", "input": {"file_path": "$R/plan.md", "content": "# plan\\n"}}],
	  "answer": "Wrote plan.md."},
	 {"match": "edit plans", "calls": [{"name": "replace", "input": {"file_path": "$R/plan.md", "old_string": "# plan",
	  "new_string": "# the plan", "instruction": "rename the title"}}], "answer": "Edited plan.md."},
	 {"match": "check the plan", "calls": [{"name": "run_shell_command", "input": {"command": "cat missing.md", "description": "show missing.md"}},
	  {"name": "run_shell_command", "input": {"command": "grep -q plan plan.md", "description": "check plan.md"}}],
	  "answer": "The plan checks out."},
	 {"match": "/compact", "summary": "A plan was written, edited and checked."}]
	EOF
	serve script.json &&
	gemini_run "write plans into plan.md" &&
	gemini_run "edit plans: rename the title" --resume latest &&
	gemini_run "check the plan" --resume latest ; rc=$?; stop_server; test $rc = 0 &&
	grep -F "The plan checks out." gemini.out &&
	test "$(cat plan.md)" = "# the plan" &&
	session_json >s &&
	GAGENT=$(json_field s "[a[\"id\"] for a in d[\"agents\"] if a[\"type\"] == \"gemini-cli\"][0]") &&
	GID=$(json_field s "d[\"session_id\"]") &&
	test -n "$GAGENT" && test "$GID" != "$ID"
'

# capture: the contract'"'"'s fields from Gemini'"'"'s payloads (AfterTool says the exit status in its text)
test_expect_success GEMINI_CLI 'Gemini CLI: prompts, last reply and the shell commands with their exit status' '
	session_json >s &&
	expect_json s "[(a.get(\"cli\"), a.get(\"by\"), a.get(\"prompts\"), a.get(\"last_prompt\"), a.get(\"last_reply\"))
		for a in d[\"agents\"] if a[\"id\"] == \"$GAGENT\"]" "[[\"gemini-cli\", \"Jo Journey <jo@example.com>\", 3, \"check the plan\", \"The plan checks out.\"]]" &&
	expect_json s "[(a[\"commands\"][\"run\"], a[\"commands\"][\"failed\"], [(c[\"command\"], c[\"exit\"]) for c in a[\"commands\"][\"last\"]])
		for a in d[\"agents\"] if a[\"id\"] == \"$GAGENT\"]" "[[2, 1, [[\"cat missing.md\", 1], [\"grep -q plan plan.md\", 0]]]]" &&
	expect_json s "sorted((p, f[\"agent\"]) for p, f in d[\"files\"].items() if f.get(\"agent\"))" \
		"[[\"plan.md\", \"$GAGENT\"]]"
'

# capture: one turn checkpoint per prompt with the reply; views: status and transcript
test_expect_success GEMINI_CLI 'Gemini CLI: turns say the reply; status and transcript read as the conversation' '
	subjects >log &&
	grep "^turn of $GAGENT" log >turns &&
	for reply in "Wrote plan.md." "Edited plan.md." "The plan checks out."
	do
		test "$(count "$reply" turns)" = 1 || { echo "not one turn saying $reply:"; cat log; return 1; }
	done &&
	git session status --no-color >out &&
	has out "gemini-cli" &&
	has out "Jo Journey" &&
	has out -F "cat missing.md" &&
	hasnt out -i "plan the work in phases" &&
	git session transcript >out &&
	has out -F "write plans into plan.md" &&
	has out -F "Wrote plan.md." &&
	has out "run_shell_command.*cat missing.md" &&
	hasnt out "^{"
'

# capture: Gemini runs PreCompress (auto) before every model call; only /compress compacts
test_expect_success GEMINI_CLI 'Gemini CLI: no compaction is recorded until /compress, then one' '
	subjects >log &&
	hasnt log "compact" &&
	serve script.json &&
	gemini_run "/compress" --resume latest ; rc=$?; stop_server; test $rc = 0 &&
	subjects >log &&
	test "$(grep -c "compact" log)" = 1 || { cat log; return 1; } &&
	session_json >s &&
	expect_json s "[a[\"compactions\"] for a in d[\"agents\"] if a[\"id\"] == \"$GAGENT\"]" "[1]"
'

test_expect_success 'no hook of the journeys left a sanitizer report' '
	for f in "$TRASH_DIRECTORY"/asan.* "$TRASH_DIRECTORY"/ubsan.*
	do
		test -e "$f" || continue
		echo "$f:" && cat "$f" && return 1
	done
'

test_done
