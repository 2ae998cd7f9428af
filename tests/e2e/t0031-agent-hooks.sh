#!/bin/sh
test_description='agent hooks: Claude Code and Gemini CLI events recorded, settings merged and given back, secrets redacted, the budget enforced'
. ./lib.sh

SID=1a2b3c4d-aaaa-bbbb-cccc-000000000001
# where the agents keep their transcripts, as they do: ~/.claude/projects/, ~/.gemini/tmp/
mkdir -p "$HOME/.claude/projects/repo/$SID/subagents" "$HOME/.gemini/tmp/0a1b/chats"
T="$HOME/.claude/projects/repo/$SID.jsonl"
AGENT=claude-1a2b3c4d

claude () {
	ev claude-code "$1" "{\"session_id\":\"${3:-$SID}\",\"transcript_path\":\"$T\",\"cwd\":\"$PWD\",\"hook_event_name\":\"$1\"$2}"
}
# every object git holds, as text: what push would send
all_objects () { git cat-file --batch-all-objects --batch; }

test_expect_success 'install merges into the settings the user has, and is idempotent' '
	mkdir .claude &&
	printf "{\n    \"permissions\": {\n        \"allow\": [\"Bash(make:*)\"]\n    },\n    \"hooks\": {\n        \"Stop\": [\n            {\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}\n        ]\n    }\n}\n" >.claude/settings.json &&
	cp .claude/settings.json ../settings.orig &&
	git session hooks install --agent claude-code >out &&
	grep "^Installed the git-session hooks for claude-code in .\.claude/settings\.json.$" out &&
	python3 -c "
