#!/bin/sh
# run.sh - make bench: git-session's figures as ratios against anchors
# measured in the same run on the same machine. Not a test: it prints.
#   sh bench/run.sh [--quick]
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
runs=41 big=100000 stored=1000 conc_runs=5 per_writer=10 long=100000
test "${1:-}" = --quick && runs=15 big=20000 stored=300 conc_runs=3 per_writer=5 long=20000
hist=10000 sessions=10000

out="$top/build/bench"
mkdir -p "$out"
cc -O2 -o "$out/timeit" "$top/bench/timeit.c"
cc -O2 -o "$out/floor" "$top/bench/floor.c" $(pkg-config --cflags --libs libgit2)
cc -O2 -DSKIP_CA_PARSE -o "$out/floor-noca" "$top/bench/floor.c" $(pkg-config --cflags --libs libgit2)
PATH="$top:$out:$PATH"
export PATH
# the interpreter itself, not a version manager's shim script
python=$(python3 -c 'import sys; print(sys.executable)')

work=$(mktemp -d "${TMPDIR:-/tmp}/git-session-bench.XXXXXX")
test -n "${BENCH_KEEP:-}" || trap 'rm -rf "$work"' EXIT
cd "$work"
export GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=bench@example.com \
	GIT_COMMITTER_NAME=Bench GIT_COMMITTER_EMAIL=bench@example.com TZ=UTC
git init -q -b main repo
cd repo
git config core.fsync committed	# git plumbing as durable as a checkpoint
echo hello >README && git add README && git commit -q -m initial

t () { timeit "$runs" "$@" | cut -d' ' -f1; }
ratio () { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
verdicts=$work/verdicts
. "$top/bench/lib.sh"

# A typical session: four phases, some notes and files.
git session start "bench" --phase Design --phase Build --phase Test --phase Ship -q
for i in 1 2 3 4 5; do git session note -q "note $i"; done
mkdir -p src && for i in 1 2 3; do echo "int f$i;" >src/f$i.c; done
git session checkpoint -q src/f1.c src/f2.c src/f3.c
git session phase start 1 -q
git session agent start coder --type coder --task "write the code" -q
git session error add --type runtime --message "a test failed" --agent coder -q
git session decide "keep the state in git" --rationale "history for free" -q
id=$(git session list --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
git show SESSION_HEAD:session.json >"$work/state.json"
git show SESSION_HEAD:op.json >"$work/op.json"
cp "$work/state.json" "$work/py-state.json"
cat >"$work/plumbing.sh" <<PLUMB
old=\$(git rev-parse -q --verify refs/bench/plumbing || echo 0000000000000000000000000000000000000000)
s=\$(git hash-object -w "$work/state.json")
o=\$(git hash-object -w "$work/op.json")
tree=\$(printf '100644 blob %s\top.json\n100644 blob %s\tsession.json\n' \$o \$s | git mktree)
if test \$old = 0000000000000000000000000000000000000000
then c=\$(echo 'note: "bench"' | git commit-tree \$tree)
else c=\$(echo 'note: "bench"' | git commit-tree -p \$old \$tree)
fi
git update-ref --create-reflog -m plumbing refs/bench/plumbing \$c \$old
PLUMB

echo "git-session bench: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "$runs interleaved runs of each command; medians"
echo
# one interleaved measurement of everything, so noise falls on all alike
timeit "$runs" \
	git-session note -q bench :: \
	floor write refs/bench/floor "$work/state.json" "$work/op.json" :: \
	sh "$work/plumbing.sh" :: \
	"$python" "$top/bench/save.py" "$work/py-state.json" :: \
	git-session status --json :: \
	floor init :: \
	floor-noca write refs/bench/floor-noca "$work/state.json" "$work/op.json" :: \
	env "GIT_CONFIG_PARAMETERS='session.fsync'='false'" git-session note -q bench >"$work/times"
m () { sed -n "${1}p" "$work/times" | cut -d' ' -f1; }
note=$(m 1) floor=$(m 2) plumb=$(m 3) py=$(m 4) get=$(m 5) init=$(m 6) noca=$(m 7) nosync=$(m 8)
row "checkpoint: git session note" "$note"
row "floor: minimal libgit2, same objects, fsync" "$floor"
row "checkpoint with session.fsync=false" "$nosync"
row "floor without the CA bundle parse" "$noca"
row "git plumbing: 6 commands (core.fsync)" "$plumb"
row "python save: read, update, .tmp, .bak, rename" "$py"
row "read path: git session status --json" "$get"
row "libgit2 start-up alone (git_libgit2_init)" "$init"
echo
echo "  ratio                                             value   target"
check "checkpoint / floor" "$(ratio "$note" "$floor")" "<=" 1.3
check "checkpoint / git plumbing" "$(ratio "$note" "$plumb")" "<=" 0.8
check "python save / checkpoint" "$(ratio "$py" "$note")" ">=" 8
printf '  %-46s %7s   (for information: our cost over the true minimum)\n' \
	"checkpoint / floor without CA parse" "$(ratio "$note" "$noca")"
printf '  %-46s %7s   (for information: what durability costs)\n' \
	"checkpoint, fsync on / off" "$(ratio "$note" "$nosync")"

# History: the same commands on a session of 10 checkpoints and on one
# of 10,000 (built with fast-import from the typical state, reflog and
# all), each in a repository of its own: cost must not follow history.
hist_repo () {	# dir checkpoints
	git init -q -b main "$1" && (cd "$1" && git config gc.auto 0 &&
	mkdir -p src && for i in 1 2 3; do echo "int f$i;" >src/f$i.c; done &&
	git add -A && git commit -q -m initial &&
	"$python" "$top/bench/history.py" "$work/state.json" "$work/op.json" hist 1 "$2" |
		git fast-import --quiet --export-marks="$work/marks" &&
	"$python" "$top/bench/history.py" --reflog "$work/marks" .git hist 1 "$2" &&
	git session switch -q hist)
}
echo
echo "history: a session of 10 checkpoints and one of $hist"
hist_repo "$work/h-short" 10
hist_repo "$work/h-long" "$hist"
timeit "$runs" \
	git -C "$work/h-short" session note -q bench :: git -C "$work/h-long" session note -q bench :: \
	git -C "$work/h-short" session show :: git -C "$work/h-long" session show :: \
	git -C "$work/h-short" session status :: git -C "$work/h-long" session status :: \
	git -C "$work/h-short" session resume --dry-run --json hist :: \
	git -C "$work/h-long" session resume --dry-run --json hist >"$work/htimes"
hm () { sed -n "${1}p" "$work/htimes" | cut -d' ' -f1; }
for cmd in note show status resume
do
	case $cmd in note) a=1 ;; show) a=3 ;; status) a=5 ;; resume) a=7 ;; esac
	row "$cmd, 10 / $hist checkpoints" "$(hm $a) / $(hm $((a + 1)))"
