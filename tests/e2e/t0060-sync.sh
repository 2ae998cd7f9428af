#!/bin/sh
test_description='push and pull: sessions across machines through a git remote, merged deterministically'
. ./lib.sh

# state <repo> [<ref>]: the session's state, as plain git shows it
state () { git -C "$TRASH_DIRECTORY/$1" show "${2:-refs/sessions/s1}:session.json"; }
on () { d=$1; shift; (cd "$TRASH_DIRECTORY/$d" && "$@"); }
s () { d=$1; shift; test_tick && on "$d" git session "$@" -q; }

test_expect_success 'setup: a bare hub and a first clone' '
	git init -q --bare ../hub.git &&
	git clone -q ../hub.git ../A 2>/dev/null &&
	on A git commit -q --allow-empty -m init &&
	on A git push -q origin HEAD
'

test_expect_success 'start in A and push; a fresh clone does not carry sessions, pull does' '
	s A start shared --id s1 --phase Design --phase Build &&
	s A phase start 1 &&
	s A agent start arch-1 --type architect --task "Design" &&
	on A git session push >out &&
	grep "new  *s1" out &&
	test "$(git -C ../hub.git rev-parse refs/sessions/s1)" = "$(on A git rev-parse refs/sessions/s1)" &&
	git clone -q ../hub.git ../B &&
	test_must_fail on B git rev-parse -q --verify refs/sessions/s1 &&
	on B git session pull >out &&
	grep "new  *s1" out &&
	on B git rev-parse --verify refs/remotes/origin/sessions/s1 &&
	test "$(on B git rev-parse refs/sessions/s1)" = "$(on A git rev-parse refs/sessions/s1)" &&
	on B git session resume s1 -q &&
	test "$(on B git symbolic-ref SESSION_HEAD)" = refs/sessions/s1
'

