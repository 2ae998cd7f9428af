#!/bin/sh
test_description='import and export: Maestro, Claude, Copilot, BMAD and CCW files, round trip as data'
. ./lib.sh

FX="$TEST_DIRECTORY/fixtures/import"
same () { python3 "$TEST_DIRECTORY/same_data.py" "$@"; }
# field <id> <python expression on d> <expected>
field () {
	git session show --json "$1" >field.json &&
	echo "$3" >field.expect &&
	json_field field.json "$2" >field.actual &&
	test_cmp field.expect field.actual
}
# round <kind> <format> <id> <expected document>
round () {
	git session export --format "$2" "$3" >round.out &&
	same "$1" "$4" round.out
}

test_expect_success 'setup' '
	test_commit () { echo "$1" >"$1" && git add "$1" && git commit -q -m "$1"; } &&
	mkdir -p src R && echo auth >src/auth.c && echo h >src/auth.h && echo m >Makefile &&
	echo r >R/sensitivity.R && git add . && git commit -q -m base
'

test_expect_success 'maestro: every field of the full document' '
	git session import "$FX/maestro/full.md" >out &&
	grep "import session 2025-11-21-auth-rewrite from maestro" out &&
	id=2025-11-21-auth-rewrite &&
	field $id "d[\"status\"]" in_progress &&
	field $id "d[\"created\"], d[\"updated\"]" "[\"2025-11-21T09:00:00Z\", \"2025-11-21T12:30:00Z\"]" &&
	field $id "[(p[\"path\"], p[\"role\"]) for p in d[\"plans\"]]" \
		"[[\".gemini/plans/auth-rewrite-design.md\", \"design\"], [\".gemini/plans/auth-rewrite-impl.md\", \"implementation\"]]" &&
	field $id "d[\"current_phase\"]" 2 &&
	field $id "[(p[\"id\"], p[\"name\"], p[\"status\"], p[\"retry_count\"]) for p in d[\"phases\"]]" \
		"[[1, \"Foundation\", \"completed\", 0], [2, \"Tests\", \"in_progress\", 1], [3, \"Docs\", \"pending\", 0]]" &&
	field $id "d[\"phases\"][1][\"agents\"], d[\"phases\"][1][\"parallel\"], d[\"phases\"][1][\"blocked_by\"]" \
		"[[\"tester\", \"coder\"], true, [1]]" &&
	field $id "d[\"phases\"][0][\"started\"], d[\"phases\"][0][\"completed\"]" \
		"[\"2025-11-21T09:05:00Z\", \"2025-11-21T10:00:00Z\"]" &&
	field $id "[(e[\"phase\"], e[\"agent\"], e[\"type\"], e[\"resolved\"]) for e in d[\"errors\"]]" \
		"[[2, \"tester\", \"validation\", false], [2, \"coder\", \"timeout\", true]]" &&
	field $id "d[\"errors\"][1][\"resolution\"]" "retried with -j1" &&
	field $id "[d[\"tokens\"][k] for k in (\"input\", \"output\", \"cached\")]" "[15000, 8000, 3000]" &&
	field $id "d[\"tokens\"][\"by_agent\"][\"tester\"]" "{\"input\": 7000, \"output\": 4000, \"cached\": 1000}" &&
	field $id "d[\"extra\"][\"maestro_log\"].splitlines()[0]" "# Auth Rewrite Orchestration Log"
'

test_expect_success 'maestro: files present here are in the manifest with their blobs' '
	id=2025-11-21-auth-rewrite &&
	field $id "sorted((k, v[\"status\"], v[\"phase\"]) for k, v in d[\"files\"].items())" \
		"[[\"Makefile\", \"modified\", 1], [\"src/auth.c\", \"created\", 1], [\"src/auth.h\", \"created\", 1], [\"src/old_auth.c\", \"deleted\", 1]]" &&
	test "$(git rev-parse refs/sessions/$id:files/src/auth.c)" = "$(git hash-object src/auth.c)"
'