done
echo
echo "  ratio                                             value   target"
for cmd in note show status resume
do
	case $cmd in note) a=1 ;; show) a=3 ;; status) a=5 ;; resume) a=7 ;; esac
	check "$cmd at $hist / at 10 checkpoints" "$(ratio "$(hm $((a + 1)))" "$(hm $a)")" "<=" 1.1
done

# Many sessions: list, and the status of one, with 10,000 sessions and
# with one; loose refs, then packed (git pack-refs --all).
many_repo () {	# dir sessions first-id
	git init -q -b main "$1" && (cd "$1" && git config gc.auto 0 &&
	git commit -q --allow-empty -m initial &&
	"$python" "$top/bench/history.py" "$work/state.json" "$work/op.json" s "$2" 1 |
		git fast-import --quiet && git session switch -q "$3")
}
echo
echo "many sessions: $sessions sessions, and one"
many_repo "$work/many" "$sessions" s00000
many_repo "$work/one" 1 s
for refs in loose packed
do
	test $refs = packed && git -C "$work/many" pack-refs --all && git -C "$work/one" pack-refs --all
	listed=$(git -C "$work/many" session list | wc -l)
	timeit "$runs" \
		git -C "$work/many" session list :: \
		git -C "$work/one" session status :: git -C "$work/many" session status :: \
		sh -c 'rm -f "$1/.git/session-list-cache" && exec git -C "$1" session list' - "$work/many" \
		>"$work/mtimes"
	mm () { sed -n "${1}p" "$work/mtimes" | cut -d' ' -f1; }
	row "list, $listed sessions, $refs refs" "$(mm 1)"
	row "   the same with no list cache (reads every tip)" "$(mm 4)"
	row "status, 1 / $sessions sessions, $refs refs" "$(mm 2) / $(mm 3)"
	check "list, $sessions sessions, $refs refs (ms)" "$(mm 1)" "<=" 300
	check "status at $sessions / at 1 session, $refs" "$(ratio "$(mm 3)" "$(mm 2)")" "<=" 1.1
