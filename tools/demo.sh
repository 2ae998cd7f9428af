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

run git session start "Add OAuth login" --goal "Users sign in with GitHub" --phase Design --phase Implement
run git session note "Design approved by the team"
mkdir -p src
echo "int login(void) { return 0; }" >src/login.c
run git session checkpoint -m "first cut of login" src/login.c
run git session set review.reviewer '"alice"'
run git session get review.reviewer
run git session status
run git session log -- --format='%h %s'
run git session pause
run git session list
run git session resume
run git session close
echo
echo "Everything above is plain git:"
run git for-each-ref refs/sessions
run git show refs/sessions/$(date +%Y-%m-%d)-add-oauth-login:session.json
run git fsck --strict
