#!/bin/sh
# deps.sh - installs what git-session needs, when it is missing. Uses sudo
# only when not root.
#
#   sh tools/deps.sh           everything the tests need (make deps, make test, CI)
#   sh tools/deps.sh --build   only what building and `make demo` need: Debian
#                              packages, nothing from npm
set -e
case $1 in
--build) only_build=1 ;;
'') only_build= ;;
*) echo "usage: sh tools/deps.sh [--build]" >&2; exit 129 ;;
esac

# what `make` and the demo need
pkgs="libgit2-dev libyaml-dev libcjson-dev pkg-config git make gcc"
# strace and openssh-client for the tests of restore killed mid-way and of
# signed checkpoints; clang for the fuzzers; chromium for the tests of the
# HTML page in a real browser
test -n "$only_build" ||
	pkgs="$pkgs libcmocka-dev python3 python3-yaml clang libclang-rt-14-dev strace openssh-client chromium"
missing=
for p in $pkgs
do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if test -z "$missing"
then
	echo "deps: all Debian packages present"
else
	if test "$(id -u)" = 0
	then
		SUDO=
	else
		SUDO=sudo
	fi
	echo "deps: installing$missing"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi
test -z "$only_build" || exit 0

# The MCP end-to-end tests use the official TypeScript SDK, from npm, when
# Node.js is here; without it they are skipped, saying so.
top=$(cd "$(dirname "$0")/.." && pwd)
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1
then
	if test -d "$top/tests/mcp/node_modules/@modelcontextprotocol/sdk"
	then
		echo "deps: the MCP SDK is present"
	else
		echo "deps: installing the MCP SDK for the tests (npm ci)"
		(cd "$top/tests/mcp" && npm ci --no-audit --no-fund --loglevel=error)
	fi
	# The HTML page's tests drive Debian's chromium with puppeteer-core (pinned in
	# tests/browser/package-lock.json), which downloads no browser.
	if test -f "$top/tests/browser/node_modules/puppeteer-core/package.json"
	then
		echo "deps: puppeteer-core is present"
	else
		echo "deps: installing puppeteer-core for the tests (npm ci)"
		(cd "$top/tests/browser" && npm ci --no-audit --no-fund --loglevel=error) ||
			echo "deps: could not install puppeteer-core: the browser tests will be skipped"
	fi
	# The agent hooks' end-to-end tests run the real CLIs (pinned in
	# tests/agents/package-lock.json) offline, against a scripted model.
	missing_cli=
	for cli in @anthropic-ai/claude-code @google/gemini-cli @openai/codex @qwen-code/qwen-code @github/copilot opencode-ai
	do
		test -f "$top/tests/agents/node_modules/$cli/package.json" || missing_cli="$missing_cli $cli"
	done
	if test -z "$missing_cli"
	then
		echo "deps: the agent CLIs are present"
	else
		# the versions package-lock.json pins; not `npm ci`, which refuses a lock that names
		# other platforms' optional packages a registry mirror may not carry
		echo "deps: installing the agent CLIs for the tests (npm install, as locked):$missing_cli"
		(cd "$top/tests/agents" && npm install --no-save --no-audit --no-fund --loglevel=error) ||
			echo "deps: could not install the agent CLIs: their tests will be skipped"
	fi
else
	echo "deps: no Node.js: the MCP, browser and agent CLI end-to-end tests will be skipped"
fi
