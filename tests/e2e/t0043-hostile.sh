#!/bin/sh
test_description='bad and hostile input: a clear error, and nothing changed'
. ./lib.sh

id=2025-11-21-target

# unchanged: the session's tip is what it was
snap () { git rev-parse "refs/sessions/$id" >tip.before; }
unchanged () { git rev-parse "refs/sessions/$id" >tip.after && test_cmp tip.before tip.after; }

test_expect_success 'setup' '
	git session start target -q && snap
'

test_expect_success 'text that is not UTF-8 is refused' '
	test_expect_code 1 git session note "$(printf "bad \377\376 bytes")" 2>err &&
	grep "^error: text is not valid UTF-8" err &&
	test_expect_code 1 git session decide "$(printf "\300\257")" 2>err &&
	grep "not valid UTF-8" err && unchanged
'

test_expect_success 'a 10 MB note is refused' '
	python3 -c "print(\"x\" * 10 * 1024 * 1024, end=\"\")" >big &&
	test_expect_code 1 git session note -F big 2>err &&
	grep "^error: text is too long" err && unchanged &&
	printf "nul\0byte" >nul &&
	test_expect_code 1 git session note -F nul 2>err &&
	grep "holds a NUL byte" err && unchanged &&
	echo "from a file" | git session note -F - -q &&
	git show refs/sessions/$id:session.json | grep "from a file" && snap
'

test_expect_success 'JSON nested 10,000 deep, and a 64-digit number, are refused' '
	deep=$(python3 -c "print(\"[\" * 10000 + \"]\" * 10000)") &&
	test_expect_code 1 git session set deep "$deep" 2>err &&
	grep "nested deeper than 100 levels" err &&
	test_expect_code 1 git session set num "$(printf "%064d" 7)" 2>err &&
	grep "number longer than 40 characters" err && unchanged
'

test_expect_success 'hostile paths are refused' '
	for p in ../x /etc/passwd .git/config .GIT/HEAD "sub/../../x"
	do
		test_expect_code 1 git session file created "$p" 2>err || return 1
	done && unchanged
'

test_expect_success 'a manifest past 50,000 files is refused' '
	git session show --json >s &&
	python3 - <<-\PY &&
	import json
	d = json.load(open("s"))
	blob = "0123456789012345678901234567890123456789"
	d["files"] = {"f%06d" % i: {"status": "created", "oid": blob, "phase": None, "agent": None}
		      for i in range(50000)}
	json.dump(d, open("full.json", "w"), indent=2)
	PY
	blob=$(git hash-object -w full.json) &&
	tree=$(printf "100644 blob %s\tsession.json\n" $blob | git mktree) &&
	git update-ref refs/sessions/$id $(git commit-tree -p refs/sessions/$id -m full $tree) && snap &&
	echo new >new.txt &&
	test_expect_code 1 git session file created new.txt 2>err &&
	grep "^error: a session.s manifest holds at most 50000 files" err && unchanged
'

test_expect_success 'a repository libgit2 cannot open is reported clearly' '
	git init -q ../wtconfig &&
	git -C ../wtconfig config core.repositoryformatversion 1 &&
	git -C ../wtconfig config extensions.objectFormat sha1 &&
	test_expect_code 1 git -C ../wtconfig session list 2>err &&
	grep "^error: cannot open the repository: it uses extensions.objectformat (repository format 1), which git-session cannot work with yet" err &&
	grep "^hint: .*Repository formats" err
'

# nested: depth n of objects ({"a": ...}) or arrays ([...]) around 1
nested () { python3 -c "import sys; k, n = sys.argv[1], int(sys.argv[2]); print(('{\"a\": ' * n + '1' + '}' * n) if k == 'o' else ('[' * n + ']' * n))" "$1" "$2"; }

