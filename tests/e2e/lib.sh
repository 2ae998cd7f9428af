# lib.sh - the end-to-end test library, in the manner of git's test-lib.sh.
# A test script sets test_description, sources this file, runs
# test_expect_success blocks and ends with test_done. Each script runs in
# its own trash directory, a fresh `git init` repository, with a fixed
# time zone, home, identity and clock.

: "${GIT_SESSION_BIN:?GIT_SESSION_BIN must name the directory holding git-session}"
TEST_NAME=$(basename "$0" .sh)
TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
TEST_ROOT=${TEST_OUTPUT_DIRECTORY:-${TMPDIR:-/tmp}/git-session-tests.$(id -u)}
TRASH_DIRECTORY="$TEST_ROOT/trash.$TEST_NAME"

rm -rf "$TRASH_DIRECTORY"
mkdir -p "$TRASH_DIRECTORY/home" || exit 1

PATH="$GIT_SESSION_BIN:$PATH"
HOME="$TRASH_DIRECTORY/home"
TZ=UTC
LC_ALL=C.UTF-8
LANG=C.UTF-8
GIT_CONFIG_NOSYSTEM=1
GIT_AUTHOR_NAME="A U Thor"
GIT_AUTHOR_EMAIL="author@example.com"
GIT_COMMITTER_NAME="C O Mitter"
GIT_COMMITTER_EMAIL="committer@example.com"
GIT_SESSION_LOCK_TIMEOUT=
NO_COLOR=
unset NO_COLOR GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_CEILING_DIRECTORIES PAGER GIT_PAGER EMAIL
export PATH HOME TZ LC_ALL LANG GIT_CONFIG_NOSYSTEM GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL \
	GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL

# git's test clock: every test_tick moves time on by one minute.
test_tick () {
	if test -z "${test_tick_time:-}"
	then
		test_tick_time=1763719200	# 2025-11-21 10:00:00 UTC
	else
		test_tick_time=$((test_tick_time + 60))
	fi
	GIT_COMMITTER_DATE="@$test_tick_time +0000"
	GIT_AUTHOR_DATE="@$test_tick_time +0000"
	export GIT_COMMITTER_DATE GIT_AUTHOR_DATE
}

# test_at <seconds>: the clock set that long after test_tick's start
test_at () {
	GIT_COMMITTER_DATE="@$((1763719200 + $1)) +0000"
	GIT_AUTHOR_DATE=$GIT_COMMITTER_DATE
	export GIT_COMMITTER_DATE GIT_AUTHOR_DATE
}

test_count=0
test_number=0
test_failures=0
test_skipped=0

say () { printf '%s\n' "$*"; }

# Runs a test body in this shell, as git does, so that test_tick and
# variables carry from one test to the next; `return 1` ends the body.
test_run_ () {
	cd "$TRASH_DIRECTORY/repo" || return 1
	${TEST_TRACE:+set -x}
	eval "$1"
	test_ret_=$?
	${TEST_TRACE:+set +x}
	return $test_ret_
}

test_expect_success () {
	if test $# = 3
	then
		test_prereq=$1; shift
		if test -n "${GIT_SESSION_SANITIZED:-}" && real_client "$test_prereq"
		then
			test_skipped=$((test_skipped + 1))
			test_number=$((test_number + 1))
			say "ok $test_number # skip $1 (a real client: the plain pass runs it)"
			return 0
		fi
		if ! test_have_prereq "$test_prereq"
		then
			test_skipped=$((test_skipped + 1))
			test_number=$((test_number + 1))
			say "ok $test_number # skip $1 (missing $test_prereq)"
			return 0
		fi
	fi
	test_count=$((test_count + 1))
	test_number=$((test_number + 1))
	test_run_ "$2" >"$TRASH_DIRECTORY/out.$test_count" 2>&1 </dev/null
	ret=$?
	if test $ret = 0
	then
		say "ok $test_number - $1"
	else
		test_failures=$((test_failures + 1))
		say "not ok $test_number - $1"
		sed -e 's/^/#	/' <<-EOF_BODY
		$2
		EOF_BODY
		sed -e 's/^/#  > /' "$TRASH_DIRECTORY/out.$test_count"
	fi
}

# the upstream readers are other projects' code, kept beside the checkout (tests/upstream/README.md)
UP="${GS_UPSTREAM_DIR:-$TEST_DIRECTORY/../../../shared/upstream}"
# bmit_validate <copilot state file>: bmit-2026's own validator, as its repository runs it
bmit_validate () {
	rm -rf v && mkdir -p v/agent-output/p v/.github/skills/azure-artifacts/templates &&
	cp "$UP/bmit-2026/templates/00-session-state.template.json" v/.github/skills/azure-artifacts/templates/ &&
	cp "$1" v/agent-output/p/00-session-state.json &&
	(cd v && node "$UP/bmit-2026/scripts/validate-session-state.mjs") >validator.out 2>&1
}

