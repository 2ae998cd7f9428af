#!/bin/sh
test_description='bad input: one error: line, the right exit code, nothing written'
. ./lib.sh

test_expect_success 'outside a repository' '
	mkdir -p "$TRASH_DIRECTORY/norepo" &&
	(
		cd "$TRASH_DIRECTORY/norepo" &&
		GIT_CEILING_DIRECTORIES="$TRASH_DIRECTORY" &&
		export GIT_CEILING_DIRECTORIES &&
		test_expect_code 1 git session status 2>err &&
		echo "error: not a git repository (or any of the parent directories)" >expect &&
		test_cmp expect err
	)
'

test_expect_success 'no active session' '
	for cmd in status "note x" pause close checkpoint "summary x" "set a 1" "get a" show log
	do
		test_expect_code 1 git session $cmd 2>err &&
		head -1 err >first &&
		echo "error: no active session" >expect &&
		test_cmp expect first || return 1
	done &&
	test_must_fail git rev-parse -q --verify SESSION_HEAD
'

test_expect_success 'unknown session id' '
	test_expect_code 1 git session status nosuch 2>err &&
	grep "^error: no such session: .nosuch.$" err &&
	test_line_count = 1 err &&
	test_expect_code 1 git session switch nosuch 2>err &&
	grep "^error: no such session: .nosuch.$" err &&
	test_expect_code 1 git session status "../../x" 2>err &&
	grep "^error: invalid session id" err
'

test_expect_success 'usage errors exit 129 and print usage' '
	git session start -q x &&
	test_expect_code 129 git session note 2>err &&
	grep "^error: no text given" err && grep "^usage: git session note" err &&
	test_expect_code 129 git session note a b 2>err &&
	test_expect_code 129 git session status --bogus 2>err &&
	grep "^error: unknown option .bogus." err &&
	test_expect_code 129 git session start --budget 2>err &&
	grep "^error: option .--budget. requires a value" err &&
	test_expect_code 129 git session start --budget ten 2>err &&
	grep "^error: option .--budget. expects a whole number" err &&
	test_expect_code 129 git session switch 2>err &&
	test_expect_code 129 git session list extra 2>err &&
	grep "^error: too many arguments" err
'

test_expect_success '-h prints the usage on stdout and exits 129' '
	for cmd in start status show list log switch pause resume close archive unarchive checkpoint note summary set get
	do
		test_expect_code 129 git session $cmd -h >out 2>err &&
		grep "^usage: git session $cmd" out &&
		test_must_be_empty err || return 1
	done
'

test_expect_success 'an unknown command says so' '
	test_expect_code 1 git session frobnicate 2>err &&
	grep "^error: .frobnicate. is not a git session command" err &&
	! grep "most similar" err
'

test_expect_success 'a mistyped command suggests the nearest ones, as git does' '
	test_expect_code 1 git session chekpoint 2>err &&
	printf "\nThe most similar command is\n\tcheckpoint\n" >expect &&
	tail -3 err >tail && test_cmp expect tail &&
	test_expect_code 1 git session stauts 2>err &&
	grep "^The most similar commands are" err && grep "^	status$" err && grep "^	start$" err
'

test_expect_success 'git session alone lists the commands' '
	test_expect_code 1 git session 2>err &&
	grep "^   start" err && grep "^   checkpoint" err
'

test_expect_success 'nothing was written by the failures' '
	test "$(git for-each-ref refs/sessions | wc -l)" = 1 &&
	test "$(git rev-list --count SESSION_HEAD)" = 1
'

test_expect_success 'a session.json edited into nonsense is reported, not loaded' '
	blob=$(printf "{\"session_id\": 5" | git hash-object -w --stdin) &&
	tree=$(printf "100644 blob %s\tsession.json\n" $blob | git mktree) &&
	bad=$(git commit-tree -p SESSION_HEAD -m "hand edit" $tree) &&
	good=$(git rev-parse SESSION_HEAD) &&
	git update-ref refs/sessions/2025-11-21-x $bad &&
	test_expect_code 1 git session note "on top of nonsense" 2>err &&
	grep "^error: checkpoint ${bad%????????????????????????????} of .refs/sessions/2025-11-21-x. is damaged: session.json: invalid JSON" err &&
	grep "^hint: run .git session fsck --repair." err &&
	test "$(git rev-parse refs/sessions/2025-11-21-x)" = "$bad" &&
	test_expect_code 1 git session status 2>err &&
	grep "is damaged" err &&
	git update-ref refs/sessions/2025-11-21-x $good
