#!/bin/sh
test_description='signed checkpoints: commit.gpgSign or session.sign, with git'"'"'s own signing configuration'
. ./lib.sh

test_expect_success SSH-KEYGEN 'setup: an ssh key made here, and git set to sign with it' '
	ssh-keygen -q -t ed25519 -N "" -C test -f ../key &&
	echo "$GIT_COMMITTER_EMAIL $(cat ../key.pub)" >../allowed &&
	git config gpg.format ssh &&
	git config user.signingKey "$(cd .. && pwd)/key.pub" &&
	git config gpg.ssh.allowedSignersFile "$(cd .. && pwd)/allowed" &&
	git session start "unsigned" --id plain -q &&
	test "$(git log -1 --format=%G? SESSION_HEAD)" = N
'

test_expect_success SSH-KEYGEN 'with commit.gpgSign every checkpoint is signed, and git verifies it' '
	git config commit.gpgSign true &&
	git session start "signed" --id signed --pause-current -q &&
	git session note "one" -q &&
	echo x >f.c && git session file created -q f.c &&
	git verify-commit SESSION_HEAD 2>err &&
	grep "Good \"git\" signature for $GIT_COMMITTER_EMAIL" err &&
	git log --format=%G? refs/sessions/signed >marks &&
	printf "G\nG\nG\n" >expect && test_cmp expect marks &&
	git log --show-signature -1 SESSION_HEAD >shown &&
	grep "^Good \"git\" signature" shown &&
	git cat-file commit SESSION_HEAD >c && grep "^gpgsig -----BEGIN SSH SIGNATURE-----" c &&
	grep "^Session-Op: file.created" c &&
	git session show --json >s && test "$(json_field s "sorted(d[\"files\"])")" = "[\"f.c\"]" &&
	git session fsck signed
'

test_expect_success SSH-KEYGEN 'session.sign decides for git-session alone' '
	git -c session.sign=false session note "not signed" -q &&
	test "$(git log -1 --format=%G? SESSION_HEAD)" = N &&
	git config commit.gpgSign false &&
	git -c session.sign=true session note "signed again" -q &&
	test "$(git log -1 --format=%G? SESSION_HEAD)" = G &&
	git session note "plain again" -q &&
	test "$(git log -1 --format=%G? SESSION_HEAD)" = N
'

test_expect_success SSH-KEYGEN 'a signing failure is a clear error that writes nothing' '
	git config session.sign true &&
	git rev-parse SESSION_HEAD >before &&
	test_must_fail git -c user.signingKey="$(pwd)/no-such-key.pub" session note "lost?" 2>err &&
	grep "^error: cannot sign the checkpoint" err &&
	grep "^hint: check gpg.format and user.signingKey" err &&
	git rev-parse SESSION_HEAD >after && test_cmp before after &&
	git session show --json >s && ! grep "lost?" s
'

test_expect_success SSH-KEYGEN 'the hooks sign the checkpoints of commits too' '
	git session hooks install >/dev/null &&
	echo y >g.c && git add g.c && git commit -q -m "a commit" &&
	git log -1 --format=%s SESSION_HEAD >subject && grep "^commit [0-9a-f]*: \"a commit\"" subject &&
	test "$(git log -1 --format=%G? SESSION_HEAD)" = G &&
	git config --unset session.sign &&
	git session hooks uninstall >/dev/null
'

test_done
