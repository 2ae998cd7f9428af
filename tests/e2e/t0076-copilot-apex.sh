#!/bin/sh
test_description='Copilot state as apex writes it today: apex-recall 3.0, files labelled 1.0 shaped like 3.0, real 1.0 files migrated; the governance step 3.5; a phase the workflow has no step for'
. ./lib.sh

FX="$TEST_DIRECTORY/fixtures/real/copilot"
same () { python3 "$TEST_DIRECTORY/same_data.py" "$@"; }
show () { git session show --json "$1" >show.json && json_field show.json "$2"; }
# check <actual> <expected>
check () { echo "$2" >expect && echo "$1" >actual && test_cmp expect actual; }
# phases <id>: (id, key, name, status) of every phase
phases () { show "$1" "[(p[\"id\"], p.get(\"key\"), p[\"name\"], p[\"status\"]) for p in d[\"phases\"]]"; }

test_expect_success 'setup' '
	echo base >README && git add . && git commit -q -m base
'

test_expect_success 'apex-recall 3.0: steps in order, 3_5 between 3 and 4, telemetry and sku decisions kept' '
	src="$FX/v3-recall/00-session-state.json" &&
	git session import -q "$src" &&
	check "$(phases harbor-notes | python3 -c "import json,sys; print(json.dumps(json.load(sys.stdin)[:5]))")" \
		"[[1, null, \"Requirements\", \"completed\"], [2, null, \"Architecture\", \"in_progress\"], [3, null, \"Design\", \"pending\"], [8, \"3_5\", \"Governance\", \"pending\"], [4, null, \"IaC Plan\", \"pending\"]]" &&
	check "$(show harbor-notes "d[\"current_phase\"], d[\"phases\"][1][\"telemetry\"][\"elapsed_ms\"], d[\"extra\"][\"copilot\"][\"decisions\"][\"sku_overrides\"][0][\"resolution\"]")" \
		"[2, 512000, \"accept_substitute\"]" &&
	check "$(show harbor-notes "[(x.get(\"key\"), x[\"decision\"]) for x in d[\"decisions\"]]")" \
		"[[\"region\", \"swedencentral\"], [\"compliance\", \"GDPR\"], [\"complexity\", \"standard\"], [\"iac_tool\", \"Bicep\"], [\"review_depth\", \"deep\"], [\"sku_manifest_status\", \"reviewed\"], [null, \"One region, zone-redundant App Service\"], [null, \"Keep the existing notes schema; no migration in this run\"]]" &&
	git session export --format copilot harbor-notes >now.json &&
	same json "$src" now.json
'

test_expect_success 'status lists the governance step as 3.5 and the decision log as what was decided' '
	git session status harbor-notes >st &&
	python3 -c "import re,sys; print(\" \".join(m.group(1) for m in re.finditer(r\"(?m)^  \\S (\\S+) \", open(\"st\").read())))" >labels &&
	echo "1 2 3 3.5 4 5 6 7" >expect && test_cmp expect labels &&
	grep "^          One region, zone-redundant App Service .* no disaster-recovery need" st &&
	grep "^          Keep the existing notes schema; no migration in this run" st &&
	git session resume harbor-notes >res &&
	grep "^  . 3.5 Governance" res
'

test_expect_success 'apex-recall 3.0: note, decide, phase add: all of the source stays, the added phase is no step' '
	src="$FX/v3-recall/00-session-state.json" &&
	git session switch -q harbor-notes &&
	git session note "checked quotas" -q &&
	git session decide "Front Door in front of the App Service" --rationale "one global endpoint" -q &&
	git session phase add "Hand-over" -q &&
	git session export --format copilot harbor-notes >out.json 2>err &&
	grep "^warning: copilot has no place for phase 9 \"Hand-over\"; it stays in the session" err &&
	same --subset --except "\$.updated" --except "\$.decision_log" json "$src" out.json &&
	check "$(json_field out.json "d[\"current_step\"], sorted(d[\"steps\"]), d[\"decision_log\"][:2] == json.load(open(\"$src\"))[\"decision_log\"]")" \
		"[2, [\"1\", \"2\", \"3\", \"3_5\", \"4\", \"5\", \"6\", \"7\"], true]" &&
	check "$(json_field out.json "[d[\"decision_log\"][2][k] for k in (\"id\", \"step\", \"choice\", \"decision\", \"rationale\")]")" \
		"[\"D003\", 2, \"Front Door in front of the App Service\", \"Front Door in front of the App Service\", \"one global endpoint\"]"
'

test_expect_success 'labelled 1.0, shaped like 3.0: read as 3.0, written back labelled 3.0 with nothing added' '
	src="$FX/v1-label-v3-shape/00-session-state.json" &&
	git session import -q "$src" &&
	check "$(phases fjord-service-hub | python3 -c "import json,sys; p=json.load(sys.stdin); print(json.dumps([len(p), p[3], p[6], p[7]]))")" \
		"[8, [8, \"3.5\", \"Governance\", \"completed\"], [6, null, \"Deploy\", \"in_progress\"], [7, null, \"As-Built\", \"completed\"]]" &&
	check "$(show fjord-service-hub "d[\"current_phase\"], [x[\"decision\"] for x in d[\"decisions\"]][-1], d[\"extra\"][\"copilot\"][\"decisions\"][\"waf_scores\"][\"security\"]")" \
		"[6, \"Deploy foundation, data and edge; record the AKS blocker for a follow-up\", 8]" &&
	git session status fjord-service-hub >st &&
	grep "^Next: complete phase 6 \"Deploy\"" st &&
	git session export --format copilot fjord-service-hub >now.json &&
	same --except "\$.schema_version" json "$src" now.json &&
	git session switch -q fjord-service-hub &&
	git session note "waiting for the CIDR fix" -q &&
	git session phase add "Hand-over" -q &&
	mkdir -p fjord && git session export --format copilot -o fjord/00-session-state.json fjord-service-hub 2>err &&
	grep "no place for phase 9 \"Hand-over\"" err &&
	same --subset --except "\$.updated" --except "\$.schema_version" json "$src" fjord/00-session-state.json &&
	check "$(json_field fjord/00-session-state.json "d[\"schema_version\"], d[\"current_step\"], sorted(d[\"steps\"])")" \
		"[\"3.0\", 6, [\"1\", \"2\", \"3\", \"3.5\", \"4\", \"5\", \"6\", \"7\"]]"
'

test_expect_success UPSTREAM_BMIT 'labelled 1.0: bmit-2026 validates the source and our export alike' '
	bmit_validate "$FX/v1-label-v3-shape/00-session-state.json" &&
	bmit_validate fjord/00-session-state.json &&
	grep "Checked 2 file(s): 0 error(s)" validator.out
'

test_expect_success 'the added phase started: current_step stays a step of the workflow (the last before it)' '
	git session phase start 9 -q &&
	check "$(show fjord-service-hub "d[\"current_phase\"]")" 9 &&
	mkdir -p fjord9 && git session export --format copilot -o fjord9/00-session-state.json fjord-service-hub 2>err &&
	check "$(json_field fjord9/00-session-state.json "d[\"current_step\"], \"9\" in d[\"steps\"]")" "[7, false]" &&
	{ ! test_have_prereq UPSTREAM_BMIT || { bmit_validate fjord9/00-session-state.json && grep "Checked 2 file(s): 0 error(s)" validator.out; }; }
'

test_expect_success 'a real 1.0 file: migrated as apex-recall does, written back migrated' '
	src="$FX/v1-skipped/00-session-state.json" &&
	git session import -q "$src" &&
	check "$(phases blob-rbac | python3 -c "import json,sys; p=json.load(sys.stdin); print(json.dumps([len(p), p[2], p[3]]))")" \
		"[8, [3, null, \"Design\", \"skipped\"], [8, \"3_5\", \"Governance\", \"pending\"]]" &&
	check "$(show blob-rbac "sorted(d[\"extra\"][\"copilot\"][\"review_audit\"]), d[\"extra\"][\"copilot\"][\"workflow_status\"], d[\"extra\"][\"copilot\"][\"decisions\"][\"environments\"], d[\"current_phase\"]")" \
		"[[\"step_1\", \"step_2\", \"step_3_5\", \"step_4\", \"step_5\", \"step_6\"], \"complete\", [\"dev\"], 7]" &&
	git session export --format copilot blob-rbac >now.json &&
	same --subset --except "\$.schema_version" json "$src" now.json &&
	check "$(json_field now.json "d[\"schema_version\"], d[\"decision_log\"], sorted(d[\"review_audit\"]), d[\"steps\"][\"3_5\"][\"status\"]")" \
		"[\"3.0\", [], [\"step_1\", \"step_2\", \"step_3_5\", \"step_4\", \"step_5\", \"step_6\"], \"pending\"]" &&
	git session switch -q blob-rbac &&
	git session note "handed over to operations" -q &&
	git session decide "Keep shared-key access off" --rationale "RBAC only" -q &&
	mkdir -p blob && git session export --format copilot -o blob/00-session-state.json blob-rbac &&
	same --subset --except "\$.updated" --except "\$.schema_version" json "$src" blob/00-session-state.json &&
	check "$(json_field blob/00-session-state.json "d[\"schema_version\"], d[\"current_step\"], sorted(d[\"steps\"]), \"review_audit\" in d, [d[\"decision_log\"][0][k] for k in (\"id\", \"step\", \"choice\")]")" \
		"[\"3.0\", 7, [\"1\", \"2\", \"3\", \"3_5\", \"4\", \"5\", \"6\", \"7\"], true, [\"D001\", 7, \"Keep shared-key access off\"]]"
'

test_expect_success UPSTREAM_BMIT 'a real 1.0 file: bmit-2026 validates the source and our export alike' '
	bmit_validate "$FX/v1-skipped/00-session-state.json" &&
	bmit_validate blob/00-session-state.json &&
	grep "Checked 2 file(s): 0 error(s)" validator.out
'

test_expect_success 'not started (current_step 0) with a step done: 0 stays 0; a logged decision with its step as text' '
	src="$FX/v3-not-started/00-session-state.json" &&
	git session import -q "$src" &&
	check "$(show twin-region-api "d[\"current_phase\"], [(x[\"decision\"], x.get(\"step\")) for x in d[\"decisions\"]]")" \
		"[0, [[\"swedencentral\", null], [\"Active-active through Front Door weighted routing to two mirrored regions\", \"3\"]]]" &&
	git session status twin-region-api >st &&
	grep "^          Active-active through Front Door weighted routing" st &&
	git session switch -q twin-region-api &&
	git session note "waiting for the requirements interview" -q &&
	git session decide "Cosmos DB with multi-region writes" -q &&
	git session export --format copilot twin-region-api >out.json &&
	same --subset --except "\$.updated" --except "\$.decision_log" json "$src" out.json &&
	check "$(json_field out.json "d[\"current_step\"], d[\"decision_log\"][0] == json.load(open(\"$src\"))[\"decision_log\"][0], d[\"decision_log\"][1][\"step\"]")" \
		"[0, true, 1]"
'

test_expect_success 'a session from elsewhere with nine phases: seven steps, the warning names the other two' '
	git session start --id wide --pause-current --phase A --phase B --phase C --phase D --phase E --phase F --phase G --phase H --phase I -q &&
	git session export --format copilot wide >wide.json 2>err &&
	grep "^warning: copilot has no place for phases 8 \"H\", 9 \"I\"; they stay in the session" err &&
	check "$(json_field wide.json "sorted(d[\"steps\"]), d[\"current_step\"], d[\"schema_version\"]")" \
		"[[\"1\", \"2\", \"3\", \"4\", \"5\", \"6\", \"7\"], 1, \"3.0\"]"
'

test_expect_success 'a file with only step 2: a phase added has no step, though step 3 is free' '
	src="$TEST_DIRECTORY/fixtures/import/copilot/minimal/00-session-state.json" &&
	git session import -q "$src" &&
	git session switch -q my-project &&
	git session phase add "Extra" -q &&
	git session export --format copilot my-project >mini.json 2>err &&
	grep "^warning: copilot has no place for phase 3 \"Extra\"; it stays in the session" err &&
	same --subset --except "\$.updated" json "$src" mini.json &&
	check "$(json_field mini.json "sorted(d[\"steps\"]), d[\"current_step\"]")" "[[\"2\"], 2]"
'

test_done
