#!/bin/sh
test_description='numbers kept as written or refused, token sums the reader takes, one damaged session among healthy ones, text with NUL or bytes not UTF-8'
. ./lib.sh

SID=59595959-0000
# where Claude Code keeps its transcripts
mkdir -p "$HOME/.claude/projects/repo"
T="$HOME/.claude/projects/repo/$SID.jsonl"
AGENT=claude-59595959
claude () {
	printf '%s' "{\"session_id\":\"$SID\",\"transcript_path\":\"$T\",\"cwd\":\"$PWD\",\"hook_event_name\":\"$1\"$2}" |
		git-session hook claude-code "$1" >/dev/null 2>hook.err
}

# plant <ref> <path> <blob>: a checkpoint on top of ref whose tree holds blob at path, made with plumbing
plant () {
	GIT_INDEX_FILE=$TRASH_DIRECTORY/plant.index git read-tree "$1" &&
	GIT_INDEX_FILE=$TRASH_DIRECTORY/plant.index git update-index --add --cacheinfo "100644,$3,$2" &&
	tree=$(GIT_INDEX_FILE=$TRASH_DIRECTORY/plant.index git write-tree) &&
	rm -f "$TRASH_DIRECTORY/plant.index" &&
	commit=$(echo "note: planted" | git commit-tree -p "$1" "$tree") &&
	git update-ref "$1" "$commit"
}

# with_json <ref> <python statements on d>: plants session.json as the statements leave it
with_json () {
	git cat-file blob "$1:session.json" >sj &&
	python3 -c "
import json, sys
d = json.load(open('sj'))
$2
open('sj', 'w').write(json.dumps(d, indent=2))
" &&
	plant "$1" session.json "$(git hash-object -w sj)"
}

test_expect_success 'setup' '
	test_tick &&
	git session start "numbers" --id num -q
'

test_expect_success 'set: a number is kept when it reads back as written' '
	while read -r value expect
	do
		git session set -q k -- "$value" &&
		git session get k >out &&
		echo "$expect" >want &&
		test_cmp want out || return 1
	done <<-\EOF
	1.0 1
	1e2 100
	1E+2 100
	0.5 0.5
	-3 -3
	1e-5 1e-05
	0.1 0.1
	0.30000000000000004 0.30000000000000004
	9007199254740992 9007199254740992
	9007199254740991.0 9007199254740991
	-1.50 -1.5
	1e300 1e+300
	5e-324 5e-324
	EOF
	git session set -q k "[1.50, 2e0, {\"a\": 1e-7}]" &&
	git session get k | tr -d " \n" >out &&
	printf "[1.5,2,{\"a\":1e-07}]" >want &&
	test_cmp want out
'

test_expect_success 'set: a number a double does not hold as written is refused, in every spelling' '
	tip=$(git rev-parse refs/sessions/num) &&
	for value in 9007199254740993 9007199254740993.0 9.007199254740993e15 90071992547409930e-1 \
		0.1234567890123456789 0.10000000000000000555 -0 -0.0 -0e3 1152921504606846976 \
		123456789012345678901234567890 "[1, 0.1234567890123456789]" "{\"a\": -0}"
	do
		test_must_fail git session set k -- "$value" 2>err &&
		grep "^error: value for .k. is not JSON: the number .* is not kept exactly by a double: it would read back as" err ||
		{ echo "accepted: $value"; return 1; }
	done &&
	for value in 1e-400 2e-324 1e400 -1e309
	do
		test_must_fail git session set k -- "$value" 2>err &&
		grep "is out of the range a session can keep" err || return 1
	done &&
	test "$(git rev-parse refs/sessions/num)" = "$tip" &&
	git session get k | tr -d " \n" >out && printf "[1.5,2,{\"a\":1e-07}]" >want && test_cmp want out
'

test_expect_success 'set: the message names the value the number would have become' '
	test_must_fail git session set k 0.1234567890123456789 2>err &&
	grep "it would read back as 0.12345678901234568 " err &&
	test_must_fail git session set k -- -0 2>err &&
	grep "it would read back as 0 " err
'

test_expect_success 'import: a YAML number kept only as written' '
	printf "session_id: \"Y1\"\nstatus: \"in_progress\"\nratio: 0.1234567890123456789\n" >y1.yaml &&
	test_must_fail git session import --format bmad y1.yaml 2>err &&
	grep "y1.yaml:3: the number 0.1234567890123456789 is not kept exactly by a double" err &&
	test_must_fail git rev-parse --verify -q refs/sessions/Y1 &&
	printf "session_id: \"Y2\"\nstatus: \"in_progress\"\nratio: 0.5\nbig: 0x10\n" >y2.yaml &&
	git session import -q --format bmad y2.yaml &&
	git cat-file blob refs/sessions/Y2:session.json >s &&
	test "$(json_field s "d[\"extra\"][\"bmad\"][\"ratio\"] if \"bmad\" in d[\"extra\"] else d[\"extra\"][\"ratio\"]")" = 0.5
