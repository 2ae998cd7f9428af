#!/bin/sh
test_description='what every format shares: ids as written, reopen, values kept, own keys out, nothing read'
. ./lib.sh

FX="$TEST_DIRECTORY/fixtures/core"
M=Review-20260505T074943Z
C=WFS-Dirty-UI-Editor-20260417
CCW_FILE="$FX/ccw/.workflow/archives/$C/workflow-session.json"
same () { python3 "$TEST_DIRECTORY/same_data.py" "$@"; }
show () { git session show --json "$1" >show.json && json_field show.json "$2"; }
check () { echo "$2" >expect && echo "$1" >actual && test_cmp expect actual; }

test_expect_success 'setup' '
	git commit -q --allow-empty -m init
'

test_expect_success 'an id with upper case is kept, and the session not made active is named' '
	git session import "$FX/maestro/review-sweep.md" >out &&
	grep "^imported .$M. (completed); git session switch $M$" out &&
	git session import "$FX/ccw/.workflow" >out &&
	grep "^imported .$C. (in progress); git session switch $C$" out &&
	! git symbolic-ref -q SESSION_HEAD &&
	git rev-parse --verify -q refs/sessions/$M &&
	git rev-parse --verify -q refs/sessions/$C
'

test_expect_success 'an id that cannot be one here is slugged; one shaped like a path is refused' '
	printf "{\"session_id\": \"Night Run 2\", \"goal\": \"g\"}\n" >night.json &&
	git session import -q night.json &&
	git rev-parse --verify -q refs/sessions/night-run-2 &&
	printf "{\"session_id\": \"a/../B\", \"goal\": \"g\"}\n" >path.json &&
	test_must_fail git session import path.json 2>err &&
	grep "^error: path.json: invalid session id" err
'

test_expect_success 'every command answers to an id as the source wrote it' '
	git session switch $M >out && grep "Switched to session $M" out &&
	git session status >out && grep "^Session $M " out &&
	git session status $C >out && grep "^Session $C " out &&
	test "$(show $M "d[\"session_id\"]")" = $M &&
	git session export --format maestro $M >m.md &&
	git session export --format ccw $C >c.json &&
	git session list >out && grep " $C " out
'

test_expect_success 'the export right away is the source, as data; a source field named seen round-trips' '
	same md "$FX/maestro/review-sweep.md" m.md &&
	same json "$CCW_FILE" c.json &&
	test "$(show $M "d[\"phases\"][0].get(\"seen\")")" = null &&
	test "$(show $C "d[\"phases\"][0].get(\"seen\")")" = null
'

