# session.sh - builds, in the repository of the current directory, one session
# with everything a page of it shows: phases failed and retried, agents, a
# Claude Code and a Gemini CLI agent fed the events they send (prompts,
# replies, tool calls, failing shell commands, a compaction, a long output,
# words too long to wrap, a secret), commits with bodies, decisions, errors,
# tasks, files and tokens against a budget. Sourced by the browser tests and
# by tools/screenshot.sh; needs git-session and python3 on PATH.
#
#   browser_session <id> [<hostile prompt>]
#
# The clock starts at $BS_START (seconds since the epoch) and moves a minute
# a step; with a hostile prompt, the second prompt is that text.

bs_tick () {
	bs_t=$(( ${bs_t:-${BS_START:-1763719200}} + ${1:-60} ))
	GIT_COMMITTER_DATE="@$bs_t +0000" GIT_AUTHOR_DATE="@$bs_t +0000"
	export GIT_COMMITTER_DATE GIT_AUTHOR_DATE
}
bs_s () { bs_tick && git session "$@" -q; }
bs_commit () { bs_tick && git add "$1" && git commit -q -m "$2" -m "$3"; }
# bs_json <text>: the text as a JSON string
bs_json () { printf '%s' "$1" | python3 -c 'import json, sys; print(json.dumps(sys.stdin.read()), end="")'; }
bs_iso () { date -u -d "@$bs_t" +%Y-%m-%dT%H:%M:%S.000Z; }
# bs_said <type> <message>: a line Claude Code appends to its transcript
bs_said () {
	bs_n=$(( ${bs_n:-0} + 1 ))
	printf '{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"%s","sessionId":"%s","version":"2.1.330","gitBranch":"main","type":"%s","message":%s,"uuid":"7d0c0a01-0000-4000-8000-%012d","timestamp":"%s"}\n' \
		"$PWD" "$bs_sid" "$1" "$2" "$bs_n" "$(bs_iso)" >>"$bs_transcript"
}
bs_usage='"usage":{"input_tokens":1800,"cache_creation_input_tokens":2400,"cache_read_input_tokens":0,"output_tokens":220}'
bs_reply () {
	bs_said assistant "{\"id\":\"msg_$bs_n\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[$1],\"stop_reason\":null,$bs_usage}"
}
# bs_tool <id> <name> <input json> <result text> [<is_error>]
bs_tool () {
	bs_reply "{\"type\":\"tool_use\",\"id\":\"$1\",\"name\":\"$2\",\"input\":$3}" &&
	bs_said user "{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"$1\",\"type\":\"tool_result\",\"content\":$(bs_json "$4"),\"is_error\":${5:-false}}]}"
}
# bs_event <name> <fields>: the hook Claude Code runs on the event
bs_event () {
	bs_tick 20 &&
	printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","permission_mode":"default","hook_event_name":"%s"%s}' \
		"$bs_sid" "$bs_transcript" "$PWD" "$1" "$2" | git session hook claude-code "$1" >/dev/null
}
bs_prompt () {
	bs_said user "{\"role\":\"user\",\"content\":$(bs_json "$1")}" &&
	bs_event UserPromptSubmit ",\"prompt\":$(bs_json "$1")"
}
bs_stop () {
	bs_reply "{\"type\":\"text\",\"text\":$(bs_json "$1")}" &&
	bs_event Stop ",\"stop_hook_active\":false,\"last_assistant_message\":$(bs_json "$1")"
}

