#!/bin/sh
# demo.sh - a walk through two sessions in a throw-away repository: one that
# Claude Code records through its own hooks, one that an orchestrator records
# step by step. The hooks are fed the events Claude Code 2.1.330 sends,
# written below, so no agent CLI is needed and nothing is downloaded.
# KEEP=1 keeps the repository and says where it is; GIT_SESSION_BIN names
# the folder of the git-session to run (the top of the tree by default).
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
PATH="${GIT_SESSION_BIN:-$top}:$PATH"
demo=$(mktemp -d "${TMPDIR:-/tmp}/git-session-demo.XXXXXX")
if test -n "$KEEP"
then
	trap 'echo; echo "The demo repository is kept: cd $demo/repo"' EXIT
else
	trap 'rm -rf "$demo"' EXIT
fi
mkdir "$demo/repo" "$demo/events"
cd "$demo/repo"

if test -t 1; then bold=$(printf '\033[1m') reset=$(printf '\033[m'); else bold= reset=; fi
# quote <word>: the word as a shell reads it back
quote () {
	case $1 in
	'' | *[!A-Za-z0-9_./:=@%+,-]*) printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
	*) printf '%s' "$1" ;;
	esac
}
# run <command...>: prints the command, ready to paste, then runs it
run () {
	line=
	for word
	do
		line="$line${line:+ }$(quote "$word")"
	done
	printf '\n%s$ %s%s\n' "$bold" "$line" "$reset"
	"$@"
}

git init -q -b main .
git config user.name "Demo User"
git config user.email demo@example.com
echo "# demo" >README.md
git add README.md
git commit -q -m "initial commit"
echo "A throw-away repository in $demo/repo"

echo
echo "1. A Claude Code user: two commands, once per repository, then work as usual."
run git session hooks install
run git session hooks install --agent claude-code

# Claude Code keeps its transcript under $CLAUDE_CONFIG_DIR (~/.claude by
# default); the hooks read it there.
CLAUDE_CONFIG_DIR="$demo/claude"
export CLAUDE_CONFIG_DIR
sid=5e55a0c1-9d2b-4c4e-8f1a-2b7d3c9e0f11
transcript="$CLAUDE_CONFIG_DIR/projects/-demo-repo/$sid.jsonl"
mkdir -p "${transcript%/*}"
: >"$transcript"

# event <name> <fields>: the JSON Claude Code sends on the event's hook
event () {
	printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","permission_mode":"default","hook_event_name":"%s",%s}\n' \
		"$sid" "$transcript" "$PWD" "$1" "$2" >"$demo/events/$1.json"
}
# hook <name>: what Claude Code runs on the event
hook () {
	printf '%s$ git session hook claude-code %s <%s%s\n' "$bold" "$1" "$(quote "$demo/events/$1.json")" "$reset"
	git session hook claude-code "$1" <"$demo/events/$1.json"
}
# said <json lines>: what Claude Code appends to its transcript
said () { printf '%s\n' "$@" >>"$transcript"; }
line () {
	printf '{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"%s","sessionId":"%s","version":"2.1.330","gitBranch":"main","type":"%s","message":%s,"uuid":"%s","timestamp":"2026-11-21T10:%s"}' \
		"$PWD" "$sid" "$1" "$2" "$3" "$4"
}
usage='"usage":{"input_tokens":1200,"cache_creation_input_tokens":5400,"cache_read_input_tokens":0,"output_tokens":180}'

echo
echo "Claude Code now runs the hooks itself; here they are fed the events it sends:"
event SessionStart '"source":"startup","model":"claude-sonnet-4-5"'
hook SessionStart

prompt='Add a greet(name) function to greet.py'
said "$(line user "{\"role\":\"user\",\"content\":\"$prompt\"}" 7d0c0a01-0000-4000-8000-000000000001 00:01.000Z)"
event UserPromptSubmit "\"prompt\":\"$prompt\""
hook UserPromptSubmit

printf 'def greet(name):\n    return f"Hello, {name}!"\n' >greet.py
said "$(line assistant "{\"id\":\"msg_01Demo\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_01Demo\",\"name\":\"Write\",\"input\":{\"file_path\":\"$PWD/greet.py\",\"content\":\"def greet(name): ...\"}}],\"stop_reason\":null,$usage}" 7d0c0a01-0000-4000-8000-000000000002 00:04.000Z)" \
	"$(line user "{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"toolu_01Demo\",\"type\":\"tool_result\",\"content\":\"File created successfully at: $PWD/greet.py\"}]}" 7d0c0a01-0000-4000-8000-000000000003 00:04.100Z)"
event PostToolUse "\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$PWD/greet.py\",\"content\":\"def greet(name): ...\"},\"tool_response\":{\"type\":\"create\",\"filePath\":\"$PWD/greet.py\",\"content\":\"def greet(name): ...\",\"structuredPatch\":[]},\"tool_use_id\":\"toolu_01Demo\""
hook PostToolUse

reply='Added greet(name) in greet.py: it returns "Hello, <name>!".'
said "$(line assistant "{\"id\":\"msg_02Demo\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[{\"type\":\"text\",\"text\":\"Added greet(name) in greet.py: it returns \\\"Hello, <name>!\\\".\"}],\"stop_reason\":\"end_turn\",$usage}" 7d0c0a01-0000-4000-8000-000000000004 00:06.000Z)"
event Stop "\"stop_hook_active\":false,\"last_assistant_message\":\"Added greet(name) in greet.py: it returns \\\"Hello, <name>!\\\".\""
hook Stop

echo
echo "(Claude answered: $reply)"
run git add greet.py
run git commit -q -m "greet: say hello by name"
run git session status
run git session log -- --format=%s
run git session transcript

echo
echo "2. An orchestrator records its phases, agents and decisions itself:"
run git session start "Add OAuth login" --goal "Users sign in with GitHub" --phase Design --phase Implement --budget 20000 --pause-current
run git session phase start 1
run git session agent start arch-1 --type architect --task "Design the login flow"
run git session decide "Use the device flow" --rationale "works without a browser"
run git session tokens add --agent arch-1 --input 6000 --output 2500
run git session agent done arch-1 --summary "three endpoints"
run git session phase complete 1
run git session phase start 2
mkdir -p src
echo "int login(void) { return 0; }" >src/login.c
run git session file created src/login.c
run git session phase fail 2 --error "tests time out" --type timeout
run git session status
run git session pause
echo "int login(void) { return 1; }" >src/login.c
echo
echo "(src/login.c was changed behind the session's back)"
run git session resume
run git session phase retry 2
run git session tokens
run git log --format=%s SESSION_HEAD
run git session fsck
echo
echo "An agent does the same over MCP (git session mcp, JSON-RPC on stdin and stdout):"
printf '%s\n' \
	'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"demo","version":"1"}}}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"note_add","arguments":{"text":"retrying with a longer timeout","agent":"arch-1"}}}' >"$demo/mcp-demo.txt"
printf '%s$ git session mcp <%s%s   # initialize, then tools/call note_add\n' "$bold" "$(quote "$demo/mcp-demo.txt")" "$reset"
git session mcp <"$demo/mcp-demo.txt" | sed -n 2p | cut -c1-160
echo
echo "Everything above is plain git:"
run git for-each-ref refs/sessions
run git show SESSION_HEAD:session.json
run git fsck --strict
if test -z "$KEEP"
then
	echo
	echo "The demo repository is removed now; 'KEEP=1 make demo' keeps it."
fi
