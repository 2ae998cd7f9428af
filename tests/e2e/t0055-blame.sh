#!/bin/sh
test_description='blame: git blame with each line'"'"'s session, agent and phase'
. ./lib.sh

test_expect_success 'setup: lines from before any session, two agents in two phases, a second session' '
	printf "one\ntwo\n" >f.c && git add f.c && git commit -q -m base &&
	git session start "blame" --id bl --phase Design --phase Build -q &&
	git session hooks install >/dev/null &&
	git session phase start 1 -q &&
	git session agent start arch --type architect --task design -q &&
	printf "one\ntwo\nby arch\n" >f.c && git session file modified --agent arch -q f.c &&
	git commit -q -am "arch writes" &&
	git session phase start 2 -q &&
	git session agent start coder --type coder --task build --phase 2 -q &&
	printf "one\nchanged by coder\nby arch\n" >f.c && git session file modified --agent coder -q f.c &&
	git commit -q -am "coder writes" &&
	git session start "other" --id other --pause-current -q &&
	printf "one\nchanged by coder\nby arch\nby other\n" >f.c && git session file modified -q f.c &&
	git session switch -q bl &&
	printf "one\nchanged by coder\nby arch\nby other\nby nobody\n" >f.c
'

test_expect_success 'each line: its commit, session, agent and phase, as git blame and the trailers say' '
	git session blame f.c >out &&
	cut -c1-8 out >commits &&
	git blame --porcelain f.c | grep -E "^[0-9a-f]{40} [0-9]+ [0-9]+" | cut -c1-8 >expect &&
	test_cmp expect commits &&
	sed "s/^[0-9a-f]* (//" out | tr -s " " >got &&
	cat >expect <<-\EOF &&
	- - - 1) one
	bl coder Build 2) changed by coder
	bl arch Design 3) by arch
	other - - 4) by other
	- - - 5) by nobody
	EOF
	test_cmp expect got &&
	test "$(git log -1 --format=%\(trailers:key=Session-Id,valueonly\) $(git blame -L3,3 --porcelain f.c | cut -c1-40 | head -1))" = bl
'

test_expect_success '--json gives the same, one object a line' '
	git session blame --json f.c >j &&
	test "$(json_field j "[(l[\"line\"], l[\"session\"], l[\"agent\"], l[\"phase\"]) for l in d]")" = \
		"[[1, null, null, null], [2, \"bl\", \"coder\", \"Build\"], [3, \"bl\", \"arch\", \"Design\"], [4, \"other\", null, null], [5, null, null, null]]" &&
	test "$(json_field j "[d[3][\"commit\"], d[1][\"commit\"] == d[2][\"commit\"]]")" = "[null, false]" &&
	test "$(json_field j "d[2][\"text\"]")" = "by arch"
'

test_expect_success 'a commit of a session since deleted keeps its session name, and nothing breaks' '
	git session start "gone" --id gone --pause-current -q &&
	echo "from gone" >>f.c && git commit -q -am "gone commit" &&
	git session close -q && git session archive -q gone && git update-ref -d refs/archive/sessions/gone &&
	git session switch -q bl &&
	git session blame f.c >out &&
	grep "(gone  *-  *-  *6) from gone$" out
'

test_expect_success 'errors: no file, a file outside the tree, one git does not know' '
	test_expect_code 129 git session blame &&
	test_must_fail git session blame ../outside.c 2>err && grep "outside" err &&
	echo new >untracked.c &&
	test_must_fail git session blame untracked.c 2>err && grep "^error: " err
'

test_done
