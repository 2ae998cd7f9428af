#!/bin/sh
test_description='maestro-flow: .workflow/sessions/<id>/ with its runs and registries, into the model, worked on, back out with nothing lost'
. ./lib.sh

FX="$TEST_DIRECTORY/fixtures/real/maestro-flow"
same () { python3 "$TEST_DIRECTORY/same_data.py" "$@"; }
show () { git session show --json "$1" >show.json && json_field show.json "$2"; }
check () { echo "$2" >expect && echo "$1" >actual && test_cmp expect actual; }
# same_tree <source session folder> <exported session folder>: every JSON file of the one equal as data in the other
same_tree () {
	(cd "$1" && find . -name "*.json" ! -path "./.backups/*" | sort) >files &&
	test -s files &&
	while read f
	do
		same json "$1/$f" "$2/$f" || { echo "differs: $f"; return 1; }
	done <files
}

test_expect_success 'import .workflow/: every session folder, not the files maestro-flow keeps beside them' '
	cp -R "$FX/.workflow" . &&
	git session import .workflow/ >out &&
	grep "import session 20260301-search-api from maestro-flow" out &&
	grep "^Active session: 20260301-search-api$" out &&
	git session list >list &&
	test "$(grep -c -e 20260214-export-csv -e 20260301-search-api -e maestro-cache-fix-20260110-101500 list)" = 3 &&
	test "$(wc -l <list)" = 3
'

