#!/bin/sh
test_description='Claude Code Workflow, craft and BMAD sessions as their users write them: read whole, written back as read, worked on'
. ./lib.sh

FX="$TEST_DIRECTORY/fixtures/real"
same () { python3 "$TEST_DIRECTORY/same_data.py" "$@"; }
# val <file> <python expression on d>: json_field, with text as text
val () {
	python3 -c "import json, sys; d = json.load(open(sys.argv[1])); v = eval(sys.argv[2]); \
print(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False))" "$1" "$2"
}
show () { git session show --json "$1" >show.json && val show.json "$2"; }
check () { echo "$2" >expect && echo "$1" >actual && test_cmp expect actual; }

test_expect_success 'setup' '
	echo m >main.c && git add . && git commit -q -m base
'

test_expect_success 'ccw: phases as status words, a failed phase, the goal of a task description; only an active/ session is made active' '
	cp -R "$FX/ccw/shapes/.workflow" . &&
	git session import .workflow >out &&
	grep "^Active session: WFS-search-rollout$" out &&
	test "$(git symbolic-ref SESSION_HEAD)" = refs/sessions/WFS-search-rollout &&
	check "$(show WFS-docs-overhaul "d[\"status\"], d[\"goal\"], [(p[\"id\"], p[\"name\"], p[\"status\"]) for p in d[\"phases\"]]")" \
		"[\"completed\", \"重写 player 项目的用户文档，覆盖安装、配置与排错\", [[1, \"session_discovery\", \"completed\"], [2, \"context_gathering\", \"completed\"], [3, \"conflict_resolution\", \"failed\"], [4, \"task_generation\", \"pending\"]]]" &&
	git session status WFS-docs-overhaul >st &&
	grep "3 conflict_resolution  failed" st &&
	check "$(show WFS-release-hardening "d[\"status\"], d[\"goal\"], d[\"created\"]")" \
		"[\"in_progress\", \"Harden the 2.0 release: crash reporting, migrations, rollback\", \"2026-05-11T08:20:00Z\"]" &&
	check "$(show WFS-tdd-catalog-api "d[\"status\"], d[\"goal\"], d[\"updated\"], d[\"extra\"][\"ccw\"][\"输出位置\"], sorted(d[\"extra\"][\"ccw\"][\"decisions\"])")" \
		"[\"in_progress\", \"TDD: 药材目录 API\", \"2026-04-03T18:02:44.120931+00:00\", \"docs/_dev/tdd/\", [\"storage\", \"testing\"]]" &&
	for f in .workflow/*/*/workflow-session.json
	do
		id=$(basename "$(dirname "$f")") &&
		git session export --format ccw $id >x.json &&
		same json "$f" x.json || { echo "$f: not the same"; return 1; }
	done
'

test_expect_success 'ccw: times with seven-digit fractions and offsets are times, written back as written' '
	check "$(show WFS-search-rollout "d[\"created\"]")" "2026-06-08T14:02:11.5550123+02:00" &&
	git session status WFS-search-rollout >st &&
	grep "^Started   [^ ,][^,]*, last checkpoint [^ (]" st &&
	git session status WFS-tdd-catalog-api >st &&
	grep "^Started   [^ ,][^,]*, last checkpoint [^ (]" st
'

test_expect_success 'ccw: a current phase given by number stays that number; a note and a phase later the export holds the source' '
	check "$(show WFS-search-rollout "d[\"current_phase\"]")" 3 &&
	git session note "flag defaults checked" -q &&
	git session phase add "Rollback drill" -q &&
	git session export --format ccw WFS-search-rollout >x.json &&
	same --subset --except "\$.updated_at" --except "\$.phases.Rollback drill" \
		json .workflow/active/WFS-search-rollout/workflow-session.json x.json &&
	check "$(val x.json "d[\"current_phase\"], d[\"phases\"][\"Rollback drill\"]")" "[3, {\"status\": \"pending\"}]" &&
	git session phase complete 3 -q && git session phase start 4 -q &&
	git session export --format ccw WFS-search-rollout >x.json &&
	check "$(val x.json "d[\"current_phase\"], d[\"phases\"][\"EXECUTE\"][\"status\"]")" "[4, \"completed\"]"
'

test_expect_success 'ccw: phases map of status words gets a status word for a phase added here' '
	git init -q words && (
		cd words && git commit -q --allow-empty -m init &&
		mkdir -p .workflow/active && cp -R ../.workflow/active/WFS-docs-overhaul .workflow/active/ &&
		sed -e "s/\"status\": \"completed\",/\"status\": \"active\",/" \
			../.workflow/active/WFS-docs-overhaul/workflow-session.json >.workflow/active/WFS-docs-overhaul/workflow-session.json &&
		git session import .workflow >out &&
		grep "^Active session: WFS-docs-overhaul$" out &&
		git session phase add "Publish" -q &&
		git session export --format ccw WFS-docs-overhaul >x.json &&
		same --subset --except "\$.updated_at" --except "\$.phases.Publish" --except "\$.current_phase" \
			json .workflow/active/WFS-docs-overhaul/workflow-session.json x.json &&
		check "$(val x.json "d[\"phases\"]")" \
			"{\"session_discovery\": \"completed\", \"context_gathering\": \"completed\", \"conflict_resolution\": \"failed\", \"task_generation\": \"pending\", \"Publish\": \"pending\"}"
	)
'

test_expect_success 'ccw: archives/ alone: nothing made active, whatever the status; the work is written back' '
	git init -q arch && (
		cd arch && git commit -q --allow-empty -m init &&
		cp -R ../.workflow . &&
		git session import .workflow/archives >out &&
		! grep "Active session" out &&
		test_must_fail git symbolic-ref -q SESSION_HEAD &&
		check "$(show WFS-sync-closure "d[\"status\"], d[\"phases\"]")" "[\"in_progress\", []]" &&
		git session switch -q WFS-sync-closure &&
		git session note "P0 list agreed" -q &&
		git session phase add "Close P0" -q &&
		git session export --format ccw WFS-sync-closure >x.json &&
		same --subset --except "\$.updated_at" --except "\$.phases" --except "\$.current_phase" \
			json .workflow/archives/WFS-sync-closure/workflow-session.json x.json &&
		check "$(val x.json "d[\"status\"], d[\"phases\"]")" "[\"planning\", {\"Close P0\": {\"status\": \"pending\"}}]"
	)
'

test_expect_success 'ccw: a file that is not JSON is refused at its line, and nothing is imported' '
	git init -q broken && (
		cd broken && git commit -q --allow-empty -m init &&
		cp -R "$FX/ccw/broken/.workflow" . &&
		test_must_fail git session import .workflow 2>err &&
		grep "^error: .workflow/archives/WFS-storage-migration/workflow-session.json:9: invalid JSON" err &&
		test_must_fail git session import --format ccw .workflow/archives/WFS-storage-migration/workflow-session.json 2>err &&
		grep "workflow-session.json:9: invalid JSON" err &&
		test -z "$(git for-each-ref refs/sessions refs/archive)"
	)
'

test_expect_success 'ccw: a maestro-flow session under .workflow/ is not taken for CCW' '
	mkdir -p .workflow/sessions/20260820-notes &&
	echo "{\"schema_version\": \"session/3.0\", \"session_id\": \"WFS-notes\", \"status\": \"running\"}" \
		>.workflow/sessions/20260820-notes/session.json &&
	{ git session import .workflow/sessions/20260820-notes/session.json >out 2>&1 || :; } &&
	! grep "from ccw" out
'

test_expect_success 'claude: craft 1.3: started, agents, work done as text, next_actions' '
	git session import -q "$FX/claude/craft/orchestrator-session.json" &&
	id=2026-02-03-k7q2 &&
	check "$(show $id "d[\"created\"], [(a[\"id\"], a[\"type\"], a[\"status\"], a[\"progress\"], a[\"result_summary\"]) for a in d[\"agents\"]]")" \
		"[\"2026-02-03T09:05:00\", [[\"arch-1\", \"arch\", \"completed\", null, \"2 methods proposed\"], [\"test-1\", \"test\", \"in_progress\", 40, null]]]" &&
	check "$(show $id "[(t[\"id\"], t[\"title\"], t[\"status\"]) for t in d[\"tasks\"]]")" \
		"[[1, \"✅ Interval API designed\", \"done\"], [2, \"✅ Fixtures recorded\", \"done\"], [3, \"Finish test-1\", \"pending\"], [4, \"Update the vignette\", \"pending\"]]" &&
	git session export --format claude $id >c.json &&
	same json "$FX/claude/craft/orchestrator-session.json" c.json &&
	git session status $id >st &&
	grep "^Started   [^ ,][^,]*, last checkpoint [^ (]" st &&
	git session switch -q $id &&
	git session agent done test-1 --summary "12 tests" -q &&
	git session task done 3 -q &&
	git session task add "Tag the release" -q &&
	git session note "intervals match the paper" -q &&
	git session export --format claude $id >c.json &&
	same --subset --except "\$.agents" --except "\$.completed_work" --except "\$.next_actions" --except "\$.updated" \
		json "$FX/claude/craft/orchestrator-session.json" c.json &&
	check "$(val c.json "d[\"completed_work\"], d[\"next_actions\"], \"pending_tasks\" in d, d[\"agents\"][1][\"status\"]")" \
		"[[\"✅ Interval API designed\", \"✅ Fixtures recorded\", \"Finish test-1\"], [\"Update the vignette\", \"Tag the release\"], false, \"complete\"]"
'

test_expect_success 'bmad: the first SESSION start block: equal on export, the reader defaults in the model, kept after work' '
	git session import -q "$FX/bmad/start/OPS202603-ACME-PORTAL.yaml" &&
	id=OPS202603-ACME-PORTAL &&
	check "$(show $id "[d[\"tokens\"][k] for k in (\"max\", \"peak\", \"saved\", \"initial\")], d[\"context_summary\"]")" "[[150000, 0, 0, 0], \"\"]" &&
	git session export --format bmad $id >b.yaml &&
	same yaml "$FX/bmad/start/OPS202603-ACME-PORTAL.yaml" b.yaml &&
	git session switch -q $id &&
	git session note "kick-off done" -q &&
	git session phase add "Discovery" -q &&
	git session export --format bmad $id >b.yaml 2>/dev/null &&
	same --subset --except "\$.last_updated" yaml "$FX/bmad/start/OPS202603-ACME-PORTAL.yaml" b.yaml &&
	check "$(python3 -c "import yaml,json; d=yaml.safe_load(open(\"b.yaml\")); print(json.dumps([sorted(d[\"tokens\"]), d[\"notes\"]]))")" \
		"[[\"current\", \"initial\", \"saved\"], [\"kick-off done\"]]"
'

test_expect_success 'ccw: a session with only a scope has it for its goal, and gives it back where it was' '
	mkdir -p sc/.workflow/active/WFS-scope-only &&
	printf "{\"session_id\": \"WFS-scope-only\", \"status\": \"active\", \"scope\": \"P6 knowledge layer, P7 services\"}\n" \
		>sc/.workflow/active/WFS-scope-only/workflow-session.json &&
	git session import -q sc/.workflow &&
	git session status WFS-scope-only >st &&
	grep "^Goal      P6 knowledge layer, P7 services" st &&
	git session export --format ccw WFS-scope-only >sc.json &&
	same json sc/.workflow/active/WFS-scope-only/workflow-session.json sc.json
'

test_done
