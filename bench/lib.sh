# lib.sh - what the bench scripts share: rows and verdicts as they print
# them, and the generated repositories they time. Sourced; $verdicts names
# the file PASS/FAIL lines go to.

# bench_start <name>: timeit built, git-session first on PATH, a work
# folder ($work, removed on exit unless BENCH_KEEP), a fixed identity, and
# where verdicts go. Needs $top.
bench_start () {
	out="$top/build/bench"
	mkdir -p "$out"
	cc -O2 -o "$out/timeit" "$top/bench/timeit.c"
	PATH="$top:$out:$PATH"
	export PATH
	work=$(mktemp -d "${TMPDIR:-/tmp}/git-session-$1.XXXXXX")
	test -n "${BENCH_KEEP:-}" || trap 'rm -rf "$work"' EXIT
	export GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=bench@example.com \
		GIT_COMMITTER_NAME=Bench GIT_COMMITTER_EMAIL=bench@example.com TZ=UTC
	verdicts=${BENCH_VERDICTS:-$work/verdicts}
}
ratio () { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
row () { printf '  %-46s %9s ms\n' "$1" "$2"; }
check () {	# name value op target
	verdict=$(awk -v v="$2" -v t="$4" -v op="$3" 'BEGIN {
		ok = (op == "<=") ? v <= t : v >= t; print ok ? "PASS" : "FAIL" }')
	printf '  %-46s %7s   %s %-5s %s\n' "$1" "$2" "$3" "$4" "$verdict"
	echo "$verdict $1" >>"$verdicts"
}
# make_repo <dir> <files>: files 100 to a folder, committed
make_repo () {
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
