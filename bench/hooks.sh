#!/bin/sh
# hooks.sh - what git-session's hooks cost, against anchors measured in the
# same run: the time the git hooks add to `git commit` at 1,000 and 100,000
# files (a plain `git commit` the anchor, hooks that do nothing beside), the
# fsyncs of a checkpoint, and each agent hook event replayed from payloads
# in the shapes Claude Code and Gemini CLI send (a turn's transcript as
# Claude Code writes it) against a hook that only reads its payload; then
# bench/agents.sh, a real agent CLI run, when it is there.
# Not a test: it prints. run.sh runs it; alone:
#   sh bench/hooks.sh [--quick]      (BENCH_VERDICTS: a file PASS/FAIL lines go to)
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
quick=${1:-}
runs=21 big=${BENCH_BIG:-100000} target=10
label=$(printf "%d" "$big" | sed -e :a -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/; ta')
test "$quick" = --quick && runs=9

. "$top/bench/lib.sh"
bench_start hooks
cc -O2 -o "$out/fsprobe" "$top/bench/fsprobe.c"

# git commit, with the hooks and an active session, at two sizes.
echo "git hooks: the time they add to git commit, a one-line change staged each time"
echo "(paired run by run: each hooked commit less the bare one just before it; $runs runs)"
make_repo "$work/small" 1000
make_repo "$work/big" "$big"
for r in small big
do
	(cd "$work/$r" && git session start hooks-bench --id hooks-bench -q &&
	 git session hooks install >/dev/null && git status >/dev/null)
done
mkdir -p "$work/trivial-hooks"
for hk in commit-msg post-commit post-checkout post-rewrite
do
	printf '#!/bin/sh\nexit 0\n' >"$work/trivial-hooks/$hk" && chmod +x "$work/trivial-hooks/$hk"
done
cat >"$work/commit.sh" <<'COMMIT'
cd "$1" && echo "$$" >>bench-file && git add bench-file && shift && exec git "$@" commit -q -m bench
COMMIT
c () { echo sh "$work/commit.sh" "$work/$1" ${2:+-c core.hooksPath=$2}; }
timeit -d "$runs" \
	$(c small /nonexistent) :: $(c small) :: $(c small "$work/trivial-hooks") :: $(c small) :: \
	$(c big /nonexistent) :: $(c big) :: $(c big "$work/trivial-hooks") :: $(c big) >"$work/ctimes"
ct () { sed -n "${1}p" "$work/ctimes" | cut -d' ' -f1; }
recorded=$(git -C "$work/small" log --format=%s refs/sessions/hooks-bench | grep -c '^commit [0-9a-f]*: ' || true)
row "git commit, 1,000 files: bare / do-nothing hooks" "$(ct 1) / $(ct 3)"
row "git commit, 1,000 files, git-session hooks" "$(ct 2)"
row "git commit, $label files: bare / do-nothing hooks" "$(ct 5) / $(ct 7)"
row "git commit, $label files, git-session hooks" "$(ct 6)"
echo "  ($recorded commits recorded on the 1,000-file repository, one checkpoint each)"
echo
echo "  figure (ms added, paired run by run)              value   target"
check "time the git hooks add, 1,000 files" "$(ct 9)" "<=" "$target"
check "time the git hooks add, $label files" "$(ct 11)" "<=" "$target"
cpu () { sed -n "${1}p" "$work/ctimes" | cut -d' ' -f2; }
printf '  %-46s %7s   (for information: CPU time they add, all processes)\n' \
	"the same in CPU time, 1,000 / $label files" "$(cpu 9) / $(cpu 11)"
printf '  %-46s %7s   (for information: over hooks that do nothing;\n' \
	"git-session's part, 1,000 / $label files" "$(ct 10) / $(ct 12)"
printf '  %-46s %7s    CPU ms)\n' "" "$(cpu 10) / $(cpu 12)"
printf '  %-46s %7s   (for information)\n' "added / a bare commit, $label files" "$(ratio "$(ct 11)" "$(ct 5)")"

# The fsyncs of one checkpoint, as git's settings ask (strace, when it runs here).
echo
echo "fsyncs of one checkpoint (git session note), and of one hooked git commit, all processes"
if strace -f -o /dev/null true 2>/dev/null
then
	nsync () { strace -f -c -e trace=fsync,fdatasync,syncfs "$@" 2>&1 >/dev/null |
		awk '$NF ~ /^(fsync|fdatasync|syncfs)$/ { n += $4 } END { print n + 0 }'; }
	printf '  %-46s %9s\n' "git's default (no core.fsync)" "$(nsync git -C "$work/small" session note -q fsyncs)"
	printf '  %-46s %9s\n' "core.fsync=committed" "$(nsync git -C "$work/small" -c core.fsync=committed session note -q fsyncs)"
	printf '  %-46s %9s\n' "core.fsync=committed, core.fsyncMethod=batch" \
		"$(nsync git -C "$work/small" -c core.fsync=committed -c core.fsyncMethod=batch session note -q fsyncs)"
	printf '  %-46s %9s\n' "session.fsync=true" "$(nsync git -C "$work/small" -c session.fsync=true session note -q fsyncs)"
	printf '  %-46s %9s\n' "hooked git commit, git's default" "$(nsync sh "$work/commit.sh" "$work/small")"
	printf '  %-46s %9s\n' "the same, bare" "$(nsync sh "$work/commit.sh" "$work/small" -c core.hooksPath=/nonexistent)"
	printf '  %-46s %9s\n' "hooked git commit, core.fsync=committed" \
		"$(nsync sh "$work/commit.sh" "$work/small" -c core.fsync=committed)"
	printf '  %-46s %9s\n' "the same, bare" \
		"$(nsync sh "$work/commit.sh" "$work/small" -c core.fsync=committed -c core.hooksPath=/nonexistent)"
else
	echo "  skipped: strace is not installed or cannot trace here"
fi

# Agent hook events, replayed: each event of a Claude Code turn (with a
# sub-agent, a shell command and a compaction) and of a Gemini CLI turn,
# in the order the CLIs send them, run by run; each against a hook that
# only reads its payload (after the same preparation: the turn appended to
# the transcript, or read and dropped).
echo
echo "agent hooks: each event replayed from payloads in the agents' shapes (one Claude Code"
echo "turn: ~130 KB of transcript, as Claude Code 2.1 writes it), less a hook that reads its payload"
a="$work/agents" home="$work/home"
git init -q -b main "$a"
(cd "$a" && git config gc.auto 0 && echo "int x;" >agent-file.c && git add -A && git commit -q -m initial)
sid=5b1e0c3a-0000-4000-8000-00000000bench
proj="$home/.claude/projects/bench"
T="$proj/$sid.jsonl" S="$proj/$sid/subagents/agent-sub0bench.jsonl"
G="$home/.gemini/tmp/bench/chats/session-bench.jsonl"
mkdir -p "$(dirname "$S")" "$(dirname "$G")" "$work/turns"
: >"$T" && : >"$S"
for i in $(seq 0 $((runs + 2)))
do
	python3 "$top/bench/claude_turn.py" "$work/turns/$i.jsonl" "$i" "$a" "$sid"
done
printf '%s\n' '{"sessionId":"gemini-bench","startTime":"2025-11-21T10:00:00.000Z","kind":"main"}' \
	'{"$set":{"messages":[{"id":"m1","timestamp":"2025-11-21T10:00:00.000Z","type":"user","content":[{"text":"write notes"}]},{"id":"m2","timestamp":"2025-11-21T10:00:01.000Z","type":"gemini","content":"Wrote it.","tokens":{"input":900,"output":40,"cached":0,"thoughts":0,"tool":0,"total":940}}]}}' >"$G"
claude_payload () {	# name event extra
	printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","permission_mode":"bypassPermissions","hook_event_name":"%s"%s}' \
		"$sid" "$T" "$a" "$2" "$3" >"$work/p-$1.json"
}
gemini_payload () {	# name event extra
	printf '{"session_id":"gemini-bench","transcript_path":"%s","cwd":"%s","hook_event_name":"%s","timestamp":"2025-11-21T10:00:00.000Z"%s}' \
		"$G" "$a" "$2" "$3" >"$work/p-$1.json"
}
claude_payload start SessionStart ',"source":"startup"'
claude_payload prompt UserPromptSubmit ',"prompt":"add the next function and its test"'
claude_payload pre PreToolUse ",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$a/agent-file.c\",\"content\":\"int x;\"}"
claude_payload write PostToolUse ",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$a/agent-file.c\",\"content\":\"int x;\"},\"tool_response\":{\"type\":\"update\",\"filePath\":\"$a/agent-file.c\"}"
claude_payload bash PostToolUse ',"tool_name":"Bash","tool_input":{"command":"make test","description":"run the tests"},"tool_response":{"stdout":"ok","stderr":"","interrupted":false,"isImage":false}'
claude_payload substart SubagentStart ',"agent_id":"sub0bench","agent_type":"general-purpose"'
claude_payload substop SubagentStop ",\"agent_id\":\"sub0bench\",\"agent_type\":\"general-purpose\",\"stop_hook_active\":false,\"agent_transcript_path\":\"$S\",\"last_assistant_message\":\"Sub-agent finished.\""
claude_payload stop Stop ',"stop_hook_active":false,"last_assistant_message":"Added the function and its test."'
claude_payload compact PreCompact ',"trigger":"auto","custom_instructions":""'
claude_payload end SessionEnd ',"reason":"other"'
gemini_payload gstart SessionStart ',"source":"startup"'
gemini_payload gprompt BeforeAgent ',"prompt":"write notes into notes.md"'
gemini_payload gpre BeforeTool ",\"tool_name\":\"write_file\",\"tool_input\":{\"file_path\":\"$a/agent-file.c\",\"content\":\"int x;\"}"
gemini_payload gwrite AfterTool ",\"tool_name\":\"write_file\",\"tool_input\":{\"file_path\":\"$a/agent-file.c\",\"content\":\"int x;\"},\"tool_response\":{\"llmContent\":\"Successfully wrote\"}"
gemini_payload gstop AfterAgent ',"prompt":"write notes into notes.md","prompt_response":"Wrote it.","stop_hook_active":false'
gemini_payload gcompact PreCompress ',"trigger":"auto"'
gemini_payload gend SessionEnd ',"reason":"exit"'
# step.sh <agent> <event> <payload> <grow: transcript to append a turn to, or -> <hook|nothing>
cat >"$work/step.sh" <<STEP
cd "$a" && HOME="$home" && export HOME
if test "\$4" != -
then
	n=\$(cat "\$4.n" 2>/dev/null || echo 0)
	echo \$((n + 1)) >"\$4.n"
	if test "\$5" = hook; then cat "$work/turns/\$n.jsonl" >>"\$4"; else cat "$work/turns/\$n.jsonl" >/dev/null; fi
fi
test "\$5" = hook && exec git-session hook "\$1" "\$2" <"\$3"
exec cat "\$3" >/dev/null
STEP
events="claude-code:SessionStart:start:- claude-code:UserPromptSubmit:prompt:- claude-code:PreToolUse:pre:-
claude-code:PostToolUse:write:- claude-code:PostToolUse:bash:- claude-code:SubagentStart:substart:-
claude-code:SubagentStop:substop:S claude-code:Stop:stop:T claude-code:PreCompact:compact:-
claude-code:SessionEnd:end:- gemini-cli:SessionStart:gstart:- gemini-cli:BeforeAgent:gprompt:-
gemini-cli:BeforeTool:gpre:- gemini-cli:AfterTool:gwrite:- gemini-cli:AfterAgent:gstop:-
gemini-cli:PreCompress:gcompact:- gemini-cli:SessionEnd:gend:-"
set --
for e in $events
do
	IFS=: read -r agent event p grow <<-EOF
	$e
	EOF
	# the do-nothing runs keep a count of their own: each hook run appends the next turn
	case $grow in T) grow=$T.pair ;; S) grow=$S.pair ;; esac
	test $# = 0 || set -- "$@" ::
	set -- "$@" sh "$work/step.sh" "$agent" "$event" "$work/p-$p.json" "$grow" nothing ::
	set -- "$@" sh "$work/step.sh" "$agent" "$event" "$work/p-$p.json" "${grow%.pair}" hook