test_expect_success 'deeply nested documents import in linear time: nothing is exponential' '
	for d in 24 40 90
	do
		printf "{\"schema_version\": \"1.0\", \"session_id\": \"deep%s\", \"goal\": \"g\", \"weird\": %s}\n" \
			$d "$(nested o $d)" >deep$d.json &&
		timeout 20 git session import -q deep$d.json || return 1
	done &&
	printf -- "---\nsession_id: \"mdeep\"\nstatus: in_progress\nweird: %s\n---\nbody\n" \
		"$(python3 -c "print(\"{a: \" * 40 + \"1\" + \"}\" * 40)")" >deep.md &&
	timeout 20 git session import -q deep.md &&
	git session export --format claude deep90 >out.json &&
	python3 -c "import json, sys; d = json.load(open(\"out.json\")); print(d[\"weird\"] == json.load(open(\"deep90.json\"))[\"weird\"])" >same &&
	echo True >expect && test_cmp expect same
'

test_expect_success 'what is accepted reads back: set and import check the depth of what they store' '
	git session switch -q $id && snap &&
	git session set -q ok "$(nested a 98)" &&
	git session note -q "still readable" && git session show --json >/dev/null && snap &&
	test_must_fail git session set deep "$(nested a 99)" 2>err &&
	grep "^error: .deep. with that value would nest deeper than the 100 levels" err &&
	test_must_fail git session set "$(python3 -c "print(\".\".join([\"a\"] * 60))")" "$(nested a 50)" 2>err &&
	grep "would nest deeper" err &&
	test_must_fail git session set "$(python3 -c "print(\".\".join([\"a\"] * 5000))")" 1 2>err &&
	unchanged &&
	git for-each-ref refs/sessions >refs.before &&
	for d in 95 96 99
	do
		printf "{\"schema_version\": \"1.0\", \"session_id\": \"arr%s\", \"goal\": \"g\", \"weird\": %s}\n" \
			$d "$(nested a $d)" >arr$d.json || return 1
	done &&
	test_must_fail git session import arr95.json arr96.json arr99.json 2>err &&
	grep "^error: arr96.json: nested deeper than a session can keep" err &&
	git for-each-ref refs/sessions >refs.after && test_cmp refs.before refs.after &&
	git session import -q arr95.json && git session status arr95 >/dev/null &&
	git session note -q "arr95 reads back" && git session fsck arr95 >out && grep "^ok arr95" out
'

test_expect_success 'values are stored as given or refused' '
	git session switch -q $id && snap &&
	for v in 007 "[0, 01]" 1e999999 1e-400 "\"a\\u0000b\"" 9007199254740993 123456789012345678901234567890
	do
		test_must_fail git session set -q v -- "$v" 2>err &&
		grep "^error: value for .v. is not JSON: " err || { echo "accepted: $v"; return 1; }
	done &&
	unchanged &&
	for v in 0.1 -2.5 9007199254740992 1e300 "\"007\""
	do
		git session set -q v -- "$v" && git session get --json v >got &&
		python3 -c "import json, sys; a, b = json.loads(sys.argv[1]), json.load(open(\"got\")); print(a == b and type(a) == type(b))" "$v" >same &&
		echo True >expect && test_cmp expect same || return 1
	done &&
	git show SESSION_HEAD:session.json | grep "\"v\": \"007\"" &&
	git session set -q v 0.1 && git show SESSION_HEAD:session.json | grep "\"v\": 0.1$"
'

test_expect_success 'a refused start changes nothing: the session in progress stays so' '
	git session switch -q $id && snap &&
	for args in "--id ../x" "--id $id" "--budget 0" "--budget -5" "--id HEAD"
	do
		test_must_fail git session start t $args --pause-current 2>err &&
		git session status --json >st && test "$(json_field st "d[\"status\"]")" = in_progress || {
			echo "paused by: $args"; return 1; }
	done &&
	unchanged
'

test_expect_success 'what a user can grow without end has a stated limit: phases, agents, imports' '
	git session switch -q $id && snap &&
	test_must_fail git session phase add $(seq -f "p%g" 1 1001) 2>err &&
	grep "^error: a session has at most 1000 phases" err &&
	unchanged &&
	python3 -c "
