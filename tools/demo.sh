#!/bin/sh
# demo.sh - a walk through a real session in a throw-away repository.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
PATH="$top:$PATH"
demo=$(mktemp -d "${TMPDIR:-/tmp}/git-session-demo.XXXXXX")
trap 'rm -rf "$demo"' EXIT
cd "$demo"

if test -t 1; then bold=$(printf '\033[1m') reset=$(printf '\033[m'); else bold= reset=; fi
run () {
	printf '\n%s$ %s%s\n' "$bold" "$*" "$reset"
	"$@"
}

git init -q -b main .
git config user.name "Demo User"
git config user.email demo@example.com
echo "# demo" >README.md
git add README.md
git commit -q -m "initial commit"
echo "A throw-away repository in $demo"

run git session start "Add OAuth login" --goal "Users sign in with GitHub" --phase Design --phase Implement --budget 20000
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
	'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"note_add","arguments":{"text":"retrying with a longer timeout","agent":"arch-1"}}}' >mcp-demo.txt
echo '$ git session mcp <<'"'"'EOF'"'"'   # initialize, then tools/call note_add'
git session mcp <mcp-demo.txt | sed -n 2p | cut -c1-160
rm mcp-demo.txt
echo
echo "Everything above is plain git:"
run git for-each-ref refs/sessions
run git show SESSION_HEAD:session.json
run git fsck --strict
