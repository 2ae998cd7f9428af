#!/bin/sh
test_description='six agents record at once on one session; nothing is lost'
. ./lib.sh

test_expect_success 'setup' '
	git session start "parallel" --phase Build -q &&
	git session phase start 1 -q &&
	mkdir -p src &&
	for a in 1 2 3 4 5 6; do echo "agent $a" >src/a$a.c; done
'

test_expect_success '6 agent processes: start, file modified, tokens add, done' '
	for a in 1 2 3 4 5 6
	do
		(
			git session agent start agent-$a --type coder --task "part $a" -q &&
			git session file modified src/a$a.c --agent agent-$a -q &&
			git session tokens add --agent agent-$a --input $((a * 1000)) --output $((a * 100)) --cached $a -q &&
			git session tokens add --agent agent-$a --input 7 --output 3 -q &&
			git session agent done agent-$a --summary "part $a done" -q
		) >out.$a 2>&1 &
	done &&
	wait &&
	cat out.* >all &&
	test_must_be_empty all
'

test_expect_success 'every agent, file and token is in the final state' '
	session_json >s.json &&
	test "$(json_field s.json "sorted((a[\"id\"], a[\"status\"], a[\"result_summary\"]) for a in d[\"agents\"])")" = \
		"[[\"agent-1\", \"completed\", \"part 1 done\"], [\"agent-2\", \"completed\", \"part 2 done\"], [\"agent-3\", \"completed\", \"part 3 done\"], [\"agent-4\", \"completed\", \"part 4 done\"], [\"agent-5\", \"completed\", \"part 5 done\"], [\"agent-6\", \"completed\", \"part 6 done\"]]" &&
	test "$(json_field s.json "sorted(d[\"phases\"][0][\"agents\"])")" = \
		"[\"agent-1\", \"agent-2\", \"agent-3\", \"agent-4\", \"agent-5\", \"agent-6\"]" &&
	test "$(json_field s.json "[(p, f[\"status\"], f[\"agent\"]) for p, f in d[\"files\"].items()]")" = \
		"[[\"src/a1.c\", \"modified\", \"agent-1\"], [\"src/a2.c\", \"modified\", \"agent-2\"], [\"src/a3.c\", \"modified\", \"agent-3\"], [\"src/a4.c\", \"modified\", \"agent-4\"], [\"src/a5.c\", \"modified\", \"agent-5\"], [\"src/a6.c\", \"modified\", \"agent-6\"]]" &&
	for a in 1 2 3 4 5 6
	do
		test "$(git rev-parse SESSION_HEAD:files/src/a$a.c)" = "$(git hash-object src/a$a.c)" || return 1
	done
'

test_expect_success 'token totals equal the sum of what was added' '
	session_json >s.json &&
	test "$(json_field s.json "d[\"tokens\"][\"input\"]")" = $((21000 + 42)) &&
	test "$(json_field s.json "d[\"tokens\"][\"output\"]")" = $((2100 + 18)) &&
	test "$(json_field s.json "d[\"tokens\"][\"cached\"]")" = 21 &&
	for a in 1 2 3 4 5 6
	do
		test "$(json_field s.json "d[\"tokens\"][\"by_agent\"][\"agent-$a\"]")" = \
			"{\"input\": $((a * 1000 + 7)), \"output\": $((a * 100 + 3)), \"cached\": $a}" || return 1
	done &&
	test "$(json_field s.json "sum(a[\"tokens\"][\"input\"] for a in d[\"agents\"])")" = 21042
'

test_expect_success 'the chain is linear and complete: 2 + 6 x 5 checkpoints' '
	test "$(git rev-list --count SESSION_HEAD)" = 32 &&
	test "$(git rev-list --min-parents=2 SESSION_HEAD | wc -l)" = 0 &&
	git fsck --strict --no-dangling
'

test_done