import json
s = json.load(open(\".claude/settings.json\"))
assert s[\"permissions\"] == {\"allow\": [\"Bash(make:*)\"]}, s
stop = s[\"hooks\"][\"Stop\"]
assert stop[0][\"hooks\"][0][\"command\"] == \"notify-send done\", stop
guard = \"command -v git-session >/dev/null 2>&1 || exit 0; \"
assert stop[1][\"hooks\"][0][\"command\"] == guard + \"git-session hook claude-code Stop\", stop
for e in (\"SessionStart\", \"UserPromptSubmit\", \"PreToolUse\", \"PostToolUse\", \"PostToolUseFailure\",
          \"SubagentStart\", \"SubagentStop\", \"PreCompact\", \"SessionEnd\"):
    assert s[\"hooks\"][e][-1][\"hooks\"][0][\"command\"] == guard + \"git-session hook claude-code \" + e, e
    assert s[\"hooks\"][e][-1][\"hooks\"][0][\"timeout\"] == 10, e
assert s[\"hooks\"][\"PostToolUse\"][-1][\"matcher\"] == \"Write|Edit|MultiEdit|NotebookEdit|Bash\"
assert s[\"hooks\"][\"PostToolUseFailure\"][-1][\"matcher\"] == \"Bash\"
" &&
	head -c 60 .claude/settings.json >head && head -c 60 ../settings.orig >head.orig && test_cmp head.orig head &&
	cp .claude/settings.json ../settings.installed &&
	git session hooks install --agent claude-code >out &&
	grep "already" out &&
	test_cmp ../settings.installed .claude/settings.json &&
	git session hooks status >out &&
	grep "^agent hooks:" out &&
	grep "claude-code  *installed (10 of 10 events, .claude/settings.json)" out &&
	grep "gemini-cli  *not installed" out
'

test_expect_success 'uninstall gives the file back byte for byte' '
	git session hooks uninstall --agent claude-code >out &&
	grep "^Removed the git-session hooks for claude-code" out &&
	test_cmp ../settings.orig .claude/settings.json &&
	git session hooks uninstall --agent claude-code >out &&
	grep "^No git-session hooks for claude-code" out &&
	test_cmp ../settings.orig .claude/settings.json
'

test_expect_success 'uninstall after the user changed the file takes out only our hooks' '
	git session hooks install --agent claude-code >/dev/null &&
	sed "s/Bash(make:\*)/Bash(make:*)\", \"Read/" .claude/settings.json >tmp && mv tmp .claude/settings.json &&
	git session hooks uninstall --agent claude-code >/dev/null &&
	sed "s/Bash(make:\*)/Bash(make:*)\", \"Read/" ../settings.orig >expect &&
	test_cmp expect .claude/settings.json
'

test_expect_success 'a file install made is removed by uninstall, folder and all' '
	git session hooks install --agent gemini-cli >/dev/null &&
	python3 -c "
import json
s = json.load(open(\".gemini/settings.json\"))
assert s[\"hooks\"][\"AfterTool\"][0][\"matcher\"] == \"write_file|replace|run_shell_command\"
assert s[\"hooks\"][\"BeforeAgent\"][0][\"hooks\"][0][\"timeout\"] == 10000
" &&
	git session hooks uninstall --agent gemini-cli >/dev/null &&
	! test -e .gemini
'

test_expect_success 'settings that are not JSON are refused, and left as they were' '
	mkdir -p .gemini && echo "{ // a comment" >.gemini/settings.json && cp .gemini/settings.json bad.orig &&
	test_must_fail git session hooks install --agent gemini-cli 2>err &&
	grep "^error: cannot add the hooks to .\.gemini/settings\.json." err &&
	test_cmp bad.orig .gemini/settings.json &&
	rm -r .gemini &&
	test_expect_code 129 git session hooks install --agent nope 2>err &&
	grep "unknown agent .nope." err
'

test_expect_success 'no session and no prompt yet: a session start records nothing' '
	claude SessionStart ",\"source\":\"startup\"" &&
	test_must_be_empty ev.err &&
	test_must_fail git rev-parse -q --verify SESSION_HEAD
'

test_expect_success 'the first prompt starts a session, its topic from the prompt, secrets redacted' '
	claude UserPromptSubmit ",\"prompt\":\"Add a greeting module with key AKIAIOSFODNN7EXAMPLE\nand more\"" &&
	test_must_be_empty ev.err &&
	id=$(git symbolic-ref --short SESSION_HEAD | sed "s|^sessions/||") &&
	case $id in *add-a-greeting-module*) ;; *) echo "id $id"; false ;; esac &&
	session_json >s &&
	test "$(json_field s "d[\"topic\"]")" = "Add a greeting module with key [REDACTED:aws-key]" &&
	test "$(json_field s "[(n[\"agent\"], n[\"text\"]) for n in d[\"notes\"]]")" = \
		"[[\"$AGENT\", \"Add a greeting module with key [REDACTED:aws-key]\\nand more\"]]" &&
	test "$(json_field s "[(a[\"id\"], a[\"type\"], a[\"status\"], a[\"session\"]) for a in d[\"agents\"]]")" = \
		"[[\"$AGENT\", \"claude-code\", \"in_progress\", \"$SID\"]]" &&
	! all_objects | grep -a AKIAIOSFODNN7EXAMPLE
'

test_expect_success 'a file the agent writes or edits is recorded with its blob and the agent' '
	echo "int main(void) { return 0; }" >hello.c &&
	claude PostToolUse ",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$PWD/hello.c\",\"content\":\"x\"},\"tool_response\":{\"type\":\"create\",\"filePath\":\"$PWD/hello.c\"}" &&
	echo "hello again" >>README &&
	claude PostToolUse ",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$PWD/README\",\"old_string\":\"a\",\"new_string\":\"b\"}" &&
	claude PostToolUse ",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"/tmp/elsewhere.txt\"}" &&
	claude PostToolUse ",\"tool_name\":\"Read\",\"tool_input\":{\"file_path\":\"$PWD/README\"}" &&
	git log --format=%s -2 SESSION_HEAD >log &&
	printf "file modified: README by %s\nfile created: hello.c by %s\n" $AGENT $AGENT >expect &&
	test_cmp expect log &&
	test "$(git rev-parse SESSION_HEAD:files/hello.c)" = "$(git hash-object hello.c)" &&
	test "$(git rev-parse SESSION_HEAD:files/README)" = "$(git hash-object README)" &&
	session_json >s &&
	test "$(json_field s "d[\"files\"][\"hello.c\"][\"agent\"]")" = $AGENT
'

test_expect_success 'the end of a turn: a checkpoint with the tokens and the transcript part, each message once' '
	cat >"$T" <<-EOF &&
	{"type":"user","message":{"role":"user","content":"hi, my password=hunter22"},"sessionId":"$SID"}
	{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"a"}],"usage":{"input_tokens":100,"cache_creation_input_tokens":20,"cache_read_input_tokens":300,"output_tokens":40}}}
	{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","name":"Write"}],"usage":{"input_tokens":100,"cache_creation_input_tokens":20,"cache_read_input_tokens":300,"output_tokens":40}}}
	{"type":"assistant","message":{"id":"msg_2","role":"assistant","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":5,"output_tokens":2}}}
	EOF
	claude Stop ",\"stop_hook_active\":false" &&
	test_must_be_empty ev.err &&
	git log --format=%s -1 SESSION_HEAD >log &&
	echo "turn of $AGENT: \"done\" (+125 in, +42 out; transcript part 1)" >expect &&
	test_cmp expect log &&
	session_json >s &&
	test "$(json_field s "[d[\"tokens\"][k] for k in (\"input\", \"output\", \"cached\")]")" = "[125, 42, 300]" &&
	test "$(json_field s "d[\"agents\"][0][\"transcript\"][\"offset\"]")" = "$(wc -c <"$T")" &&
	git cat-file -p SESSION_HEAD:transcripts/$AGENT/000/000001 >part &&
	grep "password=\[REDACTED:password\]" part &&
	test_line_count = 4 part &&
	! all_objects | grep -a hunter22 &&
	git session transcript --raw >out &&
	grep "^==> transcript of $AGENT <==" out &&
	git session transcript --raw --agent $AGENT >raw &&
	test_cmp part raw
'

test_expect_success 'the next turn adds only what is new, and a turn with nothing new writes nothing' '
	echo "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_3\",\"usage\":{\"input_tokens\":7,\"output_tokens\":3}}}" >>"$T" &&
	printf "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_4\"" >>"$T" &&
	claude Stop "" &&
	git cat-file -p SESSION_HEAD:transcripts/$AGENT/000/000002 >part2 &&
	test_line_count = 1 part2 &&
	grep msg_3 part2 &&
	test "$(git rev-parse SESSION_HEAD:transcripts/$AGENT/000/000001)" = "$(git rev-parse SESSION_HEAD~1:transcripts/$AGENT/000/000001)" &&
	before=$(git rev-parse SESSION_HEAD) &&
	claude Stop "" &&
	test "$(git rev-parse SESSION_HEAD)" = "$before" &&
	git session transcript --raw SESSION_HEAD~1 --agent $AGENT >old &&
	test_cmp part old
'

test_expect_success 'sub-agents: started, their own transcript read, done with their summary' '
	sub="$HOME/.claude/projects/repo/$SID/subagents/agent-x1.jsonl" &&
	echo "{\"type\":\"assistant\",\"isSidechain\":true,\"message\":{\"id\":\"msg_s\",\"usage\":{\"input_tokens\":11,\"output_tokens\":9}}}" >"$sub" &&
	claude SubagentStart ",\"agent_id\":\"x1y2z3w4v5\",\"agent_type\":\"Explore\"" &&
	claude SubagentStop ",\"agent_id\":\"x1y2z3w4v5\",\"agent_type\":\"Explore\",\"agent_transcript_path\":\"$sub\",\"last_assistant_message\":\"Found 3 call sites\"" &&
	test_must_be_empty ev.err &&
	session_json >s &&
	test "$(json_field s "[(a[\"type\"], a[\"status\"], a[\"result_summary\"], a[\"tokens\"][\"input\"]) for a in d[\"agents\"] if a[\"id\"] == \"Explore-x1y2z3w4\"]")" = \
		"[[\"Explore\", \"completed\", \"Found 3 call sites\", 11]]" &&
	git cat-file -e SESSION_HEAD:transcripts/Explore-x1y2z3w4/000/000001 &&
	git log --format=%s -2 SESSION_HEAD >log &&
	cat >expect <<-\EOF &&
	agent Explore-x1y2z3w4 done: "Found 3 call sites" (+11 in, +9 out; transcript part 1)
	agent Explore-x1y2z3w4 started (Explore)
	EOF
	test_cmp expect log
'

# run <command json> <extra>: a Bash call that ended, as Claude Code says it
bash_ok () { claude PostToolUse ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":$1},\"tool_response\":{\"stdout\":\"\",\"stderr\":\"\",\"interrupted\":false,\"isImage\":false}$2"; }
bash_failed () { claude PostToolUseFailure ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":$1},\"is_interrupt\":false$2"; }
# agent_field <id> <expression of a>: of the agent in s
agent_field () { json_field s "[$2 for a in d[\"agents\"] if a[\"id\"] == \"$1\"][0]"; }

test_expect_success 'a shell command is an agent.run: its command, exit status, time; a failure counted' '
	bash_failed "\"make test\"" ",\"error\":\"Exit code 2\\nmake: *** [test] Error 1\",\"duration_ms\":1234" &&
	test_must_be_empty ev.err &&
	bash_ok "\"make test\"" ",\"duration_ms\":80" &&
	git log --format=%s -2 SESSION_HEAD >log &&
	cat >expect <<-EOF &&
	run by $AGENT: "make test" (exit 0, 80 ms)
	run by $AGENT: "make test" (exit 2, 1234 ms)
	EOF
	test_cmp expect log &&
	git cat-file -p SESSION_HEAD:op.json >op &&
	grep "\"op\": *\"agent.run\"" op &&
	session_json >s &&
	test "$(agent_field $AGENT "[a[\"commands\"][k] for k in (\"run\", \"failed\")]")" = "[2, 1]" &&
	test "$(agent_field $AGENT "[a[\"commands\"][\"last\"][0][k] for k in (\"command\", \"exit\", \"ms\", \"failed\")]")" = \
		"[\"make test\", 2, 1234, true]" &&
	test "$(agent_field $AGENT "a[\"commands\"][\"last\"][1][\"at\"]")" != null
'

test_expect_success 'a hostile command: huge, with control characters and a secret, absurd numbers' '
	python3 -c "print(\"\\\"echo \" + \"x\" * (10 << 20) + \"\\\"\")" >big &&
	bash_ok "$(cat big)" ",\"duration_ms\":-5" &&
	test_must_be_empty ev.err &&
	bash_failed "\"env T=ghp_0123456789abcdefghijABCDEFGHIJ012345 \\u001b[31m x\\n\\ty\"" \
		",\"error\":\"Exit code 99999999999999\",\"duration_ms\":1e300" &&
	test_must_be_empty ev.err &&
	claude PostToolUseFailure ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"sleep 1\"},\"error\":\"Exit code -1\",\"is_interrupt\":true,\"duration_ms\":\"10\"" &&
	claude PostToolUse ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":[\"not\", \"a string\"]}" &&
	claude PostToolUse ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"grep x\"},\"tool_response\":{\"returnCodeInterpretation\":\"No matches found\"}" &&
	test_must_be_empty ev.err &&
	git log --format=%s -4 SESSION_HEAD >log &&
	test_line_count = 4 log &&
	sed -n 4p log | grep "^run by $AGENT: \"echo xxxx*\.\.\.\" (exit 0)$" &&
	sed -n 3p log | grep "^run by $AGENT: \"env \[REDACTED:[a-z-]*\] \[31m x y\" (failed)$" &&
	sed -n 2p log | grep "^run by $AGENT: \"sleep 1\" (exit -1)$" &&
	sed -n 1p log | grep "^run by $AGENT: \"grep x\" (exit unknown)$" &&
	session_json >s &&
	test "$(agent_field $AGENT "[a[\"commands\"][k] for k in (\"run\", \"failed\")]")" = "[6, 3]" &&
	test "$(agent_field $AGENT "a[\"commands\"][\"last\"][2][\"command\"]")" = \
		"echo $(printf "%0495d" 0 | tr 0 x)" &&
	test "$(agent_field $AGENT "[a[\"commands\"][\"last\"][2][k] for k in (\"exit\", \"ms\")]")" = "[0, null]" &&
	test "$(agent_field $AGENT "[a[\"commands\"][\"last\"][3][k] for k in (\"exit\", \"ms\", \"failed\")]")" = "[null, null, true]" &&
	! all_objects | grep -a ghp_0123456789abcdefghij &&
	test $(git cat-file -s SESSION_HEAD~3:op.json) -lt 4096
'

test_expect_success 'at the end of a turn with shell commands, the files they changed are the agent'"'"'s' '
	echo tracked >tracked.txt && git add tracked.txt && git commit -q -m tracked &&
	cp .git/info/exclude ../exclude.orig &&
	printf "/*\n!/gen.txt\n!/old.txt\n" >>.git/info/exclude &&
	echo secret >.env && echo "}}" >>"$T" &&
	echo before >old.txt && touch -d "2001-01-01" old.txt &&
	echo generated >gen.txt && echo more >>README && rm tracked.txt &&
	bash_ok "\"./generate\"" "" &&
	echo "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_g\",\"content\":[{\"type\":\"text\",\"text\":\"Generated.\"}],\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}" >>"$T" &&
	claude Stop ",\"last_assistant_message\":\"Generated gen.txt.\"" &&
	test_must_be_empty ev.err &&
	git log --format=%s -2 SESSION_HEAD >log &&
	sed -n 2p log | grep "^run by $AGENT: \"./generate\" (exit 0)$" &&
	sed -n 1p log | grep "^turn of $AGENT: \"Generated gen.txt.\" (+3 in, +1 out; transcript part [0-9]*; 3 files)$" &&
	session_json >s &&
	test "$(json_field s "[(p, d[\"files\"][p][\"status\"], d[\"files\"][p][\"agent\"]) for p in (\"gen.txt\", \"README\", \"tracked.txt\")]")" = \
		"[[\"gen.txt\", \"created\", \"$AGENT\"], [\"README\", \"modified\", \"$AGENT\"], [\"tracked.txt\", \"deleted\", \"$AGENT\"]]" &&
	test "$(git rev-parse SESSION_HEAD:files/gen.txt)" = "$(git hash-object gen.txt)" &&
	test "$(json_field s "[p for p in (\"old.txt\", \".env\") if p in d[\"files\"]]")" = "[]" &&
	test "$(agent_field $AGENT "a[\"last_reply\"]")" = "Generated gen.txt." &&
	echo again >>gen.txt &&
	echo "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_h\",\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}" >>"$T" &&
	claude Stop "" &&
	git log --format=%s -1 SESSION_HEAD >log &&
	grep "^turn of $AGENT: +3 in, +1 out" log &&
	test "$(git rev-parse SESSION_HEAD:files/gen.txt)" != "$(git hash-object gen.txt)" &&
	cp ../exclude.orig .git/info/exclude
'

test_expect_success 'what changed before the prompt, even within its second, is not the turn'"'"'s' '
	cp .git/info/exclude ../exclude.orig &&
	printf "/*\n!/early.txt\n!/late.txt\n" >>.git/info/exclude &&
	# written half a second before the prompt, in the same second or the one before
	echo early >early.txt && touch -d "@$(python3 -c "import time; print(\"%.3f\" % (time.time() - 0.5))")" early.txt &&
	claude UserPromptSubmit ",\"prompt\":\"generate late.txt\"" &&
	echo late >late.txt &&
	bash_ok "\"./generate late\"" "" &&
	echo "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_late\",\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}" >>"$T" &&
	claude Stop ",\"last_assistant_message\":\"Generated late.txt.\"" &&
	test_must_be_empty ev.err &&
	session_json >s &&
	test "$(agent_field $AGENT "a[\"prompted_ms\"] > 0")" = true &&
	test "$(json_field s "[p for p in (\"early.txt\", \"late.txt\") if p in d[\"files\"]]")" = "[\"late.txt\"]" &&
	cp ../exclude.orig .git/info/exclude
'

test_expect_success 'a sub-agent'"'"'s tool calls are its own; a sub-agent the CLI runs for itself is left alone' '
	echo "# usage" >USAGE.md &&
	claude PostToolUse ",\"agent_id\":\"x1y2z3w4v5\",\"agent_type\":\"Explore\",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$PWD/USAGE.md\"},\"tool_response\":{\"type\":\"create\"}" &&
	claude PostToolUse ",\"agent_id\":\"b0b0b0b0b0\",\"agent_type\":\"general-purpose\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"},\"tool_response\":{\"interrupted\":false}" &&
	test_must_be_empty ev.err &&
	git log --format=%s -3 SESSION_HEAD >log &&
	cat >expect <<-EOF &&
	run by general-purpose-b0b0b0b0: "ls" (exit 0)
	agent general-purpose-b0b0b0b0 started (general-purpose)
	file created: USAGE.md by Explore-x1y2z3w4
	EOF
	test_cmp expect log &&
	session_json >s &&
	test "$(agent_field general-purpose-b0b0b0b0 "[a[k] for k in (\"parent\", \"cli\", \"by\", \"session\")]")" = \
		"[\"$AGENT\", \"claude-code\", \"A U Thor <author@example.com>\", \"b0b0b0b0b0\"]" &&
	test "$(agent_field Explore-x1y2z3w4 "[a[k] for k in (\"parent\", \"cli\", \"last_reply\")]")" = \
		"[\"$AGENT\", \"claude-code\", \"Found 3 call sites\"]" &&
	before=$(git rev-parse SESSION_HEAD) &&
	claude SubagentStop ",\"agent_id\":\"c0c0c0c0c0\",\"agent_type\":\"\",\"agent_transcript_path\":\"$HOME/nowhere.jsonl\",\"last_assistant_message\":\"<summary>x</summary>\"" &&
	test_must_be_empty ev.err &&
	test "$(git rev-parse SESSION_HEAD)" = "$before"
'

test_expect_success 'prompts are counted, the last kept; a sub-agent'"'"'s notice is not a prompt' '
	claude UserPromptSubmit ",\"prompt\":\"second prompt\"" &&
	claude UserPromptSubmit ",\"prompt\":\"<task-notification>\n<task-id>a1</task-id>\n</task-notification>\"" &&
	session_json >s &&
	test "$(agent_field $AGENT "[a[k] for k in (\"prompts\", \"last_prompt\", \"cli\", \"by\")]")" = \
		"[3, \"second prompt\", \"claude-code\", \"A U Thor <author@example.com>\"]" &&
	git log --format=%s -1 SESSION_HEAD >log &&
	echo "note: \"second prompt\"" >expect && test_cmp expect log
'

test_expect_success 'several agents writing at once lose nothing' '
	for i in 1 2 3 4 5 6
	do
		claude SubagentStart ",\"agent_id\":\"par${i}0000\",\"agent_type\":\"worker\"" &
	done &&
	wait &&
	session_json >s &&
	test "$(json_field s "len([a for a in d[\"agents\"] if a[\"type\"] == \"worker\"])")" = 6
'

test_expect_success 'compaction and the end of the session are the agent'"'"'s state' '
	claude PreCompact ",\"trigger\":\"auto\",\"custom_instructions\":\"\"" &&
	git log --format=%s -1 SESSION_HEAD >log &&
	echo "agent $AGENT compacts its context (auto)" >expect && test_cmp expect log &&
	claude SessionEnd ",\"reason\":\"prompt_input_exit\"" &&
	session_json >s &&
	test "$(json_field s "[(a[\"status\"], a[\"result_summary\"], a[\"compactions\"]) for a in d[\"agents\"] if a[\"id\"] == \"$AGENT\"]")" = \
		"[[\"completed\", \"session ended (prompt_input_exit)\", 1]]"
'

test_expect_success 'a resumed agent session finds its git session again, whatever SESSION_HEAD is' '
	id=$(git symbolic-ref --short SESSION_HEAD | sed "s|^sessions/||") &&
	git session start other --pause-current -q &&
	claude SessionStart ",\"source\":\"resume\"" &&
	claude UserPromptSubmit ",\"prompt\":\"carry on\"" &&
	git log --format=%s -1 refs/sessions/$id >log &&
	echo "note: \"carry on\"" >expect && test_cmp expect log &&
	git show refs/sessions/$id:session.json >s &&
	test "$(json_field s "[a[\"status\"] for a in d[\"agents\"] if a[\"id\"] == \"$AGENT\"]")" = "[\"in_progress\"]" &&
	test "$(git rev-list --count refs/sessions/2025-11-21-other)" = 1
'

test_expect_success 'a compaction'"'"'s tokens: the growth of the running total past it, with the agent done' '
	id=$(git for-each-ref --format="%(refname:lstrip=2)" "refs/sessions/*greeting*") &&
	claude PreCompact ",\"trigger\":\"manual\",\"custom_instructions\":null" &&
	claude SubagentStop ",\"agent_id\":\"c0mpact0r1\",\"agent_type\":\"\",\"agent_transcript_path\":\"$HOME/none.jsonl\",\"last_assistant_message\":\"<summary>s</summary>\"" &&
	for l in "{\"type\":\"cost-state\",\"modelUsage\":{\"m\":{\"inputTokens\":1000,\"outputTokens\":100}}}" \
		"{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"content\":\"Conversation compacted\"}" \
		"{\"type\":\"user\",\"isCompactSummary\":true,\"message\":{\"role\":\"user\",\"content\":\"Summary\"}}" \
		"{\"type\":\"cost-state\",\"modelUsage\":{\"m\":{\"inputTokens\":1114,\"outputTokens\":120}}}"
	do
		echo "$l" >>"$T" || return 1
	done &&
	claude SessionEnd ",\"reason\":\"other\"" &&
	test_must_be_empty ev.err &&
	git log --format=%s -3 refs/sessions/$id >log &&
	sed -n 1p log | grep "^summary: \"Summary\"$" &&
	sed -n 2p log | grep "^agent $AGENT done: \"session ended (other)\" (+114 in, +20 out; transcript part [0-9]*)$" &&
	sed -n 3p log | grep "^agent $AGENT compacts its context (manual)$"
'

test_expect_success 'a compaction with no running total before it counts no tokens of the whole session' '
	(
		T=$HOME/.claude/projects/repo/3c3c3c3c.jsonl &&
		claude UserPromptSubmit ",\"prompt\":\"third agent\"" 3c3c3c3c-0000 &&
		printf "%s\n" "{\"type\":\"assistant\",\"message\":{\"id\":\"m3\",\"usage\":{\"input_tokens\":7,\"output_tokens\":2}}}" \
			"{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"content\":\"Conversation compacted\"}" >"$T" &&
		claude Stop "" 3c3c3c3c-0000 &&
		echo "{\"type\":\"cost-state\",\"modelUsage\":{\"m\":{\"inputTokens\":100000,\"outputTokens\":9000}}}" >>"$T" &&
		echo "{\"type\":\"assistant\",\"message\":{\"id\":\"m4\",\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}" >>"$T" &&
		claude Stop "" 3c3c3c3c-0000 &&
		test_must_be_empty ev.err
	) &&
	session_json >s &&
	test "$(agent_field claude-3c3c3c3c "[a[\"tokens\"][k] for k in (\"input\", \"output\")]")" = "[12, 3]"
'

test_expect_success 'transcript says how many stored lines it could not read, and --raw has them' '
	(
		T=$HOME/.claude/projects/repo/3c3c3c3c.jsonl &&
		echo "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"find -print0 said a\\u0000b\"}}" >>"$T" &&
		echo "{\"type\":\"assistant\",\"message\":{\"id\":\"m5\",\"content\":[{\"type\":\"text\",\"text\":\"read it\"}],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}" >>"$T" &&
		claude Stop "" 3c3c3c3c-0000 &&
		test_must_be_empty ev.err
	) &&
	git session transcript --agent claude-3c3c3c3c >out 2>err &&
	grep "read it" out &&
	grep "^warning: 1 line of the transcript of agent .claude-3c3c3c3c. did not read as JSON" err &&
	git session transcript --raw --agent claude-3c3c3c3c >raw &&
	grep -F "find -print0 said" raw
'

test_expect_success 'a new agent session attaches to the active session' '
	claude UserPromptSubmit ",\"prompt\":\"second agent\"" 2a2a2a2a-0000 &&
	git log --format=%s -2 refs/sessions/2025-11-21-other >log &&
	printf "note: \"second agent\"\nagent claude-2a2a2a2a started (claude-code)\n" >expect &&
	test_cmp expect log
'

test_expect_success 'session.agentAutoStart=false: no session is started for an agent' '
	git session pause -q &&
	git config session.agentAutoStart false &&
	before=$(git for-each-ref refs/sessions | wc -l) &&
	claude UserPromptSubmit ",\"prompt\":\"do not record me\"" 3b3b3b3b-0000 &&
	test "$(git for-each-ref refs/sessions | wc -l)" = $before &&
	git config --unset session.agentAutoStart
'

test_expect_success 'Gemini CLI: prompt, write_file, and the turn with a message written twice' '
	git session start gemini-work -q &&
	G="$HOME/.gemini/tmp/0a1b/chats/session-1.jsonl" &&
	gem () { ev gemini-cli "$1" "{\"session_id\":\"9f9f9f9f-1\",\"transcript_path\":\"$G\",\"cwd\":\"$PWD\",\"hook_event_name\":\"$1\",\"timestamp\":\"2025-11-21T10:00:00Z\"$2}"; } &&
	gem SessionStart ",\"source\":\"startup\"" &&
	gem BeforeAgent ",\"prompt\":\"write notes.md, token: ghp_0123456789abcdefghijABCDEFGHIJ012345\"" &&
	echo "# notes" >notes.md &&
	gem AfterTool ",\"tool_name\":\"write_file\",\"tool_input\":{\"file_path\":\"$PWD/notes.md\",\"content\":\"# notes\"},\"tool_response\":{\"llmContent\":\"Successfully created and wrote to new file: $PWD/notes.md.\"}" &&
	cat >"$G" <<-\EOF &&
	{"sessionId":"9f9f9f9f-1","projectHash":"x","startTime":"2025-11-21T10:00:00Z","lastUpdated":"2025-11-21T10:00:00Z","messages":[]}
	{"id":"u1","timestamp":"2025-11-21T10:00:01Z","type":"user","content":[{"text":"write notes.md"}]}
	{"id":"g1","timestamp":"2025-11-21T10:00:02Z","type":"gemini","content":"","toolCalls":[{"name":"write_file"}],"tokens":{"input":900,"output":30,"cached":100,"thoughts":5,"tool":0,"total":935}}
	{"$set":{"lastUpdated":"2025-11-21T10:00:03Z"}}
	{"id":"g1","timestamp":"2025-11-21T10:00:02Z","type":"gemini","content":"done","toolCalls":[{"name":"write_file"}],"tokens":{"input":900,"output":50,"cached":100,"thoughts":5,"tool":0,"total":955}}
	EOF
	gem AfterAgent ",\"prompt\":\"write notes.md\",\"prompt_response\":\"done\",\"stop_hook_active\":false" &&
	gem PreCompress ",\"trigger\":\"auto\"" &&
	test_must_be_empty ev.err &&
	git log --format=%s -4 SESSION_HEAD >log &&
	cat >expect <<-\EOF &&
	turn of gemini-9f9f9f9f: "done" (+800 in, +55 out; transcript part 1)
	file created: notes.md by gemini-9f9f9f9f
	note: "write notes.md, token: [REDACTED:github-token]"
	agent gemini-9f9f9f9f started (gemini-cli)
	EOF
	test_cmp expect log &&
	! all_objects | grep -a ghp_0123456789abcdefghij
'

test_expect_success 'every kind of secret is redacted before it is stored' '
	for secret in AKIAIOSFODNN7EXAMPLE ghp_0123456789abcdefghijABCDEFGHIJ012345 glpat-xYz0123456789abcdefAB \
		npm_abcdefghijklmnopqrstuvwxyz0123456789 xoxb-123456789012-abcdefghijkl \
		AIzaSyA1234567890abcdefghijklmnopqrstuv sk-ant-api03-abcdefghijklmnopqrstuvwxyz \
		eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U \
		Zx8Qp2Lm9Rt4Vw7Ky1Bn5Hj3Gf6Dc0Sa
	do
		git session note "use $secret here" -q &&
		git session decide "key $secret" --rationale "db_password=Sup3rS3cret" -q || return 1
	done &&
	printf "%s\n" "-----BEGIN RSA PRIVATE KEY-----" "MIIEpAIBAAKCAQEA75" "-----END RSA PRIVATE KEY-----" >key.txt &&
	git session note -F key.txt -q &&
	git session error add --type runtime --message "clone https://bob:s3cretPass@host/x failed" -q &&
	all_objects >objects &&
	! grep -a -e AKIAIOSFODNN7EXAMPLE -e ghp_0123 -e glpat-xYz -e npm_abcdef -e xoxb-1234 -e AIzaSyA1 \
		-e sk-ant-api03 -e eyJhbGciOiJIUzI1NiJ9.eyJ -e Zx8Qp2Lm9Rt4 -e Sup3rS3cret -e MIIEpAIBAAKCAQEA75 -e s3cretPass objects &&
	for kind in aws-key github-token gitlab-token npm-token slack-token google-api-key api-key jwt high-entropy \
		password private-key url-password
	do
		grep -a -q "\[REDACTED:$kind\]" objects || { echo "no $kind"; return 1; }
	done
'

test_expect_success 'session.transcripts=false keeps the tokens and no transcript; a limit warns' '
	git config session.transcripts false &&
	echo "{\"id\":\"g2\",\"type\":\"gemini\",\"tokens\":{\"input\":10,\"output\":1}}" >>"$G" &&
	gem AfterAgent "" &&
	git log --format=%s -1 SESSION_HEAD >log &&
	echo "turn of gemini-9f9f9f9f: +10 in, +1 out" >expect && test_cmp expect log &&
	test_must_fail git cat-file -e SESSION_HEAD:transcripts/gemini-9f9f9f9f/000/000002 &&
	git config --unset session.transcripts &&
	git config session.transcriptLimit 100 &&
	echo "{\"id\":\"g3\",\"type\":\"gemini\",\"tokens\":{\"input\":10,\"output\":1}}" >>"$G" &&
	gem AfterAgent "" &&
	grep "^warning: the transcript of agent .gemini-9f9f9f9f. passed session.transcriptLimit (100 bytes)" ev.err &&
	test_must_fail git cat-file -e SESSION_HEAD:transcripts/gemini-9f9f9f9f/000/000002 &&
	git config --unset session.transcriptLimit
'

test_expect_success 'the budget: off by default; with session.enforceBudget a tool call past it is refused' '
	git session tokens budget 500 >out &&
	grep "token budget: 0 -> 500" out &&
	gem BeforeTool ",\"tool_name\":\"write_file\",\"tool_input\":{}" &&
	git config session.enforceBudget true &&
	test_expect_code 2 gem BeforeTool ",\"tool_name\":\"write_file\",\"tool_input\":{}" &&
	grep "has used .* of its budget of .* tokens" ev.err &&
	grep "git session tokens budget" ev.err &&
	test_expect_code 2 claude PreToolUse ",\"tool_name\":\"Write\",\"tool_input\":{}" 9f9f9f9f-1 &&
	git config session.enforceBudget false &&
	gem BeforeTool ",\"tool_name\":\"write_file\",\"tool_input\":{}"
'

test_expect_success 'Gemini CLI: run_shell_command, and a session end after the turn adds no second turn' '
	gem AfterTool ",\"tool_name\":\"run_shell_command\",\"tool_input\":{\"command\":\"cat missing.txt\"},\"tool_response\":{\"llmContent\":\"<untrusted_context>\nOutput: cat: missing.txt: No such file or directory\nExit Code: 1\nProcess Group PGID: 13035\n</untrusted_context>\",\"returnDisplay\":\"x\"}" &&
	gem AfterTool ",\"tool_name\":\"run_shell_command\",\"tool_input\":{\"command\":\"true\"},\"tool_response\":{\"llmContent\":\"<untrusted_context>\nOutput: (empty)\nProcess Group PGID: 13036\n</untrusted_context>\",\"returnDisplay\":\"\"}" &&
	test_must_be_empty ev.err &&
	git log --format=%s -2 SESSION_HEAD >log &&
	cat >expect <<-\EOF &&
	run by gemini-9f9f9f9f: "true" (exit 0)
	run by gemini-9f9f9f9f: "cat missing.txt" (exit 1)
	EOF
	test_cmp expect log &&
	echo "{\"id\":\"g9\",\"type\":\"gemini\",\"content\":\"All set.\",\"tokens\":{\"input\":10,\"output\":2}}" >>"$G" &&
	gem AfterAgent ",\"prompt_response\":\"All set.\"" &&
	echo "{\"\$set\":{\"lastUpdated\":\"2025-11-21T10:09:00Z\"}}" >>"$G" &&
	gem SessionEnd ",\"reason\":\"exit\"" &&
	test_must_be_empty ev.err &&
	git log --format=%s -2 SESSION_HEAD >log &&
	sed -n 1p log | grep "^agent gemini-9f9f9f9f done: \"session ended (exit)\"$" &&
	sed -n 2p log | grep "^turn of gemini-9f9f9f9f: \"All set.\" (+10 in, +2 out; transcript part 2; [1-9][0-9]* files)$"
'

test_expect_success 'a topic from a prompt is its first line whole, cut at a word only past 200 bytes' '
	git session pause -q &&
	line="Refactor the parser: $(printf "étape %d, " $(seq 1 40))done" &&
	claude UserPromptSubmit ",\"prompt\":\"$line\nsecond line\"" 4c4c4c4c-0000 &&
	test_must_be_empty ev.err &&
	session_json >s &&
	topic=$(json_field s "d[\"topic\"]") &&
	test $(printf "%s" "$topic" | wc -c) -le 200 &&
	test $(printf "%s" "$topic" | wc -c) -gt 150 &&
	case "$line" in "$topic"*) ;; *) echo "topic $topic"; false ;; esac &&
	case "$topic" in *,) ;; *) echo "cut mid-word: $topic"; false ;; esac &&
	git session pause -q &&
	claude UserPromptSubmit ",\"prompt\":\"Write the usage docs for the todo module and link them from the README please\"" 5d5d5d5d-0000 &&
	session_json >s &&
	test "$(json_field s "d[\"topic\"]")" = "Write the usage docs for the todo module and link them from the README please"
'

test_expect_success 'a broken payload or a failing hook: one line on stderr, exit 0, nothing stored' '
	before=$(git rev-parse SESSION_HEAD) &&
	ev claude-code UserPromptSubmit "{not json" &&
	test_line_count = 1 ev.err &&
	grep "^warning: git-session could not record the claude-code UserPromptSubmit hook: its payload is not JSON" ev.err &&
	ev claude-code NoSuchEvent "{}" &&
	test_must_be_empty ev.err &&
	test "$(git rev-parse SESSION_HEAD)" = "$before" &&
	test_expect_code 129 git session hook claude-code </dev/null &&
	git fsck --no-progress 2>&1 | grep -v "^dangling" >fsck; test_must_be_empty fsck
'

test_expect_success 'a committed settings file on a machine with no git-session: every hook quietly does nothing' '
	git init -q bare-machine && (cd bare-machine &&
	 git session hooks install --agent claude-code >/dev/null && git session hooks install --agent gemini-cli >/dev/null &&
	 python3 -c "
import json
for f in (\".claude/settings.json\", \".gemini/settings.json\"):
    for groups in json.load(open(f))[\"hooks\"].values():
        for g in groups:
            for h in g[\"hooks\"]:
                print(h[\"command\"])
" >commands &&
	 test_line_count = 17 commands &&
	 nogs=$(mktemp -d) && ln -s "$(command -v git)" "$nogs/git" &&
	 while read -r c
	 do
		echo "{}" | PATH="$nogs" /bin/sh -c "$c" >out 2>err || { echo "failed: $c"; return 1; }
		test_must_be_empty out && test_must_be_empty err || return 1
	 done <commands &&
	 c=$(sed -n 1p commands) && echo "{}" | /bin/sh -c "$c" >/dev/null 2>err; test $? = 0)
'

test_expect_success 'an install from before the guard is brought up to date; uninstall gives the file back' '
	git init -q older && (cd older && mkdir .claude &&
	 printf "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"git-session hook claude-code Stop\", \"timeout\": 10}]}]}}\n" >.claude/settings.json &&
	 cp .claude/settings.json ../older.json &&
	 git session hooks install --agent claude-code >/dev/null &&
	 python3 -c "
import json
s = json.load(open(\".claude/settings.json\"))
stop = s[\"hooks\"][\"Stop\"]
assert len(stop) == 1 and stop[0][\"hooks\"][0][\"command\"].startswith(\"command -v git-session\"), stop
" &&
	 git session hooks status >out && grep "claude-code  *installed (10 of 10 events" out &&
	 git session hooks uninstall --agent claude-code >/dev/null &&
	 test_cmp ../older.json .claude/settings.json)
'

test_done