test_expect_success 'maestro: the first checkpoint has the source time as its author date' '
	git log -1 --format=%aI refs/sessions/2025-11-21-auth-rewrite >actual &&
	echo 2025-11-21T09:00:00Z >expect &&
	sed "s/+00:00$/Z/" actual >actual.z &&
	test_cmp expect actual.z &&
	git cat-file -p refs/sessions/2025-11-21-auth-rewrite:op.json >op.json &&
	json_field op.json "d[\"op\"], d[\"args\"][\"format\"]" >actual &&
	echo "[\"session.import\", \"maestro\"]" >expect &&
	test_cmp expect actual
'

test_expect_success 'maestro: round trip, full, minimal and odd' '
	git session import -q "$FX/maestro/minimal.md" "$FX/maestro/odd.md" &&
	round md maestro 2025-11-21-auth-rewrite "$FX/maestro/full.md" &&
	round md maestro 2025-11-22-tiny "$FX/maestro/minimal.md" &&
	round md maestro 2025-11-23-odd "$FX/maestro/odd.md" &&
	field 2025-11-23-odd "d[\"extra\"][\"maestro\"][\"owner\"], d[\"extra\"][\"maestro\"][\"labels\"]" \
		"[\"ops team\", [\"a\", \"b\", \"007\"]]" &&
	field 2025-11-23-odd "d[\"phases\"][0][\"reviewer\"], d[\"errors\"][0][\"severity\"]" "[\"ana\", \"high\"]"
'

test_expect_success 'maestro: a change made here shows in the export' '
	git session switch 2025-11-21-auth-rewrite &&
	git session phase complete 2 -q &&
	git session tokens add --agent coder --input 100 --output 50 -q &&
	git session export --format maestro -o changed.md &&
	python3 -c "
