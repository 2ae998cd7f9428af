#!/bin/sh
test_description='session.remote: sessions in a repository of their own, and nowhere else by accident'
. ./lib.sh

T=$TRASH_DIRECTORY
# sessions <bare>: the refs under a sessions namespace the bare repository holds, sorted
sessions () { git ls-remote "$T/$1" | sed -n "s,^[0-9a-f]*	,,p" | grep "sessions/" | sort; }
# none <bare>: it holds no sessions at all
none () { sessions "$1" >held && test_must_be_empty held; }
# at <bare> <id>: the bare repository has session id at the local tip
at () { test "$(git ls-remote "$T/$1" "refs/sessions/$2" | cut -f1)" = "$(git rev-parse "refs/sessions/$2")"; }
# refused <what> <remote>: the pre-push hook's refusal, naming the refs and session.remote
refused () {
	grep "^error: not pushing $1 to $2.*: session.remote is .sessions., and sessions go there only$" err &&
	grep "^hint: to push sessions there on purpose: git session push --allow-other-remote" err &&
	grep "^hint: or push these refs with .git push --no-verify." err
}

test_expect_success 'setup: a public code remote, a private sessions remote, two more names' '
	for r in code sess other; do git init -q --bare "$T/$r.git" || return 1; done &&
	git remote add origin "$T/code.git" &&
	git remote add sessions "$T/sess.git" &&
	git remote add same "$T/sess.git" &&
	git remote add slash "$T/sess.git/" &&
	git remote add other "$T/other.git" &&
	git push -q origin main &&
	git session hooks install >out &&
	grep "# git-session hook: pre-push" .git/hooks/pre-push &&
	git session hooks status >out && grep "^  pre-push  *installed$" out &&
	test_tick && git session start "private work" --id s1 -q &&
	test_tick && git session note "a note" -q
'

test_expect_success 'session.remote unset: push and pull use origin, git push carries sessions anywhere' '
	git session push >out &&
	grep "new  *s1" out &&
	at code.git s1 &&
	git session pull >out &&
	git push -q other "refs/sessions/*" &&
	at other.git s1 &&
	git push -q --mirror other
'

test_expect_success 'session.remote set: deleting sessions elsewhere is allowed, it carries nothing' '
	git config session.remote sessions &&
	git push -q origin :refs/sessions/s1 &&
	git push -q --delete other refs/sessions/s1 "refs/remotes/origin/sessions/s1" &&
	none code.git && none other.git
'

test_expect_success 'push and pull go to session.remote by default' '
	git update-ref -d refs/remotes/origin/sessions/s1 &&
	git session push >out &&
	grep "new  *s1" out &&
	at sess.git s1 &&
	none code.git &&
	test_tick && git session note "second" -q &&
	git session push -q && at sess.git s1 &&
	git session pull >out 2>err && test_must_be_empty err &&
	git rev-parse --verify -q refs/remotes/sessions/sessions/s1 &&
	! git rev-parse --verify -q refs/remotes/origin/sessions/s1
'

test_expect_success 'git session push to another remote is refused without --allow-other-remote' '
	test_expect_code 1 git session push origin >out 2>err &&
	grep "^error: not pushing sessions to .origin.: session.remote is .sessions., and sessions go there only$" err &&
	grep "^hint: to push them to .origin. on purpose: git session push --allow-other-remote origin$" err &&
	test_must_be_empty out &&
	test_expect_code 1 git session push --dry-run --session s1 other 2>err &&
	grep "^error: not pushing sessions to .other." err &&
	none code.git && none other.git &&
	git session push -h >usage 2>&1; grep -- "--allow-other-remote" usage
'

test_expect_success 'pulling from another remote stays allowed' '
	git push -q "$T/other.git" main &&
	git session pull other >out 2>err &&
	test_must_be_empty err
'

test_expect_success '--allow-other-remote pushes there on purpose, past the pre-push hook' '
	git session push --allow-other-remote other >out &&
	grep "new  *s1" out &&
	at other.git s1 &&
	none code.git &&
	git push -q --delete other refs/sessions/s1 && none other.git
'

