#!/bin/sh
test_description='the upstream formats as real runs write them: into the model, work on, back out with nothing lost, and upstream reads what we write'
. ./lib.sh

FX="$TEST_DIRECTORY/fixtures/real"
same () { python3 "$TEST_DIRECTORY/same_data.py" "$@"; }
show () { git session show --json "$1" >show.json && json_field show.json "$2"; }
# check <actual> <expected>
check () { echo "$2" >expect && echo "$1" >actual && test_cmp expect actual; }

test_expect_success 'setup' '
	echo gw >gateway.c && mkdir -p src && echo m >src/main.py && git add . && git commit -q -m base
'

test_expect_success 'copilot 3.0: step 3_5 is a phase that keeps its key, in step order' '
	git session import -q "$FX/copilot/v3-underscore/00-session-state.json" &&
	check "$(show malta-catering "[(p[\"id\"], p.get(\"key\"), p[\"name\"], p[\"agents\"]) for p in d[\"phases\"]][2:5]")" \
		"[[3, null, \"Design\", [\"04-Design\"]], [8, \"3_5\", \"Governance\", [\"04g-Governance\"]], [4, null, \"IaC Plan\", []]]" &&
	check "$(show malta-catering "d[\"current_phase\"], len(d[\"phases\"]), d[\"phases\"][3][\"context_files_used\"]")" "[4, 8, []]" &&
	check "$(show malta-catering "[(x[\"decision\"], x.get(\"key\"), x.get(\"id\")) for x in d[\"decisions\"]][5:]")" \
		"[[\"simple\", \"complexity\", null], [\"Start with a simple-complexity review budget.\", null, \"D001\"], [\"Carry forward resource-group tag enforcement as the only hard blocker.\", null, \"D002\"]]" &&
	git session status --json malta-catering >st.json &&
	check "$(json_field st.json "d[\"next\"][\"command\"]")" "git session phase complete 4"
'

test_expect_success 'copilot 3.0: work on it, export: everything else as it was, and upstream validates it' '
	git session switch -q malta-catering &&
	git session phase complete 4 -q &&
	git session phase start 5 -q &&
	git session decide "Deploy with azd" --rationale "one command" -q &&
	git session note "checked quotas" -q &&
	mkdir -p out && git session export --format copilot -o out/00-session-state.json malta-catering &&
	same --subset --except "\$.steps.4" --except "\$.steps.5" --except "\$.current_step" --except "\$.decision_log" --except "\$.updated" \
		json "$FX/copilot/v3-underscore/00-session-state.json" out/00-session-state.json &&
	json_field out/00-session-state.json "d[\"current_step\"], d[\"steps\"][\"4\"][\"status\"], d[\"steps\"][\"5\"][\"status\"], sorted(d[\"steps\"])" >actual &&
	echo "[5, \"complete\", \"in_progress\", [\"1\", \"2\", \"3\", \"3_5\", \"4\", \"5\", \"6\", \"7\"]]" >expect &&
	test_cmp expect actual &&
	json_field out/00-session-state.json "d[\"decision_log\"][:2] == $(cat "$FX/copilot/v3-underscore/00-session-state.json" | python3 -c "import json,sys; print(json.load(sys.stdin)[\"decision_log\"])"), [d[\"decision_log\"][2][k] for k in (\"id\", \"step\", \"choice\", \"rationale\")]" >actual &&
	echo "[true, [\"D003\", 5, \"Deploy with azd\", \"one command\"]]" >expect &&
	test_cmp expect actual &&
	git session export --format copilot malta-catering 2>err >/dev/null &&
	grep "^warning: copilot has no place for the session.s notes (1)" err
'

test_expect_success UPSTREAM_BMIT 'copilot: bmit-2026 validates the original and our export alike' '
	bmit_validate "$FX/copilot/v3-underscore/00-session-state.json" &&
	bmit_validate out/00-session-state.json &&
	grep "Checked 2 file(s): 0 error(s)" validator.out
'

test_expect_success 'copilot: key 3.5 and current_step 3.5; a phase added has no step: the warning names it' '
	git session import -q "$FX/copilot/v3-dot/00-session-state.json" &&
	check "$(show malta-catering-dot "d[\"current_phase\"], [p.get(\"key\") for p in d[\"phases\"] if p[\"id\"] == 8]")" "[8, [\"3.5\"]]" &&
	git session switch -q malta-catering-dot &&
	test_must_fail git session phase start 8 2>err &&
	grep "cannot start phase 8 \"Governance\": it is in_progress" err &&
	git session phase add "Hand-over" -q &&
	git session export --format copilot malta-catering-dot >dot.json 2>err &&
	grep "^warning: copilot has no place for phase 9 \"Hand-over\"; it stays in the session" err &&
	same --subset --except "\$.updated" json "$FX/copilot/v3-dot/00-session-state.json" dot.json &&
	check "$(json_field dot.json "sorted(d[\"steps\"]), d[\"current_step\"]")" "[[\"1\", \"2\", \"3\", \"3.5\", \"4\", \"5\", \"6\", \"7\"], 3.5]"
'

test_expect_success 'copilot: a step key that is no number is a phase; a current step that names none names nothing' '
	echo "{\"schema_version\": \"3.0\", \"project\": \"odd-keys\", \"current_step\": \"final\", \"steps\": {\"review\": {\"name\": \"Review\", \"status\": \"pending\"}, \"1\": {\"name\": \"One\", \"status\": \"complete\"}}}" >odd.json &&
	git session import -q odd.json &&
	check "$(show odd-keys "d[\"current_phase\"], [(p[\"id\"], p.get(\"key\")) for p in d[\"phases\"]]")" "[null, [[1, null], [2, \"review\"]]]" &&
	git session export --format copilot odd-keys >odd.out &&
	same --subset json odd.json odd.out
'

test_expect_success 'maestro 1.6: JSON front matter under docs/maestro/state, task, agents of a phase, structured context' '
	git session import -q "$FX/maestro/active-session.md" &&
	id=2026-05-02-rate-limiter &&
	check "$(show $id "d[\"topic\"], d[\"phases\"][2][\"planned_files\"], d[\"extra\"][\"maestro\"][\"task_complexity\"]")" \
		"[\"Add a token-bucket rate limiter to the API gateway\", [\"tests/bucket_test.c\"], \"medium\"]" &&
	git session switch -q $id &&
	echo changed >gateway.c &&
	git session file modified gateway.c --agent coder -q &&
	check "$(show $id "[(a[\"id\"], a[\"phase\"], a[\"status\"]) for a in d[\"agents\"]], d[\"files\"][\"gateway.c\"][\"phase\"], d[\"phases\"][1][\"agents\"]")" \
		"[[[\"coder\", 2, \"in_progress\"]], 2, [\"coder\"]]" &&
	git session phase complete 2 --context "assumptions: one bucket per route" -q &&
	git session phase complete 2 --context "x" 2>err; grep "cannot complete phase 2 \"Gateway wiring\": it is completed" err &&
	check "$(show $id "d[\"phases\"][1][\"downstream_context\"][\"assumptions\"]")" "[\"one bucket per route\"]" &&
	mkdir -p docs/maestro/state &&
	git session export --format maestro -o docs/maestro/state/active-session.md $id &&
	sed -n 2p docs/maestro/state/active-session.md >line2 && echo "{" >expect && test_cmp expect line2 &&
	same --subset --except "\$.front_matter.phases[1]" --except "\$.front_matter.current_phase" --except "\$.front_matter.updated" \
		md "$FX/maestro/active-session.md" docs/maestro/state/active-session.md &&
	check "$(python3 -c "import json; t=open(\"docs/maestro/state/active-session.md\").read(); d=json.loads(t[4:t.index(\"\\n---\\n\")]); p=d[\"phases\"][1]; print(json.dumps([p[\"status\"], p[\"files_modified\"], p[\"downstream_context\"][\"assumptions\"], sorted(p[\"downstream_context\"])]))")" \
		"[\"completed\", [\"gateway.c\"], [\"one bucket per route\"], [\"assumptions\", \"integration_points\", \"key_interfaces_introduced\", \"patterns_established\", \"warnings\"]]"
'

test_expect_success UPSTREAM_MAESTRO 'maestro 1.6: its own handlers read, update and transition our export' '
	node "$TEST_DIRECTORY/../upstream/maestro-check.js" "$UP/maestro-orchestrate" "$PWD" >maestro.json &&
	check "$(json_field maestro.json "d[\"before\"][\"current_phase\"], [p[\"status\"] for p in d[\"after\"][\"phases\"]], d[\"after\"][\"current_batch\"]")" \
		"[3, [\"completed\", \"completed\", \"in_progress\"], \"batch-1\"]" &&
	git session import -q --as maestro-after docs/maestro/state/active-session.md &&
	check "$(show maestro-after "[p[\"status\"] for p in d[\"phases\"]], d[\"extra\"][\"maestro\"][\"current_batch\"]")" \
		"[[\"completed\", \"completed\", \"in_progress\"], \"batch-1\"]"
'

test_expect_success 'maestro up to 1.5: YAML front matter stays YAML' '
	git session import -q "$TEST_DIRECTORY/fixtures/import/maestro/minimal.md" &&
	git session export --format maestro 2025-11-22-tiny >tiny.md &&
	sed -n 2p tiny.md | grep "^session_id: " &&
	same md "$TEST_DIRECTORY/fixtures/import/maestro/minimal.md" tiny.md
'

test_expect_success 'claude: a session without phases resumes with its agents, its tasks and a next step' '
	git session import -q "$FX/claude/orchestrator-session.json" "$FX/claude/completed.json" &&
	git session resume --json dogfood-persistence-test >r.json &&
	check "$(json_field r.json "[a[\"id\"] for a in d[\"agents\"] if a[\"status\"] == \"in_progress\"], [t[\"title\"] for t in d[\"pending_tasks\"]], d[\"next\"][\"text\"], d[\"created\"], d[\"updated\"]")" \
		"[[\"code-1\"], [\"Add tests in tests/test_cli.py\", \"Run the whole test suite\"], \"wait for agent code-1 (60%): Implement goodbye command\", \"2025-12-27T15:30:00-06:00\", \"2025-12-27T15:45:00-06:00\"]" &&
	git session resume dogfood-persistence-test >brief &&
	grep "code-1 60%: Implement goodbye command" brief &&
	grep "#3 Add tests in tests/test_cli.py" brief &&
	check "$(show dogfood-done "d[\"status\"], d[\"created\"], d[\"updated\"]")" \
		"[\"completed\", \"2025-12-26T10:00:00-06:00\", \"2025-12-26T10:48:00-06:00\"]" &&
	git session agent done code-1 --summary "goodbye works" -q &&
	git session status --json >s.json &&
	check "$(json_field s.json "d[\"next\"][\"command\"]")" "git session task done 3" &&
	git session task done 3 -q &&
	git session export --format claude >c.json &&
	same --subset --except "\$.agents" --except "\$.pending_tasks" --except "\$.completed_work" \
		json "$FX/claude/orchestrator-session.json" c.json &&
	check "$(json_field c.json "d[\"pending_tasks\"], d[\"completed_work\"][2], d[\"agents\"][0][\"status\"]")" \
		"[[\"Run the whole test suite\"], \"Add tests in tests/test_cli.py\", \"complete\"]" &&
	git session export --format claude dogfood-done >done.json &&
	same json "$FX/claude/completed.json" done.json
'

test_expect_success 'ccw: .workflow/active and .workflow/archives, planning, map-shaped phases, created' '
	git init -q ccw && (
		cd ccw && git commit -q --allow-empty -m init &&
		cp -R "$FX/ccw/.workflow" . &&
		git session import .workflow >out &&
		check "$(show WFS-implement-oauth2-auth "d[\"status\"], d[\"goal\"], d[\"created\"]")" \
			"[\"in_progress\", \"add OAuth2 sign-in\", \"2025-01-20T07:15:00Z\"]" &&
		check "$(show WFS-legacy-search "[p[\"name\"] for p in d[\"phases\"]], d[\"current_phase\"], d[\"created\"], d[\"status\"]")" \
			"[[\"INIT\", \"BRAINSTORM\", \"PLAN\", \"EXECUTE\", \"REVIEW\"], 4, \"2024-10-01T09:00:00Z\", \"completed\"]" &&
		git session export --format ccw WFS-implement-oauth2-auth >a.json &&
		same json .workflow/active/WFS-implement-oauth2-auth/workflow-session.json a.json &&
		git session export --format ccw WFS-legacy-search >b.json &&
		same json .workflow/archives/WFS-legacy-search/workflow-session.json b.json
	)
'

test_expect_success 'ccw: a session known only from its registry line exports nothing: an error' '
	git init -q ccwreg && (
		cd ccwreg && git commit -q --allow-empty -m init &&
		echo "{\"id\":\"WFS-lonely\",\"status\":\"active\",\"description\":\"d\",\"directory\":\".workflow/WFS-lonely\"}" >reg.jsonl &&
		echo "{\"id\":\"WFS-other\",\"status\":\"paused\",\"description\":\"e\",\"directory\":\".workflow/WFS-other\"}" >>reg.jsonl &&
		git session import -q reg.jsonl &&
		test_must_fail git session export --format ccw -o wf.json WFS-lonely 2>err &&
		grep "^error: session .WFS-lonely. has nothing to write as ccw" err &&
		! test -e wf.json
	)
'

test_expect_success 'bmad: the shipped template keeps its names; decisions and tasks reach the file' '
	git session import -q "$FX/bmad/SES202606-ACME-PORTAL.yaml" &&
	id=SES202606-ACME-PORTAL &&
	check "$(show $id "[d[\"tokens\"][k] for k in (\"max\", \"saved\", \"warning_threshold\")], [x[\"decision\"] for x in d[\"decisions\"]]")" \
		"[[150000, 90000, 120000], [\"Use server-side rendering for the portal\", \"Keep the session store in Redis\"]]" &&
	git session switch -q $id &&
	git session decide "Ship SSO first" -q &&
	git session task add "Wire the login flow" -q &&
	git session export --format bmad $id >b.yaml &&
	same --subset --except "\$.decisions" --except "\$.last_updated" yaml "$FX/bmad/SES202606-ACME-PORTAL.yaml" b.yaml &&
	check "$(python3 -c "import yaml,json; d=yaml.safe_load(open(\"b.yaml\")); print(json.dumps([sorted(d[\"tokens\"]), d[\"decisions\"][2], d[\"tasks\"][0][\"title\"]]))")" \
		"[[\"current\", \"initial\", \"max_limit\", \"peak\", \"saved_by_isolation\", \"warning_threshold\"], \"Ship SSO first\", \"Wire the login flow\"]"
'

test_expect_success 'cross-format: every source to every format writes something and names what it could not carry' '
	for id in malta-catering 2026-05-02-rate-limiter dogfood-persistence-test SES202606-ACME-PORTAL ccw:WFS-legacy-search
	do
		for f in maestro claude copilot bmad ccw
		do
			(case $id in ccw:*) cd ccw ;; esac &&
			 git session export --format $f ${id#ccw:} >"$TRASH_DIRECTORY/x.out" 2>"$TRASH_DIRECTORY/x.err" && test -s "$TRASH_DIRECTORY/x.out") ||
			{ echo "$id as $f: nothing"; return 1; }
		done
	done &&
	git session export --format claude 2026-05-02-rate-limiter 2>err >m2c.json &&
	grep "^warning: claude has no place for the session.s phases (3)" err &&
	check "$(json_field m2c.json "d[\"context_usage\"][\"estimated_tokens\"], d[\"agents\"][0][\"id\"], d[\"goal\"]")" \
		"[16000, \"coder\", null]" &&
	git session export --format bmad malta-catering >c2b.yaml 2>err &&
	grep "^warning: bmad has no place for the session.s phases (8)" err &&
	python3 -c "import yaml; d=yaml.safe_load(open(\"c2b.yaml\")); assert len(d[\"decisions\"]) == 9, d[\"decisions\"]" &&
	git session export --format maestro dogfood-persistence-test >c2m.md 2>err &&
	grep "^warning: maestro has no place for the session.s agents (1), tasks (4)" err
'

test_expect_success UPSTREAM_BMIT 'cross-format: a copilot export from maestro has every field the validator requires' '
	mkdir -p m2c && git session export --format copilot -o m2c/00-session-state.json 2026-05-02-rate-limiter &&
	bmit_validate m2c/00-session-state.json; cat validator.out &&
	! grep -e "Missing required top-level field" -e "missing field" -e "Invalid JSON" -e "Unsupported schema" \
		-e "current_step must be" -e "Missing decisions field" -e "must be an array" validator.out
'

test_done
