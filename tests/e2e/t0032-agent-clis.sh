#!/bin/sh
test_description='the real agent CLIs, offline: Claude Code and Gemini CLI record a session through their own hooks'
. ./lib.sh

agents="$TEST_DIRECTORY/../agents"
test_have_prereq CLAUDE_CODE ||
	say "# the Claude Code tests are skipped: no Node.js, or no tests/agents/node_modules (make deps installs it)"
test_have_prereq GEMINI_CLI ||
	say "# the Gemini CLI tests are skipped: no Node.js, or no tests/agents/node_modules (make deps installs it)"

R="$TRASH_DIRECTORY/repo"
# every object git holds, as text: what push would send
all_objects () { git cat-file --batch-all-objects --batch; }


# claude_run <prompt> [<args>...]: Claude Code, headless, against the scripted model
claude_run () {
	prompt=$1 && shift &&
	env HOME="$TRASH_DIRECTORY/claude-home" ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=test \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 IS_SANDBOX=1 \
		timeout 120 "$agents/node_modules/@anthropic-ai/claude-code/bin/claude.exe" -p "$prompt" \
		--allowedTools Write,Edit,Agent --dangerously-skip-permissions "$@" >claude.out 2>claude.err
}

gemini_run () {
	GEMINI_HOME_DIR="$TRASH_DIRECTORY/gemini-home" gemini_run_home "$1"
}

# gemini_run_home <prompt>: as gemini_run, with the home in $GEMINI_HOME_DIR
gemini_run_home () {
	env HOME="${GEMINI_HOME_DIR:-$TRASH_DIRECTORY/gemini-home-g}" GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$PORT" GEMINI_API_KEY=test \
		GEMINI_CLI_NO_RELAUNCH=true timeout 120 node "$agents/node_modules/@google/gemini-cli/bundle/gemini.js" \
		-p "$1" -m gemini-2.5-flash -y >gemini.out 2>gemini.err
}

test_expect_success CLAUDE_CODE 'Claude Code: a run that writes a file is a session, checked with plain git' '
	mkdir -p "$TRASH_DIRECTORY/claude-home" &&
	git session hooks install --agent claude-code >/dev/null &&
	cat >script.json <<-EOF &&
	[{"match": "write hello", "calls": [{"name": "Write", "input": {"file_path": "$R/hello.txt", "content": "hello world\\n"}}], "answer": "Wrote it."}]
	EOF
	serve script.json &&
	claude_run "write hello into hello.txt" ; rc=$?; stop_server; test $rc = 0 &&
	grep "Wrote it." claude.out &&
	test_must_be_empty claude.err &&
	git log --format=%s SESSION_HEAD >log &&
	grep "^start session .*write-hello-into-hello-txt" log &&
	grep "^note: \"write hello into hello.txt\"" log &&
	agent=$(sed -n "s/^agent \(claude-[0-9a-f]*\) started (claude-code)$/\1/p" log) &&
	test -n "$agent" &&
	grep "^file created: hello.txt by $agent$" log &&
	# Claude Code may write the usage of its reply after its Stop: then the tokens come at the end of the session
	grep "^turn of $agent: \"Wrote it.\" (+[0-9]* in, +[0-9]* out; transcript part 1)$" log &&
	test "$(git rev-parse SESSION_HEAD:files/hello.txt)" = "$(git hash-object hello.txt)" &&
	git cat-file -p SESSION_HEAD:transcripts/$agent/000/000001 >part &&
	grep -q "\"name\":\"Write\"" part &&
	session_json >s &&
	test "$(json_field s "d[\"tokens\"][\"by_agent\"][\"$agent\"][\"output\"] > 0")" = true
'

