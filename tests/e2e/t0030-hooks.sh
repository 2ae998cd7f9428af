#!/bin/sh
test_description='hooks: checkpoint on commit, tie commits to the session, never block git'
. ./lib.sh

id=2025-11-21-hooked
trailer () { git log -1 --format="%(trailers:key=Session-Id,valueonly)" "${1:-HEAD}" | grep .; }

test_expect_success 'setup: a pre-existing pre-commit hook that writes a marker and can refuse' '
	cat >.git/hooks/pre-commit <<-\EOF &&
	#!/bin/sh
	echo ran >>"$(git rev-parse --show-toplevel)/marker"
	test ! -f "$(git rev-parse --show-toplevel)/refuse"
	EOF
	chmod 754 .git/hooks/pre-commit &&
	cp -p .git/hooks/pre-commit ../pre-commit.orig
'

test_expect_success 'install leaves the existing pre-commit alone; installing twice changes nothing' '
	git session hooks install >out &&
	grep "^Installed the git-session hooks in" out &&
	cmp ../pre-commit.orig .git/hooks/pre-commit &&
	! test -e .git/hooks/pre-commit.git-session-saved &&
	for h in commit-msg post-commit post-checkout post-rewrite
	do
		grep "# git-session hook: $h" .git/hooks/$h || return 1
	done &&
	! test -e .git/hooks/prepare-commit-msg &&
	(cd .git/hooks && ls -l; cat *) >before &&
	git session hooks install >/dev/null &&
	(cd .git/hooks && ls -l; cat *) >after &&
	test_cmp before after &&
	git session hooks status >out &&
	grep "pre-commit  *someone else.s hook$" out &&
	grep "post-commit  *installed$" out
'

test_expect_success 'a commit with no active session adds nothing' '
	echo a >a.txt && git add a.txt && test_tick && git commit -q -m "no session" &&
	! trailer &&
	test_must_fail git rev-parse -q --verify refs/sessions/$id &&
	grep ran marker
'

