#!/bin/sh
test_description='import and export of hostile files: refused whole before anything is written, nothing written outside -o'
. ./lib.sh

FX="$TEST_DIRECTORY/fixtures/real/maestro-flow"

test_expect_success 'setup' '
	git commit -q --allow-empty -m init
'

test_expect_success 'a file whose session is archived here refuses the import before the others are written' '
	printf "{\"session_id\": \"WFS-kept\", \"status\": \"completed\", \"phases\": {\"plan\": \"completed\"}}\n" >kept.json &&
	git session import -q --format ccw kept.json &&
	git session archive WFS-kept &&
	printf "{\"session_id\": \"WFS-one\", \"status\": \"active\", \"phases\": {\"plan\": \"pending\"}}\n" >one.json &&
	printf "{\"session_id\": \"WFS-two\", \"status\": \"active\", \"phases\": {\"plan\": \"pending\"}}\n" >two.json &&
	printf "{\"session_id\": \"WFS-kept\", \"status\": \"active\", \"phases\": {\"plan\": \"pending\"}}\n" >three.json &&
	git for-each-ref >before &&
	test_expect_code 1 git session import --format ccw one.json two.json three.json 2>err &&
	grep "^error: three.json: session .WFS-kept. is archived here" err &&
	git for-each-ref >after &&
	test_cmp before after
'

test_expect_success 'maestro-flow export -o: a link below the folder is not written through, and nothing is written' '
	cp -R "$FX/.workflow" . &&
	git session import -q .workflow/sessions/20260301-search-api &&
	id=20260301-search-api &&
	mkdir -p elsewhere/runs/run-execute-retry-1 mf/$id/runs &&
	ln -s ../../../elsewhere/runs/run-execute-retry-1 mf/$id/runs/run-execute-retry-1 &&
	test_expect_code 1 git session export --format maestro-flow -o mf $id 2>err &&
	grep "^error: .mf/$id/runs/run-execute-retry-1. is a symbolic link" err &&
	test -z "$(find elsewhere -type f)" &&
	! test -e mf/$id/session.json &&
	rm -rf mf elsewhere && mkdir elsewhere mf &&
	ln -s ../elsewhere mf/$id &&
	test_expect_code 1 git session export --format maestro-flow -o mf $id 2>err &&
	grep "^error: .mf/$id. is a symbolic link" err &&
	test -z "$(find elsewhere -type f)"
'

test_expect_success 'maestro-flow export -o: a file in the way of a run folder leaves the folder as it was' '
	id=20260301-search-api &&
	rm -rf mf && mkdir -p mf/$id/runs && echo keep >mf/$id/runs/run-execute-retry-1 &&
	(cd mf && find . | sort) >before &&
	test_expect_code 1 git session export --format maestro-flow -o mf $id 2>err &&
	grep "^error: .mf/$id/runs/run-execute-retry-1. is in the way" err &&
	(cd mf && find . | sort) >after &&
	test_cmp before after &&
	rm -rf mf && git session export --format maestro-flow -o mf $id &&
	test -f mf/$id/runs/run-execute-retry-1/run.json
'

test_expect_success 'maestro-flow import: a run or registry linked out of the session folder is refused, nothing read' '
	mkdir -p secret && printf "{\"aws_secret\": \"s3cr3t-value\"}\n" >secret/creds.json && cp secret/creds.json secret/run.json &&
	mkdir -p hostile/.workflow/sessions && cp -R "$FX/.workflow/sessions/20260214-export-csv" hostile/.workflow/sessions/ &&
	s=hostile/.workflow/sessions/20260214-export-csv &&
	mkdir -p $s/runs/run-stolen && ln -s ../../../../../../secret/creds.json $s/runs/run-stolen/run.json &&
	git for-each-ref >before &&
	test_expect_code 1 git session import hostile/.workflow 2>err &&
	grep "run-stolen/run.json: a link out of the session.s folder" err &&
	rm -r $s/runs/run-stolen && ln -s ../../../../../secret $s/runs/run-stolen &&
	test_expect_code 1 git session import hostile/.workflow 2>err &&
	grep "run-stolen/run.json: a link out of the session.s folder" err &&
	rm $s/runs/run-stolen && mv $s/evidence.json secret/evidence.json && ln -s ../../../../secret/evidence.json $s/evidence.json &&
	test_expect_code 1 git session import hostile/.workflow 2>err &&
	grep "evidence.json: a link out of the session.s folder" err &&
	git for-each-ref >after &&
	test_cmp before after
'

