#!/bin/sh
test_description='Codex CLI: its hooks file and trust kept byte for byte, its payloads and apply_patch recorded, the real CLI offline'
. ./lib.sh

agents="$TEST_DIRECTORY/../agents"
CODEX_HOME="$HOME/.codex"
export CODEX_HOME
mkdir -p "$CODEX_HOME/sessions"
R="$TRASH_DIRECTORY/repo"
SID=01a21727-ca24-76d1-84a0-645e8e20b6f3
T="$CODEX_HOME/sessions/rollout-$SID.jsonl"
AGENT=codex-01a21727

# the real CLI is a prerequisite by the name of this function: defined when it runs here
if command -v node >/dev/null 2>&1 && "$agents/node_modules/.bin/codex" --version >/dev/null 2>&1; then
	codex_cli () { :; }
else
	say "# the Codex CLI tests are skipped: no Node.js, or no tests/agents/node_modules (make deps installs it)"
fi

codex () {
	ev codex "$1" "{\"session_id\":\"$SID\",\"turn_id\":\"t1\",\"transcript_path\":\"$T\",\"cwd\":\"$R\",\"hook_event_name\":\"$1\",\"model\":\"gpt-5.5\"$2}"
}
# patch <text>: a PostToolUse of apply_patch, as Codex sends it (the patch in tool_input.command)
patch () {
	codex PostToolUse ",\"tool_name\":\"apply_patch\",\"tool_input\":{\"command\":\"$1\"},\"tool_response\":\"Exit code: 0\",\"tool_use_id\":\"call_$2\""
}
# the hash Codex trusts a hook by, computed here on its own: sorted compact JSON, SHA-256
trust_hash () {
	python3 -c '
import hashlib, json, sys
ev, cmd, matcher = sys.argv[1], sys.argv[2], sys.argv[3]
h = {"async": False, "command": cmd, "timeout": 10, "type": "command"}
d = {"event_name": ev, "hooks": [h]}
if matcher: d["matcher"] = matcher
print("sha256:" + hashlib.sha256(json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()).hexdigest())
' "$@"
}
G="command -v git-session >/dev/null 2>&1 || exit 0; git-session hook codex"

test_expect_success 'install appends to the hooks the user has, and uninstall gives the file back' '
	mkdir .codex &&
	printf "{\n  \"hooks\": {\n    \"Stop\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}\n    ]\n  }\n}\n" >.codex/hooks.json &&
	cp .codex/hooks.json ../hooks.orig &&
	git session hooks install --agent codex >out 2>err &&
	grep "^Installed the git-session hooks for codex in .\.codex/hooks\.json.$" out &&
	grep "codex runs these hooks only once you trust them" err &&
	grep "git session hooks install --agent codex --trust" err &&
	python3 -c "