# The real clients (agent CLIs, the browser) test what they send and read,
# not git-session's memory: the sanitizers' pass leaves them to the plain one.
real_client () {
	case "$1" in
	CLAUDE_CODE|GEMINI_CLI|CODEX_CLI|QWEN_CLI|COPILOT_CLI|OPENCODE|BROWSER) return 0 ;;
	esac
	return 1
}

test_have_prereq () {
	case "$1" in
	SANITIZED) test -n "${GIT_SESSION_SANITIZED:-}" ;;
	NOT_SANITIZED) test -z "${GIT_SESSION_SANITIZED:-}" ;;
	NOT_ROOT) test "$(id -u)" != 0 ;;
	TMPFS_MOUNT) # a small file system this test may fill (root, or a user namespace)
		mkdir -p "$TRASH_DIRECTORY/prereq-tmpfs" &&
		mount -t tmpfs -o size=64k tmpfs "$TRASH_DIRECTORY/prereq-tmpfs" 2>/dev/null &&
		umount "$TRASH_DIRECTORY/prereq-tmpfs" ;;
	MCP_SDK) command -v node >/dev/null 2>&1 &&
		test -d "$TEST_DIRECTORY/../mcp/node_modules/@modelcontextprotocol/sdk" ;;
	BROWSER) command -v node >/dev/null 2>&1 && test -x "${CHROMIUM:-/usr/bin/chromium}" &&
		test -f "$TEST_DIRECTORY/../browser/node_modules/puppeteer-core/package.json" ;;
	CLAUDE_CODE) command -v node >/dev/null 2>&1 &&
		test -x "$TEST_DIRECTORY/../agents/node_modules/@anthropic-ai/claude-code/bin/claude.exe" &&
		"$TEST_DIRECTORY/../agents/node_modules/@anthropic-ai/claude-code/bin/claude.exe" --version >/dev/null 2>&1 ;;
	GEMINI_CLI) command -v node >/dev/null 2>&1 &&
		test -f "$TEST_DIRECTORY/../agents/node_modules/@google/gemini-cli/bundle/gemini.js" ;;
	UPSTREAM_BMIT) command -v node >/dev/null 2>&1 &&	# t0071's $UP: tests/upstream/README.md
		test -f "$UP/bmit-2026/scripts/validate-session-state.mjs" ;;
	UPSTREAM_MAESTRO) command -v node >/dev/null 2>&1 &&
		test -d "$UP/maestro-orchestrate/src/mcp/handlers" ;;
	UPSTREAM_MAESTRO_FLOW) command -v node >/dev/null 2>&1 &&	# t0072: tests/upstream/README.md
		test -f "$UP/maestro-flow/src/run/schemas.ts" && test -d "$TEST_DIRECTORY/../mcp/node_modules/zod" ;;
	*) command -v "$(echo "$1" | tr 'A-Z' 'a-z')" >/dev/null 2>&1 ;;
	esac
}

# serve <script>: tests/agents/model-server.js, the scripted model the
# agent CLIs talk to, on 127.0.0.1; $PORT is its port, $server its process,
# which stop_server ends.
# gemini_home <home> <repo>: Gemini CLI's settings there, an API key and <repo> a trusted folder
gemini_home () {
	mkdir -p "$1/.gemini" &&
	echo "{\"security\":{\"auth\":{\"selectedType\":\"gemini-api-key\"}}}" >"$1/.gemini/settings.json" &&
	echo "{\"$2\": \"TRUST_FOLDER\"}" >"$1/.gemini/trustedFolders.json"
}

serve () {
	serve_script=$1
	rm -f port || return 1
	node "$TEST_DIRECTORY/../agents/model-server.js" "$1" port &
	server=$!
	# it writes its port once it listens
	for i in $(seq 1 600); do test -s port && break; sleep 0.05; done
	PORT=$(cat port)
	test -n "$PORT"
}
stop_server () { kill $server 2>/dev/null; wait $server 2>/dev/null; return 0; }

# in_netns <command>...: the command (not a shell function) where only 127.0.0.1 can be reached, in a
# network namespace of its own, with the script of the last serve answered there too, on $PORT; as
# it is where the machine makes no such namespace
in_netns () {
	if test -z "${netns_ok:-}"
	then
		netns_ok=no && unshare -rn sh -c "ip link set lo up" 2>/dev/null && netns_ok=yes
	fi
	test $netns_ok = yes || { "$@"; return; }
	rm -f port.netns &&
	PORT=$PORT unshare -rn sh -c 'ip link set lo up || exit 125
		MODEL_SERVER_PORT=$PORT node "$1" "$2" port.netns & s=$!
		i=0; while ! test -s port.netns && test $i -lt 600; do sleep 0.05; i=$((i + 1)); done
		shift 2; "$@"; r=$?; kill $s; wait $s 2>/dev/null; exit $r' \
		sh "$TEST_DIRECTORY/../agents/model-server.js" "$serve_script" "$@"
}