test_expect_success 'maestro-flow: an archived session reopened is exported open, no longer dated completed or archived' '
	id=20260214-export-csv &&
	git session import -q .workflow/sessions/$id &&
	git session export --format maestro-flow -o exp-before $id &&
	python3 "$TEST_DIRECTORY/same_data.py" json .workflow/sessions/$id/session.json exp-before/$id/session.json &&
	git session reopen -q $id && git session switch -q $id &&
	git session note -q "the refunds need a column" &&
	git session phase add -q "maestro-verify refunds" &&
	git session export --format maestro-flow -o exp-after $id 2>err &&
	json_field exp-after/$id/session.json "d[\"status\"], d[\"completed_at\"], d[\"archived_at\"], [s[\"status\"] for s in d[\"chain\"]]" >actual &&
	echo "[\"open\", null, null, [\"completed\", \"skipped\", \"pending\"]]" >expect &&
	test_cmp expect actual &&
	python3 "$TEST_DIRECTORY/same_data.py" --subset --except "\$.chain" --except "\$.status" --except "\$.updated_at" \
		--except "\$.completed_at" --except "\$.archived_at" json .workflow/sessions/$id/session.json exp-after/$id/session.json
'

test_expect_success 'maestro-flow 1.3: a sealed session reopened is exported running, no longer sealed' '
	id=maestro-cache-fix-20260110-101500 &&
	git session import -q .workflow/sessions/$id &&
	git session export --format maestro-flow -o v1-before $id &&
	python3 "$TEST_DIRECTORY/same_data.py" json .workflow/sessions/$id/session.json v1-before/$id/session.json &&
	git session reopen -q $id &&
	git session export --format maestro-flow -o v1-after $id &&
	json_field v1-after/$id/session.json "d[\"status\"], d[\"lifecycle\"][\"sealed_at\"], d[\"lifecycle\"][\"seal_summary\"]" >actual &&
	echo "[\"running\", null, \"Sealed with 2 Run(s)\"]" >expect &&
	test_cmp expect actual
'

test_expect_success 'ccw: a session under a folder named archives, not in archives/, is made active' '
	git session close -q &&
	mkdir -p archives/proj/.workflow/active/WFS-live archives/proj/.workflow/archives/WFS-old &&
	printf "{\"session_id\": \"WFS-live\", \"status\": \"active\", \"phases\": {\"plan\": \"pending\"}}\n" \
		>archives/proj/.workflow/active/WFS-live/workflow-session.json &&
	printf "{\"session_id\": \"WFS-old\", \"status\": \"active\", \"phases\": {\"plan\": \"pending\"}}\n" \
		>archives/proj/.workflow/archives/WFS-old/workflow-session.json &&
	git session import archives/proj/.workflow/archives/WFS-old/workflow-session.json >out &&
	! git symbolic-ref -q SESSION_HEAD &&
	git session import archives/proj/.workflow/active/WFS-live/workflow-session.json >out &&
	grep "^Active session: WFS-live$" out &&
	test "$(git symbolic-ref SESSION_HEAD)" = refs/sessions/WFS-live
'

test_expect_success 'a session named twice (its folder, then its file) is imported once, not taken for nothing to import' '
	rm -rf again && mkdir again && cp -R "$FX/.workflow" again/ &&
	git session import -q again/.workflow again/.workflow/sessions/20260301-search-api \
		again/.workflow/sessions/20260301-search-api/session.json &&
	git rev-parse --verify -q refs/sessions/maestro-cache-fix-20260110-101500
'

test_expect_success 'maestro-flow: a registry named as the session file or as another registry is refused whole' '
	for change in "d[\"evidence_ref\"] = \"runs\"" "d[\"evidence_ref\"] = \"artifacts.json\"" "d[\"artifacts_ref\"] = \"session.json\""
	do
		rm -rf reg && mkdir -p reg/.workflow/sessions && cp -R "$FX/.workflow/sessions/20260301-search-api" reg/.workflow/sessions/ &&
		f=reg/.workflow/sessions/20260301-search-api/session.json &&
		python3 -c "import json, sys; d = json.load(open(sys.argv[1])); $change; json.dump(d, open(sys.argv[1], \"w\"))" $f &&
		git for-each-ref >before &&
		test_expect_code 1 git session import --as reg-copy reg/.workflow/sessions/20260301-search-api 2>err &&
		git for-each-ref >after &&
		test_cmp before after || return 1
		case "$change" in *runs*) ;; *) grep "is the session.s own, or another registry.s" err || return 1 ;; esac
	done
'

test_done
