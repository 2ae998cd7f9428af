#!/bin/sh
test_description='git session mcp: the MCP server, through the official SDK and through raw JSON-RPC'
. ./lib.sh

mcp_js="$TEST_DIRECTORY/../mcp"
test_have_prereq MCP_SDK ||
	say "# the MCP SDK tests are skipped: no Node.js, or no tests/mcp/node_modules (make deps installs it)"

# rpc <lines...>: what the server answers to those lines, one JSON object a line
rpc () { printf '%s\n' "$@" | git session mcp; }
init='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
# field <file> <line> <python expression on d>: one field of one answer
field () { python3 -c 'import json, sys
d = json.loads(open(sys.argv[1]).read().splitlines()[int(sys.argv[2]) - 1]); v = eval(sys.argv[3])
v = v if isinstance(v, str) else json.dumps(v)
sys.stdout.write(v if v.endswith("\n") else v + "\n")' "$@"; }

test_expect_success 'setup' '
	git commit -q --allow-empty -m init &&
	echo "# design" >design.md && git add design.md && git commit -q -m design
'

# a session of the shell's own, for the tests that need one whatever ran before
shell_session () { git session start plain --id plain -q --pause-current 2>/dev/null || git session switch -q plain; }

test_expect_success MCP_SDK 'the SDK: tools and their schemas, a whole orchestration, resources' '
	node "$mcp_js/orchestrate.mjs" >out &&
	id=$(json_field out "d[\"id\"]") && last=$(json_field out "d[\"last\"]") &&
	test "$(git rev-parse refs/sessions/$id)" != "$last" &&
	test "$(git rev-parse refs/sessions/$id~1)" = "$last" &&
	git log --format=%s refs/sessions/$id >subjects &&
	grep "^phase 2 \"Build\": failed -> in_progress (retry 1 of 2)$" subjects &&
	grep "^decide: \"use PKCE\"$" subjects &&
	session_json refs/sessions/$id >s &&
	test "$(json_field s "d[\"status\"]")" = paused &&
	test "$(json_field s "d[\"files\"][\"design.md\"][\"oid\"]")" = "$(git rev-parse HEAD:design.md)" &&
	test "$(json_field s "d[\"notes\"][0][\"text\"]")" = "-- a note that looks like an option" &&
	test "$(json_field s "d[\"tokens\"][\"input\"]")" = 1200 &&
	test "$(json_field s "d[\"milestones\"][0][\"name\"]")" = "design approved" &&
	test "$(json_field s "d[\"artifacts\"][0][\"path\"]")" = design.md &&
	test "$(json_field s "[e[\"resolved\"] for e in d[\"errors\"]]")" = "[true, true, true]" &&
	git session fsck >out && grep "^ok $id" out &&
	git fsck --strict 2>err && ! grep -v "^dangling" err
'

test_expect_success MCP_SDK 'the SDK: a subscribed session tells of a change made at the shell' '
	git session start watched --id watched -q --pause-current &&
	node "$mcp_js/subscribe.mjs" >out &&
	grep "\"updates\":\"received\"" out
'

test_expect_success MCP_SDK 'the SDK and the shell write one session at once: nothing lost' '
	git session start mixed --id mixed -q --pause-current &&
	node "$mcp_js/mixed.mjs" 30 >out &&
	test "$(json_field out "d[\"notes\"]")" = 60 &&
	test "$(git rev-list --count refs/sessions/mixed)" = 61 &&
	git log --format=%s refs/sessions/mixed >subjects &&
	test "$(grep -c "^note: \"mcp " subjects)" = 30 &&
	test "$(grep -c "^note: \"shell " subjects)" = 30
'

test_expect_success 'initialize: the version asked for when known, else the newest' '
	rpc "$init" >out &&
	test "$(field out 1 "d[\"result\"][\"protocolVersion\"]")" = 2025-11-25 &&
	test "$(field out 1 "d[\"result\"][\"serverInfo\"][\"name\"]")" = git-session &&
	rpc "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}" >out &&
	test "$(field out 1 "d[\"result\"][\"protocolVersion\"]")" = 2025-06-18 &&
	rpc "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"1999-01-01\"}}" >out &&
	test "$(field out 1 "d[\"result\"][\"protocolVersion\"]")" = 2025-11-25
'