import sys, yaml
t = open(\"changed.md\").read()
fm = yaml.safe_load(t[4:t.index(\"\n---\", 3)])
assert fm[\"phases\"][1][\"status\"] == \"completed\", fm[\"phases\"][1]
assert fm[\"token_usage\"][\"total_input\"] == 15100
assert fm[\"token_usage\"][\"by_agent\"][\"coder\"][\"input\"] == 8100
assert fm[\"phases\"][0][\"files_created\"] == [\"src/auth.c\", \"src/auth.h\"]
"
'

test_expect_success 'claude: every field, the history archived, round trip' '
	git session import "$FX/claude/orchestrator-session.json" "$FX/claude/orchestrator-history" >out &&
	grep "Active session: 2025-12-27-abc123" out &&
	id=2025-12-27-abc123 &&
	field $id "d[\"goal\"], d[\"mode\"], d[\"status\"]" \
		"[\"Add sensitivity analysis to RMediation::medci()\", \"default\", \"in_progress\"]" &&
	field $id "[(a[\"id\"], a[\"status\"], a[\"progress\"], a[\"context_tokens\"]) for a in d[\"agents\"]]" \
		"[[\"arch-1\", \"completed\", null, 1500], [\"code-1\", \"in_progress\", 60, 3200]]" &&
	field $id "d[\"agents\"][0][\"result_summary\"]" "3 methods proposed: bootstrap, delta, MCMC" &&
	field $id "[(t[\"title\"], t[\"status\"]) for t in d[\"tasks\"]]" \
		"[[\"Architecture design\", \"done\"], [\"Complete code-1 implementation\", \"pending\"], [\"Add unit tests\", \"pending\"], [\"Update documentation\", \"pending\"]]" &&
	field $id "d[\"tasks\"][0][\"outcome\"], d[\"tasks\"][0][\"files\"]" "[\"3 methods proposed\", [\"R/sensitivity.R\"]]" &&
	field $id "d[\"decisions\"][0][\"rationale\"]" "Best balance of accuracy and performance" &&
	field $id "d[\"extra\"][\"claude\"][\"project\"][\"git_branch\"], d[\"extra\"][\"claude\"][\"context_usage\"][\"percentage\"]" "[\"dev\", 20]" &&
	field $id "sorted(d[\"files\"])" "[\"R/sensitivity.R\"]" &&
	git rev-parse --verify -q refs/archive/sessions/2025-12-20-old &&
	test_must_fail git rev-parse --verify -q refs/sessions/2025-12-20-old &&
	round json claude 2025-12-20-old "$FX/claude/orchestrator-history/$(ls "$FX/claude/orchestrator-history")" &&
	test_must_fail git rev-parse --verify -q refs/sessions/2025-12-20-old &&
	round json claude $id "$FX/claude/orchestrator-session.json" &&
	git session import -q "$FX/claude/minimal.json" "$FX/claude/odd.json" &&
	round json claude 2025-12-28-min "$FX/claude/minimal.json" &&
	round json claude 2025-12-29-odd "$FX/claude/odd.json" &&
	field 2025-12-29-odd "d[\"agents\"][0][\"weird\"], d[\"extra\"][\"claude\"][\"budget_note\"]" \
		"[[1, 2, {\"deep\": true}], \"none\"]"
'

test_expect_success 'copilot: 3.0 with its handoff, the minimal snippet; 2.0 and 1.0 migrated as apex-recall migrates them' '
	git session import "$FX/copilot/full/00-session-state.json" >out &&
	id=contoso-landing-zone &&
	field $id "d[\"topic\"], d[\"current_phase\"], d[\"updated\"]" "[\"contoso-landing-zone\", 3, \"2026-03-02T10:15:00Z\"]" &&
	field $id "[(p[\"id\"], p[\"name\"], p[\"status\"], p[\"sub_step\"]) for p in d[\"phases\"]]" \
		"[[1, \"Requirements\", \"completed\", null], [2, \"Architecture\", \"completed\", null], [3, \"Plan\", \"in_progress\", \"phase_2_waf\"], [4, \"Bicep\", \"pending\", null]]" &&
	field $id "[(a[\"path\"], a[\"phase\"]) for a in d[\"artifacts\"]][1]" \
		"[\"agent-output/contoso-landing-zone/02-architecture-assessment.md\", 2]" &&
	field $id "[(x[\"key\"], x[\"decision\"]) for x in d[\"decisions\"]]" \
		"[[\"region\", \"swedencentral\"], [\"iac_tool\", \"bicep\"]]" &&
	field $id "d[\"extra\"][\"copilot\"][\"open_findings\"][0][\"id\"]" F-1 &&
	field $id "d[\"context_summary\"].splitlines()[0]" "# Handoff" &&
	round json copilot $id "$FX/copilot/full/00-session-state.json" &&
	mkdir exported &&
	git session export --format copilot $id -o exported/00-session-state.json &&
	test_cmp "$FX/copilot/full/00-handoff.md" exported/00-handoff.md &&
	git session import -q "$FX/copilot/minimal/00-session-state.json" \
		"$FX/copilot/v2/00-session-state.json" "$FX/copilot/v1/00-session-state.json" &&
	round json copilot my-project "$FX/copilot/minimal/00-session-state.json" &&
	field legacy-two "[(p[\"id\"], p.get(\"key\"), p[\"name\"]) for p in d[\"phases\"]][2:5], sorted(d[\"extra\"][\"copilot\"][\"review_audit\"])" \
		"[[[3, null, \"Design\"], [8, \"3_5\", \"Governance\"], [4, null, \"IaC Plan\"]], [\"step_1\", \"step_2\", \"step_3_5\", \"step_4\", \"step_5\", \"step_6\"]]" &&
	field legacy-one "len(d[\"phases\"]), d[\"extra\"][\"copilot\"].get(\"schema_version\")" "[8, \"3.0\"]" &&
	round json copilot legacy-two "$FX/copilot/v2/expected.json" &&
	round json copilot legacy-one "$FX/copilot/v1/expected.json"
'

test_expect_success 'bmad: active-session.yaml, token defaults, legacy saved_by_isolation kept by its name, archive' '
	git session import "$FX/bmad/sessions/active-session.yaml" >out &&
	grep "Active session: SES202501-ACME-AUDIT" out &&
	test "$(git symbolic-ref SESSION_HEAD)" = refs/sessions/SES202501-ACME-AUDIT &&
	id=SES202501-ACME-AUDIT &&
	field $id "d[\"status\"], d[\"updated\"]" "[\"in_progress\", \"2025-01-15T14:45:00Z\"]" &&
	field $id "[d[\"tokens\"][k] for k in (\"max\", \"peak\", \"saved\", \"initial\")]" "[150000, 52000, 145000, 0]" &&
	field $id "d[\"extra\"][\"bmad\"]" "{\"client\": \"ACME\", \"project\": \"AUDIT\", \"prefix\": \"SES\"}" &&
	field $id "[(a[\"id\"], a[\"type\"], a[\"status\"], a[\"tokens_used\"]) for a in d[\"agents\"]]" \
		"[[\"agent-123\", \"analyst\", \"completed\", 32000]]" &&
	field $id "[(a[\"path\"], a[\"agent\"]) for a in d[\"artifacts\"]]" \
		"[[\"docs/prd.md\", \"pm\"], [\"docs/architecture.md\", \"architect\"]]" &&
	field $id "[m[\"completed\"] for m in d[\"milestones\"]]" "[\"2025-01-15T11:30:00Z\", \"2025-01-15T13:00:00Z\", null]" &&
	field $id "[n[\"text\"] for n in d[\"notes\"]]" \
		"[\"Client prefers OAuth2 over JWT\", \"Performance requirement: <200ms response time\"]" &&
	round yaml bmad $id "$FX/bmad/sessions/SES202501-ACME-AUDIT.yaml" &&
	git session import -q "$FX/bmad/legacy.yaml" "$FX/bmad/archive" &&
	field ENG202412-TESLA-API "[d[\"tokens\"][k] for k in (\"max\", \"saved\", \"peak\")], d[\"status\"]" "[[150000, 5000, 0], \"paused\"]" &&
	round yaml bmad ENG202412-TESLA-API "$FX/bmad/legacy.yaml" &&
	git rev-parse --verify -q refs/archive/sessions/TST202412-INTERNAL-MVP
'

test_expect_success 'bmad: the used tokens are what BMAD calls current' '
	git session status --json SES202501-ACME-AUDIT >st.json &&
	json_field st.json "d[\"tokens\"][\"used\"]" >actual &&
	echo 45000 >expect &&
	test_cmp expect actual
'

test_expect_success 'ccw: a registry of three sessions, the active one active' '
	git init -q ccw && (
		cd ccw &&
		git commit -q --allow-empty -m init &&
		cp -R "$FX/ccw/.workflow" . &&
		git session import .workflow/session_status.jsonl >out &&
		grep "Active session: WFS-user-profile" out &&
		git session list --json >list.json &&
		json_field list.json "sorted((s[\"id\"], s[\"status\"]) for s in d)" >actual &&
		echo "[[\"WFS-bug-fix-123\", \"completed\"], [\"WFS-oauth-integration\", \"paused\"], [\"WFS-user-profile\", \"in_progress\"]]" >expect &&
		test_cmp expect actual &&
		test "$(git symbolic-ref SESSION_HEAD)" = refs/sessions/WFS-user-profile &&
		git session show --json WFS-user-profile >wf.json &&
		json_field wf.json "[(p[\"name\"], p[\"status\"]) for p in d[\"phases\"]], d[\"current_phase\"], d[\"goal\"]" >actual &&
		echo "[[[\"plan\", \"completed\"], [\"implement\", \"in_progress\"], [\"review\", \"pending\"]], 2, \"User profile page with avatar upload\"]" >expect &&
		test_cmp expect actual &&
		json_field wf.json "d[\"phases\"][1][\"todos\"], d[\"extra\"][\"ccw\"][\"state_transitions\"][0][\"trigger\"]" >actual &&
		echo "[{\"total\": 12, \"completed\": 8, \"in_progress\": 1}, \"planning completion\"]" >expect &&
		test_cmp expect actual &&
		git session export --format ccw --registry >reg.jsonl &&
		same jsonl .workflow/session_status.jsonl reg.jsonl &&
		git session export --format ccw WFS-user-profile >wf.out &&
		same json .workflow/WFS-user-profile/workflow-session.json wf.out &&
		git session export --format ccw WFS-oauth-integration >wf2.out &&
		same json .workflow/WFS-oauth-integration/workflow-session.json wf2.out
	)
'

test_expect_success 'the same file twice: one session; --as makes another' '
	before=$(git rev-parse refs/sessions/2025-12-28-min) &&
	git session import "$FX/claude/minimal.json" >out &&
	grep "already imported" out &&
	test "$(git rev-parse refs/sessions/2025-12-28-min)" = "$before" &&
	git session import -q --as min-copy "$FX/claude/minimal.json" &&
	field min-copy "d[\"session_id\"], d[\"goal\"]" "[\"min-copy\", \"Just a goal\"]"
'

test_expect_success 'a changed file re-imports onto the same session, history kept' '
	sed "s/Just a goal/A better goal/" "$FX/claude/minimal.json" >minimal.json &&
	before=$(git rev-parse refs/sessions/2025-12-28-min) &&
	git session import -q minimal.json &&
	field 2025-12-28-min "d[\"goal\"]" "A better goal" &&
	test "$(git rev-parse refs/sessions/2025-12-28-min^)" = "$before"
'

test_expect_success 'format detection and --format' '
	cp "$FX/bmad/legacy.yaml" some-name.txt &&
	git session import --as detected some-name.txt >out &&
	grep "from bmad" out &&
	test_must_fail git session import --format nope some-name.txt 2>err &&
	grep "unknown format" err
'

test_expect_success 'bad and hostile files: a clear error naming the file, nothing created' '
	git for-each-ref >refs.before &&
	printf "{\"schema_version\": \"1.0\", \"goal\": " >trunc.json &&
	python3 -c "print(\"[\" * 5000)" >deep.json &&
	printf -- "---\nsession_id: a\nphases: *x\n---\n" >alias.md &&
	printf -- "---\nsession_id: a\n" >open.md &&
	printf "{\"schema_version\": \"9.0\", \"goal\": \"x\"}\n" >v9.json &&
	printf "hello\n" >text.txt &&
	printf "{\"session_id\": \"../../x\", \"goal\": \"g\"}\n" >badid.json &&
	head -c 17000000 /dev/zero | tr "\0" " " >huge.json &&
	for f in trunc.json deep.json alias.md open.md v9.json text.txt badid.json huge.json
	do
		test_must_fail git session import $f 2>err &&
		grep "^error: .*$f" err || return 1
	done &&
	grep "too large" err &&
	test_must_fail git session import "$FX/claude/odd.json" trunc.json 2>err &&
	git for-each-ref >refs.after &&
	test_cmp refs.before refs.after
'

test_expect_success 'export: usage errors' '
	test_expect_code 129 git session export 2>err &&
	grep "which format" err &&
	test_expect_code 129 git session export --format bmad --registry 2>err &&
	test_must_fail git session export --format claude no-such 2>err &&
	grep "no such session" err
'

test_expect_success 'a native session exports to every format, and back' '
	git session start "Native work" --id native --phase Plan --phase Build --pause-current -q &&
	git session phase start 1 -q &&
	git session agent start a-1 --type coder --task "Do it" -q &&
	git session tokens add --agent a-1 --input 10 --output 5 -q &&
	for f in maestro claude copilot bmad ccw
	do
		git session export --format $f native -o native.$f &&
		git session import -q --as native-$f --format $f native.$f || return 1
	done &&
	field native-maestro "[p[\"name\"] for p in d[\"phases\"]]" "[\"Plan\", \"Build\"]" &&
	field native-claude "d[\"agents\"][0][\"id\"], d[\"agents\"][0][\"task\"]" "[\"a-1\", \"Do it\"]" &&
	field native-bmad "d[\"tokens\"][\"input\"] + d[\"tokens\"][\"output\"]" 15 &&
	git fsck --strict 2>&1 | { ! grep -v "^Checking\|dangling"; }
'

test_done