test_expect_success CLAUDE_CODE 'Claude Code: a sub-agent is an agent with its type, started and done' '
	cat >script.json <<-EOF &&
	[{"match": "sub task", "calls": [{"name": "Write", "input": {"file_path": "$R/sub.txt", "content": "from the sub-agent\\n"}}], "answer": "Sub-agent finished."},
	 {"match": "delegate", "calls": [{"name": "Agent", "input": {"description": "Write sub.txt", "prompt": "sub task: write sub.txt", "subagent_type": "general-purpose"}}], "answer": "Delegated."}]
	EOF
	serve script.json &&
	claude_run "delegate the writing" ; rc=$?; stop_server; test $rc = 0 &&
	test -f sub.txt &&
	session_json >s &&
	test "$(json_field s "[(a[\"type\"], a[\"status\"]) for a in d[\"agents\"] if a[\"type\"] == \"general-purpose\"]")" = \
		"[[\"general-purpose\", \"completed\"]]" &&
	test "$(json_field s "d[\"files\"][\"sub.txt\"][\"oid\"]")" = "$(git hash-object sub.txt)" &&
	sub=$(json_field s "d[\"files\"][\"sub.txt\"][\"agent\"]") &&
	case $sub in general-purpose-*) ;; *) echo "sub.txt credited to $sub"; false ;; esac &&
	test "$(json_field s "[[a[k] for k in (\"cli\", \"last_reply\")] for a in d[\"agents\"] if a[\"id\"] == \"$sub\"]")" = \
		"[[\"claude-code\", \"Sub-agent finished.\"]]" &&
	parent=$(json_field s "[a[\"parent\"] for a in d[\"agents\"] if a[\"id\"] == \"$sub\"][0]") &&
	test "$(json_field s "[a[\"type\"] for a in d[\"agents\"] if a[\"id\"] == \"$parent\"]")" = "[\"claude-code\"]"
'

test_expect_success CLAUDE_CODE 'Claude Code: a shell command that fails, then passes; what it wrote is the agent'"'"'s' '
	cat >script.json <<-EOF &&
	[{"match": "run the checks", "calls": [{"name": "Bash", "input": {"command": "cat missing.txt", "description": "show it"}},
	  {"name": "Bash", "input": {"command": "echo made >missing.txt && cat missing.txt", "description": "make it"}}],
	  "answer": "The checks pass now."}]
	EOF
	serve script.json &&
	claude_run "run the checks" ; rc=$?; stop_server; test $rc = 0 &&
	git log --format=%s SESSION_HEAD >log &&
	agent=$(sed -n "s/^run by \(claude-[0-9a-f]*\): \"cat missing.txt\" (exit 1, [0-9]* ms)$/\1/p" log) &&
	test -n "$agent" &&
	grep "^run by $agent: \"echo made >missing.txt && cat missing.txt\" (exit 0, [0-9]* ms)$" log &&
	grep "^turn of $agent: \"The checks pass now.\" (+[1-9][0-9]* in, +[1-9][0-9]* out; transcript part [0-9]*; [1-9][0-9]* files\{0,1\})$" log &&
	session_json >s &&
	test "$(json_field s "[[a[\"commands\"][k] for k in (\"run\", \"failed\")] for a in d[\"agents\"] if a[\"id\"] == \"$agent\"]")" = "[[2, 1]]" &&
	test "$(json_field s "[d[\"files\"][\"missing.txt\"][k] for k in (\"status\", \"agent\")]")" = "[\"created\", \"$agent\"]" &&
	test "$(git rev-parse SESSION_HEAD:files/missing.txt)" = "$(git hash-object missing.txt)"
'

test_expect_success CLAUDE_CODE 'Claude Code: a secret in the prompt never reaches git' '
	echo "[]" >script.json &&
	serve script.json &&
	claude_run "deploy with token ghp_0123456789abcdefghijABCDEFGHIJ012345 please" ; rc=$?; stop_server; test $rc = 0 &&
	git log --format=%s SESSION_HEAD >log &&
	grep "^note: \"deploy with token \[REDACTED:github-token\] please\"" log &&
	! all_objects | grep -a ghp_0123456789abcdefghij
'

test_expect_success CLAUDE_CODE 'Claude Code: past the budget, the tool call is refused' '
	git session tokens budget 100 -q &&
	git config session.enforceBudget true &&
	cat >script.json <<-EOF &&
	[{"match": "write more", "calls": [{"name": "Write", "input": {"file_path": "$R/more.txt", "content": "more\\n"}}], "answer": "Could not."}]
	EOF
	serve script.json &&
	claude_run "write more text" ; rc=$?; stop_server; test $rc = 0 &&
	git config --unset session.enforceBudget &&
	! test -e more.txt &&
	all_objects | grep -a "has used [0-9]* of its budget of 100 tokens"
'

test_expect_success GEMINI_CLI 'Gemini CLI: a run that writes a file is a session, checked with plain git' '
	git session close -q &&
	gemini_home "$TRASH_DIRECTORY/gemini-home" "$R" &&
	git session hooks install --agent gemini-cli >/dev/null &&
	cat >script.json <<-EOF &&
	[{"match": "write notes", "calls": [{"name": "write_file", "input": {"file_path": "$R/notes.md", "content": "# notes\\n"}}], "answer": "Wrote it."}]
	EOF
	serve script.json &&
	gemini_run "write notes into notes.md, password=hunter22" ; rc=$?; stop_server; test $rc = 0 &&
	grep "Wrote it." gemini.out &&
	git log --format=%s SESSION_HEAD >log &&
	agent=$(sed -n "s/^agent \(gemini-[0-9a-f]*\) started (gemini-cli)$/\1/p" log) &&
	test -n "$agent" &&
	grep "^note: \"write notes into notes.md, password=\[REDACTED:password\]\"" log &&
	grep "^file created: notes.md by $agent$" log &&
	grep "^turn of $agent: \"Wrote it.\" (+[1-9][0-9]* in, +[1-9][0-9]* out; transcript part 1)$" log &&
	test "$(git rev-parse SESSION_HEAD:files/notes.md)" = "$(git hash-object notes.md)" &&
	! all_objects | grep -a hunter22
'

# PATH without git-session: a teammate's machine where the committed settings file runs our hooks
no_gs_path () { printf '%s\n' "$PATH" | tr ':' '\n' | grep -vxF "$GIT_SESSION_BIN" | paste -sd: -; }

test_expect_success CLAUDE_CODE 'Claude Code on a machine without git-session: the committed hooks say nothing' '
	git init -q "$TRASH_DIRECTORY/teammate" && (cd "$TRASH_DIRECTORY/teammate" &&
	 git session hooks install --agent claude-code >/dev/null &&
	 cp .claude/settings.json ../guarded.json &&
	 sed "s/command -v git-session >\/dev\/null 2>&1 || exit 0; //" ../guarded.json >../unguarded.json &&
	 ! grep "command -v" ../unguarded.json &&
	 printf "[{\"match\": \"hello\", \"answer\": \"Hi there.\"}]\n" >script.json &&
	 serve script.json &&
	 cp ../unguarded.json .claude/settings.json &&
	 PATH=$(no_gs_path) claude_run "hello" --debug; rc1=$? &&
	 cat claude.out claude.err >unguarded.out &&
	 cp ../guarded.json .claude/settings.json &&
	 PATH=$(no_gs_path) claude_run "hello" --debug; rc2=$?; stop_server &&
	 test $rc1 = 0 && test $rc2 = 0 &&
	 grep "Hi there." claude.out &&
	 grep "git-session: not found\|git-session: command not found" unguarded.out &&
	 ! grep "git-session: not found\|git-session: command not found\|hook.*failed\|failed.*hook" claude.out claude.err &&
	 test_must_fail git rev-parse -q --verify SESSION_HEAD)
'

test_expect_success GEMINI_CLI 'Gemini CLI on a machine without git-session: the committed hooks say nothing' '
	git init -q "$TRASH_DIRECTORY/teammate-g" && (cd "$TRASH_DIRECTORY/teammate-g" &&
	 gemini_home "$TRASH_DIRECTORY/gemini-home-g" "$TRASH_DIRECTORY/teammate-g" &&
	 git session hooks install --agent gemini-cli >/dev/null &&
	 cp .gemini/settings.json ../guarded-g.json &&
	 sed "s/command -v git-session >\/dev\/null 2>&1 || exit 0; //" ../guarded-g.json >../unguarded-g.json &&
	 ! grep "command -v" ../unguarded-g.json &&
	 printf "[{\"match\": \"hello\", \"answer\": \"Hi there.\"}]\n" >script.json &&
	 serve script.json &&
	 cp ../unguarded-g.json .gemini/settings.json &&
	 PATH=$(no_gs_path) gemini_run_home "hello"; rc1=$? &&
	 cat gemini.out gemini.err >unguarded.out &&
	 cp ../guarded-g.json .gemini/settings.json &&
	 PATH=$(no_gs_path) gemini_run_home "hello"; rc2=$?; stop_server &&
	 test $rc1 = 0 && test $rc2 = 0 &&
	 grep "Hi there." gemini.out &&
	 grep "git-session: not found\|git-session: command not found" unguarded.out &&
	 ! grep -i "git-session: not found\|git-session: command not found\|blocked\|hook.*fail\|fail.*hook" gemini.out gemini.err &&
	 test_must_fail git rev-parse -q --verify SESSION_HEAD)
'

test_done
