#!/bin/sh
test_description='repositories git makes today: partial clones, sparse clones (worktreeConfig), preciousObjects; SHA-256 and reftable refused clearly'
. ./lib.sh

# works: start, note, checkpoint, resume and restore in the current directory
works () {
	git session start "in $1" --id "$1" -q &&
	git session note "note in $1" -q &&
	echo "edit in $1" >>f1.txt &&
	git session checkpoint -q -m "edited" f1.txt &&
	git session resume "$1" >resumed && grep "in $1" resumed &&
	git show "refs/sessions/$1:session.json" >state && grep "note in $1" state &&
	echo lost >f1.txt && git session restore -q -- f1.txt &&
	grep "edit in $1" f1.txt &&
	git fsck --no-progress --connectivity-only 2>&1 | grep -v "^dangling" >fsck; test_must_be_empty fsck
}

test_expect_success 'setup: a bare repository that serves filters, with history and a session' '
	top=$(cd .. && pwd) &&
	git init -q --bare ../src.git &&
	git -C ../src.git config uploadpack.allowFilter true &&
	git -C ../src.git config uploadpack.allowAnySHA1InWant true &&
	echo one >f1.txt && echo two >f2.txt && mkdir -p sub && echo three >sub/f3.txt &&
	git add . && git commit -q -m first &&
	echo one-b >f1.txt && git commit -q -am second &&
	git remote add origin "file://$top/src.git" &&
	git push -q origin HEAD:refs/heads/master &&
	git session start "remote work" --id rw -q &&
	echo kept >f2.txt && git session checkpoint -q -m "kept" f2.txt &&
	git checkout -q f2.txt &&
	git session push origin
'

test_expect_success 'a partial clone (blob:none, extensions.partialClone): everything works' '
	git clone -q --filter=blob:none "file://$top/src.git" ../pc &&
	cd ../pc &&
	git config core.repositoryformatversion 1 &&
	git config extensions.partialClone origin &&
	git rev-list --objects --missing=print --all | grep "^?" &&
	works pc
'

test_expect_success 'pull in a partial clone brings sessions whole' '
	cd ../pc &&
	git session pull origin &&
	git rev-list --objects --missing=print refs/sessions/rw >objects &&
	! grep "^?" objects &&
	git session show rw --json >s && grep "f2.txt" s &&
	git session switch -q rw && rm f2.txt &&
	git session restore -q rw -- f2.txt && test "$(cat f2.txt)" = kept
'

test_expect_success 'an object git has not fetched yet is said so, in git'"'"'s words, never libgit2'"'"'s' '
	git clone -q --filter=blob:none "file://$top/src.git" ../pc2 &&
	cd ../pc2 &&
	git fetch -q origin "refs/sessions/*:refs/sessions/*" &&
	json=$(git rev-parse refs/sessions/rw:session.json) &&
	test_must_fail git session show rw 2>err &&
	grep "^error: cannot read session.json of checkpoint .* object $json is not in this partial clone: git has not fetched it yet" err &&
	grep "^hint: .*git cat-file -e $json" err &&
	! grep "no match for id" err &&
	test_must_fail git session fsck rw 2>err &&
	grep "^error: rw: checkpoint [0-9a-f]* cannot be checked: .* is not in this partial clone: git has not fetched it yet" err &&
	! grep "no match for id" err &&
	git rev-parse refs/sessions/rw >before &&
	test_must_fail git session fsck --repair rw 2>err &&
	grep "cannot be checked" err && ! grep -i "repaired" err &&
	git rev-parse refs/sessions/rw >after && test_cmp before after &&
	! test -d .git/session-quarantine &&
	git cat-file -e "$json" &&
	git session show rw >/dev/null &&
	blob=$(git rev-parse refs/sessions/rw:files/f2.txt) && rev=$(git rev-parse refs/sessions/rw) &&
	git session switch -q rw && rm f2.txt &&
	test_must_fail git session restore "$rev" -- f2.txt 2>err &&
	grep "object $blob is not in this partial clone" err &&
	! grep "no match for id" err &&
	git cat-file -e "$blob" &&
	git session restore -q "$rev" -- f2.txt && test "$(cat f2.txt)" = kept
'

test_expect_success 'a sparse clone (extensions.worktreeConfig): everything works, config.worktree is read' '
	git clone -q --sparse "file://$top/src.git" ../sp &&
	cd ../sp &&
	git config core.repositoryformatversion 1 &&
	test "$(git config extensions.worktreeConfig)" = true &&
	test "$(git config --worktree core.sparseCheckout)" = true &&
	! test -e sub/f3.txt &&
	works sp &&
	! test -e sub/f3.txt &&
	git config --worktree session.fsync not-a-bool &&
	test_must_fail git session status 2>err &&
	grep "session.fsync" err &&
	git config --worktree --unset session.fsync &&
	git session status >/dev/null
'

test_expect_success 'extensions.preciousObjects: everything works' '
	git clone -q "file://$top/src.git" ../po &&
	cd ../po &&
	git config core.repositoryformatversion 1 &&
	git config extensions.preciousObjects true &&
	works po
'

test_expect_success 'SHA-256 and reftable stay refused, clearly' '
	git init -q --object-format=sha256 ../sha &&
	cd ../sha &&
	test_must_fail git session status 2>err &&
	grep "^error: cannot open the repository: it uses extensions.objectformat" err &&
	grep "^hint: .*partialClone, preciousObjects and worktreeConfig" err &&
	git init -q ../rt && cd ../rt &&
	git config core.repositoryformatversion 1 && git config extensions.refStorage reftable &&
	test_must_fail git session list 2>err &&
	grep "^error: cannot open the repository: it uses extensions.refstorage" err
'

test_done