import json
print(\"---\"); print(\"session_id: \\\"many\\\"\"); print(\"status: in_progress\"); print(\"phases:\")
for i in range(1001): print(\"  - {id: %d, name: p%d, status: pending}\" % (i + 1, i))
print(\"---\"); print(\"body\")" >many.md &&
	test_must_fail git session import many.md 2>err &&
	grep "^error: many.md: more than a session holds (1000 phases, 50000 agents)" err &&
	! git rev-parse -q --verify refs/sessions/many &&
	python3 -c "import json; print(json.dumps({\"schema_version\": \"1.0\", \"session_id\": \"agents16k\", \"goal\": \"g\", \"agents\": [{\"id\": \"a%d\" % i, \"type\": \"coder\", \"status\": \"in_progress\", \"task\": \"t\"} for i in range(16000)]}))" >agents.json &&
	timeout 60 git session import -q agents.json &&
	git session export --format claude agents16k >back.json &&
	python3 -c "import json; print(json.load(open(\"agents.json\")) == json.load(open(\"back.json\")))" >same &&
	echo True >expect && test_cmp expect same
'

test_expect_success 'one damaged session does not hide the others from list, cached or not' '
	git init -q ../many && (
		cd ../many && git commit -q --allow-empty -m i &&
		git session start a --id good -q && git session start b --id bad --pause-current -q &&
		git session list >/dev/null &&
		t=$(git rev-parse refs/sessions/bad) &&
		obj=.git/objects/$(echo $t | cut -c1-2)/$(echo $t | cut -c3-) &&
		chmod u+w $obj && truncate -s 20 $obj &&
		for cache in kept dropped
		do
			test $cache = dropped && rm -f .git/session-list-cache
			test_expect_code 1 git session list >out 2>err &&
			grep "^\* bad  *damaged" out && grep "^  good  *paused" out &&
			grep "^error: cannot read checkpoint $t" err &&
			test_expect_code 1 git session list --json >out.json 2>err &&
			test "$(json_field out.json "[(s[\"id\"], s[\"status\"]) for s in d]")" = "[[\"bad\", \"damaged\"], [\"good\", \"paused\"]]" || return 1
		done
	)
'

test_expect_success 'the minor ones: a BOM, a newline in a topic, a damaged packed-refs line, --version' '
	printf "\357\273\277---\nsession_id: \"bom\"\nstatus: in_progress\n---\nbody\n" >bom.md &&
	git session import -q bom.md && git session status bom >/dev/null &&
	git session start "two$(printf "\n")lines" --id nl --pause-current -q &&
	git session list >out && test "$(grep -c "^. nl " out)" = 1 && ! grep "^lines" out &&
	git init -q ../packed && (
		cd ../packed && git commit -q --allow-empty -m i && git session start c --id cs -q &&
		git pack-refs --all && rm -f .git/refs/sessions/cs &&
		sed "s/^[0-9a-f]* refs\/sessions\/cs$/zzzz refs\/sessions\/cs/" .git/packed-refs >p && mv p .git/packed-refs &&
		test_expect_code 1 git session status cs 2>err &&
		grep "^error: the ref of session .cs. is damaged" err
	) &&
	git session --version >v && grep "^git-session version [0-9.]* (libgit2 [0-9.]*)$" v
'

test_expect_success NOT_ROOT 'a read-only .git is reported, nothing half-written' '
	chmod -R a-w .git/objects .git/refs &&
	test_expect_code 1 git session note "read only" 2>err &&
	chmod -R u+w .git/objects .git/refs &&
	grep "^error:" err && unchanged
'

test_expect_success TMPFS_MOUNT 'a full disk is reported, nothing half-written' '
	mkdir -p ../tiny &&
	mount -t tmpfs -o size=256k tmpfs ../tiny &&
	git init -q ../tiny/repo &&
	(
		cd ../tiny/repo &&
		git session start full -q &&
		i=0 &&
		while head -c 60000 /dev/urandom | od -An -x >"$TRASH_DIRECTORY/note.txt" &&
			git session note -F "$TRASH_DIRECTORY/note.txt" -q 2>err
		do
			i=$((i + 1)); test $i -lt 50 || break
		done &&
		grep "^error:" err &&
		git session show --json >/dev/null &&
		git session fsck >out && grep "^ok" out
	)
	ret=$?
	umount ../tiny
	test $ret = 0
'

test_done
