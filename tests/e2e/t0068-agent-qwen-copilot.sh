#!/bin/sh
test_description='Qwen Code and Copilot CLI recorded as themselves: their settings, their payloads, Copilot through Claude Code'"'"'s hooks, and the real CLIs offline'
. ./lib.sh

agents="$TEST_DIRECTORY/../agents"
qwen_js="$agents/node_modules/@qwen-code/qwen-code/cli-entry.js"
copilot_bin="$agents/node_modules/.bin/copilot"
# the prerequisites, as commands test_have_prereq finds
if command -v node >/dev/null 2>&1 && test -f "$qwen_js"; then qwen_cli () { :; }; else
	say "# the Qwen Code runs are skipped: no Node.js, or no tests/agents/node_modules (make deps installs it)"; fi
if command -v node >/dev/null 2>&1 && test -x "$copilot_bin"; then copilot_cli () { :; }; else
	say "# the Copilot CLI runs are skipped: no Node.js, or no tests/agents/node_modules (make deps installs it)"; fi

R="$TRASH_DIRECTORY/repo"
H="$TRASH_DIRECTORY/home"

# hook <agent> <event> <payload> [env...]: one event, as the agent's hook runs it, in HOME=$H
hook () {
	agent=$1 event=$2 payload=$3 && shift 3 &&
	printf '%s\n' "$payload" | env HOME="$H" "$@" git-session hook "$agent" "$event"
}
# late_hook <agent> <event> <payload>: as hook, from a process that ends as an agent does once its
# turn is over (a turn of Copilot's is read once its CLI is gone)
late_hook () {
	printf '%s\n' "$3" | env HOME="$H" A="$1" E="$2" sh -c 'sh -c "git-session hook \$A \$E; :"; :'
}
# turn_of <agent-stem>: the log once a turn of it is there; Copilot and Qwen write the end of a turn
# after their hook, and a process of git-session's reads it once they exit
turn_of () {
	for i in $(seq 1 300); do
		git log --format=%s SESSION_HEAD >log && grep -q "^turn of $1" log && return 0
		sleep 0.1
	done
	return 1
}

commits () { git rev-list --count SESSION_HEAD 2>/dev/null || echo 0; }

test_expect_success 'qwen-code: its settings get our hooks and back, byte for byte; its user file; no local one' '
	printf "{\n    \"model\": {\"name\": \"qwen3-coder-plus\"},\n    \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo mine\"}]}]}\n}\n" >mine.json &&
	mkdir -p .qwen && cp mine.json .qwen/settings.json &&
	git session hooks install --agent qwen-code >out 2>err &&
	grep "Installed the git-session hooks for qwen-code in .\.qwen/settings\.json." out &&
	grep "^hint: Qwen Code runs a project.s hooks only in a folder it trusts" err &&
	grep "TRUST_FOLDER" err &&
	test "$(json_field .qwen/settings.json "d[\"hooks\"][\"PostToolUse\"][0][\"matcher\"]")" = write_file\|edit\|run_shell_command &&
	test "$(json_field .qwen/settings.json "d[\"hooks\"][\"SessionStart\"][0][\"hooks\"][0][\"timeout\"]")" = 10000 &&
	test "$(json_field .qwen/settings.json "d[\"hooks\"][\"Stop\"][0][\"hooks\"][0][\"command\"]")" = "echo mine" &&
	git session hooks status >st && grep "qwen-code *installed (10 of 10 events, .qwen/settings.json)" st &&
	git session hooks uninstall --agent qwen-code >/dev/null &&
	test_cmp mine.json .qwen/settings.json &&
	mkdir -p "$H/.qwen" && HOME="$H" git session hooks install --agent qwen-code --user >out &&
	grep "$H/.qwen/settings.json" out &&
	HOME="$H" git session hooks uninstall --agent qwen-code --user >/dev/null &&
	! test -e "$H/.qwen/settings.json" &&
	test_must_fail git session hooks install --agent qwen-code --local 2>err &&
	grep "^error: qwen-code has no settings of one person.s in the project" err &&
	grep "^hint: install with --user" err &&
	rm -r .qwen
