#!/bin/sh
test_description='restore: the working tree put back as a checkpoint recorded it, safely and undoably'
. ./lib.sh

# blob <rev> <path>: the blob the checkpoint's tree keeps for path, by plain git
blob () { git rev-parse "$1:files/$2"; }
# traced <strace options> <command>...: under strace; LeakSanitizer cannot run under ptrace
traced () { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -o /dev/null "$@"; }

test_expect_success 'setup: files recorded at v1, then at v2 with one deleted and one new' '
	mkdir -p src docs &&
	echo v1 >src/a.c && echo v1 >src/b.c && echo v1 >docs/keep.md && echo base >other.txt &&
	git add . && git commit -q -m base &&
	git session start "restore" --id rs -q &&
	git session checkpoint -q -m v1 src/a.c src/b.c docs/keep.md &&
	v1=$(git rev-parse SESSION_HEAD) &&
	echo v2 >src/a.c && rm src/b.c && echo v2 >src/new.c &&
	git session checkpoint -q -m v2 src/a.c src/new.c &&
	echo "$v1" >../v1
'

test_expect_success 'restore puts back every file of the manifest as recorded, nothing else' '
	v1=$(cat ../v1) &&
	echo untracked >scratch.txt && git ls-files -s >index.before &&
	git session restore $v1 >out &&
	grep "^To undo: git session restore [0-9a-f]\{7\}$" out &&
	test "$(git hash-object src/a.c)" = "$(blob $v1 src/a.c)" &&
	test "$(git hash-object src/b.c)" = "$(blob $v1 src/b.c)" &&
	test "$(git hash-object docs/keep.md)" = "$(blob $v1 docs/keep.md)" &&
	test "$(cat src/new.c)" = v2 &&
	test "$(cat scratch.txt)" = untracked && test "$(cat other.txt)" = base &&
	git ls-files -s >index.after && test_cmp index.before index.after &&
	git log -2 --format=%s SESSION_HEAD >subjects &&
	printf "restore 2 files from %.7s\ncheckpoint: \"before restoring from %.7s\"\n" $v1 $v1 >expect &&
	test_cmp expect subjects &&
	test "$(git cat-file -p SESSION_HEAD~1:files/src/a.c)" = v2 &&
	test_must_fail git rev-parse -q --verify SESSION_HEAD~1:files/src/b.c &&
	git session show --json SESSION_HEAD~1 >before &&
	test "$(json_field before "d[\"files\"][\"src/b.c\"][\"status\"]")" = deleted
'

test_expect_success 'restoring the checkpoint before undoes it exactly' '
	git session restore -q SESSION_HEAD~1 &&
	test "$(cat src/a.c)" = v2 && ! test -e src/b.c && test "$(cat src/new.c)" = v2 &&
	test "$(cat docs/keep.md)" = v1 && test "$(cat scratch.txt)" = untracked
'

test_expect_success 'a file recorded as deleted is removed, and a folder it leaves empty goes too' '
	mkdir -p gone/deep && echo x >gone/deep/f.c && git session checkpoint -q gone/deep/f.c &&
	at=$(git rev-parse SESSION_HEAD) &&
	rm -r gone && git session checkpoint -q &&
	mkdir -p gone/deep && echo x >gone/deep/f.c && git session checkpoint -q &&
	git session restore -q SESSION_HEAD~1 &&
	! test -e gone &&
	git session restore -q $at -- gone && test "$(cat gone/deep/f.c)" = x
'