test_expect_success 'paths and ids under a timestamped name are not taken for secrets' '
	git session show --json $M >state.json &&
	! grep REDACTED state.json &&
	check "$(show $M "[p[\"path\"] for p in d[\"plans\"]]")" \
		"[\"agent-output/_baselines/review-20260505T074943Z/review-index.json\", \"agent-output/_baselines/review-20260505T074943Z/01-validators.md\"]"
'

test_expect_success 'a file with no time of its own shows the import time; a failed phase is failed' '
	git session status --json $C >st.json &&
	test "$(json_field st.json "d[\"created\"] is not None and d[\"updated\"] is not None")" = true &&
	git session list --json >list.json &&
	test "$(json_field list.json "all(s[\"created\"] and s[\"updated\"] for s in d)")" = true &&
	git session status $C >out &&
	grep "^Started   [a-z0-9]" out && grep ", last checkpoint [a-z0-9]" out &&
	grep "1/3 phases done, 33%, 1 failed" out &&
	grep "2 execute  failed" out &&
	git session resume --dry-run $C >out &&
	sed -n "/^Failed/,/^$/p" out >failed &&
	grep "2 execute" failed &&
	! sed -n "/^In progress/,/^$/p" out | grep execute
'

test_expect_success 'a finished session refuses work and says how to reopen it' '
	for cmd in "note more" "phase add Follow-up" "decide x" "task add t" "phase retry 2"
	do
		test_expect_code 1 git session $cmd 2>err &&
		grep "^error: session .$M. is completed" err &&
		grep "^hint: reopen it first: git session reopen $M$" err || return 1
	done &&
	test_expect_code 1 git session resume $M 2>err &&
	grep "^hint: to go on with it, reopen it first: git session reopen $M$" err
'

test_expect_success 'reopen: an operation that puts it back in progress and makes it active' '
	git session reopen $M --json >r.json &&
	check "$(json_field r.json "[d[\"session\"], d[\"status\"], d[\"active\"]]")" "[\"$M\", \"in_progress\", true]" &&
	git cat-file -p refs/sessions/$M:op.json >op.json &&
	test "$(json_field op.json "d[\"op\"]")" = session.reopen &&
	test "$(git symbolic-ref SESSION_HEAD)" = refs/sessions/$M &&
	test_expect_code 1 git session reopen $M 2>err &&
	grep "^error: session .$M. is in progress, not finished: there is nothing to reopen" err
'

test_expect_success 'reopen over MCP: the same operation; a refusal carries the hint' '
	init="{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"}}" &&
	call="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"session_reopen\",\"arguments\":{\"id\":\"night-run-2\"}}}" &&
	git session switch -q night-run-2 &&
	git session close -q &&
	git session switch -q night-run-2 &&
	test_expect_code 1 git session note x 2>err &&
	grep "^hint: reopen it first: git session reopen night-run-2$" err &&
	printf "%s\n%s\n" "$init" "$call" | git session mcp >mcp.out &&
	sed -n 2p mcp.out >answer.json &&
	test "$(json_field answer.json "d[\"result\"].get(\"isError\", False)")" = false &&
	test "$(show night-run-2 "d[\"status\"]")" = in_progress &&
	printf "%s\n%s\n" "$init" "$call" | git session mcp >mcp.out &&
	sed -n 2p mcp.out >answer.json &&
	test "$(json_field answer.json "d[\"result\"][\"isError\"]")" = true &&
	json_field answer.json "d[\"result\"][\"content\"][0][\"text\"]" >text &&
	grep "nothing to reopen" text &&
	git session switch -q $M
'

test_expect_success 'a note, a decision and an added phase leave the current phase as it was' '
	git session note -q "carry on after the sweep" &&
	git session decide -q "Keep the validators" &&
	git session phase add -q "Follow-up" &&
	test "$(show $M "d[\"current_phase\"]")" = 2 &&
	git session export --format maestro $M >m2.md &&
	same --subset --except "\$.front_matter.phases" --except "\$.front_matter.status" \
		--except "\$.front_matter.updated" --except "\$.front_matter.total_phases" --except "\$.body" \
		md "$FX/maestro/review-sweep.md" m2.md &&
	python3 - "$FX/maestro/review-sweep.md" m2.md <<-\PY
	import sys, yaml
	def fm(p):
	    t = open(p).read()
	    return yaml.safe_load(t[4:t.index("\n---", 3)])
	a, b = fm(sys.argv[1]), fm(sys.argv[2])
	assert b["current_phase"] == 2, b["current_phase"]
	assert b["phases"][:3] == a["phases"], (b["phases"][:3], a["phases"])
	assert b["phases"][3]["name"] == "Follow-up", b["phases"][3]
	PY
'

test_expect_success 'the same in ccw: its current phase stays after a note and an added phase' '
	git session switch -q $C &&
	git session note -q "still open" &&
	git session phase add -q "Polish" &&
	git session export --format ccw $C >c2.json &&
	test "$(json_field c2.json "d[\"current_phase\"]")" = EXECUTE &&
	same --subset --except "\$.checkpoints" --except "\$.updated_at" json "$CCW_FILE" c2.json &&
	python3 - "$CCW_FILE" c2.json <<-\PY
	import json, sys
	a, b = (json.load(open(p)) for p in sys.argv[1:])
	for k, v in a["checkpoints"].items():
	    assert b["checkpoints"][k] == v, (k, b["checkpoints"][k], v)
	PY
'

test_expect_success 'the time git-session keeps of a phase and an agent is in no export' '
	git session phase start -q 4 &&
	git session agent start -q fixer --type coder --task "fix the validators" &&
	git session note -q --agent fixer "working" &&
	git session show --json $C >state.json &&
	test "$(json_field state.json "[p.get(\"seen\") is not None for p in d[\"phases\"]]")" = "[false, false, false, true]" &&
	for f in maestro ccw copilot claude bmad maestro-flow
	do
		git session export --format $f $C >x.out 2>/dev/null &&
		! grep "seen" x.out | grep -v "\"seen\": \"2026-04-17T10:00:00Z\"" || { echo "seen in $f"; return 1; }
	done &&
	git session export --format ccw $C >c3.json &&
	test "$(json_field c3.json "d[\"checkpoints\"][\"plan\"][\"seen\"]")" = 2026-04-17T10:00:00Z
'

test_expect_success 'reopen leaves another session in progress here active, and says so' '
	git session start -q "other work" --id other --pause-current &&
	git session switch -q $M && git session close -q --abort &&
	git session switch -q other &&
	git session reopen $M >out &&
	grep "^Session $M is in progress again; .other. stays active here: git session switch $M$" out &&
	test "$(git symbolic-ref SESSION_HEAD)" = refs/sessions/other &&
	test "$(show $M "d[\"status\"]")" = in_progress
'

test_expect_success 'a folder or file with nothing to read is an error, and nothing is written' '
	git for-each-ref >before &&
	mkdir -p empty .flow/sessions/x && echo "notes" >.flow/sessions/x/notes.txt &&
	test_expect_code 1 git session import empty 2>err &&
	grep "^error: nothing to import in empty: " err &&
	test_expect_code 1 git session import .flow 2>err &&
	grep "^error: nothing to import in .flow: " err &&
	test_expect_code 1 git session import "$FX/maestro/review-sweep.md" .flow 2>err &&
	git for-each-ref >after &&
	test_cmp before after
'

test_expect_success 'a session file reached by its registry line and by the walk is one session' '
	mkdir -p reg/.workflow/WFS-twice &&
	printf "{\"id\":\"WFS-twice\",\"status\":\"active\",\"description\":\"Twice\",\"directory\":\".workflow/WFS-twice\"}\n{\"id\":\"WFS-line-only\",\"status\":\"paused\",\"description\":\"Line\",\"directory\":\".workflow/WFS-line-only\"}\n" \
		>reg/.workflow/session_status.jsonl &&
	printf "{\"session_id\": \"WFS-twice\", \"project\": \"Twice\", \"status\": \"active\", \"checkpoints\": {\"plan\": {\"status\": \"completed\"}}}\n" \
		>reg/.workflow/WFS-twice/workflow-session.json &&
	git session import reg/.workflow >out 2>err &&
	! grep "also in" err &&
	test "$(show WFS-twice "d[\"extra\"][\"import\"][\"line\"], [p[\"name\"] for p in d[\"phases\"]]")" = "[1, [\"plan\"]]" &&
	git rev-parse --verify -q refs/sessions/WFS-line-only &&
	git session export --format ccw WFS-twice >twice.json &&
	same json reg/.workflow/WFS-twice/workflow-session.json twice.json
'

test_done