import json
h = json.load(open(\".codex/hooks.json\"))[\"hooks\"]
# theirs first: Codex keys trust by place, ours go last
assert h[\"Stop\"][0][\"hooks\"][0][\"command\"] == \"notify-send done\"
assert h[\"Stop\"][1][\"hooks\"][0][\"command\"] == \"$G Stop\"
assert h[\"PostToolUse\"][0][\"matcher\"] == \"Bash|apply_patch\"
assert h[\"PostToolUse\"][0][\"hooks\"][0][\"timeout\"] == 10
assert sorted(h) == sorted([\"SessionStart\", \"UserPromptSubmit\", \"PreToolUse\", \"PostToolUse\", \"SubagentStart\", \"SubagentStop\", \"Stop\", \"PreCompact\"])
" &&
	git session hooks status >st &&
	grep "codex .*installed (8 of 8 events, .codex/hooks.json), NOT trusted" st &&
	git session hooks install --agent codex >out2 2>&1 &&
	grep "already" out2 &&
	git session hooks uninstall --agent codex &&
	test_cmp ../hooks.orig .codex/hooks.json &&
	rm -r .codex
'

test_expect_success 'install --trust records the trust Codex asks, by its hash, and uninstall takes it out exactly' '
	printf "model = \"gpt-5.5\"\n\n[projects.\"/elsewhere\"]\ntrust_level = \"trusted\"" >"$CODEX_HOME/config.toml" &&
	cp "$CODEX_HOME/config.toml" ../config.orig &&
	test_expect_code 129 git session hooks install --agent claude-code --trust 2>err &&
	grep "^error: claude-code runs its hooks with no trust to record" err &&
	git session hooks install --agent codex --trust >out 2>err &&
	test_must_be_empty err &&
	grep "^Trusted them for codex in .$CODEX_HOME/config.toml.$" out &&
	head -c $(wc -c <../config.orig) "$CODEX_HOME/config.toml" | cmp - ../config.orig &&
	grep -A1 "^\[projects.\"$R\"\]$" "$CODEX_HOME/config.toml" | grep "^trust_level = \"trusted\"$" &&
	for e in SessionStart:session_start: UserPromptSubmit:user_prompt_submit: Stop:stop: "PostToolUse:post_tool_use:Bash|apply_patch"
	do
		ev=${e%%:*} && rest=${e#*:} && label=${rest%%:*} && m=${rest#*:} &&
		grep -A1 "^\[hooks.state.\"$R/.codex/hooks.json:$label:0:0\"\]$" "$CODEX_HOME/config.toml" >got &&
		grep "^trusted_hash = \"$(trust_hash $label "$G $ev" "$m")\"$" got || return 1
	done &&
	git session hooks status >st &&
	grep "codex .*installed (8 of 8 events, .codex/hooks.json), trusted$" st &&
	git session hooks install --agent codex --trust >again &&
	! grep Trusted again &&
	git session hooks uninstall --agent codex >out &&
	grep "Took the trust of them out" out &&
	test_cmp ../config.orig "$CODEX_HOME/config.toml" &&
	! test -e .codex
'

test_expect_success 'a project the user did not trust is said, not overwritten' '
	printf "[projects.\"$R\"]\ntrust_level = \"untrusted\"\n" >"$CODEX_HOME/config.toml" &&
	cp "$CODEX_HOME/config.toml" ../config.orig &&
	git session hooks install --agent codex --trust >out 2>err &&
	grep "codex will not run these hooks" err &&
	test_cmp ../config.orig "$CODEX_HOME/config.toml" &&
	git session hooks uninstall --agent codex >/dev/null &&
	rm "$CODEX_HOME/config.toml"
'

test_expect_success 'the user scope: $CODEX_HOME/hooks.json, round trip' '
	printf "{\"hooks\": {}}\n" >"$CODEX_HOME/hooks.json" &&
	cp "$CODEX_HOME/hooks.json" ../user.orig &&
	git session hooks install --agent codex --user --trust >out 2>&1 &&
	grep "hooks.state.\"$CODEX_HOME/hooks.json:stop:0:0\"" "$CODEX_HOME/config.toml" &&
	! grep "projects" "$CODEX_HOME/config.toml" &&
	! grep "twice" out &&
	git session hooks install --agent codex >out 2>&1 &&
	grep "codex runs the hooks of .$CODEX_HOME/hooks.json. too: each event would be recorded twice" out &&
	git session hooks uninstall --agent codex >/dev/null &&
	git session hooks uninstall --agent codex --user &&
	test_cmp ../user.orig "$CODEX_HOME/hooks.json" &&
	test_must_be_empty "$CODEX_HOME/config.toml" &&
	rm "$CODEX_HOME/hooks.json" "$CODEX_HOME/config.toml"
'

test_expect_success 'payloads: a prompt, each file of a patch, a shell command, a turn with its tokens' '
	codex SessionStart ",\"source\":\"startup\"" &&
	codex UserPromptSubmit ",\"prompt\":\"please create the greeting files\"" &&
	printf "hello\nworld\n" >hello.txt &&
	patch "*** Begin Patch\n*** Add File: hello.txt\n+hello\n+world\n*** End Patch\n" 1 &&
	printf "hello\ncodex\n" >hello.txt && echo bye >gone.txt &&
	patch "*** Begin Patch\n*** Update File: hello.txt\n@@\n hello\n-world\n+codex\n*** Add File: gone.txt\n+bye\n*** End Patch\n" 2 &&
	rm gone.txt && mv hello.txt moved.txt &&
	patch "*** Begin Patch\n*** Delete File: gone.txt\n*** Update File: hello.txt\n*** Move to: moved.txt\n@@\n hello\n-codex\n+moved\n*** End Patch\n" 3 &&
	# Bash says no exit status: the rollout does, written before the hook runs
	echo "{\"timestamp\":\"t\",\"type\":\"event_msg\",\"payload\":{\"type\":\"item_completed\",\"item\":{\"type\":\"CommandExecution\",\"id\":\"call_4\",\"exit_code\":3,\"duration\":{\"secs\":1,\"nanos\":6430000}}}}" >"$T" &&
	codex PostToolUse ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"echo shell-ran && exit 3\"},\"tool_response\":\"shell-ran\n\",\"tool_use_id\":\"call_4\"" &&
	codex PostToolUse ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"echo not-in-rollout\"},\"tool_response\":\"x\",\"tool_use_id\":\"call_9\"" &&
	cat >>"$T" <<-EOF &&
	{"timestamp":"t","type":"session_meta","payload":{"id":"$SID","cwd":"$R"}}
	{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"instructions"}]}}
	{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"please create the greeting files"}]}}
	{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call","call_id":"call_1","name":"apply_patch","input":"*** Begin Patch\\n*** Add File: hello.txt\\n+hello\\n*** End Patch\\n"}}
	{"timestamp":"t","type":"token_usage_record","payload":{"response_id":"resp_1","usage":{"input_tokens":1001,"cached_input_tokens":600,"output_tokens":25,"reasoning_output_tokens":5,"total_tokens":1026}}}
	{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_4","output":"Process exited with code 3\\nOutput:\\nshell-ran\\n"}}
	{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"All done."}]}}
	{"timestamp":"t","type":"token_usage_record","payload":{"response_id":"resp_2","usage":{"input_tokens":1002,"cached_input_tokens":600,"output_tokens":25,"total_tokens":1027}}}
	EOF
	codex Stop ",\"stop_hook_active\":false,\"last_assistant_message\":\"All done.\"" &&
	git log --format=%s SESSION_HEAD >log &&
	grep "^agent $AGENT started (codex)$" log &&
	grep "^note: \"please create the greeting files\"$" log &&
	grep "^file created: hello.txt by $AGENT$" log &&
	grep "^checkpoint: 2 files by $AGENT$" log &&
	grep "^checkpoint: 3 files by $AGENT$" log &&
	grep "^run by $AGENT: \"echo shell-ran && exit 3\" (exit 3, 1006 ms)$" log &&
	grep "^run by $AGENT: \"echo not-in-rollout\" (exit unknown)$" log &&
	grep "^turn of $AGENT: \"All done.\" (+803 in, +50 out; transcript part 1[;)]" log &&
	session_json >s &&
	test "$(json_field s "[d[\"files\"][p][\"status\"] for p in (\"hello.txt\", \"gone.txt\", \"moved.txt\")]")" = \
		"[\"deleted\", \"deleted\", \"created\"]" &&
	test "$(json_field s "d[\"files\"][\"moved.txt\"][\"oid\"]")" = "$(git hash-object moved.txt)" &&
	test "$(json_field s "d[\"tokens\"][\"by_agent\"][\"$AGENT\"][\"cached\"]")" = 1200 &&
	git cat-file -p SESSION_HEAD:transcripts/$AGENT/000/000001 >part &&
	! grep instructions part && grep "please create" part &&
	git session transcript >tr &&
	grep "apply_patch" tr && grep "hello.txt" tr
'

test_expect_success 'a patch naming a path outside the work tree or in .git is refused whole' '
	git log --format=%s SESSION_HEAD >before &&
	echo x >ok.txt &&
	patch "*** Begin Patch\n*** Add File: ok.txt\n+x\n*** Add File: ../evil.txt\n+x\n*** End Patch\n" 5 &&
	grep "none of its files is recorded\|outside the work" ev.err &&
	patch "*** Begin Patch\n*** Add File: ok.txt\n+x\n*** Update File: .git/config\n@@\n-a\n+b\n*** End Patch\n" 6 &&
	grep "inside the git directory" ev.err &&
	patch "*** Begin Patch\n*** Add File: ok.txt\n+x\n*** Add File: /etc/evil\n+x\n*** End Patch\n" 7 &&
	grep "outside the work tree" ev.err &&
	git log --format=%s SESSION_HEAD >after &&
	test_cmp before after
'

test_expect_success 'a sub-agent: started with its type, its patch its own, done with its answer' '
	codex SubagentStart ",\"agent_id\":\"01a2172e-583f-7870-8e0f-845ff95924f3\",\"agent_type\":\"default\"" &&
	echo hi >hi.txt &&
	codex PostToolUse ",\"agent_id\":\"01a2172e-583f-7870-8e0f-845ff95924f3\",\"agent_type\":\"default\",\"tool_name\":\"apply_patch\",\"tool_input\":{\"command\":\"*** Begin Patch\n*** Add File: hi.txt\n+hi\n*** End Patch\n\"},\"tool_response\":\"Exit code: 0\"" &&
	codex SubagentStop ",\"agent_id\":\"01a2172e-583f-7870-8e0f-845ff95924f3\",\"agent_type\":\"default\",\"last_assistant_message\":\"hi from sub-agent\"" &&
	session_json >s &&
	sub=$(json_field s "d[\"files\"][\"hi.txt\"][\"agent\"]") &&
	test "$sub" = default-01a2172e &&
	test "$(json_field s "[[a[k] for k in (\"status\", \"parent\", \"result_summary\")] for a in d[\"agents\"] if a[\"id\"] == \"$sub\"]")" = \
		"[[\"completed\", \"$AGENT\", \"hi from sub-agent\"]]"
'

test_expect_success 'the budget: a tool call past it is refused with exit 2 and the reason on stderr' '
	git session tokens budget 10 >/dev/null &&
	git config session.enforceBudget true &&
	! codex PreToolUse ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"}" &&
	test $ev_rc = 2 &&
	grep "no more tool calls" ev.err &&
	git config session.enforceBudget false &&
	git session close >/dev/null
'

# codex_run <prompt> [<option>]: the real Codex, headless, against the scripted model, in a
# network namespace with loopback only where the machine allows
codex_run () {
	cat >../codex-run.sh <<-EOF &&
	ip link set lo up 2>/dev/null
	cd "$R"
	rm -f ../port; MODEL_SERVER_BODIES=../bodies.log node "$agents/model-server.js" ../script.json ../port & server=\$!
	for i in \$(seq 1 600); do test -s ../port && break; sleep 0.05; done
	SCRIPTED_API_KEY=test timeout 120 "$agents/node_modules/.bin/codex" exec \${2:+"\$2"} \
		-c "model_providers.scripted.base_url=\"http://127.0.0.1:\$(cat ../port)/v1\"" "\$1" </dev/null >../codex.out 2>../codex.err
	rc=\$?; kill \$server; wait \$server 2>/dev/null; exit \$rc
	EOF
	if unshare -rn true 2>/dev/null; then unshare -rn sh ../codex-run.sh "$@"; else sh ../codex-run.sh "$@"; fi
}

test_expect_success CODEX_CLI 'Codex: a run that creates, patches and runs is a session, checked with plain git' '
	cat >"$CODEX_HOME/config.toml" <<-EOF &&
	model = "gpt-5.5"
	model_provider = "scripted"
	approval_policy = "never"
	sandbox_mode = "danger-full-access"

	[model_providers.scripted]
	name = "scripted"
	base_url = "http://127.0.0.1:1/v1"
	wire_api = "responses"
	env_key = "SCRIPTED_API_KEY"
	request_max_retries = 0
	stream_max_retries = 0
	EOF
	git session hooks install --agent codex --trust >/dev/null &&
	cat >../script.json <<-EOF &&
	[{"match": "greeting files", "calls": [
	 {"name": "apply_patch", "input": "*** Begin Patch\\n*** Add File: greet.txt\\n+hello\\n*** End Patch\\n"},
	 {"name": "apply_patch", "input": "*** Begin Patch\\n*** Update File: greet.txt\\n@@\\n-hello\\n+codex\\n*** End Patch\\n"},
	 {"name": "exec_command", "input": {"cmd": "echo shell-ran; exit 3"}}], "answer": "All done."}]
	EOF
	codex_run "please make the greeting files" &&
	grep "All done." ../codex.out &&
	git log --format=%s SESSION_HEAD >log &&
	grep "^start session .*please-make-the-greeting-files" log &&
	agent=$(sed -n "s/^agent \(codex-[0-9a-f]*\) started (codex)$/\1/p" log) &&
	test -n "$agent" &&
	grep "^note: \"please make the greeting files\"$" log &&
	grep "^file created: greet.txt by $agent$" log &&
	grep "^file modified: greet.txt by $agent$" log &&
	grep "^run by $agent: \"echo shell-ran; exit 3\" (exit 3, [0-9]* ms)$" log &&
	grep "^turn of $agent: \"All done.\" (+[1-9][0-9]* in, +[1-9][0-9]* out; transcript part 1)$" log &&
	test "$(git rev-parse SESSION_HEAD:files/greet.txt)" = "$(git hash-object greet.txt)" &&
	session_json >s &&
	test "$(json_field s "d[\"tokens\"][\"by_agent\"][\"$agent\"][\"cached\"] > 0")" = true
'

test_expect_success CODEX_CLI 'Codex: a sub-agent (multi_agent_v2) is an agent of its type, its patch its own' '
	cat >../script.json <<-EOF &&
	[{"match": "delegate the greeting", "calls": [
	  {"name": "spawn_agent", "input": {"message": "subtask: write hi.txt", "task_name": "say_hi", "fork_turns": "none"}},
	  {"name": "wait_agent", "input": {"timeout_ms": 10000}}], "answer": "Parent done."},
	 {"match": "subtask: write hi.txt", "calls": [
	  {"name": "apply_patch", "input": "*** Begin Patch\\n*** Add File: hi.txt\\n+hi\\n*** End Patch\\n"}], "answer": "hi from sub-agent"}]
	EOF
	rm -f ../bodies.log &&
	codex_run "please delegate the greeting" "--enable=multi_agent_v2" &&
	grep "Parent done." ../codex.out &&
	# a session was active at its start: the model got its brief, as context Codex added
	grep -q "please make the greeting files" ../bodies.log &&
	session_json >s &&
	sub=$(json_field s "d[\"files\"][\"hi.txt\"][\"agent\"]") &&
	case $sub in default-*) ;; *) echo "hi.txt credited to $sub"; false ;; esac &&
	test "$(json_field s "[[a[k] for k in (\"status\", \"result_summary\")] for a in d[\"agents\"] if a[\"id\"] == \"$sub\"]")" = \
		"[[\"completed\", \"hi from sub-agent\"]]" &&
	test "$(json_field s "[a[\"tokens\"][\"output\"] > 0 for a in d[\"agents\"] if a[\"id\"] == \"$sub\"]")" = "[true]" &&
	test "$(git rev-parse SESSION_HEAD:files/hi.txt)" = "$(git hash-object hi.txt)" &&
	# what Codex writes to its rollout after the stop holds no message: no turn of it
	git log --format=%s SESSION_HEAD >log &&
	! grep "^turn of $sub" log
'

test_expect_success CODEX_CLI 'Codex: past the budget, its PreToolUse refuses the call and the model is told why' '
	git session tokens budget 10 >/dev/null &&
	git config session.enforceBudget true &&
	cat >../script.json <<-EOF &&
	[{"match": "over budget", "calls": [
	 {"name": "apply_patch", "input": "*** Begin Patch\\n*** Add File: refused.txt\\n+no\\n*** End Patch\\n"}], "answer": "Stopped."}]
	EOF
	rm -f ../bodies.log &&
	codex_run "write over budget" &&
	! test -e refused.txt &&
	grep "Command blocked by PreToolUse hook: git-session: session .* no more tool calls" ../bodies.log &&
	git config session.enforceBudget false
'

test_expect_success CODEX_CLI 'Codex: untrusted hooks run nothing, and hooks status says so' '
	git session hooks uninstall --agent codex >/dev/null &&
	git session hooks install --agent codex >/dev/null 2>err &&
	grep "skips them without a word" err &&
	git session hooks status | grep "NOT trusted" &&
	git rev-parse SESSION_HEAD >before &&
	echo "[{\"match\": \"untrusted\", \"calls\": [], \"answer\": \"Untrusted done.\"}]" >../script.json &&
	codex_run "an untrusted prompt" &&
	grep "Untrusted done." ../codex.out &&
	git rev-parse SESSION_HEAD >after &&
	test_cmp before after
'

test_done