'

test_expect_success 'copilot-cli: its hooks file is ours, made and removed whole; one not ours is refused' '
	! test -e .github &&
	git session hooks install --agent copilot-cli >out 2>err &&
	grep "Installed the git-session hooks for copilot-cli in .\.github/hooks/git-session\.json." out &&
	grep "^hint: Copilot CLI runs a project.s hooks only in a folder it trusts" err &&
	grep "trustedFolders" err &&
	f=.github/hooks/git-session.json &&
	test "$(json_field $f "d[\"version\"]")" = 1 &&
	test "$(json_field $f "d[\"hooks\"][\"agentStop\"][0][\"bash\"].endswith(\"git-session hook copilot-cli agentStop\")")" = true &&
	test "$(json_field $f "d[\"hooks\"][\"agentStop\"][0][\"timeoutSec\"]")" = 10 &&
	git session hooks install --agent copilot-cli >out && grep "are in .\.github/hooks/git-session\.json. already" out &&
	git session hooks status >st && grep "copilot-cli *installed (10 of 10 events" st &&
	git session hooks uninstall --agent copilot-cli >/dev/null &&
	! test -e .github &&
	mkdir -p .github/hooks && echo keep >.github/keep &&
	git session hooks install --agent copilot-cli >/dev/null && git session hooks uninstall --agent copilot-cli >/dev/null &&
	test -f .github/keep && ! test -e .github/hooks/git-session.json &&
	printf "{\"version\": 1, \"hooks\": {\"sessionStart\": [{\"type\": \"command\", \"bash\": \"echo theirs\"}]}}\n" >theirs.json &&
	cp theirs.json $f &&
	test_must_fail git session hooks install --agent copilot-cli 2>err &&
	grep "^error: cannot add the hooks to .\.github/hooks/git-session\.json.: the file is not git-session.s" err &&
	git session hooks uninstall --agent copilot-cli >out && grep "No git-session hooks" out &&
	test_cmp theirs.json $f &&
	mkdir -p "$H/.copilot" && HOME="$H" git session hooks install --agent copilot-cli --user >out &&
	grep "$H/.copilot/hooks/git-session.json" out &&
	HOME="$H" git session hooks uninstall --agent copilot-cli --user >/dev/null &&
	! test -e "$H/.copilot/hooks" &&
	rm -r .github
'

