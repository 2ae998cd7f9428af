#!/bin/sh
# run.sh - make bench: git-session's figures as ratios against anchors
# measured in the same run on the same machine. Not a test: it prints.
#   sh bench/run.sh [--quick]
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
runs=41 hist=5000 big=100000
test "${1:-}" = --quick && runs=15 hist=1000 big=20000

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
row () { printf '  %-46s %9s ms\n' "$1" "$2"; }
check () {	# name value op target
	verdict=$(awk -v v="$2" -v t="$4" -v op="$3" 'BEGIN {
		ok = (op == "<=") ? v <= t : v >= t; print ok ? "PASS" : "FAIL" }')
	printf '  %-46s %7s   %s %-5s %s\n' "$1" "$2" "$3" "$4" "$verdict"
}

# A typical session: four phases, some notes and files.
git session start "bench" --phase Design --phase Build --phase Test --phase Ship -q
for i in 1 2 3 4 5; do git session note -q "note $i"; done
mkdir -p src && for i in 1 2 3; do echo "int f$i;" >src/f$i.c; done
git session checkpoint -q src/f1.c src/f2.c src/f3.c
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

# A session with a long history, and one with a short one, built with
# fast-import from the same state: a checkpoint must not cost more on
# the first.
history () {	# id count
	python3 - "$work/state.json" "$1" "$2" <<'PY' | git fast-import --quiet
import json, sys
state = json.load(open(sys.argv[1]))
state["session_id"] = sys.argv[2]
n = int(sys.argv[3])
blob = json.dumps(state, indent=2) + "\n"
print("blob\nmark :1\ndata %d\n%s" % (len(blob.encode()), blob))
for i in range(n):
    msg = "note: \"%d\"\n\nSession-Id: %s\nSession-Op: note\n" % (i, sys.argv[2])
    print("commit refs/sessions/%s\nmark :%d\ncommitter Bench <bench@example.com> %d +0000" % (sys.argv[2], i + 2, 1700000000 + i))
    print("data %d\n%s" % (len(msg.encode()), msg))
    if i:
        print("from :%d" % (i + 1))
    print("M 100644 :1 session.json\n")
PY
}
history short 50
history long "$hist"

echo "git-session bench: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "$runs interleaved runs of each command; medians"
echo
git session switch -q short
git session switch -q long
git session switch -q "$id"
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
# the history pair: the same command on two sessions, interleaved
cat >"$work/note-on.sh" <<NOTE
git session switch -q "\$1" && exec git session note -q bench
NOTE
timeit "$runs" sh "$work/note-on.sh" short :: sh "$work/note-on.sh" long >>"$work/times"
git session switch -q "$id"
m () { sed -n "${1}p" "$work/times" | cut -d' ' -f1; }
note=$(m 1) floor=$(m 2) plumb=$(m 3) py=$(m 4) get=$(m 5) init=$(m 6) noca=$(m 7) nosync=$(m 8) short=$(m 9) long=$(m 10)
row "checkpoint: git session note" "$note"
row "floor: minimal libgit2, same objects, fsync" "$floor"
row "checkpoint with session.fsync=false" "$nosync"
row "floor without the CA bundle parse" "$noca"
row "git plumbing: 6 commands (core.fsync)" "$plumb"
row "python save: read, update, .tmp, .bak, rename" "$py"
row "switch + checkpoint, 50-checkpoint session" "$short"
row "switch + checkpoint, $hist-checkpoint session" "$long"
row "read path: git session status --json" "$get"
row "libgit2 start-up alone (git_libgit2_init)" "$init"
echo
echo "  ratio                                             value   target"
check "checkpoint / floor" "$(ratio "$note" "$floor")" "<=" 1.5
check "checkpoint / git plumbing" "$(ratio "$note" "$plumb")" "<=" 1.3
check "python save / checkpoint" "$(ratio "$py" "$note")" ">=" 5
check "checkpoint at $hist / at 50 checkpoints" "$(ratio "$long" "$short")" "<=" 1.2
printf '  %-46s %7s   (for information: our cost over the true minimum)\n' \
	"checkpoint / floor without CA parse" "$(ratio "$note" "$noca")"