done
# grep: every session's tip read once, nothing matching (the whole search)
timeit "$runs" sh -c 'git -C "$1" session grep -c "no such words" >/dev/null; test $? = 1' - "$work/many" >"$work/gtimes"
row "grep, $sessions sessions" "$(cut -d' ' -f1 "$work/gtimes")"
check "grep, $sessions sessions (ms)" "$(cut -d' ' -f1 "$work/gtimes")" "<=" 1000
git -C "$work/many" session note -q "after pack-refs" &&
	test "$(git -C "$work/many" session list | wc -l)" = "$sessions" ||
	echo "  FAIL: a checkpoint on packed refs, or list after it"

# Big state: 2,000 agents, 20,000 manifest files, 5,000 errors and
# 5,000 decisions, against the typical session; and the memory it takes.
echo
echo "big state: 2,000 agents, 20,000 files, 5,000 errors and decisions"
git init -q -b main "$work/bigstate"
(cd "$work/bigstate" && git config gc.auto 0 && git commit -q --allow-empty -m initial &&
 "$python" "$top/bench/bigstate.py" "$work/state.json" huge 2000 20000 5000 5000 | git fast-import --quiet &&
 git session switch -q huge &&
 mkdir -p src/d000 && echo "int f;" >src/d000/f00000.c &&
 git session note -q "the first checkpoint moves the large collections to state/")
bigsize=$(git -C "$work/bigstate" session show --json | wc -c)
timeit "$runs" \
	git -C "$work/h-short" session note -q bench :: git -C "$work/bigstate" session note -q bench :: \
	git -C "$work/h-short" session status :: git -C "$work/bigstate" session status :: \
	git -C "$work/h-short" session file modified -q src/f1.c :: \
	git -C "$work/bigstate" session file modified -q src/d000/f00000.c >"$work/btimes"
bm () { sed -n "${1}p" "$work/btimes" | cut -d' ' -f"${2:-1}"; }
row "note, typical / big session" "$(bm 1) / $(bm 2)"
row "status, typical / big session" "$(bm 3) / $(bm 4)"
row "file modified, typical / big session" "$(bm 5) / $(bm 6)"
printf '  %-46s %9s KiB\n' "state of the big session (show --json)" "$((bigsize / 1024))"
printf '  %-46s %9s KiB\n' "memory peak, note: typical / big" "$(bm 1 3) / $(bm 2 3)"
printf '  %-46s %9s KiB\n' "memory peak, status: typical / big" "$(bm 3 3) / $(bm 4 3)"
echo
echo "  ratio                                             value   target"
check "note, big / typical session" "$(ratio "$(bm 2)" "$(bm 1)")" "<=" 3
check "file modified, big / typical session" "$(ratio "$(bm 6)" "$(bm 5)")" "<=" 3
printf '  %-46s %7s   (for information: reads put the whole state together)\n' \
	"status, big / typical session" "$(ratio "$(bm 4)" "$(bm 3)")"

# The big session as one HTML page (git session html), against show --json
# of the same checkpoint: both read the whole state; the page also reads
# the history's operations and draws it all.
echo
echo "html: the big session's page, against show --json"
pagesize=$(git -C "$work/bigstate" session html | wc -c)
timeit "$(((runs + 3) / 4))" git -C "$work/bigstate" session show --json :: \
	git -C "$work/bigstate" session html :: git -C "$work/h-short" session html :: \
	git -C "$work/h-long" session html >"$work/ptimes"
pm () { sed -n "${1}p" "$work/ptimes" | cut -d' ' -f"${2:-1}"; }
row "show --json / html, big session" "$(pm 1) / $(pm 2)"
row "html, 10 / $hist checkpoints (reads them all)" "$(pm 3) / $(pm 4)"
printf '  %-46s %9s KiB\n' "page of the big session" "$((pagesize / 1024))"
printf '  %-46s %9s KiB\n' "memory peak, show --json / html" "$(pm 1 3) / $(pm 2 3)"
echo
echo "  ratio                                             value   target"
check "html / show --json, big session" "$(ratio "$(pm 2)" "$(pm 1)")" "<=" 2

