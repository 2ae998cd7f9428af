#!/bin/sh
test_description='stale agents and phases: in progress, with no operation for longer than session.staleAfter'
. ./lib.sh

at () { test_at $(($1 * 60)); }	# minutes after the start

test_expect_success 'setup: a phase with two agents, one of which reports later' '
	at 0 &&
	git session start "stale" --id st --phase Build --phase Test -q &&
	git session phase start 1 -q &&
	git session agent start a --type coder --task "part a" -q &&
	git session agent start b --type coder --task "part b" -q &&
	at 20 && git session agent progress b 50 -q
'

test_expect_success 'after 40 minutes the silent agent is stale, the other is not' '
	at 40 &&
	git session status --json >s &&
	test "$(json_field s "[(a[\"id\"], a[\"stale\"]) for a in d[\"agents\"]]")" = "[[\"a\", true], [\"b\", false]]" &&
	test "$(json_field s "d[\"agents\"][1][\"seen\"]")" = "2025-11-21T10:20:00Z" &&
	test "$(json_field s "d[\"phases\"][0][\"stale\"]")" = false &&
	test "$(json_field s "[a[\"stale\"] for a in d[\"phases\"][0][\"agents\"]]")" = "[true, false]" &&
	git session resume --dry-run --json >r &&
	test "$(json_field r "[(a[\"id\"], a[\"stale\"]) for a in d[\"in_progress\"][0][\"agents\"]]")" = "[[\"a\", true], [\"b\", false]]" &&
	test "$(json_field r "d[\"next\"][\"text\"]")" = "wait for the agents of phase 1 \"Build\"" &&
	git session status >out &&
	grep "a 0% (stale: no operation since 2025-11-21T10:00:00Z)" out &&
	! grep "b (stale" out &&
	git session resume --dry-run >brief &&
	grep "a 0%: part a (stale: no operation since 2025-11-21T10:00:00Z)" brief
'

test_expect_success 'when every agent of a phase is stale, resume says what to do about it' '
	at 55 &&
	git session resume --dry-run --json >r &&
	test "$(json_field r "d[\"in_progress\"][0][\"stale\"]")" = true &&
	test "$(json_field r "d[\"next\"][\"command\"]")" = "git session agent fail a --error \"stale\"" &&
	json_field r "d[\"next\"][\"text\"]" >text &&
	grep "^agent a has had no operation for 55 minutes" text
'

test_expect_success 'agent progress is a heartbeat; so is a file the agent records' '
	at 56 && git session agent progress a 10 -q &&
	echo x >f.c && git session file created --agent b -q f.c &&
	git session status --json >s &&
	test "$(json_field s "[a[\"stale\"] for a in d[\"agents\"]]")" = "[false, false]" &&
	test "$(json_field s "d[\"phases\"][0][\"stale\"]")" = false &&
	git show SESSION_HEAD:session.json >state &&
	test "$(json_field state "[a[\"seen\"] for a in d[\"agents\"]]")" = "[\"2025-11-21T10:56:00Z\", \"2025-11-21T10:56:00Z\"]"
'

test_expect_success 'session.staleAfter sets the time; 0 turns it off' '
	at 70 &&
	git -c session.staleAfter=600 session status --json >s &&
	test "$(json_field s "[a[\"stale\"] for a in d[\"agents\"]]")" = "[true, true]" &&
	git -c session.staleAfter=0 session status --json >s &&
	test "$(json_field s "[a[\"stale\"] for a in d[\"agents\"]]")" = "[false, false]" &&
	git session status --json >s &&
	test "$(json_field s "[a[\"stale\"] for a in d[\"agents\"]]")" = "[false, false]" &&
	test_must_fail git -c session.staleAfter=soon session status >out 2>err &&
	test_must_be_empty out && grep "^error: .*session.staleAfter" err &&
	test_must_fail git -c session.staleAfter=soon session list 2>err && grep "session.staleAfter" err
'

test_expect_success 'an agent that is done is never stale' '
	git session agent done a -q &&
	at 200 &&
	git session status --json >s &&
	test "$(json_field s "[(a[\"id\"], a[\"stale\"]) for a in d[\"agents\"]]")" = "[[\"a\", false], [\"b\", true]]"
'

test_expect_success 'list marks a session in progress with no operation for longer than session.staleAfter' '
	git session start "fresh" --id fresh -q --pause-current &&
	at 210 &&
	git session list --json >l &&
	test "$(json_field l "sorted((s[\"id\"], s[\"stale\"]) for s in d)")" = "[[\"fresh\", false], [\"st\", false]]" &&
	at 300 &&
	git session list --json >l &&
	test "$(json_field l "sorted((s[\"id\"], s[\"stale\"]) for s in d)")" = "[[\"fresh\", true], [\"st\", false]]" &&
	git session list >out &&
	grep "^\* fresh  *stale " out &&
	grep "^  st  *paused " out
'

test_done
