#!/bin/sh
test_description='blame: git blame with each line'"'"'s checkpoint, session, agent, phase, author and date'
. ./lib.sh

long=2025-11-21-a-session-whose-id-is-long
arch=architect-with-a-long-name

# checkpoint_of <session> <commit>: the checkpoint that recorded the commit, by plain git
checkpoint_of () {
	git log --format=%H --grep="^commit $(git rev-parse --short=7 "$2")" "refs/sessions/$1"
}

test_expect_success 'setup: lines from before any session, two people and agents in two phases, a second session' '
	printf "one\ntwo\n" >f.c && git add f.c && git commit -q -m base &&
	git session start "blame" --id $long --phase Design --phase Build -q &&
	git session hooks install >/dev/null &&
	git session phase start 1 -q &&
	git session agent start $arch --type architect --task design -q &&
	printf "one\ntwo\nby arch\n" >f.c && git session file modified --agent $arch -q f.c &&
	test_at 86400 &&
	GIT_AUTHOR_NAME="Alice Liddell" GIT_AUTHOR_EMAIL=alice@example.com git commit -q -am "arch writes" &&
	git session phase start 2 -q &&
	git session agent start coder --type coder --task build --phase 2 -q &&
	printf "one\nchanged by coder\nby arch\n" >f.c && git session file modified --agent coder -q f.c &&
	test_at 172800 &&
	GIT_AUTHOR_NAME="Bob Builder" GIT_AUTHOR_EMAIL=bob@example.com \
		GIT_AUTHOR_DATE="@$((1763719200 + 122400)) +0900" git commit -q -am "coder writes" &&
	git session start "other" --id other --pause-current -q &&
	printf "one\nchanged by coder\nby arch\nby other\n" >f.c &&
	test_at 259200 &&
	GIT_AUTHOR_NAME="Carol" GIT_AUTHOR_EMAIL=carol@example.com git session file modified -q f.c &&
	git session switch -q $long &&
	printf "one\nchanged by coder\nby arch\nby other\nby nobody\n" >f.c
'

test_expect_success 'each line: commit, checkpoint, session, agent, phase, author, date, whole and aligned' '
	git session blame f.c >out &&
	cut -c1-8 out >commits &&
	git blame --porcelain f.c | grep -E "^[0-9a-f]{40} [0-9]+ [0-9]+" | cut -c1-8 >expect &&
	test_cmp expect commits &&
	arch_cp=$(checkpoint_of $long HEAD~1 | cut -c1-8) &&
	coder_cp=$(checkpoint_of $long HEAD | cut -c1-8) &&
	other_cp=$(git log -1 --format=%H refs/sessions/other | cut -c1-8) &&
	test -n "$arch_cp" && test -n "$coder_cp" &&
	cut -c10- out >got &&
	cat >expect <<-EOF &&
	-        (-                                     -                          -      A U Thor          2025-11-21 1) one
	$coder_cp (2025-11-21-a-session-whose-id-is-long coder                      Build  Bob Builder       2025-11-23 2) changed by coder
	$arch_cp (2025-11-21-a-session-whose-id-is-long $arch Design Alice Liddell     2025-11-22 3) by arch
	$other_cp (other                                 -                          -      Carol             2025-11-24 4) by other
	-        (-                                     -                          -      Not Committed Yet $(date -u +%Y-%m-%d) 5) by nobody
	EOF
	test_cmp expect got
'

test_expect_success 'a column no line fills is left out; the line numbers are as wide as the widest' '
	git session blame -L 1,1 f.c >out &&
	sed "s/^[0-9a-f]* //" out >got &&
	echo "(A U Thor 2025-11-21 1) one" >expect &&
	test_cmp expect got &&
	git session resume -q $long &&
	seq 1 12 >n.txt && git add n.txt && git commit -q -m numbers &&
	git session blame -L 8,10 n.txt >out &&
	sed "s/^[0-9a-f]* [0-9a-f]* (//" out >got &&
	printf "%s\n" "$long Build A U Thor 2025-11-24  8) 8" "$long Build A U Thor 2025-11-24  9) 9" \
		"$long Build A U Thor 2025-11-24 10) 10" >expect &&
	test_cmp expect got
'

test_expect_success '--date: git'"'"'s formats, in the author'"'"'s zone' '
	git session blame --date=iso -L 2,2 f.c >out &&
	grep " Bob Builder 2025-11-23 05:00:00 +0900 2) changed by coder$" out &&
	git session blame --date iso-strict -L 2,2 f.c >out && grep " 2025-11-23T05:00:00+09:00 2) " out &&
	git session blame --date=raw -L 2,2 f.c >out && grep " 1763841600 +0900 2) " out &&
	git session blame --date=unix -L 2,2 f.c >out && grep " 1763841600 2) " out &&
	git session blame --date=relative -L 2,3 f.c >out && grep " ago 2) " out &&
	git session blame --date=short -L 2,2 f.c >out && grep " 2025-11-23 2) " out &&
	test_expect_code 129 git session blame --date=yesterday f.c 2>err && grep "^error: unknown --date format" err