# Long sessions: the lists that only grow (notes, decisions, errors) at 10
# entries and at $long, each at the tip of $hist checkpoints of such
# operations left as loose objects, as a long session leaves them. An
# append reads the last chunks only: it must cost what it did at 10.
long_repo () {	# dir entries
	git init -q -b main "$1" && (cd "$1" && git config gc.auto 0 && git commit -q --allow-empty -m initial &&
	"$python" "$top/bench/longstate.py" "$work/state.json" long "$2" "$2" "$2" "$hist" | git fast-import --quiet &&
	"$python" "$top/bench/longstate.py" "$work/state.json" notes "$2" 1 1 1 | git fast-import --quiet &&
	for p in .git/objects/pack/pack-*.pack; do
		mv "$p" "$work/unpack.pack" && rm -f "${p%.pack}.idx" "${p%.pack}.rev" &&
		git unpack-objects -q <"$work/unpack.pack" && rm -f "$work/unpack.pack" || exit 1
	done &&
	git session switch -q notes && git session note -q "the first write in git-session's own print" &&
	git session switch -q long && git session note -q "the first write in git-session's own print")
}
echo
echo "long sessions: notes, decisions and errors at 10 and at $long entries, each after $hist checkpoints;"
echo "status and resume on a session of 10 and of $long notes"
long_repo "$work/l-short" 10
long_repo "$work/l-long" "$long"
loose=$(find "$work/l-long/.git/objects" -type f -path '*/objects/??/*' | wc -l)
timeit "$runs" \
	git -C "$work/l-short" session note -q bench :: git -C "$work/l-long" session note -q bench :: \
	git -C "$work/l-short" session decide -q bench :: git -C "$work/l-long" session decide -q bench :: \
	git -C "$work/l-short" session error add -q --type runtime --message bench :: \
	git -C "$work/l-long" session error add -q --type runtime --message bench :: \
	git -C "$work/l-short" session set -q bench 1 :: git -C "$work/l-long" session set -q bench 1 :: \
	git -C "$work/l-short" session status notes :: git -C "$work/l-long" session status notes :: \
	git -C "$work/l-short" session resume --dry-run --json notes :: \
	git -C "$work/l-long" session resume --dry-run --json notes >"$work/ltimes"
lm () { sed -n "${1}p" "$work/ltimes" | cut -d' ' -f"${2:-1}"; }
row "note, 10 / $long notes" "$(lm 1) / $(lm 2)"
row "decide, 10 / $long decisions" "$(lm 3) / $(lm 4)"
row "error add, 10 / $long errors" "$(lm 5) / $(lm 6)"
row "set, 10 / $long entries each" "$(lm 7) / $(lm 8)"
row "status, 10 / $long notes" "$(lm 9) / $(lm 10)"
row "resume --dry-run, 10 / $long notes" "$(lm 11) / $(lm 12)"
printf '  %-46s %9s KiB\n' "memory peak, note: 10 / $long notes" "$(lm 1 3) / $(lm 2 3)"
printf '  %-46s %9s\n' "loose objects in the long session's repository" "$loose"
echo
echo "  ratio                                             value   target"
check "note at $long / at 10 notes" "$(ratio "$(lm 2)" "$(lm 1)")" "<=" 1.1
check "decide at $long / at 10 decisions" "$(ratio "$(lm 4)" "$(lm 3)")" "<=" 1.1
check "error add at $long / at 10 errors" "$(ratio "$(lm 6)" "$(lm 5)")" "<=" 1.1
check "note / set, $long entries" "$(ratio "$(lm 2)" "$(lm 8)")" "<=" 1.2
check "decide / set, $long entries" "$(ratio "$(lm 4)" "$(lm 8)")" "<=" 1.2
check "error add / set, $long entries" "$(ratio "$(lm 6)" "$(lm 8)")" "<=" 1.2
check "status, $long notes / 10" "$(ratio "$(lm 10)" "$(lm 9)")" "<=" 1.5
check "resume --dry-run, $long notes / 10" "$(ratio "$(lm 12)" "$(lm 11)")" "<=" 1.5
check "memory peak of a note, $long / 10 notes" "$(ratio "$(lm 2 3)" "$(lm 1 3)")" "<=" 1.2

# Concurrency: writers racing on one session, and on a session each (one
# worktree each); the same number of checkpoints as one writer takes.
echo
echo "concurrency: 8 writers, $per_writer checkpoints each, against one writer"
git init -q -b main "$work/conc"
(cd "$work/conc" && git config gc.auto 0 && git commit -q --allow-empty -m initial &&
 git session start race --id race -q &&
 for w in 1 2 3 4 5 6 7 8; do
	git worktree add -q "$work/conc-w$w" && git -C "$work/conc-w$w" session start "w$w" --id "w$w" -q
 done)