# A Gemini CLI agent: a prompt holding a secret, thoughts, a shell command that
# fails, its chat file written as Gemini CLI writes it.
bs_secret=ghp_0123456789abcdefghijABCDEFGHIJ012345
bs_gem () {
	bs_tick 20 &&
	printf '{"session_id":"9f9f9f9f-1","transcript_path":"%s","cwd":"%s","hook_event_name":"%s","timestamp":"%s"%s}' \
		"$bs_chat" "$PWD" "$1" "$(bs_iso)" "$2" | git session hook gemini-cli "$1" >/dev/null
}
bs_gemini () {
	bs_chat="$HOME/.gemini/tmp/0a1b/chats/session-1.jsonl" &&
	mkdir -p "${bs_chat%/*}" &&
	bs_gem SessionStart ',"source":"startup"' &&
	bs_p="Run the login test against staging with the token $bs_secret" &&
	printf '{"sessionId":"9f9f9f9f-1","projectHash":"0a1b","startTime":"%s","lastUpdated":"%s","messages":[]}\n' "$(bs_iso)" "$(bs_iso)" >"$bs_chat" &&
	printf '{"id":"u1","timestamp":"%s","type":"user","content":[{"text":%s}]}\n' "$(bs_iso)" "$(bs_json "$bs_p")" >>"$bs_chat" &&
	bs_gem BeforeAgent ",\"prompt\":$(bs_json "$bs_p")" &&
	printf '%s\n' '{"id":"g1","type":"gemini","content":"","thoughts":[{"subject":"Plan","description":"run the login test once"}],"toolCalls":[{"id":"x1","name":"run_shell_command","args":{"command":"make check-login"},"result":[{"functionResponse":{"id":"x1","name":"run_shell_command","response":{"output":"Output: the device code expired after 5 s\nExit Code: 3\n"}}}],"status":"success"}],"tokens":{"input":900,"output":50,"cached":100,"thoughts":5,"tool":0,"total":955}}' >>"$bs_chat" &&
	bs_gem AfterTool ',"tool_name":"run_shell_command","tool_input":{"command":"make check-login"},"tool_response":{"llmContent":"Exit Code: 3"}' &&
	printf '%s\n' '{"id":"g2","type":"gemini","content":"The device code expires before the poll: the test fails.","tokens":{"input":1000,"output":40,"cached":100,"thoughts":0,"tool":0,"total":1040}}' >>"$bs_chat" &&
	bs_gem AfterAgent ',"prompt":"","prompt_response":"The device code expires before the poll: the test fails.","stop_hook_active":false'
}