'

test_expect_success '-L takes the ranges git blame takes, and a bad one is an error as in git' '
	for L in 2,3 2,+2 3,-2 /coder/,+2 "^/by/,/arch/" 4 ,2 :nosuchfunc
	do
		git blame -s -L "$L" f.c >expect 2>/dev/null
		want=$?
		git session blame -L "$L" f.c >out 2>err
		test $? = $want || { echo "-L $L: exit $want expected"; return 1; }
		test $want != 0 || test "$(sed "s/.*) //" out)" = "$(sed "s/^[^)]*) //" expect)" ||
			{ echo "-L $L differs"; return 1; }
	done &&
	git session blame -L2,3 -L 5 f.c >out && test_line_count = 3 out &&
	test_expect_code 128 git session blame -L 9,10 f.c 2>err &&
	test "$(cat err)" = "error: file f.c has only 5 lines" &&
	test_expect_code 128 git session blame -L 0,1 f.c 2>err && grep "^error: -L invalid line number: 0" err &&
	test_expect_code 128 git session blame -L /nowhere/ f.c 2>err && grep "^error: .*No match" err &&
	for L in 2,x abc "2,3,4" "/unclosed" 1-2 "2,+"
	do
		test_expect_code 129 git session blame -L "$L" f.c 2>err &&
		grep "^error: invalid -L range" err && grep "^usage: git session blame" err || return 1
	done &&
	test_expect_code 129 git session blame -L 2>err
'

test_expect_success 'a revision, or a checkpoint: the file as of that commit, with the records current then' '
	git session blame HEAD~2 -- f.c >out &&
	test_line_count = 3 out &&
	arch_cp=$(checkpoint_of $long HEAD~2 | cut -c1-8) &&
	grep "^$(git rev-parse --short=8 HEAD~2) $arch_cp ($long $arch Design Alice Liddell 2025-11-22 3) by arch$" out &&
	git session blame HEAD~2 f.c >again && test_cmp out again &&
	git session blame "$(checkpoint_of $long HEAD~2)" -- f.c >again && test_cmp out again &&
	git session blame -L 3 HEAD~2 -- f.c >out && test_line_count = 1 out &&
	test_expect_code 128 git session blame nosuchrev -- f.c 2>err &&
	test "$(cat err)" = "error: bad revision '"'"'nosuchrev'"'"'" &&
	test_expect_code 128 git session blame HEAD~2 -- n.txt 2>err && grep "^error: no such path" err &&
	test_expect_code 129 git session blame HEAD f.c extra 2>err &&
	test_expect_code 129 git session blame HEAD -- 2>err
'

test_expect_success '--porcelain: a header and the keys for every line, then the line after a TAB' '
	git session blame --porcelain f.c >out &&
	python3 - "$long" "$arch" <<-\EOF
	import re, sys
	long, arch = sys.argv[1], sys.argv[2]
	lines, cur = [], None
	for raw in open("out", encoding="utf-8"):
	    raw = raw.rstrip("\n")
	    if cur is None:
	        m = re.fullmatch(r"([0-9a-f]{40}) (\d+) (\d+)", raw)
	        assert m, raw
	        cur = {"id": m.group(1), "final": int(m.group(3))}
	    elif raw.startswith("\t"):
	        cur["text"] = raw[1:]
	        lines.append(cur)
	        cur = None
	    else:
	        k, v = raw.split(" ", 1)
	        cur[k] = v
	assert [l["final"] for l in lines] == [1, 2, 3, 4, 5], lines
	for l in lines:
	    for k in ("commit", "session", "agent", "author", "author-mail", "author-time", "author-tz", "phase", "filename"):
	        assert k in l, (k, l)
	coder, archl = lines[1], lines[2]
	assert (coder["session"], coder["agent"], coder["phase"]) == (long, "coder", "Build"), coder
	assert (coder["author"], coder["author-mail"], coder["author-tz"]) == ("Bob Builder", "<bob@example.com>", "+0900"), coder
	assert coder["author-time"] == str(1763719200 + 122400), coder
	assert coder["id"] != coder["commit"] and coder["text"] == "changed by coder"
	assert (archl["agent"], archl["author"]) == (arch, "Alice Liddell"), archl
	assert lines[0]["id"] == lines[0]["commit"] and lines[0]["session"] == "" and lines[0]["author"] == "A U Thor"
	assert lines[3]["session"] == "other" and lines[3]["author"] == "Carol" and lines[3]["commit"] == "0" * 40
	assert lines[4]["id"] == "0" * 40 and lines[4]["author"] == "Not Committed Yet"
	EOF
	coder_cp=$(checkpoint_of $long HEAD~1) &&
	grep "^$coder_cp 2 2$" out &&
	git session blame --line-porcelain f.c >again &&
	grep -v "^author-time" out >expect && grep -v "^author-time" again >got && test_cmp expect got &&
	test "$(git log -1 --format=%an $coder_cp)" = "Bob Builder"