cat >"$work/writers.sh" <<'WRITERS'
# writers.sh <count> <dir>...: one writer per dir, count notes each
n=$1 pids= && shift
for d
do
	(i=0; while test $i -lt $n; do git -C "$d" session note -q "$i" || exit 1; i=$((i + 1)); done) &
	pids="$pids $!"
done
for p in $pids; do wait $p || exit 1; done
WRITERS
c=$work/conc
timeit "$conc_runs" \
	sh "$work/writers.sh" $((per_writer * 8)) "$c" :: \
	sh "$work/writers.sh" "$per_writer" "$c" "$c" "$c" "$c" "$c" "$c" "$c" "$c" :: \
	sh "$work/writers.sh" "$per_writer" "$c-w1" "$c-w2" "$c-w3" "$c-w4" "$c-w5" "$c-w6" "$c-w7" "$c-w8" \
	>"$work/ctimes"
cm () { sed -n "${1}p" "$work/ctimes" | cut -d' ' -f1; }
written=$(( $(git -C "$c" rev-list --count refs/sessions/race) - 1 ))
expected=$((conc_runs * per_writer * 8 * 2))
row "1 writer, $((per_writer * 8)) checkpoints" "$(cm 1)"
row "8 writers, one session" "$(cm 2)"
row "8 writers, 8 sessions" "$(cm 3)"
echo "  ($written checkpoints on the shared session, $expected written)"
echo
echo "  ratio                                             value   target"
check "8 writers on one session / one writer" "$(ratio "$(cm 1)" "$(cm 2)")" ">=" 0.5
check "8 writers on 8 sessions / one writer" "$(ratio "$(cm 1)" "$(cm 3)")" ">=" 1.5
check "checkpoints lost" "$((expected - written))" "<=" 0

# Storage: a typical session of 10 phases and 50 agents taken through
# $stored checkpoints by the commands, then git gc.
echo
echo "storage: $stored checkpoints of a session of 10 phases and 50 agents, after git gc"
git init -q -b main "$work/store"
(cd "$work/store" && git config gc.auto 0 && git commit -q --allow-empty -m initial &&
 "$python" "$top/bench/story.py" "$stored" >"$work/story.sh" && sh "$work/story.sh" && git gc -q)
sref=$(git -C "$work/store" for-each-ref --format='%(refname)' refs/sessions/)
taken=$(git -C "$work/store" rev-list --count "$sref")
disk=$(git -C "$work/store" rev-list --objects "$sref" | cut -d' ' -f1 |
	git -C "$work/store" cat-file --batch-check='%(objectsize:disk)' | awk '{ s += $1 } END { print s }')
asfiles=$(git -C "$work/store" rev-list "$sref" | sed 's/$/:session.json/' |
	git -C "$work/store" cat-file --batch-check='%(objectsize)' | awk '{ s += $1 } END { print s }')
last=$(git -C "$work/store" cat-file -s "$sref:session.json")
printf '  %-46s %9s B\n' "per checkpoint, in git after gc ($taken)" "$((disk / taken))"
printf '  %-46s %9s B\n' "per checkpoint, each version kept as a file" "$((asfiles / taken))"
printf '  %-46s %9s B\n' "what the source documents keep: the last one" "$last"
echo
echo "  figure                                            value   target"
check "bytes per checkpoint after git gc" "$((disk / taken))" "<=" 1024

# blame: a 5,000-line file changed by 100 commits of a session, each by
# one of five agents, against git blame of the same file.
echo
echo "blame: a 5,000-line file, 100 commits recorded by the hooks, five agents"
git init -q -b main "$work/blame"
(cd "$work/blame" && git config gc.auto 0 &&
 seq 1 5000 | sed 's/^/line /' >big.c && git add big.c && git commit -q -m base &&
 git session start "blame bench" --id bb -q --phase Build && git session hooks install >/dev/null &&
 git session phase start 1 -q &&
 for a in 0 1 2 3 4; do git session agent start a$a --type coder --task "part $a" -q; done &&
 for i in $(seq 1 100)
 do
	sed -i "$((i * 50))s/.*/changed by commit $i/" big.c &&
	git session file modified --agent a$((i % 5)) -q big.c && git commit -q -am "c$i" || exit 1
 done)
