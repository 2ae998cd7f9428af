#!/bin/sh
test_description='archive, unarchive and gc: locks left on either ref, kills at any instant, other worktrees; no session is lost'
. ./lib.sh

# reachable <id>: a ref names the session, live or archived (plain git)
reachable () {
	git for-each-ref --format="%(refname)" "refs/sessions/$1" "refs/archive/sessions/$1" | grep -q .
}

# the checkpoints a session's reflog went through, newest first (plain git)
reflog_ids () {
	ref=refs/sessions/$1
	git rev-parse -q --verify "$ref" >/dev/null || ref=refs/archive/sessions/$1
	git reflog show --format=%H "$ref" --
}

# a random delay of 1 to 16 ms, as timeout(1) reads one. The loops run
# git-session itself: git's wrapper would die at once and leave it running.
delay () {
	r=$(od -An -N1 -tu1 /dev/urandom | tr -d " ")
	if test $((r % 2)) = 0
	then
		echo "0.00$((r % 9 + 1))"
	else
		echo "0.01$((r % 7))"
	fi
}

test_expect_success 'setup: a finished session with a history' '
	test_tick &&
	git session start "kept" --id K -q && git session note one -q && git session note two -q &&
	git session close -q &&
	reflog_ids K >before && test_line_count = 4 before
'

test_expect_success 'archive and unarchive keep every reflog entry, and add one each' '
	git session archive -q K 2>err &&
	test_must_be_empty err &&
	reflog_ids K >archived && test_line_count = 5 archived &&
	tail -n 4 archived >tail && test_cmp before tail &&
	test_must_fail git rev-parse -q --verify refs/sessions/K &&
	! test -e .git/logs/refs/sessions/K &&
	git session unarchive -q K &&
	reflog_ids K >back && test_line_count = 6 back &&
	tail -n 4 back >tail && test_cmp before tail &&
	git reflog show refs/sessions/K -- >log && grep "session: archive K" log && grep "session: unarchive K" log &&
	test_must_fail git rev-parse -q --verify refs/archive/sessions/K
'

test_expect_success 'after archive and unarchive, fsck --repair mends a damaged tip from the reflog' '
	git session start "damaged" --id D -q && git session note n1 -q && git session note n2 -q &&
	git session close -q &&
	good=$(git rev-parse refs/sessions/D~1) &&
	git session archive -q D && git session unarchive -q D &&
	t=$(git rev-parse refs/sessions/D) &&
	obj=.git/objects/$(echo $t | cut -c1-2)/$(echo $t | cut -c3-) &&
	chmod u+w $obj && truncate -s 20 $obj &&
	git session fsck --repair D >out &&
	grep "^repaired D: back at $(echo $good | cut -c1-7)" out &&
	git session fsck D
'

test_expect_success 'a lock left long ago on the target of archive is removed, and the archive done' '
	mkdir -p .git/refs/archive/sessions &&
	touch -d "1 hour ago" .git/refs/archive/sessions/K.lock &&
	git session archive K 2>err &&
	grep "^warning: removed .*K.lock" err &&
	! test -e .git/refs/archive/sessions/K.lock &&
	reflog_ids K >now && tail -n 4 now >tail && test_cmp before tail &&
	git session unarchive -q K
'

test_expect_success 'a fresh lock on the target of archive: archive fails and nothing is deleted' '
	git config session.lockTimeout 200 &&
	reflog_ids K >expect &&
	touch .git/refs/archive/sessions/K.lock &&
	test_must_fail git session archive K 2>err &&
	grep "^error: cannot move .refs/sessions/K. to .refs/archive/sessions/K.: .*nothing was changed" err &&
	test -e .git/refs/archive/sessions/K.lock &&
	reflog_ids K >now && test_cmp expect now &&
	git rev-parse -q --verify refs/sessions/K &&
	rm .git/refs/archive/sessions/K.lock
'

