#!/bin/sh
test_description='Maestro files as people write them: YAML upstream refuses is refused whole; unnamed phases, one agent, duplicate ids, archives left in progress, quoted words: imported, worked on, exported with nothing lost'
. ./lib.sh

# the fixtures follow real files; tests/e2e/fixtures/real/README.md says which
FX="$TEST_DIRECTORY/fixtures/real/maestro/shapes"
same () { python3 "$TEST_DIRECTORY/same_data.py" "$@"; }
show () { git session show --json "$1" >show.json && json_field show.json "$2"; }
check () { echo "$2" >expect && echo "$1" >actual && test_cmp expect actual; }
# front <file> <expr>: expr of the front matter d of a Maestro file (md.py: setup)
front () {
	python3 -c 'import json, sys; sys.path.insert(0, "."); import md; d = md.load(sys.argv[1])[0]; print(json.dumps(eval(sys.argv[2])))' \
		"$1" "$2" 2>&1
}
# kept <source> <export> [same_data options]: the export holds all of the
# source; what it adds is phases after the source's (their count, the time)
kept () {
	python3 -c 'import json, sys; sys.path.insert(0, "."); import md
src = md.load(sys.argv[1])[0]; fm, body = md.load(sys.argv[2])
fm["phases"] = fm["phases"][:len(src.get("phases", []))]
open("kept.md", "w").write("---\n" + json.dumps(fm, default=str) + "\n---\n" + body)' "$1" "$2" &&
	kept_src=$1 && shift 2 &&
	same --subset --except "\$.front_matter.total_phases" --except "\$.front_matter.updated" "$@" md "$kept_src" kept.md
}
# none: no session was written
none () { git for-each-ref refs/sessions refs/sessions-archive >refs && test_must_be_empty refs; }
# the command that takes a finished session back, where the binary has it
reopen_ok () { ! git session reopen 2>&1 | grep -q "is not a git session command"; }

test_expect_success 'setup' '
	git commit -q --allow-empty -m base &&
	cat >md.py <<-\EOF
	import json, yaml
	# a Maestro file: its front matter (YAML or JSON) and body, as same_data.py reads them
	def load(path):
	    text = open(path, encoding="utf-8").read()
	    end = text.index("\n---", 3)
	    fm = text[4:end + 1]
	    fm = json.loads(fm) if fm.lstrip().startswith("{") else yaml.safe_load(fm)
	    return fm, text[end + 5:]
	EOF
'

test_expect_success 'a "..." line inside the front matter: refused whole, naming the file and the line' '
	test_must_fail git session import "$FX/elided.md" 2>err &&
	grep "^error: .*/elided.md:11: a .\.\.\.. line ends the document here, but more follows" err &&
	none
'

test_expect_success 'YAML that js-yaml refuses is refused, at its line, nothing imported' '
	printf -- "---\nsession_id: a\nstatus: in_progress\nsession_id: b\n---\n" >dup.md &&
	printf -- "---\nsession_id: a\nphases:\n  - id: 1\n\t  status: pending\n---\n" >tab.md &&
	printf -- "---\nsession_id: a\nphases: *all\n---\n" >alias.md &&
	printf -- "session_id: a\nstatus: in_progress\n---\nsession_id: b\n" >two.yaml &&
	printf -- "---\n{\n  \"session_id\": \"a\",\n  \"phases\": [1,]\n}\n---\n" >comma.md &&
	for f in dup.md:4:appears.twice tab.md:5:a.tab "alias.md:3:alias.(.all)" two.yaml:3:a.second.document \
		comma.md:4:invalid.JSON
	do
		test_must_fail git session import "${f%%:*}" 2>err &&
		grep "^error: ${f%:*}: .*${f##*:}" err || return 1
	done &&
	test_must_fail git session import dup.md "$FX/unnamed-parallel.md" 2>err &&
	none
'

test_expect_success 'Markdown with no front matter (an archive of the log alone) is refused, saying why' '
	test_must_fail git session import "$FX/log-only.md" 2>err &&
	grep "^error: .*/log-only.md: no front matter: a Maestro session file begins with a .---. line" err &&
	none
'