test_expect_success 'a commit with an active session: one checkpoint, trailer, commit and files recorded' '
	git session start hooked -q &&
	before=$(git rev-list --count SESSION_HEAD) &&
	echo b >b.txt && echo changed >a.txt && git add a.txt b.txt &&
	test_tick && git commit -q -m "add b" &&
	test "$(trailer)" = $id &&
	git log --format="%s|%(trailers:key=Session-Op,valueonly,separator=)" -1 SESSION_HEAD >log &&
	echo "commit $(git rev-parse --short=7 HEAD): \"add b\" (2 files)|commit.record" >expect &&
	test_cmp expect log &&
	test "$(git rev-list --count SESSION_HEAD)" = $((before + 1)) &&
	test "$(git rev-parse SESSION_HEAD:files/b.txt)" = "$(git rev-parse HEAD:b.txt)" &&
	test "$(git rev-parse SESSION_HEAD:files/a.txt)" = "$(git rev-parse HEAD:a.txt)" &&
	session_json >s &&
	test "$(json_field s "[(c[\"id\"], c[\"subject\"], c[\"branch\"], c[\"files\"]) for c in d[\"commits\"]]")" = \
		"[[\"$(git rev-parse HEAD)\", \"add b\", \"main\", 2]]" &&
	test "$(json_field s "d[\"files\"][\"b.txt\"][\"status\"]")" = created &&
	test "$(json_field s "d[\"files\"][\"a.txt\"][\"status\"]")" = modified &&
	git log --format="%H %(trailers:key=Session-Id,valueonly,separator=)" | grep "^$(git rev-parse HEAD) $id"
'

test_expect_success 'the staged blob is recorded, not the working tree file' '
	echo staged >c.txt && git add c.txt && echo "not staged" >c.txt &&
	test_tick && git commit -q -m "add c" &&
	test "$(git rev-parse SESSION_HEAD:files/c.txt)" = "$(git rev-parse HEAD:c.txt)" &&
	git checkout -q -- c.txt
'

test_expect_success 'GIT_INDEX_FILE is honoured (git commit <path> uses a temporary index)' '
	echo d1 >d.txt && echo e1 >e.txt && git add d.txt e.txt && test_tick && git commit -q -m "d and e" &&
	echo d2 >d.txt && echo e2 >e.txt && git add e.txt &&
	test_tick && git commit -q -m "only d" d.txt &&
	git show --stat --format= HEAD >stat && grep d.txt stat && ! grep e.txt stat &&
	session_json >s &&
	test "$(json_field s "d[\"files\"][\"d.txt\"][\"oid\"]")" = "$(git rev-parse HEAD:d.txt)" &&
	test "$(json_field s "d[\"files\"][\"e.txt\"][\"oid\"]")" = "$(git rev-parse HEAD~1:e.txt)" &&
	git log -1 --format=%s SESSION_HEAD >subject &&
	echo "commit $(git rev-parse --short=7 HEAD): \"only d\" (1 file)" >expect && test_cmp expect subject &&
	git reset -q
'

test_expect_success 'a commit records exactly the files git diff-tree names, at any depth' '
	mkdir -p deep/er/est && echo 1 >deep/er/est/x && echo 2 >deep/y && echo 3 >z &&
	git add deep z && test_tick && git commit -q -m "deep files" &&
	git rm -q deep/y && echo 1b >deep/er/est/x && chmod +x z &&
	git rm -q d.txt && mkdir d.txt && echo inner >d.txt/inner &&
	git add -A deep z d.txt && test_tick && git commit -q -m "mixed change" &&
	git diff-tree -r --no-renames --name-status HEAD~1 HEAD |
		sed "s/^A/created/; s/^M/modified/; s/^D/deleted/" | sort >expect &&
	git show SESSION_HEAD:op.json >op &&
	json_field op "\"\\n\".join(\"%s\\t%s\" % (f[\"status\"], p) for p, f in d[\"args\"][\"files\"].items())" |
		sort >actual &&
	test_cmp expect actual &&
	session_json >s &&
	test "$(json_field s "[c[\"files\"] for c in d[\"commits\"]][-1]")" = 5 &&
	for p in deep/er/est/x z d.txt/inner
	do
		test "$(git rev-parse SESSION_HEAD:files/$p)" = "$(git rev-parse HEAD:$p)" || return 1
	done &&
	test_must_fail git rev-parse -q --verify SESSION_HEAD:files/deep/y &&
	test "$(json_field s "d[\"files\"][\"deep/y\"][\"status\"]")" = deleted &&
	git rm -q -r d.txt && echo d2 >d.txt && git add d.txt && test_tick && git commit -q -m "d.txt back" &&
	test "$(git rev-parse SESSION_HEAD:files/d.txt)" = "$(git rev-parse HEAD:d.txt)"
'

test_expect_success 'the existing hook still decides: it can refuse the commit' '
	tip=$(git rev-parse SESSION_HEAD) && head=$(git rev-parse HEAD) &&
	touch refuse && echo f >f.txt && git add f.txt &&
	test_must_fail git commit -q -m refused &&
	test "$(git rev-parse HEAD)" = $head &&
	test "$(git rev-parse SESSION_HEAD)" = $tip &&
	rm refuse && test_tick && git commit -q -m "now f" &&
	test "$(trailer)" = $id
'

test_expect_success 'the trailer is added once, joins a trailer block, and not to merges' '
	echo g >g.txt && git add g.txt && test_tick &&
	git commit -q -s -m "with signoff" -m "Session-Id: $id" &&
	git log -1 --format=%B >msg &&
	test "$(grep -c "^Session-Id:" msg)" = 1 &&
	echo h >h.txt && git add h.txt && test_tick && git commit -q -s -m "signed" &&
	git log -1 --format=%B >msg &&
	tail -3 msg >tail &&
	printf "Signed-off-by: C O Mitter <committer@example.com>\nSession-Id: %s\n\n" $id >expect &&
	test_cmp expect tail &&
	git checkout -q -b topic && echo t >t.txt && git add t.txt && test_tick && git commit -q -m topic &&
	git checkout -q main && test_tick && git merge -q --no-ff -m "merge topic" topic 2>err &&
	! trailer &&
	git config session.mergeTrailer true &&
	git checkout -q topic && echo t2 >>t.txt && git commit -qam t2 && git checkout -q main &&
	test_tick && git merge -q --no-ff -m "merge again" topic &&
	test "$(trailer)" = $id &&
	git config --unset session.mergeTrailer
'

test_expect_success 'an empty message still aborts the commit (the editor flow)' '
	echo i >i.txt && git add i.txt &&
	test_must_fail env GIT_EDITOR=true git commit 2>err &&
	grep -i "empty commit message" err &&
	GIT_EDITOR="sed -i 1s/^/edited/" git commit -q &&
	test "$(git log -1 --format=%s)" = edited &&
	test "$(trailer)" = $id
'

test_expect_success 'session.commitTrailer=false turns the trailer off' '
	git config session.commitTrailer false &&
	echo j >j.txt && git add j.txt && test_tick && git commit -q -m "no trailer" &&
	! trailer &&
	git config --unset session.commitTrailer
'

test_expect_success 'amend and rebase keep the link between the session and its commits' '
	old=$(git rev-parse HEAD) &&
	test_tick && git commit -q --amend -m "no trailer, amended" &&
	new=$(git rev-parse HEAD) &&
	session_json >s &&
	json_field s "[c[\"id\"] for c in d[\"commits\"]]" >ids &&
	grep $new ids && ! grep $old ids &&
	test "$(json_field s "[c[\"rewritten_from\"] for c in d[\"commits\"] if c[\"id\"] == \"$new\"][0]")" = "[\"$old\"]" &&
	git log -1 --format=%s SESSION_HEAD | grep "^amend: 1 recorded commit rewritten" &&
	base=$(git rev-parse HEAD~3) &&
	before=$(git rev-parse HEAD~2 HEAD~1 HEAD) &&
	test_tick && git rebase -q --force-rebase $base &&
	after=$(git rev-parse HEAD~2 HEAD~1 HEAD) &&
	session_json >s &&
	json_field s "[c[\"id\"] for c in d[\"commits\"]]" >ids &&
	for c in $after; do grep $c ids || return 1; done &&
	for c in $before; do ! grep $c ids || return 1; done
'

test_expect_success 'a branch switch is recorded, with a warning when it leaves the start branch' '
	git checkout -q -b feature 2>err &&
	grep "^warning: session .$id. was started on branch .main.; you are now on .feature." err &&
	git log -1 --format=%s SESSION_HEAD >subject &&
	echo "checkout main -> feature" >expect && test_cmp expect subject &&
	git checkout -q main 2>err && ! grep warning err &&
	git checkout -q HEAD~1 -- a.txt && git log -1 --format=%s SESSION_HEAD | grep "checkout feature -> main" &&
	git checkout -q HEAD -- a.txt
'

test_expect_success 'a held session lock or a corrupt session never blocks a commit' '
	git config session.lockTimeout 100 &&
	: >.git/refs/sessions/$id.lock &&
	echo k >k.txt && git add k.txt && test_tick &&
	git commit -q -m "while locked" 2>err &&
	grep "^warning: git-session could not record the post-commit hook; git goes on" err &&
	test "$(git log -1 --format=%s)" = "while locked" &&
	rm .git/refs/sessions/$id.lock &&
	good=$(git rev-parse SESSION_HEAD) &&
	bad=$(printf "{" | git hash-object -w --stdin) &&
	tree=$(printf "100644 blob %s\tsession.json\n" $bad | git mktree) &&
	git update-ref refs/sessions/$id $(git commit-tree -p $good -m broken $tree) &&
	echo l >l.txt && git add l.txt && test_tick &&
	git commit -q -m "while corrupt" 2>err &&
	grep "is damaged" err && grep "^warning: git-session could not record" err &&
	test "$(git log -1 --format=%s)" = "while corrupt" &&
	git update-ref refs/sessions/$id $good &&
	git config --unset session.lockTimeout
'

test_expect_success 'session.strictHooks=true makes such a failure block' '
	git config session.strictHooks true &&
	good=$(git rev-parse SESSION_HEAD) &&
	bad=$(printf "{" | git hash-object -w --stdin) &&
	tree=$(printf "100644 blob %s\tsession.json\n" $bad | git mktree) &&
	git update-ref refs/sessions/$id $(git commit-tree -p $good -m broken $tree) &&
	echo m >m.txt && git add m.txt && head=$(git rev-parse HEAD) &&
	test_must_fail git commit -q -m "strict" 2>err &&
	grep "is damaged" err &&
	test "$(git rev-parse HEAD)" = $head &&
	git update-ref refs/sessions/$id $good &&
	git config --unset session.strictHooks &&
	git commit -q -m "strict, later" &&
	test "$(trailer)" = $id
'

test_expect_success 'a missing git-session binary does not block a commit' '
	echo n >n.txt && git add n.txt &&
	PATH=$(echo "$PATH" | sed "s|$GIT_SESSION_BIN:||") git commit -q -m "no binary" 2>err &&
	test "$(git log -1 --format=%s)" = "no binary"
'

test_expect_success 'a paused session is left alone' '
	git session pause -q && tip=$(git rev-parse SESSION_HEAD) &&
	echo o >o.txt && git add o.txt && test_tick && git commit -q -m paused &&
	test "$(git rev-parse SESSION_HEAD)" = $tip && ! trailer &&
	git session resume -q
'

test_expect_success 'worktrees: hooks are shared, each worktree records its own session' '
	git worktree add -q ../wt2 -b wt2 &&
	(
		cd ../wt2 &&
		git session start "in wt2" -q &&
		echo w >w.txt && git add w.txt && test_tick && git commit -q -m "from wt2" &&
		test "$(trailer)" = 2025-11-21-in-wt2
	) &&
	git show refs/sessions/2025-11-21-in-wt2:session.json >s &&
	test "$(json_field s "d[\"commits\"][0][\"subject\"]")" = "from wt2" &&
	git show refs/sessions/$id:session.json >s &&
	! grep "from wt2" s
'

test_expect_success 'install --pre-commit also checkpoints the staged files, running the existing hook first' '
	git session hooks install --pre-commit >/dev/null &&
	cmp ../pre-commit.orig .git/hooks/pre-commit.git-session-saved &&
	grep "# git-session hook: pre-commit" .git/hooks/pre-commit &&
	git session hooks status >out &&
	grep "pre-commit  *installed, and runs the hook that was there before" out &&
	: >marker && echo q >q.txt && git add q.txt && test_tick && git commit -q -m "with pre-commit" &&
	grep ran marker &&
	git log --format="%s|%(trailers:key=Session-Op,valueonly,separator=)" -2 SESSION_HEAD >log &&
	cat >expect <<-EOF &&
	commit $(git rev-parse --short=7 HEAD): "with pre-commit" (1 file)|commit.record
	pre-commit: 1 staged file|hook.pre-commit
	EOF
	test_cmp expect log &&
	test "$(git rev-parse SESSION_HEAD~1:files/q.txt)" = "$(git rev-parse HEAD:q.txt)" &&
	tip=$(git rev-parse SESSION_HEAD) && head=$(git rev-parse HEAD) &&
	touch refuse && echo r >r.txt && git add r.txt &&
	test_must_fail git commit -q -m refused &&
	test "$(git rev-parse HEAD)" = $head && test "$(git rev-parse SESSION_HEAD)" = $tip &&
	rm refuse && git reset -q
'

test_expect_success 'uninstall restores the previous hook byte for byte' '
	git session hooks uninstall >out &&
	grep "^Removed the git-session hooks" out &&
	cmp ../pre-commit.orig .git/hooks/pre-commit &&
	test "$(stat -c %a .git/hooks/pre-commit)" = 754 &&
	! test -e .git/hooks/pre-commit.git-session-saved &&
	! test -e .git/hooks/post-commit &&
	git session hooks uninstall >/dev/null &&
	cmp ../pre-commit.orig .git/hooks/pre-commit
'

test_expect_success 'core.hooksPath is where hooks go' '
	mkdir -p myhooks && git config core.hooksPath myhooks &&
	git session hooks install >out &&
	grep "in .$TRASH_DIRECTORY/repo/myhooks." out &&
	test -x myhooks/post-commit && ! test -e .git/hooks/post-commit &&
	git session hooks status >out && grep "(core.hooksPath)" out &&
	echo p >p.txt && git add p.txt && test_tick && git commit -q -m "hooks path" &&
	test "$(trailer)" = $id &&
	git session hooks uninstall >/dev/null && ! test -e myhooks/post-commit &&
	git config --unset core.hooksPath
'

test_expect_success 'hook managers: husky, lefthook and pre-commit are left alone, with advice' '
	mkdir -p .husky/_ && git config core.hooksPath .husky/_ &&
	git session hooks install >out &&
	grep "managed by husky" out && grep "git session hook" out &&
	! test -e .husky/_/post-commit &&
	git config --unset core.hooksPath &&
	printf "#!/bin/sh\n# lefthook run pre-commit\n" >.git/hooks/pre-commit.lh &&
	mv .git/hooks/pre-commit ../pre-commit.keep && mv .git/hooks/pre-commit.lh .git/hooks/pre-commit &&
	git session hooks install >out &&
	grep "managed by lefthook" out && grep "run: git session hook post-commit" out &&
	! test -e .git/hooks/post-commit &&
	printf "#!/bin/sh\n# File generated by pre-commit: https://pre-commit.com\n" >.git/hooks/pre-commit &&
	git session hooks install >out &&
	grep "managed by pre-commit" out && grep "entry: git session hook post-commit" out &&
	mv ../pre-commit.keep .git/hooks/pre-commit
'

test_expect_success 'git session hook checks its arguments' '
	test_expect_code 129 git session hook 2>err &&
	test_expect_code 129 git session hook nonsense 2>err &&
	grep "^error: unknown hook .nonsense." err
'

test_expect_success 'git fsck is clean' '
	git fsck --strict
'

test_expect_success 'the hooks never block git where git-session cannot open the repository' '
	git init -q ../fmt1 && (
		cd ../fmt1 && git commit -q --allow-empty -m i &&
		git session start f --id f -q && git session hooks install >/dev/null &&
		for ext in objectFormat
		do
			git config core.repositoryformatversion 1 &&
			git config extensions.$ext sha1 &&
			test_tick && git commit -q --allow-empty -m "with $ext" 2>err &&
			test "$(grep -c "^warning: git-session cannot record this commit, and git goes on: .*extensions" err)" = 1 &&
			! grep -v "^warning:" err &&
			git log -1 --format=%s >subj && echo "with $ext" >expect && test_cmp expect subj &&
			test_expect_code 1 git session status 2>err &&
			grep "^error: cannot open the repository: it uses extensions.$(echo $ext | tr A-Z a-z)" err &&
			git config --unset extensions.$ext && git config core.repositoryformatversion 0 || return 1
		done &&
		git config core.repositoryformatversion 1 && git config extensions.objectFormat sha1 &&
		git config session.strictHooks true &&
		test_must_fail git commit -q --allow-empty -m strict 2>err &&
		grep "^error: cannot open the repository" err
	)
'

test_expect_success 'the hooks record commits in repositories with the extensions git-session knows' '
	git init -q ../fmt2 && (
		cd ../fmt2 && git commit -q --allow-empty -m i &&
		git session start f --id f -q && git session hooks install >/dev/null &&
		git config core.repositoryformatversion 1 &&
		for ext in worktreeConfig preciousObjects partialClone
		do
			git config extensions.$ext $(test $ext = partialClone && echo origin || echo true) &&
			test_tick && git commit -q --allow-empty -m "with $ext" 2>err &&
			test_must_be_empty err &&
			test "$(trailer)" = f &&
			git log -1 --format=%s refs/sessions/f >subj && grep "\"with $ext\"" subj || return 1
		done
	)
'

test_expect_success 'a commit made while the session is paused says, once, that it was not recorded' '
	git init -q ../paused && (
		cd ../paused && git commit -q --allow-empty -m i &&
		git session start p --id p -q && git session hooks install >/dev/null &&
		git session pause -q && git rev-parse refs/sessions/p >before &&
		test_tick && git commit -q --allow-empty -m "while paused" 2>err &&
		test "$(grep -c . err)" = 1 &&
		grep "^warning: session .p. is not in progress: this commit is not recorded in it" err &&
		git rev-parse refs/sessions/p >after && test_cmp before after &&
		! git log -1 --format=%B | grep Session-Id
	)
'

test_expect_success 'commit-msg: only a Session-Id in the trailer block counts, not one in the body' '
	git init -q ../m9 && cd ../m9 && git commit -q --allow-empty -m i &&
	git session start m9 --id m9 -q && git session hooks install >/dev/null &&
	printf "Subject\n\nSession-Id: other\nquoted from another commit\n" >msg &&
	.git/hooks/commit-msg msg &&
	git interpret-trailers --parse msg >trailers &&
	echo "Session-Id: m9" >expect && test_cmp expect trailers &&
	grep "^Session-Id: other$" msg &&
	printf "Subject\n\nBody.\n\nSigned-off-by: A <a@b>\nsession-id: theirs\n" >msg &&
	cp msg msg.before &&
	.git/hooks/commit-msg msg &&
	test_cmp msg.before msg
'

test_expect_success 'a 20 MB message with a Session-Id in its body: one pass, the trailer added once' '
	cd ../m9 &&
	python3 -c "import sys
sys.stdout.write(\"Big\n\n\" + (\"x\" * 70 + \"\n\") * 300000 + \"Session-Id: in-the-body\nmore\n\")" >../big-msg &&
	echo big >big.txt && git add big.txt && test_tick &&
	timeout 30 git commit -q -F ../big-msg 2>err; test $? = 0 &&
	test_must_be_empty err &&
	test "$(trailer)" = m9 &&
	git log -1 --format=%B >msg && test "$(grep -c "^Session-Id: m9$" msg)" = 1 &&
	grep "^Session-Id: in-the-body$" msg &&
	git log -1 --format=%s refs/sessions/m9 >subj && grep "\"Big\"" subj
'

test_done