test_expect_success 'a lock on the reflog of the target: the same' '
	mkdir -p .git/logs/refs/archive/sessions &&
	touch .git/logs/refs/archive/sessions/K.lock &&
	test_must_fail git session archive K &&
	git rev-parse -q --verify refs/sessions/K &&
	reflog_ids K >now && test_cmp expect now &&
	touch -d "1 hour ago" .git/logs/refs/archive/sessions/K.lock &&
	git session archive -q K &&
	! test -e .git/logs/refs/archive/sessions/K.lock &&
	reflog_ids K >now && tail -n 4 now >tail && test_cmp before tail
'

test_expect_success 'unarchive with a lock on the target, fresh then old' '
	reflog_ids K >expect &&
	touch .git/refs/sessions/K.lock &&
	test_must_fail git session unarchive K &&
	git rev-parse -q --verify refs/archive/sessions/K &&
	reflog_ids K >now && test_cmp expect now &&
	touch -d "1 hour ago" .git/refs/sessions/K.lock &&
	git session unarchive -q K &&
	git rev-parse -q --verify refs/sessions/K &&
	reflog_ids K >now && tail -n 4 now >tail && test_cmp before tail
'

test_expect_success 'a fresh lock on the source: archive fails, nothing changed; an old one is removed' '
	reflog_ids K >expect &&
	touch .git/refs/sessions/K.lock &&
	test_must_fail git session archive K &&
	git rev-parse -q --verify refs/sessions/K &&
	test_must_fail git rev-parse -q --verify refs/archive/sessions/K &&
	reflog_ids K >now && test_cmp expect now &&
	touch -d "1 hour ago" .git/refs/sessions/K.lock &&
	git session archive -q K && git session unarchive -q K
'

test_expect_success 'gc with locks on the targets of its archive and on what it prunes' '
	test_at 864000 &&
	git session start "gc fresh" --id G1 -q && git session close -q &&
	git session start "gc old" --id G2 -q && git session close -q &&
	test_at 2592000 &&
	touch .git/refs/archive/sessions/G1.lock &&
	touch -d "1 hour ago" .git/refs/archive/sessions/G2.lock &&
	test_must_fail git session gc --archive-after 7.days &&
	reachable G1 && reachable G2 &&
	git rev-parse -q --verify refs/sessions/G1 &&
	rm .git/refs/archive/sessions/G1.lock &&
	git session gc --archive-after 7.days &&
	git rev-parse -q --verify refs/archive/sessions/G1 &&
	git rev-parse -q --verify refs/archive/sessions/G2 &&
	git session unarchive -q K &&
	touch .git/refs/archive/sessions/G1.lock &&
	test_must_fail git session gc --prune-archived-after 1.day &&
	git rev-parse -q --verify refs/archive/sessions/G1 &&
	touch -d "1 hour ago" .git/refs/archive/sessions/G1.lock &&
	git session gc --prune-archived-after 1.day 2>err &&
	grep "^warning: removed .*G1.lock" err &&
	test_must_fail git rev-parse -q --verify refs/archive/sessions/G1 &&
	test_must_fail git rev-parse -q --verify refs/archive/sessions/G2 &&
	reachable K && reachable D
'

test_expect_success 'fsck --all finds a session only its reflog names, and --repair brings it back' '
	git session start "lost" --id L -q && git session note kept -q && git session close -q &&
	git session archive -q L &&
	tip=$(git rev-parse refs/archive/sessions/L) &&
	rm .git/refs/archive/sessions/L &&
	touch -d "1 hour ago" .git/refs/archive/sessions/L.lock &&
	test_must_fail git session fsck --all 2>err &&
	grep "^error: L: .refs/archive/sessions/L. is gone and only its reflog names the session" err &&
	git session fsck --repair L >out &&
	grep "^repaired L" out &&
	git merge-base --is-ancestor $tip refs/archive/sessions/L &&
	git session fsck --all &&
	rm .git/refs/sessions/K &&
	test_must_fail git session fsck --all &&
	git session fsck --repair K && git rev-parse -q --verify refs/sessions/K
'