'

test_expect_success '--json: the same, with the checkpoint, author and date' '
	git session blame --json f.c >j &&
	test "$(json_field j "[(l[\"line\"], l[\"session\"], l[\"agent\"], l[\"phase\"]) for l in d]")" = \
		"[[1, null, null, null], [2, \"$long\", \"coder\", \"Build\"], [3, \"$long\", \"$arch\", \"Design\"], [4, \"other\", null, null], [5, null, null, null]]" &&
	test "$(json_field j "[d[3][\"commit\"], d[1][\"commit\"] == d[2][\"commit\"]]")" = "[null, false]" &&
	test "$(json_field j "d[2][\"text\"]")" = "by arch" &&
	test "$(json_field j "[(l[\"author\"], l[\"author_mail\"], l[\"date\"]) for l in d[:4]]")" = \
		"[[\"A U Thor\", \"author@example.com\", \"$(git log -1 --format=%aI HEAD~3)\"], [\"Bob Builder\", \"bob@example.com\", \"2025-11-23T05:00:00+09:00\"], [\"Alice Liddell\", \"alice@example.com\", \"2025-11-22T10:00:00+00:00\"], [\"Carol\", \"carol@example.com\", \"2025-11-24T10:00:00+00:00\"]]" &&
	test "$(json_field j "d[1][\"checkpoint\"]")" = "$(checkpoint_of $long HEAD~1)" &&
	test "$(json_field j "d[0][\"checkpoint\"]")" = null &&
	test_expect_code 129 git session blame --json --porcelain f.c 2>err
'

test_expect_success 'a commit of a session archived keeps its records; deleted, its name, and nothing breaks' '
	git session start "gone" --id gone --pause-current -q &&
	echo "from gone" >>f.c && git commit -q -am "gone commit" &&
	git session close -q && git session archive -q gone &&
	git session blame -L 6 f.c >out &&
	grep "^$(git rev-parse --short=8 HEAD) $(git rev-parse --short=8 refs/archive/sessions/gone~1) (gone A U Thor 2025-11-24 6) from gone$" out &&
	git update-ref -d refs/archive/sessions/gone &&
	git session switch -q $long &&
	git session blame f.c >out &&
	grep "(gone  *-  *-  *A U Thor  *2025-11-24 6) from gone$" out
'

test_expect_success 'a file renamed since: its lines keep the agent of the record under the old name' '
	git session resume -q $long &&
	printf "r1\nr2\n" >old.c && git add old.c &&
	git session file created --agent coder -q old.c && git commit -q -m "old" &&
	git mv old.c new.c && git commit -q -m "renamed" &&
	git session blame new.c >out &&
	grep "^$(git rev-parse --short=8 HEAD~1) [0-9a-f]\{8\} ($long coder  *Build  *A U Thor  *[0-9-]* 1) r1$" out &&
	git session blame --porcelain new.c >out &&
	grep "^filename old.c$" out && grep "^agent coder$" out
'

test_expect_success 'hostile names: a file named like an option, controls in an author' '
	esc=$(printf "\033") &&
	echo odd >"-odd name.c" && git add -- "-odd name.c" &&
	GIT_AUTHOR_NAME="$(printf "Eve\033[31m")" git commit -q -m odd &&
	git session blame -- "-odd name.c" >out &&
	! grep "$esc" out && grep "odd$" out &&
	git session blame --porcelain -- "-odd name.c" >out &&
	! grep "$esc" out && grep "^filename -odd name.c$" out && grep "^author Eve^\[\[31m$" out
'

test_expect_success BASH 'completion: blame'"'"'s options and --date formats, help'"'"'s commands' '
	top=$(cd "$TEST_DIRECTORY/../.." && pwd) &&
	for words in "blame --d:--date=" "blame --date=iso:iso iso-strict" "blame --l:--line-porcelain" "help bl:blame"
	do
		bash -c "
			. /usr/share/bash-completion/completions/git
			. \"\$1/contrib/completion/git-session.bash\"
			COMP_WORDS=(git session \$2)
			COMP_CWORD=\$((\${#COMP_WORDS[@]} - 1))
			COMP_LINE=\"git session \$2\"
			COMP_POINT=\${#COMP_LINE}
			__git_wrap__git_main
			echo \${COMPREPLY[*]}
		" _ "$top" "${words%%:*}" >out &&
		echo "${words#*:}" >expect && test_cmp expect out || return 1
	done
'

test_expect_success 'errors: no file, a file outside the tree, one git does not know' '
	test_expect_code 129 git session blame &&
	test_must_fail git session blame ../outside.c 2>err && grep "outside" err &&
	echo new >untracked.c &&
	test_expect_code 128 git session blame untracked.c 2>err && grep "^error: no such path" err
'

test_done