test_expect_success 'qwen-code: its payloads replayed; the empty prompt after a tool batch is no prompt' '
	t="$H/.qwen/projects/-repo/chats/q1.jsonl" && mkdir -p "${t%/*}" &&
	p="\"session_id\":\"q1\",\"transcript_path\":\"$t\",\"cwd\":\"$R\",\"timestamp\":\"2026-11-26T08:58:01.414Z\",\"permission_mode\":\"yolo\"" &&
	hook qwen-code SessionStart "{$p,\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}" &&
	hook qwen-code UserPromptSubmit "{$p,\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"make the qwen notes\",\"submitted_prompt\":\"make the qwen notes\"}" &&
	printf "# notes\n" >qnotes.md &&
	hook qwen-code PostToolUse "{$p,\"tool_name\":\"write_file\",\"tool_input\":{\"file_path\":\"$R/qnotes.md\",\"content\":\"# notes\\n\"},\"tool_response\":{\"llmContent\":\"Successfully created and wrote to new file: $R/qnotes.md.\"},\"duration_ms\":4}" &&
	hook qwen-code UserPromptSubmit "{$p,\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"\"}" &&
	hook qwen-code PostToolUseFailure "{$p,\"tool_name\":\"run_shell_command\",\"tool_input\":{\"command\":\"ls missing-file\"},\"error\":\"Command: ls missing-file\\nOutput: no\\nExit Code: 2\\nSignal: (none)\",\"duration_ms\":1076}" &&
	st="$H/.qwen/projects/-repo/subagents/q1/agent-general-purpose-call_5.jsonl" && mkdir -p "${st%/*}" &&
	hook qwen-code SubagentStart "{$p,\"hook_event_name\":\"SubagentStart\",\"agent_id\":\"general-purpose-call_5\",\"agent_type\":\"general-purpose\"}" &&
	printf "sub\n" >qsub.txt &&
	hook qwen-code PostToolUse "{$p,\"agent_id\":\"general-purpose-call_5\",\"agent_type\":\"general-purpose\",\"tool_name\":\"write_file\",\"tool_input\":{\"file_path\":\"$R/qsub.txt\",\"content\":\"sub\\n\"},\"tool_response\":{\"llmContent\":\"Successfully created and wrote to new file: $R/qsub.txt.\"}}" &&
	echo "{\"uuid\":\"s1\",\"type\":\"assistant\",\"message\":{\"role\":\"model\",\"parts\":[]},\"usageMetadata\":{\"promptTokenCount\":500,\"candidatesTokenCount\":5,\"cachedContentTokenCount\":0}}" >"$st" &&
	hook qwen-code SubagentStop "{$p,\"hook_event_name\":\"SubagentStop\",\"agent_id\":\"general-purpose-call_5\",\"agent_type\":\"general-purpose\",\"agent_transcript_path\":\"$st\",\"last_assistant_message\":\"Sub-agent finished.\"}" &&
	printf "%s\n" "{\"uuid\":\"u1\",\"sessionId\":\"q1\",\"type\":\"user\",\"message\":{\"role\":\"user\",\"parts\":[{\"text\":\"make the qwen notes\"}]}}" \
		"{\"uuid\":\"u2\",\"sessionId\":\"q1\",\"type\":\"assistant\",\"message\":{\"role\":\"model\",\"parts\":[{\"text\":\"Qwen notes written.\"}]},\"usageMetadata\":{\"promptTokenCount\":1007,\"candidatesTokenCount\":27,\"thoughtsTokenCount\":0,\"cachedContentTokenCount\":100}}" \
		"{\"uuid\":\"u3\",\"type\":\"system\",\"subtype\":\"ui_telemetry\"}" >"$t" &&
	late_hook qwen-code Stop "{$p,\"hook_event_name\":\"Stop\",\"stop_hook_active\":false,\"last_assistant_message\":\"Qwen notes written.\"}" &&
	turn_of qwen-q1 &&
	test $(grep -c "^note: " log) = 1 && grep "^note: \"make the qwen notes\"" log &&
	grep "^agent qwen-q1 started (qwen-code)$" log &&
	grep "^file created: qnotes.md by qwen-q1$" log &&
	grep "^run by qwen-q1: \"ls missing-file\" (exit 2, 1076 ms)$" log &&
	grep "^turn of qwen-q1: \"Qwen notes written.\" (+907 in, +27 out; transcript part 1[; 0-9a-z]*)$" log &&
	grep "^file created: qsub.txt by general-purpose-" log &&
	session_json >s &&
	test "$(json_field s "[[a[\"status\"], a[\"parent\"], a[\"cli\"]] for a in d[\"agents\"] if a[\"type\"] == \"general-purpose\"]")" = \
		"[[\"completed\", \"qwen-q1\", \"qwen-code\"]]" &&
	git cat-file -p SESSION_HEAD:transcripts/qwen-q1/000/000001 >part &&
	grep -q "Qwen notes written" part && ! grep -q ui_telemetry part &&
	git session close -q
'

test_expect_success 'copilot-cli: its payloads replayed; a sub-agent'"'"'s prompt and turn are not the user'"'"'s' '
	t="$H/.copilot/session-state/c1/events.jsonl" && mkdir -p "${t%/*}" &&
	p="\"sessionId\":\"c1\",\"timestamp\":1795683718377,\"cwd\":\"$R\"" &&
	s="\"sessionId\":\"a1\",\"timestamp\":1795683718400,\"cwd\":\"$R\",\"agentId\":\"a1\",\"agentType\":\"general-purpose\",\"parentAgentId\":\"c1\"" &&
	hook copilot-cli sessionStart "{$p,\"source\":\"new\",\"initialPrompt\":\"make the copilot notes\"}" &&
	hook copilot-cli userPromptSubmitted "{$p,\"prompt\":\"make the copilot notes\"}" &&
	printf "# notes\n" >cnotes.md &&
	hook copilot-cli postToolUse "{$p,\"toolName\":\"create\",\"toolArgs\":{\"path\":\"$R/cnotes.md\",\"file_text\":\"# notes\\n\"},\"toolResult\":{\"resultType\":\"success\",\"textResultForLlm\":\"Created file\"}}" &&
	hook copilot-cli postToolUse "{$p,\"toolName\":\"bash\",\"toolArgs\":{\"command\":\"sleep 1; exit 3\"},\"toolResult\":{\"resultType\":\"success\",\"textResultForLlm\":\"\\n<shellId: 0 completed with exit code 3>\"}}" &&
	hook copilot-cli subagentStart "{\"sessionId\":\"c1\",\"timestamp\":1,\"cwd\":\"$R\",\"transcriptPath\":\"$t\",\"agentName\":\"general-purpose\",\"agentId\":\"a1\",\"agentType\":\"general-purpose\",\"parentAgentId\":\"c1\"}" &&
	hook copilot-cli userPromptSubmitted "{$s,\"prompt\":\"sub task: write sub.txt\"}" &&
	printf "sub\n" >csub.txt &&
	hook copilot-cli postToolUse "{$s,\"toolName\":\"create\",\"toolArgs\":{\"path\":\"$R/csub.txt\",\"file_text\":\"sub\\n\"},\"toolResult\":{\"resultType\":\"success\",\"textResultForLlm\":\"Created\"}}" &&
	hook copilot-cli agentStop "{$s,\"transcriptPath\":\"$t\",\"stopReason\":\"end_turn\"}" &&
	hook copilot-cli subagentStop "{\"sessionId\":\"c1\",\"timestamp\":2,\"cwd\":\"$R\",\"transcriptPath\":\"$t\",\"agentId\":\"a1\",\"agentType\":\"general-purpose\",\"agentName\":\"general-purpose\",\"response\":\"Sub-agent finished.\",\"parentAgentId\":\"c1\"}" &&
	printf "%s\n" "{\"type\":\"user.message\",\"data\":{\"content\":\"make the copilot notes\"},\"id\":\"e1\"}" \
		"{\"type\":\"session.usage_record\",\"data\":{\"usage\":{\"inputTokens\":1001,\"outputTokens\":21,\"cacheReadTokens\":100,\"apiCallId\":\"chatcmpl-1\"}},\"id\":\"e2\"}" \
		"{\"type\":\"assistant.message\",\"data\":{\"messageId\":\"m1\",\"content\":\"Copilot notes written.\",\"toolRequests\":[],\"apiCallId\":\"chatcmpl-1\"},\"id\":\"e3\"}" \
		"{\"type\":\"hook.start\",\"data\":{}}" >"$t" &&
	late_hook copilot-cli agentStop "{$p,\"transcriptPath\":\"$t\",\"stopReason\":\"end_turn\",\"stop_hook_active\":false}" &&
	hook copilot-cli sessionEnd "{$p,\"reason\":\"complete\"}" &&
	turn_of copilot-c1 &&
	test $(grep -c "^note: " log) = 1 && grep "^note: \"make the copilot notes\"" log &&
	grep "^agent copilot-c1 started (copilot-cli)$" log &&
	grep "^file created: cnotes.md by copilot-c1$" log &&
	grep "^run by copilot-c1: \"sleep 1; exit 3\" (exit 3)$" log &&
	grep "^file created: csub.txt by general-purpose-" log &&
	test $(grep -c "^turn of copilot-c1" log) = 1 &&
	grep "^turn of copilot-c1: \"Copilot notes written.\" (+901 in, +21 out; transcript part 1[; 0-9a-z]*)$" log &&
	session_json >s &&
	test "$(json_field s "[a[\"status\"] for a in d[\"agents\"] if a[\"type\"] == \"general-purpose\"]")" = "[\"completed\"]" &&
	git cat-file -p SESSION_HEAD:transcripts/copilot-c1/000/000001 >part &&
	grep -q "Copilot notes written" part && ! grep -q hook.start part &&
	git session close -q
'

test_expect_success 'copilot-cli: an apply_patch (gpt-5 models), its own way and through Claude Code'"'"'s hooks: each file it names' '
	mkdir -p patched && printf "one\ntwo\n" >patched/old.txt && printf "bye\n" >patched/gone.txt &&
	git add patched && git commit -q -m "to patch" &&
	patch="*** Begin Patch\\n*** Add File: added.txt\\n+hello\\n*** Update File: old.txt\\n@@\\n one\\n-two\\n+TWO\\n*** Delete File: gone.txt\\n*** End Patch\\n" &&
	p="\"sessionId\":\"c3\",\"timestamp\":1795683677600,\"cwd\":\"$R/patched\"" &&
	hook copilot-cli userPromptSubmitted "{$p,\"prompt\":\"patch three files\"}" &&
	printf "hello\n" >patched/added.txt && printf "one\nTWO\n" >patched/old.txt && rm patched/gone.txt &&
	hook copilot-cli postToolUse "{$p,\"toolName\":\"apply_patch\",\"toolArgs\":\"$patch\",\"toolResult\":{\"resultType\":\"success\",\"textResultForLlm\":\"Added 1 file(s)\"}}" &&
	git log -1 --format=%s SESSION_HEAD >subject &&
	grep "^checkpoint: 3 files by copilot-c3$" subject &&
	git ls-tree -r --name-only SESSION_HEAD files/ >files &&
	grep "^files/patched/added.txt$" files && grep "^files/patched/old.txt$" files &&
	test "$(git rev-parse SESSION_HEAD:files/patched/old.txt)" = "$(git hash-object patched/old.txt)" &&
	session_json >s &&
	test "$(json_field s "d[\"files\"][\"patched/gone.txt\"][\"status\"]")" = deleted &&
	printf "again\n" >patched/added.txt &&
	c="\"session_id\":\"c3\",\"timestamp\":\"2026-11-26T09:01:17.600Z\",\"cwd\":\"$R/patched\"" &&
	edit="*** Begin Patch\\n*** Update File: added.txt\\n@@\\n-hello\\n+again\\n*** End Patch\\n" &&
	hook claude-code PostToolUse "{\"hook_event_name\":\"PostToolUse\",$c,\"tool_name\":\"Edit\",\"tool_input\":\"$edit\",\"tool_result\":{\"result_type\":\"success\"}}" COPILOT_CLI=1 &&
	git log -1 --format=%s SESSION_HEAD >subject &&
	grep "^file modified: patched/added.txt by copilot-c3$" subject &&
	git session close -q
'

test_expect_success 'Copilot through Claude Code'"'"'s hooks is copilot-cli, read its way; Claude Code'"'"'s own stay Claude'"'"'s' '
	p="\"session_id\":\"c2\",\"timestamp\":\"2026-11-26T09:01:58.377Z\",\"cwd\":\"$R\"" &&
	hook claude-code UserPromptSubmit "{\"hook_event_name\":\"UserPromptSubmit\",$p,\"prompt\":\"notes through claude hooks\"}" COPILOT_CLI=1 &&
	printf "x\n" >viaclaude.md &&
	hook claude-code PostToolUse "{\"hook_event_name\":\"PostToolUse\",$p,\"tool_name\":\"Write\",\"tool_input\":{\"path\":\"$R/viaclaude.md\",\"file_text\":\"x\\n\"},\"tool_result\":{\"result_type\":\"success\",\"text_result_for_llm\":\"Created\"}}" COPILOT_CLI=1 &&
	hook claude-code PostToolUse "{\"hook_event_name\":\"PostToolUse\",$p,\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls nothing\"},\"tool_result\":{\"result_type\":\"success\",\"text_result_for_llm\":\"no\\n<shellId: 0 completed with exit code 2>\"}}" &&
	git log --format=%s SESSION_HEAD >log &&
	grep "^agent copilot-c2 started (copilot-cli)$" log &&
	grep "^file created: viaclaude.md by copilot-c2$" log &&
	grep "^run by copilot-c2: \"ls nothing\" (exit 2)$" log &&
	! grep "claude-[0-9a-f]\{8\}\|(claude-code)" log &&
	c="\"session_id\":\"k1\",\"transcript_path\":\"$H/.claude/projects/p/k1.jsonl\",\"cwd\":\"$R\",\"permission_mode\":\"bypassPermissions\"" &&
	printf "h\n" >byclaude.txt &&
	hook claude-code PostToolUse "{$c,\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$R/byclaude.txt\",\"content\":\"h\\n\"},\"tool_response\":{\"type\":\"create\"},\"tool_use_id\":\"t1\",\"duration_ms\":3}" CLAUDECODE=1 COPILOT_CLI=1 &&
	git log --format=%s SESSION_HEAD >log &&
	grep "^file created: byclaude.txt by claude-k1$" log &&
	git session close -q
'

test_expect_success 'Copilot with its own hooks and Claude Code'"'"'s both installed is recorded once' '
	git session hooks install --agent copilot-cli >/dev/null 2>&1 &&
	p="\"session_id\":\"c3\",\"timestamp\":\"2026-11-26T09:01:58.377Z\",\"cwd\":\"$R\"" &&
	hook copilot-cli userPromptSubmitted "{\"sessionId\":\"c3\",\"timestamp\":1,\"cwd\":\"$R\",\"prompt\":\"once only\"}" &&
	before=$(commits) &&
	hook claude-code UserPromptSubmit "{\"hook_event_name\":\"UserPromptSubmit\",$p,\"prompt\":\"once only\"}" COPILOT_CLI=1 &&
	printf "y\n" >once.md &&
	hook claude-code PostToolUse "{\"hook_event_name\":\"PostToolUse\",$p,\"tool_name\":\"Write\",\"tool_input\":{\"path\":\"$R/once.md\",\"file_text\":\"y\\n\"}}" COPILOT_CLI=1 &&
	test "$(commits)" = "$before" &&
	git log --format=%s SESSION_HEAD >log &&
	test $(grep -c "^note: \"once only\"" log) = 1 &&
	git session hooks uninstall --agent copilot-cli >/dev/null &&
	git session close -q
'

# --- the real CLIs, offline, against the scripted model ---

qwen_run () {
	in_netns env HOME="$TRASH_DIRECTORY/qwen-home" OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" OPENAI_API_KEY=test \
		OPENAI_MODEL=qwen3-coder-plus QWEN_CODE_SUPPRESS_YOLO_WARNING=1 NO_COLOR=1 \
		timeout 180 node "$qwen_js" "$1" --approval-mode yolo >qwen.out 2>qwen.err
}

# one cache for Copilot's package (it unpacks ~235 MB on its first run), no update
copilot_run () {
	in_netns env HOME="$TRASH_DIRECTORY/copilot-home" XDG_CACHE_HOME="$TRASH_DIRECTORY/copilot-cache" COPILOT_AUTO_UPDATE=false \
		COPILOT_OFFLINE=true COPILOT_PROVIDER_BASE_URL="http://127.0.0.1:$PORT/v1" COPILOT_PROVIDER_API_KEY=test \
		COPILOT_MODEL=gpt-4.1 timeout 240 "$copilot_bin" -p "$1" --allow-all-tools --no-ask-user \
		--no-auto-update >copilot.out 2>copilot.err
}

test_expect_success QWEN_CLI 'Qwen Code: a prompt, a file created and patched, a shell command and tokens, checked with plain git' '
	mkdir -p "$TRASH_DIRECTORY/qwen-home/.qwen" &&
	echo "{\"security\":{\"auth\":{\"selectedType\":\"openai\"}},\"privacy\":{\"usageStatisticsEnabled\":false},\"telemetry\":{\"enabled\":false}}" \
		>"$TRASH_DIRECTORY/qwen-home/.qwen/settings.json" &&
	git session hooks install --agent qwen-code >/dev/null 2>&1 &&
	cat >script.json <<-EOF &&
	[{"match": "make the notes", "calls": [
	  {"name": "write_file", "input": {"file_path": "$R/notes.md", "content": "# notes\\nfirst line\\n"}},
	  {"name": "edit", "input": {"file_path": "$R/notes.md", "old_string": "first line", "new_string": "patched line"}},
	  {"name": "run_shell_command", "input": {"command": "ls missing-file", "description": "fail"}},
	  {"name": "run_shell_command", "input": {"command": "echo done >out.txt", "description": "write"}}],
	  "answer": "Notes written and patched."}]
	EOF
	serve script.json &&
	qwen_run "make the notes please" ; rc=$?; stop_server; test $rc = 0 &&
	grep "Notes written and patched." qwen.out &&
	turn_of qwen- &&
	agent=$(sed -n "s/^agent \(qwen-[0-9a-f]*\) started (qwen-code)$/\1/p" log) &&
	test -n "$agent" &&
	test $(grep -c "^note: " log) = 1 && grep "^note: \"make the notes please\"" log &&
	grep "^file created: notes.md by $agent$" log &&
	grep "^file modified: notes.md by $agent$" log &&
	grep "^run by $agent: \"ls missing-file\" (exit 2, [0-9]* ms)$" log &&
	grep "^run by $agent: \"echo done >out.txt\" (exit 0, [0-9]* ms)$" log &&
	# five responses, each 1000 + n in (100 of them cached) and 20 + n out: the last, written after Stop, too
	grep "^turn of $agent: \"Notes written and patched.\" (+4515 in, +100 out; transcript part 1; [0-9]* files\{0,1\})$" log &&
	test "$(git rev-parse SESSION_HEAD:files/notes.md)" = "$(git hash-object notes.md)" &&
	test "$(git show SESSION_HEAD:files/notes.md)" = "# notes
patched line" &&
	test "$(git rev-parse SESSION_HEAD:files/out.txt)" = "$(git hash-object out.txt)" &&
	git cat-file -p SESSION_HEAD:transcripts/$agent/000/000001 >part &&
	grep -q "patched line" part &&
	session_json >s &&
	test "$(json_field s "d[\"tokens\"][\"by_agent\"][\"$agent\"][\"cached\"] > 0")" = true &&
	git session hooks uninstall --agent qwen-code >/dev/null &&
	git session close -q
'

test_expect_success COPILOT_CLI 'Copilot CLI: a prompt, a file created and patched, a shell command and tokens, checked with plain git' '
	mkdir -p "$TRASH_DIRECTORY/copilot-home/.copilot" &&
	echo "{\"trustedFolders\": [\"$R\"]}" >"$TRASH_DIRECTORY/copilot-home/.copilot/config.json" &&
	git session hooks install --agent copilot-cli >/dev/null 2>&1 &&
	git session hooks install --agent claude-code >/dev/null 2>&1 &&
	cat >script.json <<-EOF &&
	[{"match": "write the copilot notes", "calls": [
	  {"name": "create", "input": {"path": "$R/cnotes2.md", "file_text": "# notes\\nfirst line\\n"}},
	  {"name": "edit", "input": {"path": "$R/cnotes2.md", "old_str": "first line", "new_str": "patched line"}},
	  {"name": "bash", "input": {"command": "ls missing-file; echo done >cout.txt; exit 3", "description": "fail"}}],
	  "answer": "Copilot notes written and patched."}]
	EOF
	serve script.json &&
	copilot_run "write the copilot notes please" ; rc=$?; stop_server; test $rc = 0 &&
	grep "Copilot notes written and patched." copilot.out &&
	turn_of copilot- &&
	agent=$(sed -n "s/^agent \(copilot-[0-9a-f]*\) started (copilot-cli)$/\1/p" log) &&
	test -n "$agent" &&
	! grep "(claude-code)" log &&
	test $(grep -c "^note: " log) = 1 && grep "^note: \"write the copilot notes please\"" log &&
	grep "^file created: cnotes2.md by $agent$" log &&
	grep "^file modified: cnotes2.md by $agent$" log &&
	grep "^run by $agent: \"ls missing-file; echo done >cout.txt; exit 3\" (exit 3)$" log &&
	test $(grep -c "^run by " log) = 1 &&
	grep "^turn of $agent: \"Copilot notes written and patched.\" (+3610 in, +80 out; transcript part 1; [0-9]* files\{0,1\})$" log &&
	test "$(git show SESSION_HEAD:files/cnotes2.md)" = "# notes
patched line" &&
	test "$(git rev-parse SESSION_HEAD:files/cout.txt)" = "$(git hash-object cout.txt)" &&
	session_json >s &&
	test "$(json_field s "d[\"tokens\"][\"by_agent\"][\"$agent\"][\"cached\"] > 0")" = true &&
	git session hooks uninstall --agent copilot-cli >/dev/null &&
	git session hooks uninstall --agent claude-code >/dev/null &&
	git session close -q
'

test_expect_success COPILOT_CLI 'Copilot CLI through Claude Code'"'"'s hooks alone: recorded as copilot-cli' '
	git session hooks install --agent claude-code >/dev/null 2>&1 &&
	cat >script.json <<-EOF &&
	[{"match": "claude path", "calls": [
	  {"name": "create", "input": {"path": "$R/viaclaude2.md", "file_text": "via\\n"}}],
	  "answer": "Done via Claude hooks."}]
	EOF
	serve script.json &&
	copilot_run "claude path please" ; rc=$?; stop_server; test $rc = 0 &&
	turn_of copilot- &&
	agent=$(sed -n "s/^agent \(copilot-[0-9a-f]*\) started (copilot-cli)$/\1/p" log) &&
	test -n "$agent" &&
	grep "^file created: viaclaude2.md by $agent$" log &&
	grep "^turn of $agent: \"Done via Claude hooks.\" (+[1-9][0-9]* in, +[1-9][0-9]* out; transcript part 1)$" log &&
	! grep "(claude-code)" log &&
	git session hooks uninstall --agent claude-code >/dev/null &&
	git session close -q
'

test_expect_success QWEN_CLI 'Qwen Code: past the budget, the tool call is refused' '
	git session hooks install --agent qwen-code >/dev/null 2>&1 &&
	echo "[{\"match\": \"first\", \"answer\": \"ok\"}]" >script.json &&
	serve script.json && qwen_run "first prompt" ; rc=$?; stop_server; test $rc = 0 &&
	turn_of qwen- &&
	git session tokens budget 100 -q &&
	git config session.enforceBudget true &&
	cat >script.json <<-EOF &&
	[{"match": "write more", "calls": [{"name": "write_file", "input": {"file_path": "$R/more.txt", "content": "more\\n"}}], "answer": "Could not."}]
	EOF
	serve script.json &&
	qwen_run "write more text" ; rc=$?; stop_server; test $rc = 0 &&
	git config --unset session.enforceBudget &&
	! test -e more.txt &&
	git session hooks uninstall --agent qwen-code >/dev/null &&
	git session close -q
'

test_expect_success COPILOT_CLI 'Copilot CLI: past the budget, the tool call is refused' '
	git session hooks install --agent copilot-cli >/dev/null 2>&1 &&
	echo "[{\"match\": \"first\", \"answer\": \"ok\"}]" >script.json &&
	serve script.json && copilot_run "first prompt" ; rc=$?; stop_server; test $rc = 0 &&
	turn_of copilot- &&
	git session tokens budget 100 -q &&
	git config session.enforceBudget true &&
	cat >script.json <<-EOF &&
	[{"match": "write more", "calls": [{"name": "create", "input": {"path": "$R/more.txt", "file_text": "more\\n"}}], "answer": "Could not."}]
	EOF
	serve script.json &&
	copilot_run "write more text" ; rc=$?; stop_server; test $rc = 0 &&
	git config --unset session.enforceBudget &&
	! test -e more.txt &&
	git session hooks uninstall --agent copilot-cli >/dev/null &&
	git session close -q
'

test_done