test_expect_success 'both sides write at once, then sync both ways several times' '
	(
		for i in 1 2 3; do on A git session note "A $i" -q || exit 1; done &&
		on A git session tokens add --agent arch-1 --input 100 --output 10 -q &&
		on A git session agent start a-2 --type coder --task "A side" -q
	) &
	(
		for i in 1 2 3; do on B git session note "B $i" -q || exit 1; done &&
		on B git session tokens add --agent b-1 --input 1000 --output 100 -q &&
		on B git session agent start b-2 --type coder --task "B side" -q
	) &&
	wait $! && wait &&
	on A git session push >outA &&
	on B git session push >outB &&
	grep "pushed  *s1" outB &&
	on B git log --format=%s -1 refs/sessions/s1 | grep "^merge origin/s1: " &&
	test "$(on B git rev-list --min-parents=2 --count refs/sessions/s1)" = 1 &&
	s A note "A after" && s B tokens add --agent b-1 --input 1 --output 1 &&
	on A git session push >/dev/null && on B git session push >/dev/null &&
	on A git session pull >/dev/null && on B git session pull >/dev/null &&
	state A >a.json && state B >b.json && test_cmp a.json b.json &&
	json_field a.json "sorted(n[\"text\"] for n in d[\"notes\"])" >notes &&
	test "$(cat notes)" = "[\"A 1\", \"A 2\", \"A 3\", \"A after\", \"B 1\", \"B 2\", \"B 3\"]" &&
	test "$(json_field a.json "sorted(a[\"id\"] for a in d[\"agents\"])")" = "[\"a-2\", \"arch-1\", \"b-2\"]" &&
	test "$(json_field a.json "d[\"tokens\"][\"input\"], d[\"tokens\"][\"output\"]")" = "[1101, 111]" &&
	for r in A B hub.git; do git -C ../$r fsck --strict >/dev/null 2>&1 || { echo "fsck: $r"; return 1; }; done &&
	on A git session fsck && on B git session fsck
'

test_expect_success 'the merge is the same whichever side makes it' '
	s A note "left" && s B note "right" && s A summary "summary from A" && s B summary "summary from B" &&
	on A git session push -q &&
	cp -R ../B ../B2 && cp -R ../A ../A2 &&
	on B2 git session pull >out && grep "merge  *s1" out &&
	grep "conflict: summary changed on both sides" out &&
	on B2 git log -1 --format=%b refs/sessions/s1 | grep "^conflict: summary changed on both sides" &&
	# A2 merges B'"'"'s side into A'"'"'s: the same two histories, the other way round
	on A2 git remote set-url origin "$TRASH_DIRECTORY/B" &&
	on A2 git session pull >out && grep "merge  *s1" out &&
	state B2 >b2.json && state A2 >a2.json &&
	test_cmp b2.json a2.json &&
	test "$(on A2 git rev-parse refs/sessions/s1^1)" = "$(on B2 git rev-parse refs/sessions/s1^2)" &&
	test "$(json_field b2.json "d[\"context_summary\"]")" = "summary from B" &&
	rm -rf ../A2 ../B2
'

test_expect_success 'different targets are no conflict: phase 1 here, phase 2 there' '
	in_sync () { on B git session push -q && on A git session pull -q; } &&
	in_sync && s A phase start 2 && on A git session push -q && on B git session pull -q &&
	s A phase step 1 "left step" && s B phase step 2 "right step" &&
	on A git session push -q && on B git session pull >out &&
	grep "merge  *s1" out && ! grep conflict out &&
	s A phase step 1 "again left" && s B phase step 1 "again right" &&
	on A git session push -q && on B git session pull >out &&
	grep "conflict: phase.step 1 changed on both sides" out &&
	on B git session push -q && on A git session pull -q
'

test_expect_success 'three machines syncing in different orders end with the same state' '
	on B git session push -q && on A git session pull -q &&
	git clone -q ../hub.git ../C && on C git session pull -q && on C git session resume s1 -q &&
	s A note "a1" && s B note "b1" && s C note "c1" &&
	s C tokens add --agent c --input 7 --output 7 &&
	on C git session push -q && on A git session push -q && on B git session push -q &&
	s A note "a2" && s B note "b2" &&
	on B git session push -q && on C git session pull -q && s C note "c2" &&
	on A git session push -q && on C git session push -q &&
	for r in A B C; do on $r git session pull -q || return 1; done &&
	state A >a.json && state B >b.json && state C >c.json &&
	test_cmp a.json b.json && test_cmp a.json c.json &&
	json_field a.json "sorted(n[\"text\"] for n in d[\"notes\"] if len(n[\"text\"]) == 2)" >notes &&
	test "$(cat notes)" = "[\"a1\", \"a2\", \"b1\", \"b2\", \"c1\", \"c2\"]" &&
	git -C ../hub.git fsck --strict
'

test_expect_success '--dry-run says what would move and moves nothing' '
	s A note "not yet pushed" &&
	before=$(git -C ../hub.git rev-parse refs/sessions/s1) &&
	on A git session push --dry-run >out &&
	grep "would: pushed  *s1" out &&
	test "$(git -C ../hub.git rev-parse refs/sessions/s1)" = $before &&
	on A git session push -q &&
	local=$(on B git rev-parse refs/sessions/s1) &&
	on B git session pull --dry-run >out && grep "would: fast-forward  *s1" out &&
	test "$(on B git rev-parse refs/sessions/s1)" = $local &&
	on B git session pull --json >out.json &&
	test "$(json_field out.json "[(r[\"id\"], r[\"action\"]) for r in d]")" = "[[\"s1\", \"fast-forward\"]]"
'

test_expect_success 'a remote that refuses the push: a clear error, nothing lost here' '
	cat >../hub.git/hooks/pre-receive <<-\EOF &&
	#!/bin/sh
	echo "sessions are frozen" >&2
	exit 1
	EOF
	chmod +x ../hub.git/hooks/pre-receive &&
	s A note "refused" &&
	tip=$(on A git rev-parse refs/sessions/s1) &&
	hub=$(git -C ../hub.git rev-parse refs/sessions/s1) &&
	test_must_fail on A git session push 2>err &&
	grep "sessions are frozen" err &&
	grep "^error: the remote refused refs/sessions/s1" err &&
	test "$(on A git rev-parse refs/sessions/s1)" = $tip &&
	test "$(git -C ../hub.git rev-parse refs/sessions/s1)" = $hub &&
	rm ../hub.git/hooks/pre-receive &&
	on A git session push -q &&
	test "$(git -C ../hub.git rev-parse refs/sessions/s1)" = $tip
'

test_expect_success 'archived sessions stay here; an archived one is not brought back' '
	s A start other --id s2 --pause-current && s A close &&
	on A git session archive s2 &&
	on A git session push -q &&
	test_must_fail git -C ../hub.git rev-parse -q --verify refs/sessions/s2 &&
	test_must_fail git -C ../hub.git rev-parse -q --verify refs/archive/sessions/s2 &&
	on B git session close -q && on B git session archive s1 &&
	on B git session pull >out && grep "archived here, left alone  *s1" out &&
	test_must_fail on B git rev-parse -q --verify refs/sessions/s1
'

test_expect_success 'errors: no such remote, a bad option' '
	test_must_fail on A git session pull nosuch 2>err &&
	grep "^error: no such remote: .nosuch." err &&
	test_expect_code 129 on A git session push --bogus 2>err
'

test_expect_success 'the same id with no history in common: an error for it, the others still pulled' '
	git clone -q ../hub.git ../U1 &&
	git clone -q ../hub.git ../U2 &&
	s U1 start one --id twin &&
	s U2 start other --id twin &&
	s U2 start third --id solo --pause-current &&
	on U2 git session push -q &&
	before=$(on U1 git rev-parse refs/sessions/twin) &&
	test_must_fail on U1 git session pull >out 2>err &&
	grep "^error: session .twin. here and on .origin/twin. share no history: not merging" err &&
	grep "new  *solo" out &&
	! grep twin out &&
	test "$(on U1 git rev-parse refs/sessions/twin)" = "$before" &&
	on U1 git rev-parse --verify refs/sessions/solo &&
	test_must_fail on U1 git session pull --json >out.json 2>err &&
	json_field out.json "[(r[\"id\"], r.get(\"action\")) for r in d]" >actual &&
	grep "\"twin\", null" actual
'

test_expect_success 'git fetch carries sessions with one config line' '
	git clone -q ../hub.git ../D &&
	on D git config --add remote.origin.fetch "+refs/sessions/*:refs/remotes/origin/sessions/*" &&
	on D git fetch -q &&
	on D git rev-parse --verify refs/remotes/origin/sessions/s1 &&
	on D git session pull -q && on D git rev-parse --verify refs/sessions/s1
'

test_expect_success 'a push race is merged, never lost or refused: 5 clones x 4 note-and-push rounds at once' '
	git init -q --bare ../race.git &&
	git clone -q ../race.git ../R0 2>/dev/null &&
	on R0 git commit -q --allow-empty -m init && on R0 git push -q origin HEAD &&
	on R0 git session start race --id S -q && on R0 git session push -q &&
	for c in 1 2 3 4 5
	do
		git clone -q ../race.git ../R$c && on R$c git session pull -q && on R$c git session switch -q S || return 1
	done &&
	for c in 1 2 3 4 5
	do
		(
			cd "$TRASH_DIRECTORY/R$c" &&
			for i in 1 2 3 4
			do
				git session note -q "R$c-$i" && git session push -q 2>>"$TRASH_DIRECTORY/push-err.$c" ||
					echo "FAILED R$c-$i" >>"$TRASH_DIRECTORY/failed"
			done
		) &
	done &&
	wait &&
	cat "$TRASH_DIRECTORY"/push-err.* &&
	! test -e "$TRASH_DIRECTORY/failed" &&
	git -C ../race.git show refs/sessions/S:session.json >hub.json &&
	python3 -c "import json; d = json.load(open(\"hub.json\")); n = [x[\"text\"] for x in d[\"notes\"]]; print(len(n), len(set(n)))" >count &&
	echo "20 20" >expect && test_cmp expect count &&
	git -C ../race.git fsck --strict 2>err && ! grep -v "^dangling" err
'

test_expect_success 'a fresh clone with no sessions says how to bring them' '
	git clone -q ../hub.git ../E &&
	on E git session list >out 2>err && test_must_be_empty out &&
	grep "^hint: no sessions here; a clone does not bring them: .git session pull. does,$" err &&
	test_must_fail on E git session status 2>err &&
	grep "^error: no active session$" err && grep "^hint: .*git session pull. brings your team" err &&
	on E git session list --json >out 2>err && echo "[]" >expect && test_cmp expect out && test_must_be_empty err
'

test_expect_success 'only what differs is looked at, pushed and reported; nothing to do says so' '
	git init -q --bare ../many.git &&
	git clone -q ../many.git ../M1 2>/dev/null && on M1 git commit -q --allow-empty -m init &&
	for i in 01 02 03 04 05 06 07 08 09 10 11 12
	do
		s M1 start "many $i" --id m$i --pause-current || return 1
	done &&
	on M1 git session push >out &&
	test "$(grep -c "^ new  *m[0-9]*" out)" = 12 && head -n 1 out | grep "^To origin$" &&
	test "$(git -C ../many.git for-each-ref refs/sessions/ | wc -l)" = 12 &&
	on M1 git session push >out && echo "Everything up-to-date" >expect && test_cmp expect out &&
	on M1 git session push --json >out && echo "[]" >expect && test_cmp expect out &&
	git clone -q ../many.git ../M2 && on M2 git session pull -q &&
	on M2 git session pull >out && echo "Already up to date." >expect && test_cmp expect out &&
	s M1 resume m05 && s M1 note "only m05" &&
	on M1 git session push >out &&
	grep "^ pushed  *m05 " out && test_line_count = 2 out &&
	test "$(git -C ../many.git rev-parse refs/sessions/m05)" = "$(on M1 git rev-parse refs/sessions/m05)" &&
	on M2 git session pull >out &&
	printf "From origin\n fast-forward m05 " >expect && head -c "$(wc -c <expect)" out >actual &&
	test_cmp expect actual && test_line_count = 2 out
'

test_expect_success 'status says where the session stands against its remote' '
	on M1 git session status >out && grep "^Remote    origin: up to date, as of the last fetch$" out &&
	s M1 note "two" && s M1 note "three" &&
	on M1 git session status >out && grep "^Remote    origin: 2 checkpoints not pushed$" out &&
	on M1 git session status --json >out.json &&
	test "$(json_field out.json "[d[\"remote\"][k] for k in (\"name\", \"ahead\", \"behind\")]")" = "[\"origin\", 2, 0]" &&
	on M1 git session push -q &&
	s M2 resume m05 && s M2 note "from M2" &&
	on M2 git session push -q && on M1 git fetch -q origin "+refs/sessions/*:refs/remotes/origin/sessions/*" &&
	s M1 note "four" &&
	on M1 git session status >out &&
	grep "^Remote    origin: 1 checkpoint not pushed, 2 on the remote not pulled, as of the last fetch$" out &&
	on M1 git session pull -q && on M1 git session status >out &&
	grep "^Remote    origin: 2 checkpoints not pushed$" out &&
	s M1 start "not pushed" --id lone --pause-current && on M1 git session status >out &&
	! grep "^Remote" out &&
	on M1 git config session.remote origin && on M1 git session status >out &&
	grep "^Remote    origin: not there as of the last fetch (git session push sends it)$" out &&
	on M1 git config --unset session.remote
'

test_expect_success 'a push of many sessions goes as one glob; the active one is tracked at once, the rest at the next fetch' '
	git init -q --bare ../glob.git &&
	git clone -q ../glob.git ../G 2>/dev/null && on G git commit -q --allow-empty -m init &&
	i=100 && while test $i -lt 170
	do
		on G git session start "g$i" --id g$i --pause-current -q || return 1
		i=$((i + 1))
	done &&
	on G git session push >out &&
	test "$(grep -c "^ new  *g1[0-9][0-9] " out)" = 70 &&
	test "$(git -C ../glob.git for-each-ref refs/sessions/ | wc -l)" = 70 &&
	test "$(on G git for-each-ref refs/remotes/origin/sessions/ | wc -l)" = 1 &&
	on G git session status >out && grep "^Remote    origin: up to date, as of the last fetch$" out &&
	on G git session push >out && echo "Everything up-to-date" >expect && test_cmp expect out &&
	on G git session pull >out && echo "Already up to date." >expect && test_cmp expect out &&
	test "$(on G git for-each-ref refs/remotes/origin/sessions/ | wc -l)" = 70 &&
	on G git session push --session g150 >out && grep "^ up to date  *g150$" out
'

test_expect_success 'push asks the remote, not what this clone last fetched: a re-created remote gets everything' '
	git init -q --bare ../fresh.git &&
	on M1 git remote set-url origin ../fresh.git &&
	on M1 git session push >out;
	pushed=$?;
	on M1 git remote set-url origin ../many.git &&
	test $pushed = 0 &&
	here=$(on M1 git for-each-ref refs/sessions/ | wc -l) &&
	test "$(grep -c "^ new  *" out)" = $here &&
	test "$(git -C ../fresh.git for-each-ref refs/sessions/ | wc -l)" = $here
'

test_expect_success 'push and pull of a session named that is not there fail, saying so' '
	test_must_fail on M1 git session push --session nosuch >out 2>err &&
	grep "^error: no such session: .nosuch.$" err && test_must_be_empty out &&
	test_must_fail on M1 git session pull --session nosuch 2>err &&
	grep "^error: .origin. has no session .nosuch.$" err &&
	s M1 start "kept here" --id archy --pause-current && s M1 close && on M1 git session archive archy &&
	test_must_fail on M1 git session push --session archy 2>err &&
	grep "^error: session .archy. is archived here: not pushed" err
'

test_expect_success 'a push whose pull fast-forwards what it did not change says so, and fails nothing' '
	s M2 resume m07 && s M2 note "M2 on m07" && s M2 resume m08 && s M2 note "M2 on m08" &&
	on M2 git session push -q &&
	on M1 git session pull --session m07 -q &&
	s M1 resume m08 && s M1 note "M1 on m08" &&
	on M1 git session push >out &&
	grep "^ pushed  *m08 (merged " out && ! grep rejected out &&
	test "$(on M1 git rev-parse refs/sessions/m08)" = "$(git -C ../many.git rev-parse refs/sessions/m08)"
'

test_expect_success 'a remote'"'"'s session name reaches the terminal escaped' '
	git init -q --bare ../hostile.git &&
	tip=$(on M1 git rev-parse refs/sessions/m01) &&
	on M1 git push -q ../hostile.git "$tip:refs/sessions/x$(printf "\302\233")2J" &&
	git clone -q ../hostile.git ../H 2>/dev/null &&
	on H git session pull >out 2>err &&
	grep "^ refused  *x\\\\u009b2J " out &&
	! grep "$(printf "\302\233")" out err
'

test_expect_success 'sessions left alone are named up to ten, then counted' '
	git clone -q ../many.git ../M3 && on M3 git session pull -q &&
	for i in 01 02 03 04 05 06 07 08 09 10 11 12
	do
		on M3 git session archive m$i || return 1
	done &&
	on M3 git session pull >out &&
	test "$(grep -c "archived here, left alone" out)" = 10 &&
	grep "^ ... and 2 more sessions archived or deleted here, left alone (--json lists them)$" out &&
	on M3 git session pull --json >out.json &&
	test "$(json_field out.json "len([r for r in d if r[\"action\"] == \"archived here, left alone\"])")" = 12
'

test_done
