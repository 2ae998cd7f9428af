#!/bin/sh
test_description='grep: a regular expression over what every session says, its transcripts included'
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
	echo "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"refactor the parser\"}}" >"$T" &&
	echo "{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"The Parser is split in two\"}],\"usage\":{\"input_tokens\":10,\"output_tokens\":5}}}" >>"$T" &&
	claude UserPromptSubmit ",\"prompt\":\"refactor the parser\"" &&
	claude Stop "" &&
	git session transcript >t && grep "The Parser is split" t
'

test_expect_success 'a pattern finds notes, decisions, errors, tasks and summaries, with session, checkpoint and field' '
	git session grep "device flow" >out &&
	printf "oauth %s decisions[0]: use the device flow\n" "$(git rev-parse --short=7 refs/sessions/oauth)" >expect &&
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
	grep "^agent [0-9a-f]* transcript\[claude-5e5e5e5e\]: .*The Parser is split in two" out &&
	git session grep "The Parser" >out && ! grep notes out
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
	test "$(json_field j "d[0][\"checkpoint\"]")" = "$(git rev-parse refs/sessions/oauth)" &&
	git session grep -c "e" oauth >n && test "$(cat n)" -ge 5 &&
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