test_expect_success 'session/3.0: steps are phases keyed by their step ids, runs their agents with attempts and verdicts' '
	id=20260301-search-api &&
	check "$(show $id "d[\"goal\"], d[\"status\"], d[\"current_phase\"], [(p[\"key\"], p[\"name\"], p[\"status\"]) for p in d[\"phases\"]]")" \
		"[\"Add a search endpoint to the catalog API\", \"in_progress\", 4, [[\"s-1\", \"maestro-analyze\", \"completed\"], [\"s-2\", \"maestro-plan\", \"completed\"], [\"step-execute\", \"maestro-execute catalog search\", \"completed\"], [\"step-review\", \"maestro-review\", \"pending\"]]]" &&
	check "$(show $id "[(a[\"id\"], a[\"phase\"], a[\"status\"], a[\"attempt\"], a[\"retry_of_run_id\"], a[\"verdict\"]) for a in d[\"agents\"] if a[\"phase\"] == 3]")" \
		"[[\"run-9a8b7c6d5e4f\", 3, \"failed\", 1, null, \"needs_retry\"], [\"run-execute-retry-1\", 3, \"completed\", 2, \"run-9a8b7c6d5e4f\", \"done_with_concerns\"]]" &&
	check "$(show $id "d[\"created\"], d[\"updated\"], [x[\"decision\"] for x in d[\"decisions\"]]")" \
		"[\"2026-03-01T09:12:04.118Z\", \"2026-03-01T11:40:52.903Z\", [\"gate post-execute after step-execute: open\"]]" &&
	git session status $id >st &&
	grep "gate post-execute after step-execute: open" st
'

test_expect_success 'archived: completed, not the active session; 1.3 sealed: its steps, skipped and pending, dated by its runs' '
	check "$(show 20260214-export-csv "d[\"status\"], [p[\"status\"] for p in d[\"phases\"]]")" "[\"completed\", [\"completed\", \"skipped\"]]" &&
	check "$(show 20260214-export-csv "d[\"goal\"]")" "导出订单为 CSV（含退款）" &&
	git session status 20260214-export-csv >st && ! grep "active here" st &&
	id=maestro-cache-fix-20260110-101500 &&
	check "$(show $id "d[\"status\"], [(p[\"key\"], p[\"status\"], p[\"agents\"]) for p in d[\"phases\"]], d[\"created\"], d[\"updated\"]")" \
		"[\"completed\", [[\"step-000-execute\", \"completed\", [\"20260110-001-execute\"]], [\"step-001-post-execute\", \"completed\", []], [\"step-002-review\", \"skipped\", [\"20260110-002-review\"]], [\"step-003-test\", \"pending\", []]], \"2026-01-10T10:16:02+08:00\", \"2026-01-10T18:02:11+08:00\"]" &&
	check "$(show $id "[x[\"decision\"] for x in d[\"decisions\"]]")" "[\"gate post-execute after step-000-execute: passed\"]"
'

test_expect_success 'export right after import: every file equal as data, session.json byte for byte' '
	for id in 20260301-search-api 20260214-export-csv maestro-cache-fix-20260110-101500
	do
		git session export --format maestro-flow -o mf $id &&
		same_tree .workflow/sessions/$id mf/$id || return 1
	done &&
	test_cmp .workflow/sessions/20260301-search-api/session.json mf/20260301-search-api/session.json &&
	test_cmp .workflow/sessions/20260301-search-api/runs/run-execute-retry-1/run.json \
		mf/20260301-search-api/runs/run-execute-retry-1/run.json &&
	! test -e mf/20260301-search-api/gates.json &&
	git session export --format maestro-flow 20260214-export-csv >stdout.json &&
	test_cmp .workflow/sessions/20260214-export-csv/session.json stdout.json
'

test_expect_success 'a session folder, or its session.json, imports that session again: nothing changes' '
	git session import .workflow/sessions/20260301-search-api/ >out &&
	grep "session 20260301-search-api already imported" out &&
	git session import .workflow/sessions/20260301-search-api/session.json >out &&
	grep "session 20260301-search-api already imported" out
'

test_expect_success 'the cycle: a note and a phase added, the export holds all of the source and a new pending step' '
	id=20260301-search-api &&
	git session note "checked the index size" -q &&
	git session phase add "maestro-verify search ranking" -q &&
	git session export --format maestro-flow -o cycle $id 2>err &&
	grep "^warning: maestro-flow has no place for the session.s notes (1)" err &&
	same --subset --except "\$.chain" --except "\$.updated_at" json .workflow/sessions/$id/session.json cycle/$id/session.json &&
	check "$(json_field cycle/$id/session.json "d[\"chain\"][:4] == $(json_field .workflow/sessions/$id/session.json "d[\"chain\"]" | sed "s/null/None/g"), d[\"chain\"][4]")" \
		"[true, {\"step_id\": \"s-5\", \"command\": \"maestro-verify\", \"args\": [\"search ranking\"], \"status\": \"pending\", \"run_ids\": [], \"goal_ref\": null, \"decision_ref\": null, \"decision_refs\": [], \"stage\": null}]" &&
	for f in artifacts.json evidence.json runs/run-a1b2c3d4e5f6/run.json runs/run-0f1e2d3c4b5a/run.json \
		runs/run-9a8b7c6d5e4f/run.json runs/run-execute-retry-1/run.json
	do
		same json .workflow/sessions/$id/$f cycle/$id/$f || return 1
	done
'

test_expect_success 'session/1.1 running, its chain empty: active, its run an agent in progress; the cycle adds a 1.x step' '
	git init -q v11 && (
		cd v11 && git commit -q --allow-empty -m init &&
		cp -R "$FX/v11/.workflow" . &&
		git session import .workflow/sessions >out &&
		grep "^Active session: 20260105-quality-compare$" out &&
		id=20260105-quality-compare &&
		check "$(show $id "d[\"status\"], d[\"phases\"], [(a[\"id\"], a[\"type\"], a[\"status\"]) for a in d[\"agents\"]], d[\"created\"]")" \
			"[\"in_progress\", [], [[\"20260105-001-craft\", \"craft\", \"in_progress\"]], \"2026-01-05T22:59:01+08:00\"]" &&
		git session export --format maestro-flow -o mf $id &&
		same_tree .workflow/sessions/$id mf/$id &&
		git session phase add "maestro-verify quality page" -q &&
		git session export --format maestro-flow -o cycle $id &&
		same --subset --except "\$.orchestration.chain" json .workflow/sessions/$id/session.json cycle/$id/session.json &&
		check "$(json_field cycle/$id/session.json "d[\"schema_version\"], d[\"orchestration\"][\"chain\"]")" \
			"[\"session/1.1\", [{\"step_id\": \"s-1\", \"command\": \"maestro-verify\", \"status\": \"pending\", \"run_id\": null, \"inserted_by\": \"git-session\", \"decision_ref\": null}]]"
	)
'

# hostile <what> <python editing d, the JSON of file f>: the import refuses the whole folder, writing nothing
hostile () {
	rm -rf h && mkdir -p h/.workflow/sessions && cp -R "$FX/.workflow/sessions/20260301-search-api" h/.workflow/sessions/ &&
	python3 -c "import json,sys; f=sys.argv[1]; d=json.load(open(f)); $3; open(f, \"w\").write(json.dumps(d))" "h/.workflow/sessions/20260301-search-api/$2" &&
	test_must_fail git session import h/.workflow 2>err &&
	grep "^error: .*$1" err &&
	test -z "$(git for-each-ref refs/sessions/hostile-id)"
}

test_expect_success 'hostile ids: a session or run id that is no plain folder name, a registry elsewhere: refused whole' '
	git init -q hostile && (
		cd hostile && git commit -q --allow-empty -m init &&
		hostile "session id .\.\./x. is not a plain folder name" session.json "d[\"session_id\"] = \"../x\"" &&
		hostile "session id .\.\.. is not a plain folder name" session.json "d[\"session_id\"] = \"..\"" &&
		hostile "its run_id is not a plain folder name" runs/run-a1b2c3d4e5f6/run.json "d[\"run_id\"] = \"../../../outside\"" &&
		hostile "its run_id is not a plain folder name" runs/run-a1b2c3d4e5f6/run.json "d[\"run_id\"] = \"a/b\"" &&
		hostile "NUL" runs/run-a1b2c3d4e5f6/run.json "d[\"run_id\"] = \"a\\u0000b\"" &&
		hostile "the artifacts file the session names is not a file beside it" session.json "d[\"artifacts_ref\"] = \"../../../etc/passwd\"" &&
		long=$(printf "r%0200d" 0) &&
		rm -rf h && mkdir -p h/.workflow/sessions && cp -R "$FX/.workflow/sessions/20260301-search-api" h/.workflow/sessions/ &&
		mkdir h/.workflow/sessions/20260301-search-api/runs/$long &&
		echo "{\"schema_version\": \"run/3.0\"}" >h/.workflow/sessions/20260301-search-api/runs/$long/run.json &&
		test_must_fail git session import h/.workflow 2>err &&
		grep "^error: .*run .r0*. is not a plain folder name" err &&
		test -z "$(git for-each-ref refs/sessions)"
	)
'

test_expect_success 'a session from elsewhere exports as a valid session/3.0 with its registries' '
	git session start "Ship the audit log" --goal "every write audited" --phase Design --phase "Build it" --pause-current -q &&
	git session phase start 1 -q &&
	git session agent start coder --type claude --task "draft the design" --phase 1 -q &&
	id=$(git session show --json | python3 -c "import json,sys; print(json.load(sys.stdin)[\"session_id\"])") &&
	rm -rf fresh && git session export --format maestro-flow -o fresh $id &&
	ls fresh/$id >names && printf "artifacts.json\nevidence.json\nruns\nsession.json\n" >expect && test_cmp expect names &&
	check "$(json_field fresh/$id/session.json "d[\"chain\"][0][\"run_ids\"], d[\"active_run_ids\"]")" "[[\"coder\"], [\"coder\"]]" &&
	check "$(json_field fresh/$id/runs/coder/run.json "[d[k] for k in (\"schema_version\", \"run_id\", \"step_id\", \"command\", \"status\", \"attempt\", \"actor_id\", \"goal\")]")" \
		"[\"run/3.0\", \"coder\", \"s-1\", \"Design\", \"running\", 1, \"claude\", \"draft the design\"]" &&
	check "$(json_field fresh/$id/session.json "list(d), d[\"session_id\"] == \"$id\", d[\"objective\"], d[\"status\"], d[\"orchestration_revision\"], d[\"activity_revision\"], [(s[\"step_id\"], s[\"command\"], s[\"args\"], s[\"status\"]) for s in d[\"chain\"]], d[\"completed_at\"], d[\"archived_at\"]")" \
		"[[\"schema_version\", \"session_id\", \"objective\", \"definition_of_done\", \"status\", \"orchestration_revision\", \"activity_revision\", \"chain\", \"decisions\", \"active_run_ids\", \"artifacts_ref\", \"evidence_ref\", \"created_at\", \"updated_at\", \"completed_at\", \"archived_at\"], true, \"every write audited\", \"open\", 1, 1, [[\"s-1\", \"Design\", [], \"running\"], [\"s-2\", \"Build\", [\"it\"], \"pending\"]], null, null]" &&
	check "$(json_field fresh/$id/artifacts.json "d")" "{\"schema_version\": \"artifacts/1.0\", \"revision\": 0, \"artifacts\": {}, \"aliases\": {}}" &&
	git session import -q --as audit-again fresh/$id &&
	check "$(show audit-again "[(p[\"name\"], p[\"status\"]) for p in d[\"phases\"]], d[\"goal\"], [(a[\"id\"], a[\"phase\"], a[\"status\"]) for a in d[\"agents\"]]")" \
		"[[[\"Design\", \"in_progress\"], [\"Build it\", \"pending\"]], \"every write audited\", [[\"coder\", 1, \"in_progress\"]]]"
'

test_expect_success 'a maestro-flow session to every other format: its steps as phases, something written' '
	for f in maestro claude copilot bmad ccw
	do
		git session export --format $f 20260301-search-api >x.out 2>x.err && test -s x.out ||
		{ echo "as $f: nothing"; cat x.err; return 1; }
	done &&
	git session export --format copilot 20260301-search-api >c.json &&
	check "$(json_field c.json "[(k, s[\"name\"]) for k, s in d[\"steps\"].items()][2:]")" \
		"[[\"step-execute\", \"maestro-execute catalog search\"], [\"step-review\", \"maestro-review\"], [\"5\", \"maestro-verify search ranking\"]]"
'

test_expect_success UPSTREAM_MAESTRO_FLOW 'maestro-flow reads what it wrote and every export of ours: right after import, after the cycle, from elsewhere' '
	node "$TEST_DIRECTORY/../upstream/maestro-flow-check.mjs" "$UP/maestro-flow" "$TEST_DIRECTORY/../mcp/node_modules/zod" \
		.workflow/sessions/*/ v11/.workflow/sessions/*/ mf/*/ cycle/*/ v11/mf/*/ v11/cycle/*/ fresh/*/ >reader.out 2>&1 || { cat reader.out; false; } &&
	test "$(grep -c "\"ok\":true" reader.out)" = 11
'

test_expect_success UPSTREAM_MAESTRO_FLOW 'maestro-flow refuses what it must: a step status it does not know' '
	mkdir -p bad && cp -R mf/20260301-search-api bad/ &&
	python3 -c "import json; f=\"bad/20260301-search-api/session.json\"; d=json.load(open(f)); d[\"chain\"][0][\"status\"] = \"in_progress\"; open(f, \"w\").write(json.dumps(d))" &&
	test_must_fail node "$TEST_DIRECTORY/../upstream/maestro-flow-check.mjs" "$UP/maestro-flow" "$TEST_DIRECTORY/../mcp/node_modules/zod" \
		bad/20260301-search-api/ >reader.out &&
	grep "\"ok\":false" reader.out
'

test_done
