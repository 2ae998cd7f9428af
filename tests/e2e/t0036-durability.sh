#!/bin/sh
test_description='durability: checkpoints follow core.fsync and core.fsyncMethod as git commits do; session.fsync asks for more'
. ./lib.sh

# syncs <file> <command>...: the command's fsyncs, syncfs calls and renames, with paths, in order
syncs () {
	out=$1 && shift &&
	# LeakSanitizer cannot run under ptrace: a sanitized build leaves leaks to the other tests
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -y -o "$out.raw" -e trace=fsync,fdatasync,syncfs,rename,renameat,renameat2 "$@" >/dev/null
	rc=$?
	grep -v -e "^[0-9]* +++" -e "^[0-9]* ---" -e "resumed>" "$out.raw" >"$out"
	return $rc	# a command that failed synced nothing, and proves nothing
}
# what a line of syncs' output is about
obj='/objects/(tmp_object[^/>]*|[0-9a-f]{2}/[0-9a-f]{38})>'	# a loose object, or its temporary file
objects () { grep -E "^[0-9]+ +f(data)?sync\([0-9]+<[^>]*$obj" "$1"; }
reffsyncs () { grep -E '^[0-9]+ +f(data)?sync\([0-9]+</[^>]*/(refs|logs)/' "$1"; }
barriers () { grep -E '^[0-9]+ +syncfs\(' "$1"; }
refmove () { grep -n -E 'rename(at2?)?\(.*refs/sessions/[^"]*\.lock"' "$1" | tail -1 | cut -d: -f1; }
# no line matching the pattern comes after the session's ref moved
before_ref () { n=$(refmove "$1") && test -n "$n" && ! sed -n "$((n + 1)),\$p" "$1" | grep -E "$2"; }
any_sync () { grep -E '^[0-9]+ +(f(data)?sync|syncfs)\(' "$1"; }

if ! strace -f -o /dev/null true 2>/dev/null
then
	say "# the durability tests are skipped: strace is missing or cannot trace here"
	strace_ok=
else
	strace_ok=1
fi
test_have_prereq () {	# STRACE: strace runs here
	test "$1" = STRACE && test -n "$strace_ok" && return 0
	test "$1" = STRACE && return 1
	return 0
}

test_expect_success 'setup: a session, and hooks that record commits' '
	test_tick &&
	echo one >a.txt && git add a.txt && git commit -q -m one &&
	git session start durable --id d -q &&
	git session hooks install >/dev/null
'

test_expect_success STRACE 'git'"'"'s default: no loose object and no ref is fsynced, in a checkpoint or a hooked commit' '
	syncs s git session note -q "as durable as a commit" &&
	! any_sync s &&
	echo two >a.txt && git add a.txt && test_tick &&
	syncs c git commit -q -m two &&
	! any_sync c &&
	test "$(git log -1 --format=%s SESSION_HEAD)" = "commit $(git rev-parse --short=7 HEAD): \"two\" (1 file)"
'

test_expect_success STRACE 'core.fsync=committed: objects, then the ref and its reflog, fsynced; the ref moves last' '
	syncs s git -c core.fsync=committed session note -q committed &&
	objects s >o && test_line_count -ge 3 o &&
	reffsyncs s >r && grep -q "refs/sessions/d" r && grep -q "logs/refs/sessions/d" r &&
	! barriers s &&
	before_ref s "$obj"
'

test_expect_success STRACE 'session.fsync=true asks for as much, whatever core.fsync says' '
	syncs s git -c core.fsync=none -c session.fsync=true session note -q asked &&
	objects s >o && test_line_count -ge 3 o &&
	reffsyncs s >r && grep -q "refs/sessions/d" r &&
	before_ref s "$obj"
'

test_expect_success STRACE 'core.fsync=loose-object, and the legacy core.fsyncObjectFiles: objects only' '
	syncs s git -c core.fsync=loose-object session note -q objects &&
	objects s >o && test_line_count -ge 3 o &&
	! reffsyncs s &&
	syncs l git -c core.fsyncObjectFiles=true session note -q legacy &&
	objects l >o && test_line_count -ge 3 o &&
	! reffsyncs l
'

test_expect_success STRACE 'core.fsyncMethod=batch: objects written unsynced, one barrier before the ref moves' '
	syncs s git -c core.fsync=committed -c core.fsyncMethod=batch session note -q batch &&
	! objects s &&
	barriers s >b && test_line_count = 1 b &&
	reffsyncs s >r && grep -q "refs/sessions/d" r &&
	n=$(refmove s) && b=$(grep -n -E "syncfs\(" s | cut -d: -f1) && test "$b" -lt "$n"
'

test_expect_success STRACE 'refs fsynced without objects (reference, or ref as git reads it): a barrier keeps the order' '
	for v in reference ref
	do
		syncs s git -c core.fsync=$v session note -q "$v" &&
		! objects s &&
		barriers s >b && test_line_count = 1 b &&
		reffsyncs s >r && grep -q "refs/sessions/d" r &&
		n=$(refmove s) && b=$(grep -n -E "syncfs\(" s | cut -d: -f1) && test "$b" -lt "$n" || return 1
	done
'

test_expect_success STRACE 'git'"'"'s quirks: "none" empties only last; "-x" takes from the default only; unknown names ignored' '
	syncs s git -c core.fsync=reference,none session note -q quirk1 &&
	reffsyncs s >r && test -s r && ! objects s &&
	syncs s git -c core.fsync=all,-reference session note -q quirk2 &&
	reffsyncs s >r && test -s r && objects s >o && test -s o &&
	syncs s git -c core.fsync=committed,-loose-object session note -q quirk3 &&
	reffsyncs s >r && test -s r && objects s >o && test -s o &&
	syncs s git -c core.fsync=no-such-thing,-pack session note -q quirk4 &&
	! any_sync s
'

test_expect_success STRACE 'a hooked commit under core.fsync=committed: git'"'"'s commit and the checkpoint both durable' '
	echo three >a.txt && git add a.txt && test_tick &&
	syncs c git -c core.fsync=committed commit -q -m three &&
	reffsyncs c >r && grep -q "refs/sessions/d" r && grep -q "refs/heads/main" r &&
	before_ref c "$obj"
'

test_expect_success 'every checkpoint is whole, whatever was asked' '
	git session fsck >out &&
	git fsck --no-dangling 2>&1 >/dev/null | (! grep .) &&
	test "$(git log -1 --format=%s HEAD)" = three
'

test_done