test_expect_success 'unnamed phases: shown by number, exported without a name; parallel phases in progress at once' '
	git session import -q "$FX/unnamed-parallel.md" &&
	check "$(show ledger-sync-fixes "[(p[\"id\"], p[\"status\"], p[\"name\"], p[\"parallel\"], p[\"blocked_by\"]) for p in d[\"phases\"]]")" \
		"[[1, \"completed\", \"\", false, []], [2, \"in_progress\", \"\", true, [1]], [3, \"pending\", \"\", false, [2, 4]], [4, \"in_progress\", \"\", true, [1]], [5, \"pending\", \"\", false, [3]]]" &&
	check "$(show ledger-sync-fixes "d[\"tokens\"][\"by_agent\"], d[\"current_phase\"]")" "[{\"coder\": {\"input\": 1200, \"output\": 800}}, 2]" &&
	git session status ledger-sync-fixes >status &&
	grep "^Next: complete phase 2$" status &&
	grep "^  ● 4  in progress, parallel, after phase 1" status &&
	! grep "\"\"" status &&
	git session export --format maestro ledger-sync-fixes >out.md &&
	same md "$FX/unnamed-parallel.md" out.md &&
	check "$(front out.md "[\"name\" in p for p in d[\"phases\"]]")" "[false, false, false, false, false]"
'

test_expect_success 'unnamed phases: after a note and a phase, all of the source is still there' '
	git session switch -q ledger-sync-fixes &&
	git session note "migration checked" -q &&
	git session phase add "Hand-over" -q &&
	git session phase complete 4 -q &&
	check "$(git log -1 --format=%s refs/sessions/ledger-sync-fixes)" "phase 4: in_progress -> completed" &&
	test_must_fail git session phase start 3 2>err &&
	grep "^error: cannot start phase 3: blocked by phase 2 (in_progress)" err &&
	test_must_fail git session phase start 4 2>err &&
	grep "^error: cannot start phase 4: it is completed" err &&
	git session export --format maestro ledger-sync-fixes >work.md 2>err &&
	kept "$FX/unnamed-parallel.md" work.md --except "\$.front_matter.phases[3]" &&
	check "$(front work.md "[(p[\"id\"], p.get(\"name\"), p[\"status\"]) for p in d[\"phases\"][3:]], d[\"current_phase\"]")" \
		"[[[4, null, \"completed\"], [5, null, \"pending\"], [6, \"Hand-over\", \"pending\"]], 2]" &&
	check "$(front work.md "d[\"phases\"][0][\"downstream_context\"][\"report\"].splitlines()[2]")" "\"    - ids are kept across retries\""
'

test_expect_success 'one agent per phase and two phases with the same id, as written by hand' '
	git session import "$FX/handwritten.md" >imported &&
	grep "^Active session: ui-overhaul" imported &&
	check "$(show ui-overhaul "[(p[\"id\"], p.get(\"key\"), p[\"status\"], p[\"agents\"]) for p in d[\"phases\"]]")" \
		"[[1, null, \"completed\", [\"architect\"]], [2, null, \"completed\", [\"architect\"]], [3, null, \"in_progress\", [\"coder\"]], [5, 3, \"pending\", [\"coder\"]], [4, null, \"pending\", [\"tester\", \"code_reviewer\"]]]" &&
	check "$(show ui-overhaul "[t[\"id\"] for t in d[\"phases\"][1][\"tasks\"]], d[\"current_phase\"]")" "[[\"2.1.1\", \"2.1.2\"], 1]" &&
	git session export --format maestro ui-overhaul >hand.md &&
	same md "$FX/handwritten.md" hand.md
'

test_expect_success 'the duplicate id comes back as written when the phase moves; one agent stays "agent"' '
	git session switch -q ui-overhaul &&
	git session phase complete 3 -q &&
	git session phase start 5 -q &&
	git session note "scaffolding merged" -q &&
	git session phase add "Release" -q &&
	git session export --format maestro ui-overhaul >hand2.md &&
	check "$(front hand2.md "[(p[\"id\"], p[\"status\"], p.get(\"agent\"), p.get(\"agents\")) for p in d[\"phases\"]]")" \
		"[[1, \"completed\", \"architect\", null], [2, \"completed\", \"architect\", null], [3, \"completed\", \"coder\", null], [3, \"in_progress\", \"coder\", null], [4, \"pending\", null, [\"tester\", \"code_reviewer\"]], [6, \"pending\", null, []]]" &&
	kept "$FX/handwritten.md" hand2.md --except "\$.front_matter.phases[2]" --except "\$.front_matter.phases[3]" \
		--except "\$.front_matter.current_phase"
'

test_expect_success 'a stale current_phase is the source'"'"'s after a note and a phase' '
	if reopen_ok
	then
		git session import -q --as ui-again "$FX/handwritten.md" &&
		git session switch -q ui-again &&
		git session note "checked" -q &&
		git session phase add "Release" -q &&
		git session export --format maestro ui-again >hand3.md &&
		kept "$FX/handwritten.md" hand3.md --except "\$.front_matter.session_id" &&
		check "$(front hand3.md "d[\"current_phase\"]")" 1
	else
		echo "# skipped: this build keeps no current phase across phase add"
	fi
'

test_expect_success 'an archive left in progress with every phase done is completed; exported as it was' '
	git session import -q "$FX/archive/2026-05-06-milestone-one.md" &&
	git session unarchive 2026-05-06-milestone-one -q &&
	check "$(show 2026-05-06-milestone-one "d[\"status\"], [p[\"status\"] for p in d[\"phases\"]]")" \
		"[\"completed\", [\"completed\", \"completed\", \"completed\"]]" &&
	git session export --format maestro 2026-05-06-milestone-one >arch.md &&
	same md "$FX/archive/2026-05-06-milestone-one.md" arch.md &&
	check "$(front arch.md "d[\"status\"], d[\"current_phase\"]")" "[\"in_progress\", 1]"
'

test_expect_success 'the archive, reopened, worked on: all of the source is still there' '
	if reopen_ok
	then
		git session reopen 2026-05-06-milestone-one -q &&
		git session switch -q 2026-05-06-milestone-one &&
		git session note "one more check" -q &&
		git session phase add "Follow-up" -q &&
		git session export --format maestro 2026-05-06-milestone-one >arch2.md &&
		kept "$FX/archive/2026-05-06-milestone-one.md" arch2.md
	else
		echo "# skipped: this build has no reopen"
	fi
'

test_expect_success 'quotes written into plain scalars: the id and words read, the text kept as written' '
	git session import -q "$FX/quoted.md" &&
	check "$(show 2026-04-20-system-check "d[\"status\"], d[\"created\"], [p[\"status\"] for p in d[\"phases\"]], d[\"phases\"][0][\"name\"][:2] == chr(92) + chr(34)")" \
		"[\"in_progress\", \"2026-04-20T11:20:00Z\", [\"completed\", \"pending\"], true]" &&
	git session export --format maestro 2026-04-20-system-check >q.md &&
	same md "$FX/quoted.md" q.md &&
	git session switch -q 2026-04-20-system-check &&
	git session phase start 2 -q &&
	git session export --format maestro 2026-04-20-system-check >q2.md &&
	kept "$FX/quoted.md" q2.md --except "\$.front_matter.phases[1].status" --except "\$.front_matter.phases[1].started" \
		--except "\$.front_matter.current_phase"
'

test_expect_success 'blocked, a phase failed with its error: status shows it failed; exported as it was' '
	git session import -q "$FX/blocked.md" &&
	git session status 2026-02-24-extension-deployment >status &&
	grep "✗ 3 Deployment  failed, after phase 2" status &&
	grep "dependency, phase 3, agent devops_engineer: Authentication failed" status &&
	grep "^Next: retry phase 3 \"Deployment\"" status &&
	git session export --format maestro 2026-02-24-extension-deployment >b.md &&
	same md "$FX/blocked.md" b.md &&
	git session switch -q 2026-02-24-extension-deployment &&
	git session note "token rotated" -q &&
	git session phase add "Announce" -q &&
	git session export --format maestro 2026-02-24-extension-deployment >b2.md &&
	kept "$FX/blocked.md" b2.md
'

test_expect_success 'JSON front matter, unnamed phases, documents inline: exported as it was' '
	git session import -q "$FX/json-unnamed.md" &&
	git session export --format maestro session-20260427-092305 >j.md &&
	same md "$FX/json-unnamed.md" j.md &&
	git session switch -q session-20260427-092305 &&
	git session note "camera path drafted" -q &&
	git session phase add "Polish" -q &&
	mkdir -p src/docs/maestro/state out/docs/maestro/state &&
	cp "$FX/json-unnamed.md" src/docs/maestro/state/active-session.md &&
	git session export --format maestro -o out/docs/maestro/state/active-session.md session-20260427-092305 &&
	kept "$FX/json-unnamed.md" out/docs/maestro/state/active-session.md
'

test_expect_success UPSTREAM_MAESTRO 'Maestro 1.6.4 reads, updates and transitions that export as it does the source' '
	node "$TEST_DIRECTORY/../upstream/maestro-check.js" "$UP/maestro-orchestrate" src >src.json &&
	node "$TEST_DIRECTORY/../upstream/maestro-check.js" "$UP/maestro-orchestrate" out >out.json &&
	check "$(json_field out.json "[p[\"status\"] for p in d[\"after\"][\"phases\"]], d[\"after\"][\"current_batch\"]")" \
		"[[\"completed\", \"completed\", \"in_progress\", \"pending\"], \"batch-1\"]" &&
	check "$(json_field src.json "[p[\"status\"] for p in d[\"after\"][\"phases\"]]")" "[\"completed\", \"completed\", \"in_progress\"]" &&
	git session import -q --as portfolio-after out/docs/maestro/state/active-session.md &&
	check "$(show portfolio-after "[(p[\"id\"], p[\"status\"]) for p in d[\"phases\"]]")" \
		"[[1, \"completed\"], [2, \"completed\"], [3, \"in_progress\"], [4, \"pending\"]]"
'

test_done