test_expect_success 'the same repository under another name is the same place' '
	test_tick && git session note "third" -q &&
	git session push same >out && grep "pushed  *s1" out && at sess.git s1 &&
	test_tick && git session note "fourth" -q &&
	git session push -q slash && at sess.git s1 &&
	test_tick && git session note "fifth" -q &&
	git push -q same refs/sessions/s1 && at sess.git s1 &&
	git push -q "$T/sess.git" refs/sessions/s1
'

test_expect_success 'other spellings of the sessions repository are the same place; an ssh host is not' '
	ln -s "$T/sess.git" "$T/link.git" &&
	git remote add relative ../sess.git &&
	git remote add link "$T/link.git" &&
	git remote add viafile "file://$T/sess.git" &&
	git config url."$T/".insteadOf private: && git remote add rewritten private:sess.git &&
	git remote add pushurl "$T/other.git" && git config remote.pushurl.pushurl "$T/sess.git" &&
	for r in relative link viafile rewritten pushurl
	do
		test_tick && git session note "to $r" -q &&
		git session push -q $r && at sess.git s1 &&
		git push -q $r refs/sessions/s1:refs/sessions/copy-$r &&
		git push -q --delete $r refs/sessions/copy-$r || { echo "refused: $r"; return 1; }
	done &&
	git remote add ssh "host.invalid:$T/sess.git" &&
	test_expect_code 1 git session push ssh 2>err &&
	grep "^error: not pushing sessions to .ssh." err &&
	none other.git &&
	for r in relative link viafile rewritten pushurl ssh; do git remote remove $r || return 1; done
'

test_expect_success 'setup: an archived session, and what the public remote holds' '
	test_tick && git session start "old work" --id s2 --pause-current -q &&
	test_tick && git session close -q &&
	git session archive s2 -q &&
	git rev-parse --verify refs/archive/sessions/s2 &&
	git session resume s1 -q &&
	git ls-remote "$T/code.git" >../code.before
'

test_expect_success 'git push --mirror to another remote is refused, whole' '
	test_expect_code 1 git push --mirror origin 2>err &&
	refused "refs/archive/sessions/s2, refs/remotes/[a-z]*/sessions/s1, refs/remotes/[a-z]*/sessions/s1 and [0-9]* more" \
		"'"'"'origin'"'"'" &&
	git ls-remote "$T/code.git" >code.after && test_cmp ../code.before code.after
'

test_expect_success 'a refspec carrying sessions to another remote is refused' '
	for spec in "refs/sessions/*" "refs/sessions/*:refs/sessions/*" refs/sessions/s1 \
		refs/sessions/s1:refs/heads/s1 "refs/archive/sessions/*" refs/archive/sessions/s2:refs/tags/s2 \
		"refs/remotes/sessions/sessions/*:refs/heads/*" main:refs/sessions/main \
		SESSION_HEAD:refs/heads/x SESSION_HEAD~1:refs/heads/x sessions/s1~1:refs/heads/x \
		refs/sessions/s1~0:refs/heads/x
	do
		test_expect_code 1 git push origin "$spec" 2>err &&
		grep "^error: not pushing [^ ]* to .origin. (.*/code.git): session.remote is .sessions." err || {
			echo "not refused: $spec"; return 1
		}
	done &&
	refused "refs/sessions/s1~0" "'"'"'origin'"'"'" &&
	test_expect_code 1 git push --force origin refs/sessions/s1 2>err && refused refs/sessions/s1 "'"'"'origin'"'"'" &&
	git ls-remote "$T/code.git" >code.after && test_cmp ../code.before code.after
'

test_expect_success 'a URL instead of a remote name: refused elsewhere, allowed at the sessions remote' '
	test_expect_code 1 git push "$T/other.git" refs/sessions/s1 2>err &&
	refused refs/sessions/s1 "$T/other.git" &&
	grep "^hint: .*--allow-other-remote <remote>$" err &&
	test_expect_code 1 git push "file://$T/code.git" refs/sessions/s1 2>err &&
	none other.git &&
	git push -q "file://$T/sess.git/" refs/sessions/s1
'

test_expect_success 'pushes of code go anywhere; sessions go to the sessions remote' '
	echo more >>README && git commit -q -am more &&
	git push -q origin main &&
	git push -q --all origin &&
	git tag v1 && git push -q --tags origin &&
	git push -q other main:refs/heads/topic &&
	git push -q sessions "refs/sessions/*" "refs/archive/sessions/*" &&
	git push -q --mirror sessions &&
	git push -q --dry-run origin main &&
	none code.git && none other.git