done
mkdir "$a/.git/probe" && fsprobe "$a/.git/probe" >"$work/probe"
timeit -d "$runs" "$@" >"$work/atimes"
nev=$(echo $events | wc -w)
i=0
echo "  event (ms added, paired run by run)              value   target     (CPU ms)"
for e in $events
do
	i=$((i + 1))
	name=$(echo "$e" | cut -d: -f1-3 | sed 's/:/ /; s/:/ (/; s/$/)/')
	read -r ms cpums <<-EOF
	$(sed -n "$((2 * nev + i))p" "$work/atimes")
	EOF
	check "$name" "$ms" "<=" "$target" | sed "s/\$/   ($cpums)/"
done
turns=$(wc -l <"$T")
echo "  (the session: $(git -C "$a" rev-list --count SESSION_HEAD 2>/dev/null || echo 0) checkpoints;" \
	"the main transcript $((($(wc -c <"$T") + 1023) / 1024)) KiB, $turns lines;"
echo "   a new file in the repository's .git before the replay: $(cat "$work/probe") us)"

# A real agent CLI run through a timing wrapper, when the bench has one.
echo
if test -f "$top/bench/agents.sh"
then
	sh "$top/bench/agents.sh" $quick
else
	echo "agent hooks in a real agent CLI run: skipped (no bench/agents.sh)"
fi
if test -z "${BENCH_VERDICTS:-}"
then
	echo
	echo "$(grep -c '^PASS' "$verdicts" || true) of $(wc -l <"$verdicts") figures reach their targets"
	grep '^FAIL' "$verdicts" | sed 's/^FAIL /  FAIL: /' || true
fi