'

test_expect_success 'tokens add: a sum past 2^53 is refused and the session stays readable' '
	printf "session_id: \"BM\"\nstatus: \"in_progress\"\ntokens:\n  current: 9007199254740481\n" >bm.yaml &&
	git session import -q bm.yaml &&
	git session switch -q BM &&
	tip=$(git rev-parse refs/sessions/BM) &&
	test_must_fail git session tokens add --agent z --input 500 --output 500 2>err &&
	grep "^error: that would take the session.s tokens used past 9007199254740991, the most a session counts exactly: nothing recorded" err &&
	test_must_fail git session tokens add --agent z --input 511 --output 0 2>err &&
	grep "session.s input tokens past 9007199254740991" err &&
	test "$(git rev-parse refs/sessions/BM)" = "$tip" &&
	git session tokens add -q --agent z --input 510 --output 0 &&
	git session show >out &&
	git cat-file blob refs/sessions/BM:session.json >s &&
	test "$(json_field s "[d[\"tokens\"][k] for k in (\"input\", \"peak\")]")" = "[9007199254740991, 9007199254740991]" &&
	test_must_fail git session tokens add --agent z --input 1 --output 0 2>err &&
	grep "nothing recorded" err &&
	git session status >out &&
	git session fsck >out &&
	for n in " 5" +5 -0 1e3 1.0 0x10
	do
		test_must_fail git session tokens add --agent z --input "$n" --output 0 2>err &&
		grep "^error: --input must be a whole number, not .$n.$" err || return 1
	done
'

test_expect_success 'import: token counts past 2^53 are refused before anything is written' '
	printf "session_id: \"BN\"\nstatus: \"in_progress\"\ntokens:\n  current: 9007199254740991\n  saved: 10\n" >bn.yaml &&
	test_must_fail git session import bn.yaml 2>err &&
	grep "tokens.input is not a whole number" err &&
	test_must_fail git rev-parse --verify -q refs/sessions/BN &&
	printf "session_id: \"BO\"\nstatus: \"in_progress\"\ntokens:\n  current: 9007199254740993\n" >bo.yaml &&
	test_must_fail git session import bo.yaml 2>err &&
	grep "the number 9007199254740993 is not kept exactly" err &&
	test_must_fail git rev-parse --verify -q refs/sessions/BO
'

test_expect_success 'agent hooks: a turn whose tokens would pass 2^53 is not recorded, and the session still reads' '
	git session switch -q num &&
	echo "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"count\"}}" >"$T" &&
	claude UserPromptSubmit ",\"prompt\":\"count the tokens\"" &&
	ref=$(git symbolic-ref SESSION_HEAD) &&
	with_json $ref "d[\"tokens\"][\"input\"] = 9007199254740900; d[\"tokens\"][\"peak\"] = 9007199254740900" &&
	tip=$(git rev-parse $ref) &&
	echo "{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],\"usage\":{\"input_tokens\":100,\"output_tokens\":5}}}" >>"$T" &&
	claude Stop "" ;
	grep "past 9007199254740991, the most a session counts exactly" hook.err &&
	test "$(git rev-parse $ref)" = "$tip" &&
	git session status >out &&
	git session fsck >out
'

test_expect_success 'setup: healthy sessions that say findme, and damaged ones planted with plumbing' '
	for id in h1 h2 deep thief lost gonet
	do
		git session start -q --pause-current "session $id" --id $id &&
		git session note -q "findme in $id" || return 1
	done &&
	git session switch -q h2 &&
	# nested 150 deep
	with_json refs/sessions/deep "
x = []
for _ in range(149): x = [x]
d[\"extra\"][\"n\"] = x" &&
	# a ref moved onto another session s checkpoint
	git update-ref refs/sessions/thief refs/sessions/h1 &&
	# session.json that cannot be read: its object is gone
	blob=$(git rev-parse refs/sessions/lost:session.json) &&
	rm -f .git/objects/$(echo $blob | cut -c1-2)/$(echo $blob | cut -c3-) &&
	# a transcript whose blob is gone
	echo "findme in a transcript" >part && tb=$(git hash-object -w part) &&
	plant refs/sessions/gonet transcripts/x/000/000001 $tb &&
	rm -f .git/objects/$(echo $tb | cut -c1-2)/$(echo $tb | cut -c3-)
'

test_expect_success 'grep: each damaged session is named and skipped; the healthy ones are searched' '
	test_expect_code 2 git session grep findme >out 2>err &&
	cut -d" " -f1,3- out >got &&
	cat >expect <<-\EOF &&
	gonet notes[0]: findme in gonet
	h1 notes[0]: findme in h1
	h2 notes[0]: findme in h2
	EOF
	test_cmp expect got &&
	grep "^error: checkpoint .* of .refs/sessions/deep. is damaged: session.json: nested deeper than 100 levels" err &&
	grep "^error: session .deep. is damaged: not searched" err &&
	grep "^error: the ref of session .thief. points at .*, a checkpoint of session .h1." err &&
	grep "^error: session .thief. is damaged: not searched" err &&
	grep "^error: session .lost. is damaged: not searched" err &&
	grep "^error: session .gonet. is damaged: its transcripts were not all searched" err &&
	test_must_fail grep "session .h[12]. is damaged" err &&
	grep "^hint: .git session fsck --all. says what is damaged" err
'

test_expect_success 'grep: -c and --json over damaged sessions; a named healthy session alone is fine' '
	test_expect_code 2 git session grep -c findme >out 2>/dev/null &&
	printf "gonet:1\nh1:1\nh2:1\n" >expect && test_cmp expect out &&
	test_expect_code 2 git session grep --json findme >out 2>/dev/null &&
	python3 -c "
import json
m = json.load(open(\"out\"))
assert sorted(x[\"session\"] for x in m) == [\"gonet\", \"h1\", \"h2\"], m
" &&
	git session grep findme h1 >out &&
	test_line_count = 1 out &&
	test_expect_code 2 git session grep findme h1 deep >out 2>err &&
	test_line_count = 1 out && grep "session .deep. is damaged" err &&
	test_expect_code 1 git session grep nothing-matches h1 h2
'

test_expect_success 'list: a damaged session is shown as damaged, cached or not, and in --json' '
	for pass in fresh cached
	do
		test_must_fail git session list >out 2>err &&
		grep "^  deep  *damaged" out && grep "^  thief  *damaged" out && grep "^  lost  *damaged" out &&
		grep "^  h1  *paused" out && grep "^\* h2  *paused" out &&
		grep "the ref of session .thief. points at" err || return 1
	done &&
	test_must_fail git session list --json >out 2>/dev/null &&
	python3 -c "
import json
l = {e[\"id\"]: e for e in json.load(open(\"out\"))}
for i in (\"deep\", \"thief\", \"lost\"):
    assert l[i][\"damaged\"] is True and l[i][\"status\"] == \"damaged\", l[i]
for i in (\"h1\", \"h2\", \"num\"):
    assert l[i][\"damaged\"] is False and l[i][\"status\"] != \"damaged\", l[i]
"
'

test_expect_success 'grep --json: a transcript with bytes not UTF-8 and a NUL gives JSON that parses; the text after a NUL is searched' '
	printf "before\000findme after a NUL\nbad \377\376 bytes findme\nfindme clean\n" >part &&
	plant refs/sessions/h1 transcripts/x/000/000001 $(git hash-object -w part) &&
	git session grep --json findme h1 >out &&
	python3 -c "
import json
m = json.loads(open(\"out\", \"rb\").read().decode(\"utf-8\"))
t = sorted(x[\"text\"] for x in m if x[\"field\"].startswith(\"transcript\"))
assert t == [\"bad \ufffd\ufffd bytes findme\", \"before\ufffdfindme after a NUL\", \"findme clean\"], t
" &&
	git session grep "after a NUL" h1 >out &&
	test_line_count = 1 out
'

test_expect_success 'blame: a line with a NUL is the same line as git blame shows' '
	git session switch -q h2 &&
	printf "one\000two\tthree\nfour\n" >bin.dat &&
	git add bin.dat && git commit -q -m "a binary file" &&
	git blame bin.dat | sed "s/^[^)]*) //" >want &&
	git session blame bin.dat | sed "s/^[^)]*) //" >got &&
	test_cmp want got &&
	test $(wc -l <got) = 2 &&
	git session blame --json bin.dat >out &&
	python3 -c "
import json
t = [e[\"text\"] for e in json.load(open(\"out\"))]
assert t == [\"one\ufffdtwo\tthree\", \"four\"], t
" &&
	# lines not committed: one the session recorded, one alike up to its NUL that it did not
	printf "one\000two\tthree\nfour\nnew\000by coder\n" >bin.dat &&
	git session resume -q &&
	git session agent start -q coder --type code --task t &&
	git session file modified --agent coder -q bin.dat &&
	printf "one\000two\tthree\nfour\nnew\000by coder\nnew\000by nobody\n" >bin.dat &&
	git session blame bin.dat >out &&
	grep -a "^00000000 [0-9a-f]\{8\} (h2  *coder  *A U Thor  *2025-[0-9-]* 3) new" out &&
	grep -a "^00000000 -  *(-  *-  *Not Committed Yet  *[0-9-]* 4) new" out
'

test_done