timeit "$runs" git -C "$work/blame" session blame big.c :: git -C "$work/blame" blame big.c >"$work/bltimes"
bl () { sed -n "${1}p" "$work/bltimes" | cut -d' ' -f1; }
row "session blame / git blame, 5,000 lines" "$(bl 1) / $(bl 2)"
check "session blame, 5,000 lines (ms)" "$(bl 1)" "<=" 500

# Resume on large repositories: cost must follow the manifest, not the
# repository. Generated repositories, files 100 to a folder.
echo
echo "resume on generated repositories of $big and 1,000 files"
make_repo "$work/big" "$big"
make_repo "$work/small" 1000
sleep 2	# files recorded in the second they were written get no stat cache (racy)
for r in big small
do
	(cd "$work/$r" && git session start resume-bench --id resume-bench -q &&
	 git ls-files | head -n 50 | xargs git session file created -q)
done
wide=$((big / 20))	# a manifest of 5 % of the repository
(cd "$work/big" && git session start wide --id wide -q --pause-current &&
 git ls-files | head -n "$wide" | xargs git session file created -q)
(cd "$work/big" && git status >/dev/null)	# a warm index, as a user's would be
timeit "$runs" \
	git -C "$work/big" status :: \
	git -C "$work/big" session resume --dry-run --json resume-bench :: \
	git -C "$work/big" session resume --dry-run --json wide :: \
	git -C "$work/small" status >"$work/rtimes"
# flatness: the same resume on both repositories, as a pair of its own
timeit "$runs" \
	git -C "$work/big" session resume --dry-run --json resume-bench :: \
	git -C "$work/small" session resume --dry-run --json resume-bench >>"$work/rtimes"
r () { sed -n "${1}p" "$work/rtimes" | cut -d' ' -f1; }
gstatus=$(r 1) rbig=$(r 2) rwide=$(r 3) gsmall=$(r 4) pbig=$(r 5) psmall=$(r 6)
hashed=$(git -C "$work/big" session resume --dry-run --json wide |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["manifest"]["hashed"])')
row "git status, $big files" "$gstatus"
row "git status, 1,000 files" "$gsmall"
row "resume --dry-run, 50-file manifest, $big files" "$rbig"
row "resume --dry-run, 50-file manifest, 1,000 files" "$psmall"
row "   the same pair, $big files (measured together)" "$pbig"
row "resume --dry-run, $wide-file manifest ($hashed read)" "$rwide"
echo
echo "  ratio                                             value   target"
check "resume (50) / git status, $big files" "$(ratio "$rbig" "$gstatus")" "<=" 0.3
check "resume (50): $big / 1,000 files" "$(ratio "$pbig" "$psmall")" "<=" 1.25
check "resume (50): 1,000 / $big files" "$(ratio "$psmall" "$pbig")" "<=" 1.25
check "resume ($wide unchanged) / git status" "$(ratio "$rwide" "$gstatus")" "<=" 1.0

# Agent hooks: what one event of an agent's own hooks adds, against the
# same hook doing nothing (a process that reads the payload and exits).
echo
echo "agent hooks: the time one event adds (the hook less a hook doing nothing), flat in"
echo "the repository's size, the transcript's length and the session's notes"
agent_payload () {	# file event session-id transcript extra
	printf '{"session_id":"%s","transcript_path":"%s","hook_event_name":"%s"%s}' "$3" "$4" "$2" "$5" >"$1"
}
line='{"type":"assistant","message":{"id":"msg_%s","role":"assistant","content":[{"type":"text","text":"some text of the answer"}],"usage":{"input_tokens":100,"output_tokens":20}}}\n'
awk -v n="$long" -v l="$line" 'BEGIN { for (i = 0; i < n; i++) printf l, i }' >"$work/t-long.jsonl"
awk -v l="$line" 'BEGIN { for (i = 0; i < 10; i++) printf l, i }' >"$work/t-short.jsonl"
for r in small big l-short l-long
do
	sid="bench-$r"
	agent_payload "$work/p-$r-prompt" UserPromptSubmit "$sid" "$work/t-$r.jsonl" ',"prompt":"carry on with the plan"'
	agent_payload "$work/p-$r-write" PostToolUse "$sid" "$work/t-$r.jsonl" \
		",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$work/$r/agent-file.c\"},\"tool_response\":{\"type\":\"update\"}"
	agent_payload "$work/p-$r-pre" PreToolUse "$sid" "$work/t-$r.jsonl" ',"tool_name":"Write","tool_input":{}'
	echo "int x;" >"$work/$r/agent-file.c"
	(cd "$work/$r" && git-session hook claude-code UserPromptSubmit <"$work/p-$r-prompt")	# attaches the agent
