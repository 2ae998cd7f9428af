#!/bin/sh
test_description='a scripted orchestration: 4 phases, 6 agents, errors, retries, a token budget'
. ./lib.sh

s () { test_tick && git session "$@" -q; }
# the n-th checkpoint of the session, counting from 1
cp () { git rev-list --reverse SESSION_HEAD | sed -n "${1}p"; }

test_expect_success 'the orchestration runs' '
	s start "Add OAuth" --goal "Sign in with GitHub" --budget 20000 \
		--phase Design --phase Implement --phase Test --phase Docs &&
	s phase start 1 &&
	s agent start arch-1 --type architect --task "Design the API" &&
	s decide "Use the device flow" --rationale "works without a browser" &&
	s tokens add --agent arch-1 --input 2000 --output 1000 &&
	s agent done arch-1 --summary "3 endpoints proposed" &&
	s phase complete 1 --context "REST, three endpoints" &&
	s phase start 2 &&
	s agent start code-1 --type coder --task "Server side" &&
	s agent start code-2 --type coder --task "Client side" &&
	mkdir -p src && echo "server" >src/server.c && echo "client" >src/client.c &&
	s file created src/server.c --agent code-1 &&
	s file created src/client.c --agent code-2 &&
	s agent progress code-1 50 &&
	s tokens add --agent code-1 --input 4000 --output 2000 &&
	s tokens add --agent code-2 --input 3000 --output 1500 --cached 500 &&
	s agent done code-1 --summary "server done" &&
	s agent fail code-2 --error "type error in client.c" --type validation &&
	s phase fail 2 --error "client does not build" --type validation &&
	s phase retry 2 &&
	s agent start code-3 --type coder --task "Fix the client" &&
	s tokens add --agent code-3 --input 1500 --output 1000 &&
	s agent done code-3 --summary "client fixed" &&
	s error add --type dependency --message "npm registry slow" --agent code-3 &&
	s error resolve 3 --resolution "used the cache" &&
	s phase complete 2 &&
	s phase start 3 &&
	s agent start test-1 --type tester --task "Run the tests" &&
	s tokens add --agent test-1 --input 1500 --output 500 &&
	s phase fail 3 --error "tests time out" --type timeout &&
	s phase retry 3 &&
	s phase fail 3 --error "tests time out again" --type timeout &&
	s phase retry 3 &&
	s phase fail 3 --error "still timing out" --type timeout &&
	test_must_fail git session phase retry 3 2>err &&
	grep "^error: phase 3 \"Test\" has been retried 2 times, the limit (session.maxRetries); escalate" err &&
	s agent start doc-1 --type writer --task "Write the docs" --phase 4 &&
	s tokens add --agent doc-1 --input 500 --output 300
'

test_expect_success 'git log reads as the story of the work' '
	git log --reverse --format=%s SESSION_HEAD >story &&
	cat >expect <<-\EOF &&
	start session 2025-11-21-add-oauth: "Add OAuth"
	phase 1 "Design": pending -> in_progress
	agent arch-1 started (architect, phase 1): "Design the API"
	decide: "Use the device flow"
	tokens arch-1: +2000 in, +1000 out
	agent arch-1 done: "3 endpoints proposed"
	phase 1 "Design": in_progress -> completed
	phase 2 "Implement": pending -> in_progress
	agent code-1 started (coder, phase 2): "Server side"
	agent code-2 started (coder, phase 2): "Client side"
	file created: src/server.c by code-1
	file created: src/client.c by code-2
	agent code-1 at 50%
	tokens code-1: +4000 in, +2000 out
	tokens code-2: +3000 in, +1500 out, +500 cached
	agent code-1 done: "server done"
	agent code-2 failed: "type error in client.c"
	phase 2 "Implement": in_progress -> failed (validation)
	phase 2 "Implement": failed -> in_progress (retry 1 of 2)
	agent code-3 started (coder, phase 2): "Fix the client"
	tokens code-3: +1500 in, +1000 out
	agent code-3 done: "client fixed"
	error #3 (dependency): "npm registry slow"
	error #3 resolved: "used the cache"
	phase 2 "Implement": in_progress -> completed
	phase 3 "Test": pending -> in_progress
	agent test-1 started (tester, phase 3): "Run the tests"
	tokens test-1: +1500 in, +500 out
	phase 3 "Test": in_progress -> failed (timeout)
	phase 3 "Test": failed -> in_progress (retry 1 of 2)
	phase 3 "Test": in_progress -> failed (timeout)
	phase 3 "Test": failed -> in_progress (retry 2 of 2)
	phase 3 "Test": in_progress -> failed (timeout)
	agent doc-1 started (writer, phase 4): "Write the docs"
	tokens doc-1: +500 in, +300 out
	EOF
	test_cmp expect story &&
	git log --format="%(trailers:key=Session-Op,valueonly,separator=)" -3 SESSION_HEAD >ops &&
	printf "tokens.add\nagent.start\nphase.fail\n" >expect &&
	grep . ops >ops.clean && test_cmp expect ops.clean
