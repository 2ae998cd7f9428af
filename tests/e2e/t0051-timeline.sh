#!/bin/sh
test_description='timeline: phases, agents, failures, retries and commits along time'
. ./lib.sh

s () { test_tick && git session "$@" -q; }
c () { test_tick && echo "$1" >"$1" && git add "$1" && git commit -q -m "$1"; }
# the widest line, in characters (not bytes)
widest () { python3 -c 'import sys; print(max(len(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8")))' "$1"; }

test_expect_success 'a scripted session: parallel agents, a failure, retries, commits' '
	s start "Add OAuth" --phase Design --phase Implement --phase Test --phase Docs &&
	git session hooks install >/dev/null &&
	s phase start 1 &&
	s agent start arch-1 --type architect --task "Design the API" &&
	s agent done arch-1 &&
	s phase complete 1 &&
	s phase start 2 &&
	s agent start code-1 --type coder --task "Server side" &&
	s agent start code-2 --type coder --task "Client side" &&
	c a.c &&
	s agent done code-1 &&
	s agent fail code-2 --error "type error" &&
	s phase fail 2 --error "no build" &&
	s phase retry 2 &&
	s agent start code-3 --type coder --task "Fix the client" &&
	c b.c &&
	s agent done code-3 &&
	s phase complete 2 &&
	s phase start 3 &&
	s agent start test-1 --type tester --task "Run the tests" &&
	c t.c &&
	s phase fail 3 --error "tests time out" --type timeout &&
	s phase retry 3 &&
	s agent start doc-1 --phase 4 --type writer --task "Write the docs"
'

test_expect_success 'UTF-8, 80 columns' '
	git session timeline --width 80 >out &&
	cat >expect <<-\EOF &&
	Timeline of 2025-11-21-add-oauth (in progress)

	1 Design       │  ██████████
	  arch-1       │     ━━━━
	2 ↻1 Implement │              █████████████████✗↻█████████████
	  code-1       │                 ━━━━━━━━━
	  code-2       │                    ━━━━━━━━✗↻
	  code-3       │                                     ━━━━━━
	3 ↻1 Test      │                                                ▒▒▒▒▒▒▒▒▒✗↻▒▒▒▒▒
	  test-1       │                                                   ┄┄┄┄┄┄┄┄┄┄┄┄┄
	4 Docs         │
	  doc-1        │                                                               ┄
	commits        │                      ●                 ●             ●
	               └────────────────────────────────────────────────────────────────
	                2025-11-21 10:02Z                                 +22m 0s 10:24Z

	█ phase  ▒ phase active  ━ agent  ┄ agent running  ✗ failure  ↻ retry  ● commit
	EOF
	test_cmp expect out &&
	test "$(widest out)" = 80
'

test_expect_success 'ASCII when the locale is not UTF-8, the same picture' '
	LC_ALL=C LANG=C git session timeline --width 80 >ascii &&
	! grep -P "[^\x00-\x7f]" ascii &&
	sed "s/█/#/g; s/▒/=/g; s/━/-/g; s/┄/~/g; s/✗/X/g; s/↻/R/g; s/●/o/g; s/│/|/g; s/└/+/; s/─/-/g" out >expect &&
	test_cmp expect ascii
'

test_expect_success '200 columns: the same rows, drawn wider, nothing past the edge' '
	git session timeline --width 200 >wide &&
	test "$(widest wide)" -le 200 &&
	test "$(grep -c "│" wide)" = "$(grep -c "│" out)" &&
	cut -c1-15 wide >labels200 && cut -c1-15 out >labels80 && test_cmp labels80 labels200 &&
	# a bar starts at the same fraction of the width: phase 2 at 10:07 of 10:01..10:23
	python3 - wide out <<-\PY
	import sys
	for f, cells in ((sys.argv[1], 184), (sys.argv[2], 64)):
	    line = [l for l in open(f, encoding="utf-8") if l.startswith("2 ")][0]
	    col = line.index("█") - 16
	    assert col == int(6 * (cells - 1) / 22), (f, col)
	PY
	LC_ALL=C git session timeline --width 200 >wide-ascii &&
	test "$(widest wide-ascii)" -le 200
'

test_expect_success 'the width comes from --width, then COLUMNS, then 80; at least 40' '
	COLUMNS=120 git session timeline >cols && test "$(widest cols)" = 120 &&
	env -u COLUMNS git session timeline >dflt && test "$(widest dflt)" = 80 &&
	git session timeline --width 10 >narrow && test "$(widest narrow)" -le 40 &&
	grep "^2 ↻1 Implem… │" narrow && head -2 narrow >head &&
	printf "Timeline of 2025-11-21-add-oauth\n(in progress)\n" >expect && test_cmp expect head
'

test_expect_success 'colour only when asked for or on a terminal' '
	! grep -q "$(printf "\033")" out &&
	git session timeline --color=always --width 80 >colour &&
	grep -q "$(printf "\033\\[31m")✗" colour &&
	NO_COLOR=1 git session timeline --color=auto --width 80 >plain && test_cmp out plain
'

test_expect_success 'timeline --json: exact times, rows in order, failures and retries' '
	git session timeline --json >t.json &&
	test "$(json_field t.json "[(r[\"kind\"], r[\"id\"]) for r in d[\"rows\"]]")" = \
		"[[\"phase\", 1], [\"agent\", \"arch-1\"], [\"phase\", 2], [\"agent\", \"code-1\"], [\"agent\", \"code-2\"], [\"agent\", \"code-3\"], [\"phase\", 3], [\"agent\", \"test-1\"], [\"phase\", 4], [\"agent\", \"doc-1\"]]" &&
	test "$(json_field t.json "d[\"start\"], d[\"end\"], d[\"seconds\"]")" = \
		"[\"2025-11-21T10:02:00Z\", \"2025-11-21T10:24:00Z\", 1320]" &&
	test "$(json_field t.json "[m[\"kind\"] for r in d[\"rows\"] if r[\"id\"] == 2 for m in r[\"marks\"]]")" = "[\"retried\"]" &&
	test "$(json_field t.json "[c[\"id\"] for c in d[\"commits\"]]")" = \
		"[\"$(git rev-parse HEAD~2)\", \"$(git rev-parse HEAD~1)\", \"$(git rev-parse HEAD)\"]"
'

test_expect_success 'timeline of another session, and errors' '
	git session timeline --width 80 2025-11-21-add-oauth >again && test_cmp out again &&
	test_must_fail git session timeline nosuch 2>err && grep "^error: " err &&
	test_expect_code 129 git session timeline a b 2>err
'

test_done