test_expect_success '--dry-run says what would change and changes nothing, in text and --json' '
	v1=$(cat ../v1) &&
	git rev-parse SESSION_HEAD >tip.before &&
	git session restore --dry-run $v1 >out &&
	printf "would write src/a.c\nwould create src/b.c\n" >expect && test_cmp expect out &&
	git session restore --dry-run --json $v1 >j &&
	test "$(json_field j "[(f[\"path\"], f[\"action\"]) for f in d[\"files\"]]")" = \
		"[[\"src/a.c\", \"write\"], [\"src/b.c\", \"create\"]]" &&
	test "$(json_field j "[d[\"dry_run\"], d[\"before\"], d[\"from\"]]")" = "[true, null, \"$v1\"]" &&
	git rev-parse SESSION_HEAD >tip.after && test_cmp tip.before tip.after &&
	test "$(cat src/a.c)" = v2 && ! test -e src/b.c
'

test_expect_success 'changes the session never recorded are not overwritten without --force; with it, they are kept in the checkpoint before' '
	v1=$(cat ../v1) &&
	echo "mine, unrecorded" >src/a.c &&
	git rev-parse SESSION_HEAD >tip.before &&
	test_must_fail git session restore $v1 2>err &&
	grep "^error: restoring would lose changes the session never recorded; nothing was written:" err &&
	grep "	src/a.c$" err && grep "^hint: .*--force" err &&
	git rev-parse SESSION_HEAD >tip.after && test_cmp tip.before tip.after &&
	test "$(cat src/a.c)" = "mine, unrecorded" &&
	git session restore -q --force $v1 &&
	test "$(cat src/a.c)" = v1 &&
	test "$(git cat-file -p SESSION_HEAD~1:files/src/a.c)" = "mine, unrecorded"
'

test_expect_success 'a change committed in HEAD the session never recorded is not reverted without --force' '
	echo committed >src/a.c && git add src/a.c && git commit -q -m "a teammate fix" &&
	fix=$(git rev-parse --short HEAD) &&
	git rev-parse SESSION_HEAD >tip.before &&
	test_must_fail git session restore $(cat ../v1) -- src/a.c 2>err &&
	grep "^error: restoring would revert changes committed in HEAD" err &&
	grep "	src/a.c (from commit $fix \"a teammate fix\")$" err &&
	test_must_fail git session restore --dry-run $(cat ../v1) -- src/a.c 2>err.dry &&
	test_cmp err err.dry &&
	git rev-parse SESSION_HEAD >tip.after && test_cmp tip.before tip.after &&
	test "$(cat src/a.c)" = committed &&
	git session restore -q --force $(cat ../v1) -- src/a.c && test "$(cat src/a.c)" = v1 &&
	test "$(git cat-file -p SESSION_HEAD~1:files/src/a.c)" = committed
'

test_expect_success 'content HEAD holds that the session recorded is restored over without --force' '
	echo recorded >src/a.c && git session checkpoint -q src/a.c &&
	git commit -q -am "recorded, then committed" &&
	git session restore -q $(cat ../v1) -- src/a.c && test "$(cat src/a.c)" = v1 &&
	printf "restore \"src/a.c\" from %.7s\n" $(cat ../v1) >expect &&
	git log -1 --format=%s SESSION_HEAD >actual && test_cmp expect actual
'

test_expect_success 'a revision is required: a bare restore is a usage error and changes nothing' '
	echo v9 >src/a.c && git session checkpoint -q &&
	test_expect_code 129 git session restore 2>err &&
	grep "^error: you must name the checkpoint to restore from" err &&
	test_expect_code 129 git session restore -- src/a.c 2>err &&
	test "$(cat src/a.c)" = v9
'

test_expect_success 'paths: a file or a folder of the manifest; anything else is an error' '
	v1=$(cat ../v1) &&
	git session checkpoint -q && echo v3 >src/a.c && echo v3 >docs/keep.md && git session checkpoint -q &&
	git session restore -q $v1 -- docs && test "$(cat docs/keep.md)" = v1 && test "$(cat src/a.c)" = v3 &&
	git session restore -q $v1 src/a.c && test "$(cat src/a.c)" = v1 &&
	test_must_fail git session restore $v1 -- nowhere.c 2>err &&
	grep "^error: .nowhere.c. is not in the manifest of checkpoint" err &&
	test_must_fail git session restore no-such-rev-or-path 2>err &&
	grep "no-such-rev-or-path" err &&
	test_expect_code 129 git session restore $v1 SESSION_HEAD -- src/a.c 2>err &&
	grep "^error: one revision at most before --" err
'

test_expect_success 'a symbolic link is restored as one; nothing is written through a linked folder' '
	ln -s src/a.c link && git session file created -q link &&
	at=$(git rev-parse SESSION_HEAD) &&
	rm link && echo "not a link" >link && git session checkpoint -q &&
	git session restore -q $at -- link &&
	test -h link && test "$(readlink link)" = src/a.c &&
	mkdir -p lnk && echo inside >lnk/f.c && git session checkpoint -q lnk/f.c && at=$(git rev-parse SESSION_HEAD) &&
	echo changed >lnk/f.c && git session checkpoint -q &&
	mkdir -p ../outside && echo outside >../outside/f.c &&
	rm -r lnk && ln -s ../outside lnk &&
	git rev-parse SESSION_HEAD >tip.before &&
	test_must_fail git session restore --force $at -- lnk/f.c 2>err &&
	grep "beyond a symbolic link" err &&
	test "$(cat ../outside/f.c)" = outside &&
	git rev-parse SESSION_HEAD >tip.after && test_cmp tip.before tip.after &&
	rm lnk
'

test_expect_success 'a folder where a file goes is refused' '
	git session file created -q src/b.c 2>/dev/null || { echo v1 >src/b.c && git session file created -q src/b.c; } &&
	at=$(git rev-parse SESSION_HEAD) &&
	rm src/b.c && mkdir src/b.c && echo x >src/b.c/inner &&
	test_must_fail git session restore $at -- src/b.c 2>err &&
	grep "src/b.c: a folder is in its place" err &&
	rm -r src/b.c
'

test_expect_success 'refused during a merge, as git would refuse to switch' '
	git checkout -q -b side && echo side >other.txt && git commit -q -am side &&
	git checkout -q main 2>/dev/null || git checkout -q master &&
	echo main >other.txt && git commit -q -am main &&
	test_must_fail git merge -q side >/dev/null 2>&1 &&
	test_must_fail git session restore $(cat ../v1) 2>err &&
	grep "^error: a merge is in progress" err &&
	git merge --abort
'

test_expect_success '--staged updates the index with the recorded blobs too' '
	v1=$(cat ../v1) &&
	echo v4 >src/a.c && git session checkpoint -q && git add src/a.c && git commit -q -m v4 &&
	git session restore -q --staged $v1 -- src/a.c &&
	test "$(git rev-parse :src/a.c)" = "$(blob $v1 src/a.c)" &&
	git diff --quiet -- src/a.c &&
	echo v5 >src/a.c && git session checkpoint -q &&
	git session restore -q $v1 -- src/a.c &&
	test "$(git rev-parse :src/a.c)" = "$(blob $v1 src/a.c)" && git reset -q
'

test_expect_success 'outside a sparse checkout is left alone' '
	git add -A >/dev/null 2>&1; git commit -q -m all --allow-empty &&
	echo v6 >docs/keep.md && git session checkpoint -q docs/keep.md && at=$(git rev-parse SESSION_HEAD) &&
	echo v7 >docs/keep.md && git session checkpoint -q && git add docs && git commit -q -m v7 &&
	git sparse-checkout set --no-cone "/src/" "/other.txt" 2>/dev/null &&
	! test -e docs/keep.md &&
	git session restore --json $at -- docs >j &&
	test "$(json_field j "[(s[\"path\"], s[\"why\"]) for s in d[\"skipped\"]]")" = \
		"[[\"docs/keep.md\", \"outside the sparse checkout\"]]" &&
	! test -e docs/keep.md &&
	git sparse-checkout disable
'

test_expect_success 'a checkout filter applies, as git checkout applies it' '
	printf "*.crlf text eol=crlf\n" >.gitattributes && git add .gitattributes && git commit -q -m attrs &&
	printf "one\r\ntwo\r\n" >t.crlf && git session file created -q t.crlf && at=$(git rev-parse SESSION_HEAD) &&
	test "$(blob $at t.crlf)" = "$(printf "one\ntwo\n" | git hash-object --stdin)" &&
	echo changed >t.crlf && git session checkpoint -q &&
	git session restore -q $at -- t.crlf &&
	printf "one\r\ntwo\r\n" >expect && test_cmp expect t.crlf
'

test_expect_success 'the MCP tool session_restore does the same' '
	v1=$(cat ../v1) &&
	echo v8 >src/a.c && git session checkpoint -q &&
	init="{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"sh\",\"version\":\"1\"}}}" &&
	printf "%s\n" "$init" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"session_restore\",\"arguments\":{\"revision\":\"$v1\",\"paths\":[\"src/a.c\"]}}}" |
		git session mcp >out &&
	sed -n 2p out >answer &&
	test "$(json_field answer "d[\"result\"][\"structuredContent\"][\"files\"][0][\"path\"]")" = src/a.c &&
	test "$(cat src/a.c)" = v1 &&
	test "$(json_field answer "d[\"result\"][\"structuredContent\"][\"before\"]")" = "$(git rev-parse SESSION_HEAD~1)"
'

test_expect_success 'property: random edits, records, commits, restores and undos' '
	git session start "property" --id prop --pause-current -q &&
	for seed in 1 2 3
	do
		python3 "$TEST_DIRECTORY/restore_prop.py" $seed 120 || return 1
	done
'

test_expect_success STRACE 'kill -9 at each file of a restore leaves each file old or new, and the next restore finishes' '
	git session start "kill" --id kill --pause-current -q &&
	mkdir -p k && for i in 1 2 3 4 5 6; do echo old$i >k/f$i; done &&
	git session checkpoint -q k/f1 k/f2 k/f3 k/f4 k/f5 k/f6 && old=$(git rev-parse SESSION_HEAD) &&
	for i in 1 2 3 4 5 6; do echo new$i >k/f$i; done && git session checkpoint -q && new=$(git rev-parse SESSION_HEAD) &&
	traced -e trace=rename git session restore -q $old &&
	git session restore -q $new &&
	for n in 2 3 4 5 6 7
	do
		test_expect_code 137 traced -e trace=rename -e inject=rename:signal=KILL:when=$n \
			git session restore -q $old 2>/dev/null
		for i in 1 2 3 4 5 6
		do
			grep -qx "old$i\|new$i" k/f$i || { echo "k/f$i: $(cat k/f$i)"; return 1; }
		done
		git session restore -q --force $old && for i in 1 2 3 4 5 6; do test "$(cat k/f$i)" = old$i || return 1; done &&
		git session restore -q --force $new || return 1
	done &&
	test -z "$(ls -A .git/git-session/restore)" &&
	ls -A k >left && printf "f1\nf2\nf3\nf4\nf5\nf6\n" >expect && test_cmp expect left
'

test_expect_success 'kill -9 in the middle of a large restore leaves each file old or new' '
	mkdir -p big && for i in $(seq 1 300); do echo "old $i" >big/f$i; done &&
	git session checkpoint -q big/* && old=$(git rev-parse SESSION_HEAD) &&
	for i in $(seq 1 300); do echo "new $i" >big/f$i; done && git session checkpoint -q && new=$(git rev-parse SESSION_HEAD) &&
	for round in 1 2 3 4 5
	do
		read -r tip <.git/refs/sessions/kill &&
		git-session restore -q --force $old &	# not through git: the process killed is the one writing
		pid=$! n=0
		# once its checkpoint before is published, it is writing the files: kill it there
		while read -r now <.git/refs/sessions/kill && test "$now" = "$tip" && test $n -lt 100000
		do
			n=$((n + 1))
		done
		kill -9 $pid 2>/dev/null; wait $pid
		for i in $(seq 1 300)
		do
			case "$(cat big/f$i)" in "old $i"|"new $i") ;; *) echo "big/f$i: $(cat big/f$i)"; return 1 ;; esac
		done
		git session restore -q --force $new || return 1
	done
'

test_expect_success 'killed at a random moment, the restore is undone by what git session says' '
	mkdir -p u1 && for i in $(seq 1 200); do echo "old $i" >u1/f$i; done &&
	git session checkpoint -q u1/* && old=$(git rev-parse SESSION_HEAD) &&
	for i in $(seq 1 200); do echo "new $i" >u1/f$i; done && git session checkpoint -q &&
	ref=$(git symbolic-ref SESSION_HEAD) && test -f .git/$ref &&
	for round in 1 2 3 4 5 6
	do
		for i in $(seq 1 200); do echo "new $i" >u1/f$i; done &&
		git session checkpoint -q && tip=$(git rev-parse SESSION_HEAD) || return 1
		git-session restore -q $old -- u1 >/dev/null 2>&1 &	# not through git: the process killed is the one writing
		pid=$! n=0 extra=$(((round - 1) * (round - 1) * 20))
		# once its checkpoint before is published it writes: kill it then, or a while later
		while read -r now <.git/$ref && test "$now" = "$tip" && kill -0 $pid 2>/dev/null && test $n -lt 100000
		do
			n=$((n + 1))
		done
		while test $extra -gt 0 && read -r now <.git/$ref
		do
			extra=$((extra - 1))
		done
		kill -9 $pid 2>/dev/null; wait $pid
		now=$(git rev-parse SESSION_HEAD)
		subject=$(git log -1 --format=%s SESSION_HEAD)
		case "$subject" in
		"checkpoint: \"before restoring from "*)
			# interrupted while writing: the documented undo works, or says what does
			git session restore -q SESSION_HEAD~1 2>err || {
				undo=$(sed -n "s/^hint: .*: \(git session restore --force [0-9a-f]*\)$/\1/p" err) &&
				test "$undo" = "git session restore --force $(echo $now | cut -c1-7)" && $undo -q
			} ;;
		"restore "*)
			git session restore -q SESSION_HEAD~1 ;;
		*)
			rm -f err && test "$now" = "$tip" ;;
		esac || { echo "round $round ($subject)"; cat err 2>/dev/null; return 1; }
		for i in $(seq 1 200)
		do
			test "$(cat u1/f$i)" = "new $i" || { echo "round $round: u1/f$i: $(cat u1/f$i)"; return 1; }
		done
	done
'

test_done