browser_session () {
	bs_sid=5e55a0c1-9d2b-4c4e-8f1a-2b7d3c9e0f11
	bs_transcript="$HOME/.claude/projects/-repo/$bs_sid.jsonl"
	mkdir -p "${bs_transcript%/*}" && : >"$bs_transcript" &&
	bs_hostile=${2:-"Make the token check constant-time"} &&
	if ! git rev-parse -q --verify HEAD >/dev/null
	then
		echo "# login" >README.md && bs_commit README.md "initial commit" "The README."
	fi &&
	git session hooks install >/dev/null &&
	bs_s start "Add OAuth login" --id "$1" --goal "Users sign in with GitHub" \
		--phase Design --phase Implement --phase Test --budget 100000 &&
	bs_s phase start 1 &&
	bs_s agent start arch-1 --type architect --task "Design the login flow" &&
	bs_s decide "Use the device flow" --rationale "works without a browser" &&
	bs_s tokens add --agent arch-1 --input 6000 --output 2500 &&
	bs_s agent done arch-1 --summary "three endpoints" &&
	bs_s phase complete 1 &&
	bs_s phase start 2 &&
	bs_s task add "Write the login endpoint" &&
	bs_s task add "Document the device flow" &&

	bs_event SessionStart ',"source":"startup","model":"claude-sonnet-4-5"' &&
	bs_prompt "Write src/login.c with a login() that checks the token, then build it" &&
	mkdir -p src && printf 'int login(const char *token)\n{\n\treturn token && *token;\n}\n' >src/login.c &&
	bs_tool toolu_01 Write "{\"file_path\":\"$PWD/src/login.c\",\"content\":$(bs_json "$(cat src/login.c)")}" \
		"File created successfully at: $PWD/src/login.c" &&
	bs_event PostToolUse ",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$PWD/src/login.c\",\"content\":\"\"},\"tool_response\":{\"type\":\"create\",\"filePath\":\"$PWD/src/login.c\"},\"tool_use_id\":\"toolu_01\"" &&
	bs_tool toolu_02 Bash '{"command":"cc -c src/login.c -o /dev/null","description":"Build it"}' "" &&
	bs_stop "Wrote login() in src/login.c; it builds." &&
	bs_commit src/login.c "login: check the token" "A token that is empty is refused." &&
	bs_s task done 1 &&

	bs_prompt "$bs_hostile" &&
	bs_tool toolu_03 Bash '{"command":"make check","description":"Run the tests"}' \
		"Exit code 2
test_login.c:12: timing differs between tokens
make: *** [check] Error 2" true &&
	bs_stop "The timing test fails; the comparison stops at the first differing byte." &&
	bs_s error add --type runtime --message "timing differs between tokens" --phase 2 &&
	bs_s phase fail 2 --error "tests fail" --type runtime &&
	bs_s phase retry 2 &&

	bs_event PreCompact ',"trigger":"manual","custom_instructions":""' &&
	bs_said system '{"role":"system","content":"Conversation compacted"}' &&
	printf '%s\n' '{"type":"system","subtype":"compact_boundary","content":"Conversation compacted"}' >>"$bs_transcript" &&
	bs_prompt "Compare the whole token, always" &&
	printf 'int login(const char *token)\n{\n\tint bad = !token;\n\treturn !bad && *token;\n}\n' >src/login.c &&
	bs_tool toolu_04 Edit "{\"file_path\":\"$PWD/src/login.c\",\"old_string\":\"return token && *token;\",\"new_string\":\"int bad = !token;\"}" \
		"The file $PWD/src/login.c has been updated." &&
	bs_event PostToolUse ",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$PWD/src/login.c\"},\"tool_response\":{\"filePath\":\"$PWD/src/login.c\"},\"tool_use_id\":\"toolu_04\"" &&
	bs_tool toolu_05 Bash '{"command":"make check","description":"Run the tests again"}' "all 3 tests passed" &&
	bs_stop "Fixed: the comparison reads the whole token; all 3 tests pass." &&
	bs_commit src/login.c "login: compare the whole token" "The time taken no longer tells how much of a token matched." &&

	# long texts: a log of 100 KB with a line of 3,000 bytes, words too long to wrap, a URL as plain text
	bs_long=$(printf '%03000d' 0 | tr 0 x) &&
	bs_prompt "Build everything with V=1 and show me the log" &&
	bs_tool toolu_06 Bash '{"command":"make V=1","description":"Build verbosely"}' \
		"$(seq 1 1500 | sed 's|.*|cc -O2 -Wall -c src/unit_&.c -o build/unit_&.o -Iinclude -DNDEBUG|'; echo "$bs_long")" &&
	bs_stop "The build is clean: 1500 units, no warning." &&
	bs_prompt "Write docs/device-flow.md after https://example.com/device-flow?a=1&b=2 and call it $(printf '%0300d' 0 | tr 0 y)" &&
	mkdir -p docs && printf '# The device flow\n\n%s\n' "$bs_long" >docs/device-flow.md &&
	bs_tool toolu_07 Write "{\"file_path\":\"$PWD/docs/device-flow.md\",\"content\":\"# The device flow\"}" \
		"File created successfully at: $PWD/docs/device-flow.md" &&
	bs_event PostToolUse ",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$PWD/docs/device-flow.md\",\"content\":\"\"},\"tool_response\":{\"type\":\"create\",\"filePath\":\"$PWD/docs/device-flow.md\"},\"tool_use_id\":\"toolu_07\"" &&
	bs_stop "Wrote docs/device-flow.md." &&
	bs_commit docs/device-flow.md "docs: the device flow" "$bs_long" &&
	bs_event SessionEnd ',"reason":"prompt_input_exit"' &&
	bs_s phase complete 2 &&

	bs_s phase start 3 &&
	bs_s agent start test-1 --type tester --task "Test the login flow" &&
	bs_s tokens add --agent test-1 --input 4000 --output 900 &&
	bs_s agent progress test-1 60 &&
	# a path that is markup, quotes and UTF-8: escaped in the page, its anchor -XX bytes
	bs_odd="docs/a <b>&\"é\" 'q'.md" &&
	printf '# odd\n' >"$bs_odd" && bs_s file created "$bs_odd" --agent test-1 &&
	bs_gemini &&
	bs_s error add --type validation --message "the device code expires before the poll" --agent test-1
}