# Succeeds when the command fails the way a command should: exit 1..129,
# not a crash (a signal, or a sanitizer's abort).
test_must_fail () {
	"$@"
	exit_code=$?
	if test $exit_code = 0
	then
		echo >&2 "test_must_fail: command succeeded: $*"
		return 1
	elif test $exit_code -gt 129
	then
		echo >&2 "test_must_fail: died by signal or abort ($exit_code): $*"
		return 1
	fi
	return 0
}

test_expect_code () {
	want=$1; shift
	"$@"
	got=$?
	test "$got" = "$want" && return 0
	echo >&2 "test_expect_code: wanted $want, got $got: $*"
	return 1
}

test_cmp () {
	diff -u "$1" "$2"
}

test_line_count () {
	n=$(wc -l <"$3" | tr -d ' ')
	if ! test "$n" "$1" "$2"
	then
		echo >&2 "test_line_count: $3 has $n lines, not $1 $2"
		cat >&2 "$3"
		return 1
	fi
}

test_must_be_empty () {
	if test -s "$1"
	then
		echo >&2 "'$1' is not empty:"
		cat >&2 "$1"
		return 1
	fi
}

# The session's state as JSON through plain git: session.json, with each
# collection it keeps under state/<key>/ put back in (doc/json.md).
session_json () {
	python3 - "${1:-SESSION_HEAD}" <<'JOIN'
import json, subprocess, sys
rev = sys.argv[1]
git = lambda *a: subprocess.run(("git",) + a, check=True, capture_output=True, text=True).stdout
state = json.loads(git("show", rev + ":session.json"))
for key, value in list(state.items()):
    # "state/<key>", or {"chunks": "state/<key>", "chunked": n, "tail": [...]}
    kept = isinstance(value, dict) and value.get("chunks") == "state/" + key
    if value == "state/" + key or kept:
        names = git("ls-tree", "--name-only", rev + ":state/" + key).split() if (
            not kept or value["chunked"]) else []
        parts = [json.loads(git("show", "%s:state/%s/%s" % (rev, key, n))) for n in names]
        if key == "files":
            state[key] = dict(sorted(kv for p in parts for kv in p.items()))
        else:
            state[key] = [e for p in parts for e in p] + (value["tail"] if kept else [])
print(json.dumps(state, indent=2))
JOIN
}

# jq-free field access: json_field <file> <python expression on d>
json_field () {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=eval(sys.argv[2]); print(v if isinstance(v,str) else json.dumps(v))' "$1" "$2"
}

# ev <agent> <event> <json>: the agent's hook as the agent runs it, its
# stderr in ev.err, its stdout in ev.out (at a start, the brief only)
ev () {
	printf '%s' "$3" | git-session hook "$1" "$2" >ev.out 2>ev.err
	ev_rc=$?
	hook_stdout_ok "$2" ev.out || return 1
	return $ev_rc
}

# hook_stdout_ok <event> <file>: what a hook printed for the agent, the
# file, is nothing, but at a start (or Gemini CLI's first prompt after it)
# the session's brief as added context
hook_stdout_ok () {
	case "$1" in
	SessionStart|BeforeAgent) test ! -s "$2" || python3 -c "import json, sys; o = json.load(open(sys.argv[1])); \
assert list(o) == [\"hookSpecificOutput\"] and o[\"hookSpecificOutput\"][\"hookEventName\"] == sys.argv[2] \
and isinstance(o[\"hookSpecificOutput\"][\"additionalContext\"], str), o" "$2" "$1" ;;
	*) test_must_be_empty "$2" ;;
	esac
}

test_done () {
	say "# $TEST_NAME: $test_count run, $test_failures failed${test_skipped:+, $test_skipped skipped}"
	echo "$test_count $test_failures $test_skipped" >"$TEST_ROOT/result.$TEST_NAME"
	if test $test_failures = 0
	then
		rm -rf "$TRASH_DIRECTORY"
		exit 0
	fi
	exit 1
}

# Every script starts in a fresh repository with one commit.
test_tick
git init -q -b main "$TRASH_DIRECTORY/repo" &&
(
	cd "$TRASH_DIRECTORY/repo" &&
	echo "hello" >README &&
	git add README &&
	git commit -q -m initial
) || { echo "cannot set up the test repository" >&2; exit 1; }
test_tick