'

test_expect_success 'the hook is cheap for code: no git-session, no git config when no session ref goes' '
	mkdir -p ../spy &&
	printf "#!/bin/sh\necho \"\$*\" >>\"%s\"\nexec \"%s\" \"\$@\"\n" "$T/spy.log" "$(command -v git)" >../spy/git &&
	printf "#!/bin/sh\necho session >>\"%s\"\nexec \"%s\" \"\$@\"\n" "$T/spy.log" "$(command -v git-session)" \
		>../spy/git-session &&
	chmod +x ../spy/git ../spy/git-session &&
	printf "%s %s %s %s\n" refs/heads/main $(git rev-parse HEAD) refs/heads/main $(git rev-parse HEAD~1) >in &&
	PATH="$T/spy:$PATH" sh .git/hooks/pre-push origin "$T/code.git" <in &&
	! test -e ../spy.log &&
	printf "%s %s %s %s\n" refs/sessions/s1 $(git rev-parse refs/sessions/s1) refs/sessions/s1 \
		0000000000000000000000000000000000000000 >>in &&
	test_expect_code 1 env PATH="$T/spy:$PATH" sh .git/hooks/pre-push origin "$T/code.git" <in 2>err &&
	grep "^config session.remote$" ../spy.log && grep "^session$" ../spy.log &&
	refused refs/sessions/s1 "'"'"'origin'"'"'" && rm ../spy.log
'

test_expect_success 'git session hook pre-push, as a hook manager runs it, decides the same' '
	z=0000000000000000000000000000000000000000 &&
	printf "refs/heads/main %s refs/heads/main %s\n" $(git rev-parse HEAD) $z >code.in &&
	git session hook pre-push origin "$T/code.git" <code.in &&
	printf "(delete) %s refs/sessions/s1 %s\n" $z $(git rev-parse HEAD) >delete.in &&
	git session hook pre-push origin "$T/code.git" <delete.in &&
	printf "refs/sessions/s%s %s refs/sessions/s%s %s\n" 1 $(git rev-parse refs/sessions/s1) 1 $z \
		2 $(git rev-parse refs/archive/sessions/s2) 2 $z >s.in &&
	test_expect_code 1 git session hook pre-push origin "$T/code.git" <s.in 2>err &&
	refused "refs/sessions/s1, refs/sessions/s2" "'"'"'origin'"'"'" &&
	git session hook pre-push same "$T/sess.git" <s.in &&
	git session hook pre-push sessions "$T/elsewhere.git" <s.in &&
	GIT_SESSION_PUSH_TO=origin git session hook pre-push origin "$T/code.git" <s.in &&
	test_expect_code 1 env GIT_SESSION_PUSH_TO=sessions git session hook pre-push origin "$T/code.git" <s.in
'

test_expect_success 'any scope: git -c and the global config name the sessions remote too' '
	git config --unset session.remote &&
	git -c session.remote=other session push >out &&
	at other.git s1 &&
	test_expect_code 1 git -c session.remote=other session push sessions 2>err &&
	grep "^error: not pushing sessions to .sessions.: session.remote is .other." err &&
	git push -q --delete other refs/sessions/s1 &&
	git config --global session.remote sessions &&
	test_expect_code 1 git push origin refs/sessions/s1 2>err && refused refs/sessions/s1 "'"'"'origin'"'"'" &&
	test_expect_code 1 git session push origin 2>err &&
	git config --global --unset session.remote &&
	git push -q other refs/sessions/s1 && at other.git s1 &&
	git push -q --delete other refs/sessions/s1 &&
	git config session.remote sessions
'