printf '  %-46s %7s   (for information: what durability costs)\n' \
	"checkpoint, fsync on / off" "$(ratio "$note" "$nosync")"

# Resume on large repositories: cost must follow the manifest, not the
# repository. Generated repositories, files 100 to a folder.
make_repo () {	# dir files
	git init -q -b main "$1" &&
	python3 - "$1" "$2" <<'GEN' &&
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "d%03d" % (i // 10000), "e%03d" % (i // 100 % 100))
    if i % 100 == 0:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%06d.c" % i), "w") as f:
        f.write("int f%d(void) { return %d; }\n" % (i, i))
GEN
	# no automatic gc: a background repack would land on whichever command ran next
	(cd "$1" && git config gc.auto 0 && git config maintenance.auto false &&
	 git add -A && git commit -q -m "generated")
}
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
(cd "$work/big" && git session start wide --id wide -q --pause-current &&
 git ls-files | head -n 5000 | xargs git session file created -q)
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
row "resume --dry-run, 5,000-file manifest ($hashed read)" "$rwide"
echo
echo "  ratio                                             value   target"
check "resume (50) / git status, $big files" "$(ratio "$rbig" "$gstatus")" "<=" 0.3
check "resume (50): $big / 1,000 files" "$(ratio "$pbig" "$psmall")" "<=" 1.25
check "resume (50): 1,000 / $big files" "$(ratio "$psmall" "$pbig")" "<=" 1.25
check "resume (5,000 unchanged) / git status" "$(ratio "$rwide" "$gstatus")" "<=" 1.0

# Hooks: what they add to one git commit, with an active session.
echo
echo "hooks: the time they add to git commit (a one-line change staged each time)"
cat >"$work/commit.sh" <<'COMMIT'
cd "$1" && echo "$$" >>bench-file && git add bench-file && shift && exec git "$@" commit -q -m bench
COMMIT
for r in big small
do
	(cd "$work/$r" && git session start hooks-bench --id hooks-bench -q --pause-current &&
	 git session hooks install >/dev/null)
done
timeit "$runs" \
	sh "$work/commit.sh" "$work/big" -c core.hooksPath=/nonexistent :: \
	sh "$work/commit.sh" "$work/big" :: \
	sh "$work/commit.sh" "$work/small" -c core.hooksPath=/nonexistent :: \
	sh "$work/commit.sh" "$work/small" >"$work/htimes"
h () { sed -n "${1}p" "$work/htimes" | cut -d' ' -f1; }
bare_big=$(h 1) hooked_big=$(h 2) bare_small=$(h 3) hooked_small=$(h 4)
added_big=$(awk -v a="$hooked_big" -v b="$bare_big" 'BEGIN { printf "%.3f", a - b }')
added_small=$(awk -v a="$hooked_small" -v b="$bare_small" 'BEGIN { printf "%.3f", a - b }')
checkpoints=$(git -C "$work/small" log --format=%s refs/sessions/hooks-bench | grep -c "^commit [0-9a-f]*: " || true)
row "git commit, $big files, no hooks" "$bare_big"
row "git commit, $big files, git-session hooks" "$hooked_big"
row "git commit, 1,000 files, no hooks" "$bare_small"
row "git commit, 1,000 files, git-session hooks" "$hooked_small"
echo "  ($checkpoints commits were recorded, one checkpoint each, on the 1,000-file repository)"
echo
echo "  figure                                            value   target"
check "time hooks add, 1,000 files (ms)" "$added_small" "<=" 30
check "time hooks add, $big files (ms)" "$added_big" "<=" 30
check "added time: $big / 1,000 files" "$(ratio "$added_big" "$added_small")" "<=" 1.3
