#!/bin/sh
test_description='each worktree has its own SESSION_HEAD'
. ./lib.sh

test_expect_success 'setup: a second worktree' '
	git worktree add -q ../wt2 -b side &&
	git session start "main work" -q
'

test_expect_success 'a second worktree starts its own session' '
	(cd ../wt2 && git session start "side work" -q) &&
	echo "ref: refs/sessions/2025-11-21-main-work" >expect &&
	test_cmp expect .git/SESSION_HEAD &&
	echo "ref: refs/sessions/2025-11-21-side-work" >expect &&
	test_cmp expect .git/worktrees/wt2/SESSION_HEAD &&
	(cd ../wt2 && git log -1 --format=%s SESSION_HEAD) >subject &&
	grep "side work" subject &&
	git log -1 --format=%s SESSION_HEAD >subject &&
	grep "main work" subject
'

test_expect_success 'writes go to each worktree own session' '
	git session note "from main" -q &&
	(cd ../wt2 && git session note "from side" -q) &&
	git show refs/sessions/2025-11-21-main-work:session.json >m &&
	git show refs/sessions/2025-11-21-side-work:session.json >s &&
	test "$(json_field m "[n[\"text\"] for n in d[\"notes\"]]")" = "[\"from main\"]" &&
	test "$(json_field s "[n[\"text\"] for n in d[\"notes\"]]")" = "[\"from side\"]" &&
	test "$(json_field s "d[\"project\"][\"branch\"]")" = side
'

test_expect_success 'sessions are shared: list in either worktree shows both' '
	(cd ../wt2 && git session list) >out &&
	grep "^\* 2025-11-21-side-work" out &&
	grep "^  2025-11-21-main-work" out
'

test_expect_success 'a worktree can switch to a session started elsewhere' '
	(cd ../wt2 && git session switch 2025-11-21-main-work -q && git session note "side writes main" -q) &&
	git show refs/sessions/2025-11-21-main-work:session.json >m &&
	test "$(json_field m "len(d[\"notes\"])")" = 2
'

test_expect_success 'checkpoint in a worktree records that worktree files' '
	(cd ../wt2 && echo side >s.txt && git session checkpoint -q s.txt) &&
	test "$(git rev-parse refs/sessions/2025-11-21-main-work:files/s.txt)" = "$(git hash-object ../wt2/s.txt)"
'

test_expect_success 'git fsck is clean' '
	git fsck --strict
'

test_done