test_expect_success 'a hostile session.remote: a clear error on push and pull, and no session leaves' '
	for v in "" -x "--upload-pack=touch ../pwned" "a b" "x..y" "bad:name" "nope" "origin/nope"
	do
		git config session.remote "$v" &&
		test_expect_code 1 git session push 2>err &&
		grep "^error: session.remote is .*, which \(is not a valid remote name\|names no remote\)" err &&
		grep "^hint: " err &&
		test_expect_code 1 git session pull 2>err &&
		grep "^error: session.remote is " err &&
		test_expect_code 1 git session pull origin 2>err &&
		test_expect_code 1 git push origin refs/sessions/s1 2>err &&
		grep "^error: session.remote is " err &&
		test_expect_code 1 git push sessions refs/sessions/s1:refs/sessions/copy 2>/dev/null &&
		git push -q origin main || { echo "value: $v"; return 1; }
	done &&
	! test -e ../pwned &&
	none code.git && none other.git &&
	git config session.remote sessions &&
	test_expect_code 1 git session push -- -x 2>err &&
	grep "^error: invalid remote name .-x." err
'

test_expect_success 'git-session missing: the hook keeps sessions home, and lets code by' '
	mkdir -p ../nogs && ln -s "$(command -v git)" ../nogs/git &&
	printf "%s %s %s %s\n" refs/heads/main $(git rev-parse HEAD) refs/heads/main $(git rev-parse HEAD) >code.in &&
	PATH="$T/nogs:/usr/bin:/bin" sh .git/hooks/pre-push origin "$T/code.git" <code.in &&
	printf "%s %s %s %s\n" refs/sessions/s1 $(git rev-parse refs/sessions/s1) refs/sessions/s1 $(git rev-parse HEAD) >s.in &&
	test_expect_code 1 env PATH="$T/nogs:/usr/bin:/bin" sh .git/hooks/pre-push origin "$T/code.git" <s.in 2>err &&
	grep "^error: session.remote is .sessions., and git-session, which checks where sessions go, is not installed$" err &&
	git config --unset session.remote &&
	PATH="$T/nogs:/usr/bin:/bin" sh .git/hooks/pre-push origin "$T/code.git" <s.in &&
	git config session.remote sessions
'

test_expect_success 'a pre-push hook that was there runs first, with the same input, and still decides' '
	git session hooks uninstall >/dev/null &&
	! test -e .git/hooks/pre-push &&
	cat >.git/hooks/pre-push <<-EOF &&
	#!/bin/sh
	echo "\$1 \$2" >>"$T/theirs.log"
	cat >>"$T/theirs.log"
	test ! -e "$T/refuse"
	EOF
	chmod +x .git/hooks/pre-push && cp -p .git/hooks/pre-push ../pre-push.orig &&
	git session hooks install >/dev/null &&
	cmp ../pre-push.orig .git/hooks/pre-push.git-session-saved &&
	git session hooks status >out && grep "^  pre-push  *installed, and runs the hook that was there before$" out &&
	git push -q origin main:refs/heads/copy &&
	printf "origin %s\nrefs/heads/main %s refs/heads/copy %s\n" "$T/code.git" $(git rev-parse HEAD) \
		0000000000000000000000000000000000000000 >expect &&
	test_cmp expect ../theirs.log && rm ../theirs.log &&
	for i in $(seq 1 20); do git branch -f b$i main || return 1; done &&
	git push -q origin "refs/heads/b*" &&
	test_line_count = 21 ../theirs.log && rm ../theirs.log &&
	test_expect_code 1 git push origin refs/sessions/s1 2>err &&
	refused refs/sessions/s1 "'"'"'origin'"'"'" && rm ../theirs.log &&
	touch ../refuse &&
	test_expect_code 1 git push origin main:refs/heads/copy2 2>err &&
	rm ../refuse ../theirs.log &&
	git session hooks uninstall >/dev/null &&
	cmp ../pre-push.orig .git/hooks/pre-push &&
	! test -e .git/hooks/pre-push.git-session-saved &&
	git session hooks install >/dev/null
'

test_expect_success 'many refs: a long push of code passes, with sessions in it it is refused' '
	for i in $(seq 1 300); do echo "create refs/heads/many/$i HEAD"; done | git update-ref --stdin &&
	git push -q origin "refs/heads/many/*" &&
	test_expect_code 1 git push origin "refs/heads/many/*:refs/heads/again/*" refs/sessions/s1 2>err &&
	refused refs/sessions/s1 "'"'"'origin'"'"'" &&
	test "$(git ls-remote "$T/code.git" "refs/heads/again/*" | wc -l)" = 0 &&
	none code.git && none other.git
'

test_done