done
for r in short long
do
	agent_payload "$work/p-t$r-stop" Stop "bench-l-$r" "$work/t-$r.jsonl" ''
	(cd "$work/l-$r" && git-session hook claude-code Stop <"$work/p-t$r-stop")	# the transcript read once
done
git -C "$work/l-long" config session.enforceBudget true
hook_run () {	# repo event prefix payload
	echo "cd $work/$1 && ${3:-} exec git-session hook claude-code $2 <$4" >"$work/h-$1-$2.sh"
}
printf 'exec cat >/dev/null <%s\n' "$work/p-small-prompt" >"$work/h-nothing.sh"
addl () { printf "printf '%s\\\\n' >>%s &&" "$(printf "$line" "new$1" | tr -d '\n')" "$work/t-$1.jsonl"; }
for r in small big l-short l-long
do
	hook_run "$r" UserPromptSubmit "" "$work/p-$r-prompt"
	hook_run "$r" PostToolUse "" "$work/p-$r-write"
done
hook_run l-short Stop "$(addl short)" "$work/p-tshort-stop"
hook_run l-long Stop "$(addl long)" "$work/p-tlong-stop"
hook_run l-long PreToolUse "" "$work/p-l-long-pre"
git -C "$work/l-long" session tokens budget 1000000000000 -q
timeit -d "$runs" sh "$work/h-nothing.sh" :: sh "$work/h-l-short-UserPromptSubmit.sh" :: \
	sh "$work/h-nothing.sh" :: sh "$work/h-l-long-UserPromptSubmit.sh" :: \
	sh "$work/h-nothing.sh" :: sh "$work/h-small-PostToolUse.sh" :: \
	sh "$work/h-nothing.sh" :: sh "$work/h-big-PostToolUse.sh" :: \
	sh "$work/h-nothing.sh" :: sh "$work/h-l-short-Stop.sh" :: \
	sh "$work/h-nothing.sh" :: sh "$work/h-l-long-Stop.sh" :: \
	sh "$work/h-nothing.sh" :: sh "$work/h-l-long-PreToolUse.sh" >"$work/atimes"
am () { sed -n "${1}p" "$work/atimes" | cut -d' ' -f1; }
row "a hook doing nothing" "$(am 1)"
row "prompt note, 10 / $long notes" "$(am 2) / $(am 4)"
row "file written, 1,000 / $big files" "$(am 6) / $(am 8)"
row "end of turn, 10 / $long-line transcript" "$(am 10) / $(am 12)"
row "tool call, budget checked, $long notes" "$(am 14)"
echo
echo "  figure (ms added, paired run by run)              value   target"
check "prompt note, 10 notes" "$(am 15)" "<=" 10
check "prompt note, $long notes" "$(am 16)" "<=" 10
check "file written, 1,000 files" "$(am 17)" "<=" 10
check "file written, $big files" "$(am 18)" "<=" 10
check "end of turn, 10-line transcript" "$(am 19)" "<=" 10
check "end of turn, $long-line transcript" "$(am 20)" "<=" 10
check "tool call with the budget enforced" "$(am 21)" "<=" 10
check "prompt note: $long / 10 notes" "$(ratio "$(am 4)" "$(am 2)")" "<=" 1.25
check "end of turn: $long / 10 lines" "$(ratio "$(am 12)" "$(am 10)")" "<=" 1.25
# The hooks against their targets: git commit at 1,000 and 100,000 files,
# each agent event replayed, a real agent CLI run (bench/hooks.sh).
echo
BENCH_VERDICTS="$work/verdicts" sh "$top/bench/hooks.sh" ${1:-}
# push and pull with 10,000 and 100,000 sessions against plain git (bench/sync.sh).
echo
BENCH_VERDICTS="$work/verdicts" sh "$top/bench/sync.sh" ${1:-}
echo
echo "$(grep -c '^PASS' "$work/verdicts" || true) of $(wc -l <"$work/verdicts") figures reach their targets"
grep '^FAIL' "$work/verdicts" | sed 's/^FAIL /  FAIL: /' || true
