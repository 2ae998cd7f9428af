#!/bin/sh
# screenshot.sh - README's picture of a page: a demo session built in a
# throw-away repository (tests/browser/session.sh), its page from
# `git session html`, and the top of it in headless chromium, light,
# 1000 px wide, written to doc/html-page.png (or the file named).
# GIT_SESSION_BIN names the folder of the git-session to run (the top of the
# tree by default); CHROMIUM the browser (/usr/bin/chromium by default).
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/doc/html-page.png}
case $out in /*) ;; *) out=$PWD/$out ;; esac
test -f "$top/tests/browser/node_modules/puppeteer-core/package.json" ||
	{ echo "screenshot: no tests/browser/node_modules: run make deps" >&2; exit 1; }
PATH="${GIT_SESSION_BIN:-$top}:$PATH"
demo=$(mktemp -d "${TMPDIR:-/tmp}/git-session-screenshot.XXXXXX")
trap 'rm -rf "$demo"' EXIT
mkdir "$demo/home" "$demo/repo"
HOME=$demo/home TZ=UTC GIT_CONFIG_NOSYSTEM=1
GIT_AUTHOR_NAME="Ada Lovelace" GIT_AUTHOR_EMAIL=ada@example.com
GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export HOME TZ GIT_CONFIG_NOSYSTEM GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
cd "$demo/repo"
git init -q -b main .
. "$top/tests/browser/session.sh"
browser_session add-oauth-login
git session html -o "$demo/page.html" -q
node "$top/tests/browser/screenshot.mjs" "$demo/page.html" "$out" 1000 1100
