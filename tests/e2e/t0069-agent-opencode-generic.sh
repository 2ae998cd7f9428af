#!/bin/sh
test_description='OpenCode, Cursor and the generic dialect: events recorded, settings written and given back, the real OpenCode offline'
. ./lib.sh

agents="$TEST_DIRECTORY/../agents"
R="$TRASH_DIRECTORY/repo"
all_objects () { git cat-file --batch-all-objects --batch; }
# gen <event> <json members>: the generic dialect's payload, version 1, from agent "pi"
gen () { ev generic "$1" "{\"version\":1,\"agent\":\"pi\",\"session_id\":\"${SID:-pi-0001-abcd}\"$2}"; }

test_expect_success 'generic: a prompt starts a session; the agent is named as its payload says' '
	gen prompt ",\"prompt\":\"write the notes\"" &&
	test_must_be_empty ev.err &&
	git log --format=%s SESSION_HEAD >log &&
	grep "^note: \"write the notes\"$" log &&
	grep "^agent pi-pi0001ab started (pi)$" log &&
	session_json >s &&
	test "$(json_field s "[a[\"cli\"] for a in d[\"agents\"]]")" = "[\"pi\"]"
'

test_expect_success 'generic: a file written, a patch, a shell command and a turn with its usage' '
	echo one >notes.txt &&
	gen tool-after ",\"tool\":\"write_file\",\"path\":\"notes.txt\",\"change\":\"created\"" &&
	printf "new\n" >added.txt && echo two >notes.txt && git add notes.txt && git commit -qm notes && rm -f notes.txt &&
	printf "%s" "{\"version\":1,\"agent\":\"pi\",\"session_id\":\"pi-0001-abcd\",\"tool\":\"apply_patch\",\"patch\":\"*** Begin Patch\\n*** Add File: added.txt\\n+new\\n*** Delete File: notes.txt\\n*** End Patch\\n\"}" >patch.json &&
	ev generic tool-after "$(cat patch.json)" &&
	gen tool-after ",\"tool\":\"shell\",\"command\":\"make check\",\"exit\":2,\"ms\":1500" &&
	gen turn-end ",\"reply\":\"Notes written.\",\"usage\":{\"input\":1200,\"output\":80,\"cached\":300}" &&
	test_must_be_empty ev.err &&
	git log --format=%s SESSION_HEAD >log &&
	grep "^file created: notes.txt by pi-pi0001ab$" log &&
	grep "^checkpoint: 2 files by pi-pi0001ab$" log &&
	grep "^run by pi-pi0001ab: \"make check\" (exit 2, 1500 ms)$" log &&
	grep "^turn of pi-pi0001ab: \"Notes written.\" (+1200 in, +80 out[;)]" log &&
	test "$(git rev-parse SESSION_HEAD:files/added.txt)" = "$(git hash-object added.txt)" &&
	session_json >s &&
	test "$(json_field s "[d[\"tokens\"][k] for k in (\"input\", \"output\", \"cached\")]")" = "[1200, 80, 300]" &&
	test "$(json_field s "[d[\"files\"][p][\"status\"] for p in (\"added.txt\", \"notes.txt\")]")" = "[\"created\", \"deleted\"]"
'

test_expect_success 'generic: a sub-agent, a compaction and the end of the session' '
	gen subagent-start ",\"subagent_id\":\"sub-42\",\"subagent_type\":\"reviewer\"" &&
	echo reviewed >review.txt &&
	gen tool-after ",\"tool\":\"write\",\"path\":\"review.txt\",\"subagent_id\":\"sub-42\",\"subagent_type\":\"reviewer\"" &&
	gen subagent-stop ",\"subagent_id\":\"sub-42\",\"subagent_type\":\"reviewer\",\"reply\":\"Looks fine.\",\"usage\":{\"input\":10,\"output\":5,\"cached\":0}" &&
	gen compact ",\"trigger\":\"manual\"" &&
	gen session-end ",\"reason\":\"exit\"" &&
	test_must_be_empty ev.err &&
	session_json >s &&
	test "$(json_field s "[[a[\"type\"], a[\"status\"], a[\"parent\"]] for a in d[\"agents\"] if a[\"id\"] == \"reviewer-sub42\"]")" = \
		"[[\"reviewer\", \"completed\", \"pi-pi0001ab\"]]" &&
	test "$(json_field s "d[\"files\"][\"review.txt\"][\"agent\"]")" = reviewer-sub42 &&
	test "$(json_field s "d[\"tokens\"][\"by_agent\"][\"reviewer-sub42\"][\"output\"]")" = 5 &&
	test "$(json_field s "[a[\"status\"] for a in d[\"agents\"] if a[\"id\"] == \"pi-pi0001ab\"]")" = "[\"completed\"]"
'

test_expect_success 'generic: past the budget, tool-before refuses the call (exit 2, the reason on stderr)' '
	SID=pi-0002-beef gen prompt ",\"prompt\":\"more work\"" &&
	git session tokens budget 100 -q &&
	git config session.enforceBudget true &&
	{ printf "%s" "{\"version\":1,\"agent\":\"pi\",\"session_id\":\"pi-0002-beef\",\"tool\":\"shell\",\"command\":\"ls\"}" |
		git-session hook generic tool-before >out 2>err; test $? = 2; } &&
	test_must_be_empty out &&
	grep "has used [0-9]* of its budget of 100 tokens" err &&
	git config --unset session.enforceBudget &&
	printf "%s" "{\"version\":1,\"agent\":\"pi\",\"session_id\":\"pi-0002-beef\",\"tool\":\"shell\",\"command\":\"ls\"}" |
		git-session hook generic tool-before
'

test_expect_success 'generic: an unknown version, no agent, a hostile name: refused on stderr, exit 0, nothing written' '
	git rev-parse SESSION_HEAD >before &&
	ev generic prompt "{\"version\":2,\"agent\":\"pi\",\"session_id\":\"x\",\"prompt\":\"v2\"}" &&
	grep "^warning: .*its \"version\" is not 1" ev.err &&
	ev generic prompt "{\"version\":\"1\",\"agent\":\"pi\",\"prompt\":\"v1 as text\"}" &&
	grep "version" ev.err &&
	ev generic prompt "{\"version\":1,\"session_id\":\"x\",\"prompt\":\"nameless\"}" &&
	grep "no \"agent\"" ev.err &&
	for name in "../evil" "a/b" "x\$(id)" "-rf" "" "claude code" "averyveryveryveryveryverylongname123"
	do
		ev generic prompt "{\"version\":1,\"agent\":\"$name\",\"session_id\":\"x\",\"prompt\":\"hostile\"}" &&
		grep "agent name is not" ev.err || return 1
	done &&
	ev generic prompt "not json at all" && grep "not JSON" ev.err &&
	git rev-parse SESSION_HEAD >after && test_cmp before after
'

test_expect_success 'generic: paths outside the work tree, in .git, or ignored are not recorded' '
	SID=pi-0002-beef &&
	echo secret >.env && echo .env >.gitignore &&
	git rev-parse SESSION_HEAD >before &&
	for p in /etc/passwd ../outside.txt .git/config .env "$TRASH_DIRECTORY/outside.txt"
	do
		gen tool-after ",\"tool\":\"write\",\"path\":\"$p\"" || return 1
	done &&
	gen tool-after ",\"tool\":\"apply_patch\",\"patch\":\"*** Begin Patch\\n*** Add File: ../../escape.txt\\n+x\\n*** End Patch\\n\"" &&
	git log --format=%s $(cat before)..SESSION_HEAD >log &&
	! grep "passwd\|outside\|config\|\.env\|escape" log &&
	! all_objects | grep -a "^secret$"
'

test_expect_success 'generic: no settings to install into; it says how to wire it' '
	test_must_fail git session hooks install --agent generic 2>err &&
	grep "^error: generic has no settings of its own" err &&
	grep "^hint: .*git session hook generic <event>" err
'

# --- OpenCode's plugin ---

test_expect_success 'opencode: install writes our plugin, wholly ours, and the folder looks installed; uninstall takes all back' '
	git session hooks install --agent opencode >out &&
	grep "^Installed the git-session hooks for opencode in .\.opencode/plugins/git-session\.js.$" out &&
	test_cmp "$TEST_DIRECTORY/../../contrib/agents/opencode/git-session.js" .opencode/plugins/git-session.js &&
	! grep "^import .* from \"[^n]" .opencode/plugins/git-session.js &&
	grep "^import { spawnSync } from \"node:child_process\"$" .opencode/plugins/git-session.js &&
	test -d .opencode/node_modules &&
	grep "@opencode-ai/plugin" .opencode/package-lock.json &&
	git session hooks status >out && grep "opencode  *installed (8 of 8 events" out &&
	git session hooks install --agent opencode >out && grep "are in .* already" out &&
	git session hooks uninstall --agent opencode >out &&
	grep "^Removed" out &&
	! test -e .opencode
'

test_expect_success 'opencode: a folder of the user'"'"'s keeps its files; a plugin of that name not ours is left alone' '
	mkdir -p .opencode/plugins && echo "export const Mine = async () => ({})" >.opencode/plugins/mine.js &&
	echo "{\"dependencies\":{\"left-pad\":\"1\"}}" >.opencode/package.json &&
	git session hooks install --agent opencode >out &&
	! test -e .opencode/package-lock.json && ! test -e .opencode/node_modules &&
	git session hooks uninstall --agent opencode >out &&
	test_cmp - .opencode/plugins/mine.js <<-\EOT &&
	export const Mine = async () => ({})
	EOT
	! test -e .opencode/plugins/git-session.js &&
	echo "// someone else" >.opencode/plugins/git-session.js &&
	test_must_fail git session hooks install --agent opencode 2>err &&
	grep "not git-session" err &&
	echo "// someone else" >expect && test_cmp expect .opencode/plugins/git-session.js &&
	rm -r .opencode
'

test_expect_success 'opencode: --user writes the plugin into $XDG_CONFIG_HOME/opencode' '
	XDG_CONFIG_HOME="$TRASH_DIRECTORY/xdg" git session hooks install --agent opencode --user >out &&
	test -f "$TRASH_DIRECTORY/xdg/opencode/plugins/git-session.js" &&
	XDG_CONFIG_HOME="$TRASH_DIRECTORY/xdg" git session hooks uninstall --agent opencode --user >out &&
	! test -e "$TRASH_DIRECTORY/xdg/opencode/plugins/git-session.js" &&
	git session hooks install --agent opencode --user >out &&
	test -f "$HOME/.config/opencode/plugins/git-session.js" &&
	git session hooks uninstall --agent opencode --user >out &&
	! test -e "$HOME/.config/opencode"
'

# --- Cursor's hooks.json ---

test_expect_success 'cursor: install writes .cursor/hooks.json as Cursor reads it, keeps the user'"'"'s hooks, uninstall gives it back' '
	mkdir .cursor &&
	printf "{\n\t\"version\": 1,\n\t\"hooks\": {\n\t\t\"stop\": [{ \"command\": \"./audit.sh\", \"loop_limit\": 10 }]\n\t}\n}\n" >.cursor/hooks.json &&
	cp .cursor/hooks.json orig.json &&
	git session hooks install --agent cursor >out &&
	python3 -c "
import json
s = json.load(open(\".cursor/hooks.json\"))
assert s[\"version\"] == 1
h = s[\"hooks\"]
assert h[\"stop\"][0] == {\"command\": \"./audit.sh\", \"loop_limit\": 10}, h[\"stop\"]
cmd = \"command -v git-session >/dev/null 2>&1 || exit 0; cd \\\"\${CURSOR_PROJECT_DIR:-.}\\\" && git-session hook cursor \"
for e in (\"sessionStart\", \"beforeSubmitPrompt\", \"preToolUse\", \"postToolUse\", \"afterFileEdit\", \"stop\", \"sessionEnd\"):
    assert h[e][-1][\"command\"] == cmd + e, h[e]
    assert h[e][-1][\"timeout\"] == 10
assert h[\"postToolUse\"][-1][\"matcher\"] == \"Shell\"
" &&
	git session hooks status >out && grep "cursor  *installed (11 of 11 events" out &&
	git session hooks uninstall --agent cursor >out &&
	test_cmp orig.json .cursor/hooks.json &&
	rm -r .cursor orig.json &&
	git session hooks install --agent cursor >out &&
	head -2 .cursor/hooks.json >head && printf "{\n  \"version\": 1,\n" >expect && test_cmp expect head &&
	git session hooks uninstall --agent cursor >out && ! test -e .cursor &&
	git session hooks install --agent cursor --user >out && test -f "$HOME/.cursor/hooks.json" &&
	git session hooks uninstall --agent cursor --user >out && ! test -e "$HOME/.cursor/hooks.json"
'

CUR=cafe0001-2222-3333-4444-555566667777
# cursor <event> <json members>: Cursor's documented payload, its common fields first
cursor () {
	ev "${HOOK_AGENT:-cursor}" "${2:-$1}" "{\"conversation_id\":\"$CUR\",\"generation_id\":\"g1\",\"model\":\"m\",\"hook_event_name\":\"$1\",\"cursor_version\":\"1.7.2\",\"workspace_roots\":[\"$R\"],\"user_email\":null,\"transcript_path\":null$3}"
}

test_expect_success 'cursor: its documented payloads through its own hooks' '
	git session close -q 2>/dev/null; git session hooks install --agent cursor >/dev/null &&
	cursor sessionStart "" ",\"session_id\":\"$CUR\",\"is_background_agent\":false,\"composer_mode\":\"agent\"" &&
	cursor beforeSubmitPrompt "" ",\"prompt\":\"fix the parser\",\"attachments\":[]" &&
	echo fixed >parser.c &&
	cursor afterFileEdit "" ",\"file_path\":\"$R/parser.c\",\"edits\":[{\"old_string\":\"a\",\"new_string\":\"b\"}]" &&
	cursor preToolUse "" ",\"tool_name\":\"Shell\",\"tool_input\":{\"command\":\"make\",\"working_directory\":\"$R\"},\"tool_use_id\":\"t1\",\"cwd\":\"\"" &&
	cursor postToolUse "" ",\"tool_name\":\"Shell\",\"tool_input\":{\"command\":\"make test\"},\"tool_output\":\"{\\\"exitCode\\\":1,\\\"stdout\\\":\\\"1 failed\\\"}\",\"tool_use_id\":\"t1\",\"cwd\":\"\",\"duration\":5432" &&
	cursor subagentStart "" ",\"subagent_id\":\"abc-123\",\"subagent_type\":\"explore\",\"task\":\"Explore the parser\",\"parent_conversation_id\":\"$CUR\",\"tool_call_id\":\"tc-789\"" &&
	cursor subagentStop "" ",\"subagent_type\":\"explore\",\"status\":\"completed\",\"task\":\"Explore the parser\",\"summary\":\"The parser is fine.\",\"duration_ms\":4500,\"modified_files\":[],\"agent_transcript_path\":\"/nonexistent/t.txt\"" &&
	cursor stop "" ",\"status\":\"completed\",\"loop_count\":0" &&
	cursor sessionEnd "" ",\"session_id\":\"$CUR\",\"reason\":\"completed\",\"duration_ms\":45000" &&
	test_must_be_empty ev.err &&
	git log --format=%s SESSION_HEAD >log &&
	grep "^note: \"fix the parser\"$" log &&
	grep "^agent cursor-cafe0001 started (cursor)$" log &&
	grep "^file created: parser.c by cursor-cafe0001$\|^file modified: parser.c by cursor-cafe0001$" log &&
	grep "^run by cursor-cafe0001: \"make test\" (exit 1, 5432 ms)$" log &&
	session_json >s &&
	test "$(json_field s "[[a[\"cli\"], a[\"status\"], a.get(\"parent\")] for a in d[\"agents\"]]")" = \
		"[[\"cursor\", \"completed\", null], [\"cursor\", \"completed\", \"cursor-cafe0001\"]]" &&
	test "$(json_field s "[a[\"result_summary\"] for a in d[\"agents\"] if a[\"type\"] == \"explore\"]")" = "[\"The parser is fine.\"]"
'

test_expect_success 'cursor: through Claude Code'"'"'s hooks, recorded once, as cursor, while its own are installed too' '
	git session hooks install --agent claude-code >/dev/null &&
	git rev-parse SESSION_HEAD >before &&
	HOOK_AGENT=claude-code cursor beforeSubmitPrompt UserPromptSubmit ",\"prompt\":\"once only\"" &&
	git rev-parse SESSION_HEAD >after && test_cmp before after &&
	cursor beforeSubmitPrompt "" ",\"prompt\":\"once only\"" &&
	git log --format=%s SESSION_HEAD >log && test "$(grep -c "^note: \"once only\"" log)" = 1
'

test_expect_success 'cursor: through Claude Code'"'"'s hooks alone, a Cursor payload is cursor'"'"'s, not Claude'"'"'s' '
	git session hooks uninstall --agent cursor >/dev/null &&
	git session close -q &&
	CUR=beef0002-2222-3333-4444-555566667777 &&
	HOOK_AGENT=claude-code cursor sessionStart SessionStart ",\"session_id\":\"$CUR\"" &&
	HOOK_AGENT=claude-code cursor beforeSubmitPrompt UserPromptSubmit ",\"prompt\":\"through claude\"" &&
	echo via >via.txt &&
	HOOK_AGENT=claude-code cursor postToolUse PostToolUse ",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$R/via.txt\"},\"tool_use_id\":\"t2\",\"cwd\":\"\"" &&
	HOOK_AGENT=claude-code cursor stop Stop ",\"status\":\"completed\",\"loop_count\":0" &&
	test_must_be_empty ev.err &&
	git log --format=%s SESSION_HEAD >log &&
	grep "^agent cursor-beef0002 started (cursor)$" log &&
	grep "^file [a-z]*: via.txt by cursor-beef0002$" log &&
	! grep "claude-" log &&
	git session hooks uninstall --agent claude-code >/dev/null
'

# --- the real OpenCode, offline ---

test -x "$agents/node_modules/.bin/opencode" && "$agents/node_modules/.bin/opencode" --version >/dev/null 2>&1 &&
	command -v node >/dev/null 2>&1 && PATH="$agents/node_modules/.bin:$PATH" ||
	say "# the OpenCode tests are skipped: no Node.js, or no tests/agents/node_modules (make deps installs it)"
# only loopback, where the machine lets a user have a network namespace
NETNS= && unshare -rn sh -c "ip link set lo up" 2>/dev/null && NETNS="unshare -rn"
OC_HOME="$TRASH_DIRECTORY/oc-home"

# opencode_home: its config (a custom provider on the scripted model) in its own home, the folder looking installed
opencode_home () {
	mkdir -p "$OC_HOME/.config/opencode/node_modules" &&
	echo "{\"lockfileVersion\":3,\"packages\":{\"\":{\"dependencies\":{\"@opencode-ai/plugin\":\"*\"}}}}" \
		>"$OC_HOME/.config/opencode/package-lock.json" &&
	cat >"$OC_HOME/.config/opencode/opencode.json" <<-\EOT
	{"autoupdate": false, "share": "disabled", "model": "scripted/test-model", "small_model": "scripted/test-model",
	 "permission": {"edit": "allow", "bash": "allow", "webfetch": "deny", "external_directory": "allow"},
	 "provider": {"scripted": {"npm": "@ai-sdk/openai-compatible", "name": "Scripted",
	   "options": {"baseURL": "{env:SCRIPTED_BASE_URL}", "apiKey": "dummy"},
	   "models": {"test-model": {"name": "Test", "tool_call": true, "limit": {"context": 200000, "output": 8000}},
	              "gpt-5.5": {"name": "GPT", "tool_call": true, "limit": {"context": 200000, "output": 8000}}}}}}
	EOT
}

# opencode_run <script> <prompt> [<args>...]: `opencode run` and the scripted model, together (in the namespace)
opencode_run () {
	script=$1 prompt=$2 && shift 2 &&
	cat >oc-run.sh <<-\EOT &&
	test -z "$NETNS" || ip link set lo up
	rm -f ../port
	node "$agents/model-server.js" "$script" ../port & server=$!
	for i in $(seq 1 600); do test -s ../port && break; sleep 0.05; done
	SCRIPTED_BASE_URL=http://127.0.0.1:$(cat ../port)/v1 timeout 120 opencode run --print-logs "$@" "$prompt" \
		</dev/null >../opencode.out 2>../opencode.err
	rc=$?; kill $server; wait $server 2>/dev/null; exit $rc
	EOT
	env HOME="$OC_HOME" XDG_CONFIG_HOME="$OC_HOME/.config" XDG_DATA_HOME="$OC_HOME/.local/share" \
		XDG_CACHE_HOME="$OC_HOME/.cache" XDG_STATE_HOME="$OC_HOME/.local/state" \
		OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1 \
		agents="$agents" script="$script" prompt="$prompt" NETNS="$NETNS" $NETNS sh oc-run.sh "$@"
}

test_expect_success OPENCODE 'OpenCode: a session with a prompt, a file written and edited, a shell command and tokens, checked with plain git' '
	git session close -q 2>/dev/null; rm -f via.txt parser.c &&
	opencode_home && git session hooks install --agent opencode >/dev/null &&
	cat >../oc-script.json <<-\EOT &&
	[{"match": "create the greeting", "calls": [
	  {"name": "write", "input": {"filePath": "hello.txt", "content": "hello\nworld\n"}},
	  {"name": "edit", "input": {"filePath": "hello.txt", "oldString": "world", "newString": "opencode"}},
	  {"name": "bash", "input": {"command": "echo shell-ran && exit 3", "description": "Run a shell command"}}],
	  "answer": "All done."}]
	EOT
	opencode_run ../oc-script.json "create the greeting file" &&
	! grep "dependency install" ../opencode.err &&
	git log --format=%s SESSION_HEAD >log &&
	grep "^start session .*create-the-greeting-file" log &&
	grep "^note: \"\"create the greeting file\"\"$" log &&	# `opencode run` quotes a message with spaces
	agent=$(sed -n "s/^agent \(opencode-[0-9a-zA-Z]*\) started (opencode)$/\1/p" log) &&
	test -n "$agent" &&
	grep "^file created: hello.txt by $agent$" log &&
	grep "^file modified: hello.txt by $agent$" log &&
	grep "^run by $agent: \"echo shell-ran && exit 3\" (exit 3, [0-9]* ms)$" log &&
	grep "^turn of $agent: \"All done.\" (+[1-9][0-9]* in, +[1-9][0-9]* out[;)]" log &&
	test "$(git rev-parse SESSION_HEAD:files/hello.txt)" = "$(git hash-object hello.txt)" &&
	git cat-file -p SESSION_HEAD:files/hello.txt >got && printf "hello\nopencode\n" >expect && test_cmp expect got &&
	session_json >s &&
	test "$(json_field s "d[\"tokens\"][\"by_agent\"][\"$agent\"][\"cached\"] > 0 and d[\"tokens\"][\"by_agent\"][\"$agent\"][\"output\"] > 0")" = true
'

test_expect_success OPENCODE 'OpenCode: a gpt-5.5 model patches with apply_patch: each file of the patch recorded' '
	cat >../oc-patch.json <<-\EOT &&
	[{"match": "patch the greeting", "calls": [
	  {"name": "apply_patch", "input": {"patchText": "*** Begin Patch\n*** Update File: hello.txt\n@@\n hello\n-opencode\n+patched\n*** Add File: extra.txt\n+extra\n*** End Patch"}}],
	  "answer": "Patched."}]
	EOT
	opencode_run ../oc-patch.json "patch the greeting" -m scripted/gpt-5.5 &&
	git log --format=%s SESSION_HEAD >log &&
	agent=$(sed -n "s/^turn of \(opencode-[0-9a-zA-Z]*\): \"Patched.\".*/\1/p" log) &&
	test -n "$agent" &&
	grep "^checkpoint: 2 files by $agent$" log &&
	test "$(git rev-parse SESSION_HEAD:files/hello.txt)" = "$(git hash-object hello.txt)" &&
	test "$(git rev-parse SESSION_HEAD:files/extra.txt)" = "$(git hash-object extra.txt)"
'

test_expect_success OPENCODE 'OpenCode: a task runs a sub-agent: an agent of its type under its parent, with its own tokens' '
	cat >../oc-task.json <<-\EOT &&
	[{"match": "sub task", "calls": [{"name": "write", "input": {"filePath": "sub.txt", "content": "from the sub-agent\n"}}], "answer": "Sub-agent finished."},
	 {"match": "delegate", "calls": [{"name": "task", "input": {"description": "Write sub.txt", "prompt": "sub task: write sub.txt", "subagent_type": "general"}}],
	  "answer": "Delegated."}]
	EOT
	opencode_run ../oc-task.json "delegate the writing" &&
	test -f sub.txt &&
	session_json >s &&
	sub=$(json_field s "d[\"files\"][\"sub.txt\"][\"agent\"]") &&
	case $sub in general-*) ;; *) echo "sub.txt credited to $sub"; false ;; esac &&
	test "$(json_field s "[[a[k] for k in (\"type\", \"status\", \"cli\", \"last_reply\")] for a in d[\"agents\"] if a[\"id\"] == \"$sub\"]")" = \
		"[[\"general\", \"completed\", \"opencode\", \"Sub-agent finished.\"]]" &&
	parent=$(json_field s "[a[\"parent\"] for a in d[\"agents\"] if a[\"id\"] == \"$sub\"][0]") &&
	case $parent in opencode-*) ;; *) echo "parent $parent"; false ;; esac &&
	test "$(json_field s "d[\"tokens\"][\"by_agent\"][\"$sub\"][\"output\"] > 0")" = true
'

test_expect_success OPENCODE 'OpenCode: past the budget, the plugin refuses the tool call' '
	git session tokens budget 100 -q &&
	git config session.enforceBudget true &&
	cat >../oc-refuse.json <<-\EOT &&
	[{"match": "write more", "calls": [{"name": "write", "input": {"filePath": "more.txt", "content": "more\n"}}], "answer": "Could not."}]
	EOT
	opencode_run ../oc-refuse.json "write more text" ; rc=$?
	git config --unset session.enforceBudget && test $rc = 0 &&
	! test -e more.txt &&
	grep "has used [0-9]* of its budget of 100 tokens" ../opencode.out ../opencode.err "$OC_HOME"/.local/share/opencode/opencode.db* >/dev/null
'

test_done
