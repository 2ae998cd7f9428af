#!/bin/sh
test_description='grep: a regular expression over what every session says, what its agents said included, each hit where it first appeared'
. ./lib.sh

T="$HOME/.claude/projects/t/claude.jsonl"	# where Claude Code keeps it
mkdir -p "${T%/*}"
claude () {
	printf '%s' "{\"session_id\":\"5e5e5e5e-0000\",\"transcript_path\":\"$T\",\"cwd\":\"$PWD\",\"hook_event_name\":\"$1\"$2}" |
		git-session hook claude-code "$1" >/dev/null
}

test_expect_success 'setup: three sessions, one archived, one fed by an agent with a transcript' '
	test_tick &&
	git session start "Add OAuth login" --id oauth -q &&
	git session note -q "design approved" &&
	git session decide -q "use the device flow" --rationale "works without a browser" &&
	git session error add -q --type runtime --message "token refresh failed" &&
	git session task add -q "write the changelog" &&
	git session summary -q "login works; refresh next" &&
	git session start "Old work" --id old --pause-current -q &&
	git session note -q "the device flow was tried here first" &&
	git session close -q && git session archive -q old &&
	git session start "Agent run" --id agent --pause-current -q &&
	git config session.transcripts all &&
	echo "{\"type\":\"queue-operation\",\"content\":\"refactor the parser\"}" >"$T" &&
	echo "{\"type\":\"attachment\",\"attachment\":{\"type\":\"prompt_snapshot\",\"systemPrompt\":\"You are Claude. Tokens are precious.\"}}" >>"$T" &&
	echo "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"refactor the parser\"}}" >>"$T" &&
	echo "{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"The Parser is split in two\"}],\"usage\":{\"input_tokens\":10,\"output_tokens\":5}}}" >>"$T" &&
	claude UserPromptSubmit ",\"prompt\":\"refactor the parser\"" &&
	claude Stop "" &&
	git session transcript >t && grep "The Parser is split" t &&
	git config --unset session.transcripts
'

test_expect_success 'a pattern finds notes, decisions, errors, tasks and summaries, with session, field and the checkpoint it first appeared in' '
	git session grep "device flow" >out &&
	printf "oauth %s decisions[0]: use the device flow\n" "$(git rev-parse --short=7 "refs/sessions/oauth^{/^decide}")" >expect &&
	test_cmp expect out &&
	git session grep -E "refresh|changelog" >out &&
	cut -d" " -f1,3- out >got &&
	cat >expect <<-\EOF &&
	oauth context_summary: login works; refresh next
	oauth errors[0]: token refresh failed
	oauth tasks[0]: write the changelog
	EOF
	test_cmp expect got
'

test_expect_success 'archived sessions with --all; prompts and transcripts are searched' '
	git session grep --all "device flow" >out &&
	grep "^old [0-9a-f]* notes\[0\]: the device flow was tried here first$" out &&
	test_line_count = 2 out &&
	git session grep -i "the parser" >out &&
	grep "^agent [0-9a-f]* notes\[0\]: refactor the parser$" out &&
	grep "^agent [0-9a-f]* transcript\[claude-5e5e5e5e\] turn 1 prompt: refactor the parser$" out &&
	grep "^agent [0-9a-f]* transcript\[claude-5e5e5e5e\] turn 1 reply: The Parser is split in two$" out &&
	test_line_count = 3 out &&
	git session grep "The Parser" >out && ! grep notes out
'

test_expect_success 'what the agent CLI keeps for itself is not searched, though stored' '
	git cat-file -p refs/sessions/agent:transcripts/claude-5e5e5e5e/000/000001 >part &&
	grep -q "Tokens are precious" part &&
	test_expect_code 1 git session grep "Tokens are precious" &&
	git session grep -c "refactor the parser" >n &&
	echo "agent:2" >expect && test_cmp expect n
'

test_expect_success 'a transcript hit names its turn and the checkpoint that stored its part; tool calls and results are searched' '
	cat >>"$T" <<-EOF &&
	{"type":"user","message":{"role":"user","content":"now run the tests"}}
	{"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make check"}}],"usage":{"input_tokens":1,"output_tokens":1}}}
	{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Exit code 2\nmake: *** [check] Error 2\nsegfault in parse_line"}]}}
	{"type":"assistant","message":{"id":"m3","content":[{"type":"text","text":"$(printf "%0300d" 0) the needle $(printf "%0300d" 0)"}],"usage":{"input_tokens":1,"output_tokens":1}}}
	EOF
	test_tick &&
	claude UserPromptSubmit ",\"prompt\":\"now run the tests\"" &&
	claude Stop "" &&
	part2=$(git rev-parse --short=7 refs/sessions/agent) &&
	git session grep "make check" >out &&
	echo "agent $part2 transcript[claude-5e5e5e5e] turn 2 tool: Bash: make check" >expect &&
	test_cmp expect out &&
	git session grep "segfault" >out &&
	echo "agent $part2 transcript[claude-5e5e5e5e] turn 2 result: segfault in parse_line" >expect &&
	test_cmp expect out &&
	git session grep "The Parser" >out &&
	grep "^agent $(git rev-parse --short=7 refs/sessions/agent~2) " out &&
	git session grep needle >out &&
	test $(wc -c <out) -lt 300 &&
	grep "…0* the needle 0*…$" out
'

test_expect_success 'regular expressions as git grep takes them: basic, -E, -F, -i' '
	git session grep "tok.n re\(fresh\)" >out && test_line_count = 1 out &&
	test_must_fail git session grep -E "tok.n re\(fresh\)" &&
	git session grep -E "tok(en)? re(fresh)" >out && test_line_count = 1 out &&
	git session grep -F "login works;" >out && test_line_count = 1 out &&
	test_must_fail git session grep -F "login.works" &&
	test_must_fail git session grep "OAUTH LOGIN" &&
	git session grep -i "OAUTH LOGIN" >out && grep "^oauth [0-9a-f]* topic: Add OAuth login$" out &&
	git session grep "^login works" >out && test_line_count = 1 out
'

test_expect_success '--json, -c, session ids, and exit codes as git grep' '
	git session grep --json "device" oauth >j &&
	test "$(json_field j "[(m[\"session\"], m[\"field\"], m[\"text\"], m[\"archived\"]) for m in d]")" = \
		"[[\"oauth\", \"decisions[0]\", \"use the device flow\", false]]" &&
	test "$(json_field j "d[0][\"checkpoint\"]")" = "$(git rev-parse "refs/sessions/oauth^{/^decide}")" &&
	git session grep -c "e" oauth >n && grep "^oauth:[0-9]*$" n && test "$(cut -d: -f2 n)" -ge 5 &&
	git session grep -c "device flow" --all >n &&
	printf "oauth:1\nold:1\n" >expect && test_cmp expect n &&
	test_expect_code 1 git session grep "no such words anywhere" &&
	test_expect_code 1 git session grep --json "no such words anywhere" >j &&
	test "$(cat j)" = "[]" &&
	test_must_fail git session grep "a\(" 2>err &&
	grep "^error: invalid regular expression" err &&
	test_expect_code 129 git session grep &&
	test_must_fail git session grep x no-such-session 2>err && grep "no-such-session" err
'

test_expect_success 'what grep finds is what plain git holds' '
	git grep -c "use the device flow" refs/sessions/oauth -- session.json >c &&
	grep ":session.json:1$" c
'

test_done