'

test_expect_success 'a bare repository: sessions can be read' '
	git clone -q --bare . ../bare.git &&
	git push -q ../bare.git "refs/sessions/*:refs/sessions/*" &&
	(
		cd ../bare.git &&
		git session list >out &&
		grep 2025-11-21-x out &&
		git session show --json 2025-11-21-x >s &&
		test "$(json_field s "d[\"status\"]")" = in_progress &&
		git session switch 2025-11-21-x -q &&
		test_must_fail git session checkpoint 2>err &&
		grep "^error: this operation must be run in a work tree" err
	)
'

test_expect_success 'an unborn branch and a detached HEAD are recorded as such' '
	git init -q ../unborn &&
	(cd ../unborn && git session start u -q) &&
	git -C ../unborn show SESSION_HEAD:session.json >s &&
	test "$(json_field s "d[\"project\"][\"head\"]")" = 0000000000000000000000000000000000000000 &&
	git checkout -q --detach &&
	git session note "detached" -q &&
	git log -1 --format="%(trailers:key=Branch,valueonly)" SESSION_HEAD >b &&
	printf "HEAD\n\n" >expect && test_cmp expect b
'

test_expect_success 'no identity at all is a clear error' '
	(
		unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL &&
		HOME="$TRASH_DIRECTORY/nohome" && export HOME &&
		test_expect_code 1 git session note x 2>err &&
		grep "^error: author identity unknown" err &&
		grep "^hint: an MCP client starts its servers with a reduced environment" err
	)
'

test_expect_success 'each subcommand refuses the options of the others, with its own usage' '
	git session start sub --id sub --phase A --phase B --pause-current -q &&
	git rev-parse refs/sessions/sub >before &&
	for args in "phase start 1 --error boom" "phase start 1 --type nonsense" "phase skip 2 --context x" \
		"phase complete 1 --error x" "phase add X --context y" "phase step 1 s --parallel" \
		"agent start a1 --type t --task k --summary s" "agent done a1 --task ignored" \
		"agent done a1 --phase 9" "agent progress a1 5 --error nope" "agent fail a1 --error e --task t" \
		"error resolve 1 --resolution r --type runtime" "error add --type runtime --message m --resolution r" \
		"task add t --agent a" "milestone done m --phase 1" "file created x --type t"
	do
		test_expect_code 129 git session $args 2>err || { echo "accepted: $args"; return 1; }
		grep "^error: unknown option" err &&
		grep "^usage: git session $(echo "$args" | cut -d" " -f1-2) " err || return 1
	done &&
	git rev-parse refs/sessions/sub >after &&
	test_cmp before after
'