test_expect_success 'a lost archived session beside a new live one of the same id is found and brought back' '
	git session start "first life" --id R -q && git session note old -q && git session close -q &&
	git session archive -q R &&
	old=$(git rev-parse refs/archive/sessions/R) &&
	rm .git/refs/archive/sessions/R &&
	git session start "second life" --id R -q && git session close -q &&
	test_must_fail git session archive R 2>err &&
	grep "has no ref but a reflog of another history: nothing was moved" err &&
	git rev-parse -q --verify refs/sessions/R &&
	test_must_fail git session fsck --all 2>err &&
	grep "^error: R: .refs/archive/sessions/R. is gone" err &&
	grep "^hint: .git session fsck --all --repair." err &&
	git session fsck --all --repair &&
	git merge-base --is-ancestor $old refs/archive/sessions/R &&
	test_must_fail git session fsck --all 2>err &&
	grep "^error: R: .* hold two different histories" err &&
	git update-ref -d refs/sessions/R &&
	git session fsck --all
'

test_expect_success 'a lock a dead writer left on SESSION_HEAD is removed; a fresh one is waited for' '
	touch -d "1 hour ago" .git/SESSION_HEAD.lock &&
	git session start "head" --id HD -q 2>err &&
	grep "^warning: removed .*SESSION_HEAD.lock" err &&
	git symbolic-ref SESSION_HEAD >head && echo refs/sessions/HD >expect && test_cmp expect head &&
	touch -d "1 hour ago" .git/SESSION_HEAD.lock &&
	git session close -q &&
	test_must_fail git symbolic-ref -q SESSION_HEAD &&
	touch .git/SESSION_HEAD.lock &&
	test_must_fail git session switch HD 2>err &&
	grep "^error: cannot set SESSION_HEAD" err &&
	rm .git/SESSION_HEAD.lock
'

test_expect_success 'a move cut short leaves both refs: fsck --all says so, the next archive ends it' '
	git session start "cut" --id C -q && git session close -q &&
	reflog_ids C >expect &&
	c=$(git rev-parse refs/sessions/C) &&
	mkdir -p .git/logs/refs/archive/sessions &&
	cp .git/logs/refs/sessions/C .git/logs/refs/archive/sessions/C &&
	git update-ref -m "session: archive C" --create-reflog refs/archive/sessions/C $c &&
	test_must_fail git session fsck --all 2>err &&
	grep "^error: C: both .* an archive was cut short" err &&
	test_must_fail git session unarchive C &&
	git session archive -q C &&
	test_must_fail git rev-parse -q --verify refs/sessions/C &&
	reflog_ids C >now && tail -n 2 now >tail && test_cmp expect tail &&
	git session fsck --all
'

test_expect_success 'archive and unarchive of one session in three processes at once: it is never lost' '
	for w in 1 2 3
	do
		(
			i=0
			while test $i -lt 30
			do
				i=$((i + 1))
				git session archive -q K 2>/dev/null
				git session unarchive -q K 2>/dev/null
			done
		) &
	done &&
	wait &&
	# nothing writes a session back once both of its refs are gone: a loss would last
	reachable K &&
	git session fsck --all &&
	reflog_ids K >now &&
	for id in $(cat before)
	do
		grep -q $id now || { echo "reflog lost $id"; return 1; }
	done
'

# one kill loop: kill_loop <signal> <iterations>; K goes back and forth
kill_loop () {
	git config session.staleLockAge 0 &&	# one writer at a time here: any lock is a killed one
	i=0 &&
	while test $i -lt $2
	do
		i=$((i + 1))
		if test $((i % 2)) = 0
		then
			timeout -s $1 $(delay) git-session archive -q K
		else
			timeout -s $1 $(delay) git-session unarchive -q K
		fi 2>/dev/null
		reachable K || { echo "lost K at try $i"; return 1; }
	done &&
	git session fsck --all --repair >/dev/null 2>&1
	# one move not killed: it removes what the last kill left on either ref
	git session archive -q K 2>/dev/null
	git session unarchive -q K &&
	! find .git -name "*.lock" | grep . &&
	git session fsck --all &&
	reflog_ids K >now && grep -c . now >/dev/null &&
	for id in $(cat before)
	do
		grep -q $id now || { echo "reflog lost $id"; return 1; }
	done
}

test_expect_success 'kill -9 at random instants of archive and unarchive: K is never lost' '
	kill_loop KILL 150
'