'

test_expect_success 'status --json, field by field' '
	git session status --json >st.json &&
	test "$(json_field st.json "d[\"session_id\"]")" = 2025-11-21-add-oauth &&
	test "$(json_field st.json "d[\"status\"]")" = in_progress &&
	test "$(json_field st.json "d[\"active\"]")" = true &&
	test "$(json_field st.json "d[\"checkpoint\"]")" = "$(git rev-parse SESSION_HEAD)" &&
	test "$(json_field st.json "d[\"goal\"]")" = "Sign in with GitHub" &&
	test "$(json_field st.json "d[\"created\"]")" = 2025-11-21T10:02:00Z &&
	test "$(json_field st.json "d[\"elapsed_seconds\"]")" = $((34 * 60)) &&
	test "$(json_field st.json "d[\"idle_seconds\"]")" = 0 &&
	test "$(json_field st.json "d[\"progress\"]")" = \
		"{\"phases\": 4, \"completed\": 2, \"in_progress\": 0, \"failed\": 1, \"skipped\": 0, \"pending\": 1, \"percent\": 50}" &&
	test "$(json_field st.json "d[\"current_phase\"]")" = 3 &&
	test "$(json_field st.json "[(p[\"id\"], p[\"status\"], p[\"retry_count\"]) for p in d[\"phases\"]]")" = \
		"[[1, \"completed\", 0], [2, \"completed\", 1], [3, \"failed\", 2], [4, \"pending\", 0]]" &&
	test "$(json_field st.json "[(a[\"id\"], a[\"status\"]) for a in d[\"phases\"][1][\"agents\"]]")" = \
		"[[\"code-1\", \"completed\"], [\"code-2\", \"failed\"], [\"code-3\", \"completed\"]]" &&
	test "$(json_field st.json "[(e[\"number\"], e[\"type\"], e[\"phase\"]) for e in d[\"unresolved_errors\"]]")" = \
		"[[6, \"timeout\", 3]]" &&
	test "$(json_field st.json "d[\"errors_total\"]")" = 6 &&
	test "$(json_field st.json "d[\"recent_decisions\"][0][\"decision\"]")" = "Use the device flow" &&
	test "$(json_field st.json "d[\"next\"][\"command\"]")" = null &&
	json_field st.json "d[\"next\"][\"text\"]" | grep "^escalate: phase 3 \"Test\" failed after 2 retries"
'

test_expect_success 'tokens --json: totals equal the sum, per agent, past 80%' '
	git session tokens --json >t.json &&
	test "$(json_field t.json "d[\"input\"]")" = 12500 &&
	test "$(json_field t.json "d[\"output\"]")" = 6300 &&
	test "$(json_field t.json "d[\"cached\"]")" = 500 &&
	test "$(json_field t.json "d[\"used\"]")" = 18800 &&
	test "$(json_field t.json "d[\"max\"]")" = 20000 &&
	test "$(json_field t.json "d[\"percent\"]")" = 94 &&
	test "$(json_field t.json "d[\"level\"]")" = warning &&
	test "$(json_field t.json "d[\"remaining\"]")" = 1200 &&
	test "$(json_field t.json "d[\"peak\"]")" = 18800 &&
	test "$(json_field t.json "[(a[\"agent\"], a[\"total\"]) for a in d[\"by_agent\"]]")" = \
		"[[\"code-1\", 6000], [\"code-2\", 4500], [\"arch-1\", 3000], [\"code-3\", 2500], [\"test-1\", 2000], [\"doc-1\", 800]]" &&
	test "$(json_field t.json "sum(a[\"total\"] for a in d[\"by_agent\"])")" = 18800 &&
	session_json >s.json &&
	test "$(json_field s.json "[a[\"tokens\"][\"input\"] for a in d[\"agents\"]]")" = "[2000, 4000, 3000, 1500, 1500, 500]"
'

test_expect_success 'status warns over 80% and turns critical over 95%' '
	git session status --no-color >out &&
	grep "^Tokens    18.8k / 20k (94.0%)" out &&
	grep "warning: over 80% of the budget used" out &&
	s tokens add --agent doc-1 --input 300 --output 100 &&
	git session status --no-color >out &&
	grep "^Tokens    19.2k / 20k (96.0%)" out &&
	grep "critical: over 95% of the budget used" out &&
	git session tokens --json >t.json &&
	test "$(json_field t.json "d[\"level\"]")" = critical
'

test_expect_success 'status for a person: errors first, phases, agents, next' '
	git session status --no-color >out &&
	sed -n "1p" out >first &&
	echo "Session 2025-11-21-add-oauth  [>] in progress (active here)" >expect.ascii &&
	printf "Session 2025-11-21-add-oauth  \342\227\217 in progress (active here)\n" >expect.utf8 &&
	{ test_cmp expect.utf8 first || test_cmp expect.ascii first; } &&
	grep -n "Unresolved errors" out >e && grep -n "Phases" out >p &&
	test "$(cut -d: -f1 e)" -lt "$(cut -d: -f1 p)" &&
	grep "#6 timeout, phase 3: still timing out" out &&
	! grep "#4 timeout" out &&
	grep "3 Test  failed, retry 2 of 2" out &&
	grep "code-1  .* code-2  .* code-3" out &&
	grep "Progress  .* 2/4 phases done, 50%" out &&
	grep "^Decided   Use the device flow" out &&
	grep "^Next: escalate: phase 3" out
'

test_expect_success 'status in an ASCII locale uses ASCII marks' '
	LC_ALL=C git session status --no-color >out &&
	grep "^Session 2025-11-21-add-oauth  \[>\] in progress" out &&
	grep "\[x\] 1 Design" out &&
	grep "\[!\] 3 Test" out &&
	grep "\[ \] 4 Docs" out &&
	! grep "$(printf "\342")" out
'

test_expect_success 'colour: never when piped, NO_COLOR, --no-color or color.ui=never; --color forces it' '
	esc=$(printf "\033") &&
	git session status >out && ! grep "$esc" out &&
	git session status --color >out && grep "$esc\[1m" out &&
	git session status --color=always >out && grep "$esc" out &&
	NO_COLOR=1 git session status >out && ! grep "$esc" out &&
	git -c color.ui=always session status >out && grep "$esc" out &&
	git -c color.ui=always -c color.session=never session status >out && ! grep "$esc" out &&
	git config color.ui always && git session status >out && grep "$esc" out &&
	NO_COLOR=1 git session status >out && ! grep "$esc" out &&
	git session status --no-color >out && ! grep "$esc" out &&
	git config color.session never && git session status >out && ! grep "$esc" out &&
	git config --unset color.session && git config color.ui never &&
	git session status >out && ! grep "$esc" out &&
	test_expect_code 1 git session status --color=sometimes 2>err &&
	grep "^error: invalid --color value" err
'

test_expect_success 'diff between two checkpoints, in words and as JSON' '
	git session diff $(cp 3) $(cp 7) >out &&
	cat >expect <<-EOF &&
	diff $(cp 3 | cut -c1-7)..$(cp 7 | cut -c1-7)
	phase 1 "Design": in_progress -> completed
	agent arch-1: in_progress -> completed
	tokens: +2000 input, +1000 output, +0 cached, +0 saved (used +3000)
	decision: Use the device flow
	EOF
	test_cmp expect out &&
	git session diff --json $(cp 7) $(cp 17) >d.json &&
	test "$(json_field d.json "d[\"from\"]")" = "$(cp 7)" &&
	test "$(json_field d.json "d[\"status\"]")" = null &&
	test "$(json_field d.json "[(p[\"id\"], p[\"from\"], p[\"to\"]) for p in d[\"phases\"]]")" = \
		"[[2, \"pending\", \"in_progress\"]]" &&
	test "$(json_field d.json "[(a[\"id\"], a[\"from\"], a[\"to\"]) for a in d[\"agents\"]]")" = \
		"[[\"code-1\", null, \"completed\"], [\"code-2\", null, \"failed\"]]" &&
	test "$(json_field d.json "[(f[\"path\"], f[\"from\"], f[\"to\"], f[\"agent\"]) for f in d[\"files\"]]")" = \
		"[[\"src/client.c\", null, \"created\", \"code-2\"], [\"src/server.c\", null, \"created\", \"code-1\"]]" &&
	test "$(json_field d.json "d[\"files\"][1][\"oid\"]")" = "$(git hash-object src/server.c)" &&
	test "$(json_field d.json "[(e[\"number\"], e[\"type\"], e[\"agent\"]) for e in d[\"errors\"][\"opened\"]]")" = \
		"[[1, \"validation\", \"code-2\"]]" &&
	test "$(json_field d.json "d[\"tokens\"]")" = \
		"{\"input\": 7000, \"output\": 3500, \"cached\": 500, \"saved\": 0, \"used\": 10500}" &&
	git session diff --json SESSION_HEAD~5 >d2.json &&
	test "$(json_field d2.json "d[\"to\"]")" = "$(git rev-parse SESSION_HEAD)"
'

test_expect_success 'user text with control characters is escaped on the terminal' '
	s note "$(printf "evil \033[31mred\033[m and \007bell")" &&
	s decide "$(printf "clear\033[2Jscreen")" &&
	git session status --no-color >out &&
	! grep "$(printf "\033")" out &&
	grep "clear^\[\[2Jscreen" out &&
	git session diff SESSION_HEAD~2 >out &&
	! grep "$(printf "\033")" out && ! grep "$(printf "\007")" out &&
	git session show --json >j && grep "evil \\\\u001b\[31mred" j
'

test_expect_success 'refused moves name the allowed ones, and change nothing' '
	s phase add Release --blocked-by 3 &&
	old=$(git rev-parse SESSION_HEAD) &&
	test_must_fail git session phase complete 4 2>err &&
	grep "^error: cannot complete phase 4 \"Docs\": it is pending (allowed: start, skip)" err &&
	test_must_fail git session phase start 1 2>err &&
	grep "it is completed (allowed: none)" err &&
	test_must_fail git session phase start 5 2>err &&
	grep "^error: cannot start phase 5 \"Release\": blocked by phase 3 \"Test\" (failed)" err &&
	test_must_fail git session agent done nobody 2>err &&
	grep "^error: unknown agent .nobody." err &&
	test_must_fail git session file modified ../x 2>err &&
	grep "outside the working tree" err &&
	test_must_fail git session error resolve 9 --resolution x 2>err &&
	grep "^error: no error #9" err &&
	test_expect_code 129 git session phase frob 1 2>err &&
	grep "^error: unknown subcommand .frob." err &&
	test_expect_code 129 git session agent start x --type t 2>err &&
	test_expect_code 129 git session phase start 2>err &&
	test_expect_code 1 git session phase start two 2>err &&
	grep "must be a whole number" err &&
	test "$(git rev-parse SESSION_HEAD)" = "$old"
'

test_expect_success 'tasks, milestones, artifacts' '
	s task add "Write the changelog" &&
	s task done 1 &&
	s milestone add "Beta" &&
	s milestone done "Beta" &&
	echo doc >README.md && s artifact README.md --agent doc-1 --phase 4 &&
	session_json >s.json &&
	test "$(json_field s.json "[(t[\"id\"], t[\"status\"]) for t in d[\"tasks\"]]")" = "[[1, \"done\"]]" &&
	test "$(json_field s.json "d[\"milestones\"][0][\"completed\"]")" != null &&
	test "$(json_field s.json "d[\"artifacts\"][0]")" = \
		"{\"path\": \"README.md\", \"created\": \"$(json_field s.json "d[\"updated\"]")\", \"agent\": \"doc-1\", \"phase\": 4}"
'

test_expect_success 'git fsck is clean' '
	git fsck --strict
'

test_done