test_expect_success 'user text in error lines cannot drive the terminal' '
	esc=$(printf "\033") bel=$(printf "\007") &&
	test_must_fail git session agent progress "$(printf "a\033]0;pwned\007")" 5 2>err &&
	! grep "$esc" err && ! grep "$bel" err &&
	grep "^error: unknown agent .a?]0;pwned?." err &&
	test_must_fail git session milestone done "$(printf "x\033[31mRED")" 2>err &&
	! grep "$esc" err && grep "x?\[31mRED" err &&
	test_must_fail git session switch "$(printf "c1\302\233x")" 2>err &&
	! grep "$(printf "\302\233")" err &&
	test_must_fail git session "$(printf "st\033at")" 2>err &&
	! grep "$esc" err && grep "st?at" err
'

test_expect_success 'help: <command> --help and help <command> open the manual page, as git help -m' '
	top=$(cd "$TEST_DIRECTORY/../.." && pwd) &&
	mkdir -p fakeman prefix/bin prefix/share/man/man1 &&
	cp "$GIT_SESSION_BIN/git-session" prefix/bin/ &&
	cp "$top/doc/git-session.1" prefix/share/man/man1/ &&
	cat >fakeman/man <<-\EOF &&
	#!/bin/sh
	printf "%s\n" "$@" >"$HOME/man.args"
	printf "%s\n" "${MANPATH-unset}" >"$HOME/man.path"
	EOF
	chmod +x fakeman/man &&
	installed="$PWD/prefix" &&
	for ask in "status --help" "help status" "help" "blame --help" "help -m grep" "--help"
	do
		rm -f "$HOME/man.args" &&
		(
			PATH="$installed/bin:$PWD/fakeman:$PATH" && unset MANPATH &&
			git-session $ask >out 2>err
		) || return 1
		test "$ask" = help && { grep "^   blame  " out && test_must_be_empty err && ! test -f "$HOME/man.args"; continue; }
		echo git-session >expect && test_cmp expect "$HOME/man.args" &&
		echo "$installed/share/man:" >expect && test_cmp expect "$HOME/man.path" || return 1
	done &&
	(
		PATH="$installed/bin:$PWD/fakeman:$PATH" && MANPATH=/usr/share/man && export MANPATH &&
		git session status --help
	) &&
	echo "$installed/share/man:/usr/share/man" >expect && test_cmp expect "$HOME/man.path" &&
	PATH="$PWD/fakeman:$PATH" git session help status &&
	echo git-session >expect && test_cmp expect "$HOME/man.args" &&
	echo "$(cd "$GIT_SESSION_BIN/.." && pwd -P)/share/man:" >expect && test_cmp expect "$HOME/man.path"
'

test_expect_success 'help: the real man shows the installed page, and the built one, outside a repository too' '
	(
		PATH="$PWD/prefix/bin:$PATH" && unset MANPATH && MANPAGER=cat && MANWIDTH=80 && export MANPAGER MANWIDTH &&
		cd "$TRASH_DIRECTORY/norepo" && GIT_CEILING_DIRECTORIES="$TRASH_DIRECTORY" && export GIT_CEILING_DIRECTORIES &&
		git session status --help >"$TRASH_DIRECTORY/man.out" 2>&1 &&
		git session help blame >"$TRASH_DIRECTORY/man2.out" 2>&1 &&
		PATH="$GIT_SESSION_BIN:$PATH" &&	# as built: its page is beside it too
		git session help >"$TRASH_DIRECTORY/list.out" &&
		git session grep --help >"$TRASH_DIRECTORY/man3.out" 2>&1
	) &&
	grep "^   grep  " "$TRASH_DIRECTORY/list.out" && grep "^NAME" "$TRASH_DIRECTORY/man3.out" &&
	grep "^NAME" "$TRASH_DIRECTORY/man.out" && grep "git-session *- *keep the state" "$TRASH_DIRECTORY/man.out" &&
	grep "^NAME" "$TRASH_DIRECTORY/man2.out"
'

test_expect_success 'help: -h stays usage, --help past the first argument is usage, errors' '
	test_expect_code 129 git session status -h >out && grep "^usage: git session status" out &&
	test_expect_code 129 git session status --json --help >out && grep "^usage: git session status" out &&
	test_expect_code 129 git session help -h >out && grep "^usage: git session help" out &&
	test_expect_code 1 git session help nosuch 2>err &&
	grep "^error: .nosuch. is not a git session command" err &&
	test_expect_code 1 git session help stauts 2>err && grep "^	status$" err &&
	test_expect_code 129 git session help status blame 2>err && grep "^usage: git session help" err &&
	test_expect_code 129 git session help --bogus 2>err && grep "^error: unknown option" err &&
	test_expect_code 1 env PATH=/nonexistent "$GIT_SESSION_BIN/git-session" help status 2>err &&
	grep "^error: cannot run .man." err && grep "^hint: " err
'

test_expect_success 'git session -h: the hooks line names the agents'"'"' own hooks too' '
	test_expect_code 129 git session -h >out &&
	grep "^   hooks .*agent" out
'

test_done
