#!/bin/sh
# sync.sh - what git session push and pull cost with many sessions, against
# plain git doing the same in the same run: the first push of every session
# against a glob push, a push of one changed session against `git push` of
# that one ref, a pull bringing one changed session against `git fetch` of
# it, and a push or pull with nothing to do against `git fetch` with nothing
# to fetch. Each session has two checkpoints; refs are packed, as gc leaves
# them. Not a test: it prints. run.sh runs it; alone:
#   sh bench/sync.sh [--quick]      (BENCH_SYNC_SIZES="10000 100000" by default)
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
sizes=${BENCH_SYNC_SIZES:-"10000 100000"} runs=9
test "${1:-}" = --quick && sizes=${BENCH_SYNC_SIZES:-10000} runs=5

. "$top/bench/lib.sh"
bench_start sync
python=$(python3 -c 'import sys; print(sys.executable)')
glob='+refs/sessions/*:refs/remotes/r2/sessions/*'

# One session's state and op, the shape every generated session takes.
git init -q -b main "$work/seed"
(cd "$work/seed" && git commit -q --allow-empty -m initial && git session start bench -q &&
 git show SESSION_HEAD:session.json >"$work/state.json" && git show SESSION_HEAD:op.json >"$work/op.json")

bare () { rm -rf "$1" && git init -q --bare "$1" && git -C "$1" config gc.auto 0 &&
	git -C "$1" config receive.autogc false; }
# step <counter> <chain>: the next checkpoint of the chain, one a run
cat >"$out/step" <<'STEP'
#!/bin/sh
i=$(($(cat "$1") + 1)) && echo $i >"$1" && sed -n "${i}p" "$2"
STEP
chmod +x "$out/step"

for n in $sizes
do
	d=$work/$n
	mkdir -p "$d"
	x=$(printf "s%05d" $((n / 2)))
	echo "sync: $n sessions of 2 checkpoints, one of them ($x) changing; medians of $runs runs"
	git init -q -b main "$d/a"
	(cd "$d/a" && git config gc.auto 0 && git config maintenance.auto false &&
	 git commit -q --allow-empty -m initial &&
	 "$python" "$top/bench/history.py" "$work/state.json" "$work/op.json" s "$n" 2 | git fast-import --quiet &&
	 git pack-refs --all && git remote add r1 "$d/r1.git" && git remote add r2 "$d/r2.git")
	# checkpoints of x ahead of what the remotes get, one a timed run
	base=$(git -C "$d/a" rev-parse "refs/sessions/$x")
	(cd "$d/a" && git session switch -q "$x" && i=0 &&
	 while test $i -lt $((3 * runs + 6)); do git session note -q "n$i"; i=$((i + 1)); done)
	git -C "$d/a" rev-list --reverse "$base..refs/sessions/$x" >"$d/chain"
	git -C "$d/a" update-ref "refs/sessions/$x" "$base"

	# the first push of every session: fresh remotes each round
	rounds=3
	test "$n" -gt 10000 && rounds=1
	: >"$d/first"
	r=0
	while test $r -lt $rounds
	do
		bare "$d/r1.git" && bare "$d/r2.git"
		# which goes first alternates: the file system's state falls on both alike
		if test $((r % 2)) = 0
		then timeit 1 git -C "$d/a" session push -q r1 :: git -C "$d/a" push -q r2 'refs/sessions/*:refs/sessions/*' |
			cut -d' ' -f1 | paste -sd' ' >>"$d/first"
		else timeit 1 git -C "$d/a" push -q r2 'refs/sessions/*:refs/sessions/*' :: git -C "$d/a" session push -q r1 |
			cut -d' ' -f1 | paste -sd' ' | awk '{ print $2, $1 }' >>"$d/first"
		fi
		r=$((r + 1))
	done
	ours=$(cut -d' ' -f1 "$d/first" | sort -n | sed -n "$(( (rounds + 1) / 2 ))p")
	git_=$(cut -d' ' -f2 "$d/first" | sort -n | sed -n "$(( (rounds + 1) / 2 ))p")
	row "first push, $n sessions / glob git push" "$ours / $git_"
	check "first push / glob push, $n sessions" "$(ratio "$ours" "$git_")" "<=" 2

	# both remotes hold the chain's objects; a clone b pulls from r1, c fetches from r2
	tip=$(tail -n 1 "$d/chain")
	git -C "$d/a" push -q r1 "$tip:refs/keep/x" && git -C "$d/a" push -q r2 "$tip:refs/keep/x"
	git -C "$d/a" session pull -q r1 && git -C "$d/a" fetch -q r2 "$glob"
	git -C "$d/a" pack-refs --all
	cp -a "$d/a" "$d/b" && cp -a "$d/a" "$d/c"
	echo 0 >"$d/n1" && echo 0 >"$d/n2"

	timeit "$runs" \
		sh -c 'git -C "$1/a" update-ref "refs/sessions/$2" "$(step "$1/n1" "$1/chain")" &&
			git -C "$1/a" session push -q r1' - "$d" "$x" :: \
		sh -c 'git -C "$1/a" update-ref "refs/sessions/$2" "$(step "$1/n2" "$1/chain")" &&
			git -C "$1/a" push -q r2 "refs/sessions/$2:refs/sessions/$2"' - "$d" "$x" \
		>"$d/push-one" 2>&1
	# the remote moves on by one checkpoint; b pulls it, c fetches it
	timeit "$runs" \
		sh -c 'git -C "$1/r1.git" update-ref "refs/sessions/$2" "$(step "$1/n1" "$1/chain")" &&
			git -C "$1/b" session pull -q r1' - "$d" "$x" :: \
		sh -c 'git -C "$1/r2.git" update-ref "refs/sessions/$2" "$(step "$1/n2" "$1/chain")" &&
			git -C "$1/c" fetch -q --prune r2 "$3"' - "$d" "$x" "$glob" \
		>"$d/pull-one" 2>&1
	timeit "$runs" git -C "$d/b" session push -q r1 :: git -C "$d/b" session pull -q r1 :: \
		git -C "$d/c" fetch -q --prune r2 "$glob" >"$d/nothing" 2>&1
	m () { sed -n "${2}p" "$d/$1" | cut -d' ' -f1; }
	row "push of one changed / git push of its ref" "$(m push-one 1) / $(m push-one 2)"
	row "pull of one changed / git fetch of it" "$(m pull-one 1) / $(m pull-one 2)"
	row "push, pull with nothing to do / git fetch" "$(m nothing 1), $(m nothing 2) / $(m nothing 3)"
	check "push of one changed / git push, $n" "$(ratio "$(m push-one 1)" "$(m push-one 2)")" "<=" 2
	check "pull of one changed / git fetch, $n" "$(ratio "$(m pull-one 1)" "$(m pull-one 2)")" "<=" 2
	check "push with nothing to do / git fetch, $n" "$(ratio "$(m nothing 1)" "$(m nothing 3)")" "<=" 2
	check "pull with nothing to do / git fetch, $n" "$(ratio "$(m nothing 2)" "$(m nothing 3)")" "<=" 2
	test "$(git -C "$d/b" rev-parse "refs/sessions/$x")" = "$(git -C "$d/r1.git" rev-parse "refs/sessions/$x")" ||
		echo "  FAIL: the pulls did not bring $x to where the remote is"
	rm -rf "$d"
	echo
done