test_expect_success 'before initialize only ping is answered; after it, everything' '
	rpc "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}" \
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}" "$init" \
	    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}" >out &&
	test_line_count = 4 out &&
	test "$(field out 1 "d[\"error\"][\"code\"]")" = -32600 &&
	test "$(field out 2 "d[\"result\"]")" = "{}" &&
	test "$(field out 4 "len(d[\"result\"][\"tools\"])")" = 26
'

test_expect_success 'malformed lines and unknown methods get JSON-RPC errors; the server keeps serving' '
	rpc "$init" "not json" "[1, 2]" "{\"id\":5,\"method\":\"ping\"}" \
	    "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"no/such\"}" \
	    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":[1]}" \
	    "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}" \
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}" \
	    "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\"}}" \
	    "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}" \
	    "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"resources/read\",\"params\":{}}" >out &&
	test_line_count = 10 out &&
	test "$(field out 10 "(d[\"id\"], d[\"error\"][\"code\"])")" = "[10, -32602]" &&
	test "$(field out 2 "d[\"error\"][\"code\"]")" = -32700 &&
	test "$(field out 2 "d[\"id\"]")" = null &&
	test "$(field out 3 "d[\"error\"][\"code\"]")" = -32600 &&
	test "$(field out 4 "(d[\"id\"], d[\"error\"][\"code\"])")" = "[5, -32600]" &&
	test "$(field out 5 "(d[\"id\"], d[\"error\"][\"code\"])")" = "[6, -32601]" &&
	test "$(field out 6 "(d[\"id\"], d[\"error\"][\"code\"])")" = "[7, -32602]" &&
	test "$(field out 7 "d[\"error\"][\"code\"]")" = -32600 &&
	test "$(field out 8 "(d[\"id\"], d[\"error\"][\"message\"])")" = "[8, \"unknown tool '"'"'nope'"'"'\"]" &&
	test "$(field out 9 "(d[\"id\"], d[\"result\"])")" = "[9, {}]"
'

test_expect_success 'a 50 MB message is refused without keeping it; the next one is answered' '
	python3 -c "import sys
sys.stdout.write(sys.argv[1] + \"\\n\")
sys.stdout.write(\"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":1,\\\"method\\\":\\\"tools/call\\\",\\\"params\\\":{\\\"name\\\":\\\"note_add\\\",\\\"arguments\\\":{\\\"text\\\":\\\"\" + \"x\" * (50 << 20) + \"\\\"}}}\\n\")
sys.stdout.write(\"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":2,\\\"method\\\":\\\"ping\\\"}\\n\")" "$init" >big.txt &&
	shell_session && git rev-parse refs/sessions/plain >before &&
	git session mcp <big.txt >out &&
	test_line_count = 3 out &&
	test "$(field out 2 "(d[\"id\"], d[\"error\"][\"code\"])")" = "[null, -32600]" &&
	field out 2 "d[\"error\"][\"message\"]" | grep "at most 8388608 bytes" &&
	test "$(field out 3 "(d[\"id\"], d[\"result\"])")" = "[2, {}]" &&
	git rev-parse refs/sessions/plain >after && test_cmp before after
'

test_expect_success 'a failed call is a tool result with the command line'"'"'s message' '
	shell_session &&
	rpc "$init" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"phase_update\",\"arguments\":{\"phase\":9,\"action\":\"start\"}}}" >out &&
	test_must_fail git session phase start 9 2>expect &&
	test "$(field out 2 "d[\"result\"][\"isError\"]")" = true &&
	field out 2 "d[\"result\"][\"content\"][0][\"text\"]" >actual &&
	test_cmp expect actual
'

test_expect_success 'a closed standard input ends the server cleanly; the last line is still answered' '
	printf "%s\n%s" "$init" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}" | git session mcp >out &&
	test_line_count = 2 out &&
	git session mcp </dev/null >out && test_must_be_empty out
'

test_expect_success 'standard output carries protocol messages only, whatever a command prints' '
	rpc "$init" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"session_status\"}}" \
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"note_add\",\"arguments\":{\"text\":\"quiet\"}}}" \
	    >out 2>err &&
	test_line_count = 3 out &&
	python3 -c "import json, sys
for line in open(sys.argv[1]): assert json.loads(line)[\"jsonrpc\"] == \"2.0\"" out &&
	test_must_be_empty err
'

test_expect_success 'each configuration block in contrib/agents starts this server, passes the identity, and the README shows it' '
	top=$(cd "$TEST_DIRECTORY/../.." && pwd) &&
	for f in mcp/claude-code.mcp.json mcp/gemini-cli.settings.json mcp/vscode.mcp.json \
		 gemini-cli/git-session/gemini-extension.json
	do
		python3 - "$top/contrib/agents/$f" "$top/README.md" <<-\EOF || return 1
		import json, sys
		text = open(sys.argv[1]).read()
		servers = json.loads(text).get("mcpServers") or json.loads(text)["servers"]
		s = servers["git-session"]
		assert (s["command"], s["args"]) == ("git", ["session", "mcp"]), sys.argv[1]
		assert "extension" in sys.argv[1] or text in open(sys.argv[2]).read(), sys.argv[1] + " is not in the README"
		ident = {"GIT_%s_%s" % (w, f) for w in ("AUTHOR", "COMMITTER") for f in ("NAME", "EMAIL")}
		if "claude-code" in sys.argv[1] or "vscode" in sys.argv[1]:
		    assert set(s["env"]) == ident, sys.argv[1] + ": the identity is not passed"
		EOF
	done &&
	test_expect_code 129 git session mcp -h >out && grep "^usage: git session mcp$" out
'

test_done