test_expect_success 'SIGTERM at random instants of archive and unarchive: K is never lost, no lock is left' '
	git config session.staleLockAge 3600 &&
	git config session.lockTimeout 100 &&
	i=0 &&
	while test $i -lt 100
	do
		i=$((i + 1))
		if git rev-parse -q --verify refs/sessions/K >/dev/null
		then
			timeout -s TERM $(delay) git-session archive -q K
		else
			timeout -s TERM $(delay) git-session unarchive -q K
		fi 2>/dev/null
		reachable K || { echo "lost K at try $i"; return 1; }
		# SIGTERM waits until no lock is held: none is ever left
		! find .git -name "*.lock" | grep . || return 1
		git session fsck --all >/dev/null 2>&1 ||
		git session fsck --all --repair || return 1
	done &&
	git session fsck --all &&
	reflog_ids K >now &&
	for id in $(cat before)
	do
		grep -q $id now || { echo "reflog lost $id"; return 1; }
	done
'

test_expect_success 'kill -9 at random instants of gc: every session stays reachable' '
	git config session.staleLockAge 0 &&
	test_at 3000000 &&
	for n in 1 2 3 4 5 6 7 8 9 10 11 12
	do
		git session start "gc $n" --id gc$n -q && git session close -q || return 1
	done &&
	test_at 4000000 &&
	round=0 &&
	while test $round -lt 40
	do
		round=$((round + 1))
		timeout -s KILL $(delay) git-session gc -q --archive-after 7.days 2>/dev/null
		for n in 1 2 3 4 5 6 7 8 9 10 11 12
		do
			reachable gc$n || { echo "lost gc$n in round $round"; return 1; }
		done
		git session fsck --all >/dev/null 2>&1 || git session fsck --all --repair >/dev/null 2>&1
		git session fsck --all >/dev/null || return 1
		test $((round % 4)) != 0 ||
		for n in 1 2 3 4 5 6 7 8 9 10 11 12
		do
			git session unarchive -q gc$n 2>/dev/null || :
		done
	done &&
	# one gc not killed ends what the kills left: every session archived
	git session gc -q --archive-after 7.days &&
	test $(git for-each-ref "refs/archive/sessions/gc*" | wc -l) = 12 &&
	test $(git for-each-ref "refs/sessions/gc*" | wc -l) = 0 &&
	git session fsck --all >/dev/null
'

test_expect_success 'gc spares a session active in another worktree, and archive refuses it' '
	git config --unset session.staleLockAge &&
	git config --unset session.lockTimeout &&
	git commit -q --allow-empty -m base &&
	git worktree add -q ../other &&
	test_at 5000000 &&
	(cd ../other && git session start "elsewhere" --id W -q && git session close -q && git session switch -q W) &&
	git session start "here" --id H -q && git session close -q && git session switch -q H &&
	test_at 6000000 &&
	git session gc --archive-after 1.day --json >out 2>err &&
	test_must_be_empty err &&
	! grep "\"W\"" out && ! grep "\"H\"" out &&
	git rev-parse -q --verify refs/sessions/W && git rev-parse -q --verify refs/sessions/H &&
	(cd ../other && git session gc --archive-after 1.day -q) &&
	git rev-parse -q --verify refs/sessions/H &&
	test_must_fail git session archive W 2>err &&
	grep "^error: session .W. is active in another worktree" err &&
	(cd ../other && git session status W >/dev/null) &&
	rm -rf ../other &&
	git session gc --archive-after 1.day -q &&
	git rev-parse -q --verify refs/sessions/W &&
	git worktree prune &&
	git session gc --archive-after 1.day -q &&
	git rev-parse -q --verify refs/archive/sessions/W
'

test_expect_success 'two start --pause-current at once in one worktree: neither fails' '
	git session start first --id first -q &&
	for w in 1 2
	do
		(
			i=0
			while test $i -lt 40
			do
				i=$((i + 1))
				git session start "s$w-$i" --id "s$w-$i" --pause-current -q ||
				{ echo "w$w stopped at $i" >>failed; exit 1; }
			done
		) &
	done &&
	wait &&
	! test -e failed &&
	test $(git for-each-ref refs/sessions/s1-* refs/sessions/s2-* | wc -l) = 80 &&
	git session fsck --all
'

test_done
