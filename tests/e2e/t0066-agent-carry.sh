#!/bin/sh
test_description='resume --agent: an agent conversation its hooks recorded, pushed, pulled into another clone under another home, rebuilt in the agent'"'"'s own folder with its paths moved, and continued; refused when the stored transcript cannot give it back'
. ./lib.sh

agents="$TEST_DIRECTORY/../agents"
T=$TRASH_DIRECTORY
# Bob's clone is elsewhere, at another depth: every path in the conversation moves
B=$T/elsewhere/bob

# on <who> <command>...: in who's clone (alice, or bob's at $B), with who's home
on () {
	on_who=$1; shift
	(cd "$(test $on_who = bob && echo "$B" || echo "$T/$on_who")" && HOME="$T/home-$on_who" && export HOME && "$@")
}
# on_real <who> <command>...: in who's clone, under the home who runs the real CLIs in
on_real () { or_who=$1; shift; (cd "$T/$or_who" && HOME="$T/real-$or_who" && export HOME && "$@"); }
# on_home <name> <command>...: in Bob's clone, under another home
on_home () { oh_home=$1; shift; (cd "$B" && HOME="$T/home-$oh_home" && export HOME && "$@"); }
# the folder Claude Code keeps a project's sessions in, for a working folder
project_dir () { python3 -c 'import re, sys; print(re.sub("[^A-Za-z0-9]", "-", sys.argv[1]))' "$1"; }

# hook <who> <session id> <cwd> <event> [<more payload fields>]: who's Claude Code runs our hook
hook () {
	hk_who=$1 hk_sid=$2 hk_cwd=$3 hk_event=$4; shift 4
	test_tick &&
	printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","hook_event_name":"%s"%s}' \
		"$hk_sid" "$T/home-$hk_who/.claude/projects/x/$(echo "$hk_sid" | tr -c "a-z0-9\n" _).jsonl" \
		"$hk_cwd" "$hk_event" "$*" |
		on $hk_who git-session hook claude-code $hk_event
}
# tl <who> <session id> <line>...: appended to that transcript
tl () {
	tl_f="$T/home-$1/.claude/projects/x/$(echo "$2" | tr -c "a-z0-9\n" _).jsonl"; shift 2
	mkdir -p "${tl_f%/*}" && printf '%s\n' "$@" >>"$tl_f"
}
# line <uuid> <parent> <type> <cwd> <message json>: a transcript line as Claude Code writes it
line () {
	echo "{\"parentUuid\":$2,\"isSidechain\":false,\"type\":\"$3\",\"message\":$5,\"uuid\":\"$1\",\"timestamp\":\"2025-11-21T10:00:0${1#u}Z\",\"cwd\":\"$4\",\"sessionId\":\"s\",\"version\":\"2.1.330\"}"
}

test_expect_success 'setup: a bare remote, Alice'"'"'s clone and Bob'"'"'s elsewhere, each with the hooks' '
	git init -q --bare -b main "$T/remote.git" &&
	mkdir -p "$T/home-alice" "$T/home-bob" "$T/elsewhere" &&
	git clone -q "$T/remote.git" "$T/alice" 2>/dev/null &&
	on alice git symbolic-ref HEAD refs/heads/main &&
	mkdir -p "$T/alice/src" && echo "int main;" >"$T/alice/src/app.c" &&
	on alice git add src/app.c && test_tick && on alice git commit -q -m "app" &&
	on alice git push -q -u origin main &&
	git clone -q "$T/remote.git" "$B" &&
	for who in alice bob
	do
		on $who git session hooks install --agent claude-code >/dev/null &&
		on $who sh -c "echo /.claude/ >>.git/info/exclude" || return 1
	done &&
	test_tick && on alice git session start "Carry" --id carry -q
'

A_SID=a11ce000-0000-4000-8000-00000000000a
test_expect_success 'Alice: a conversation in src/, a line the stored filter leaves out, recorded and pushed' '
	hook alice $A_SID "$T/alice/src" SessionStart ",\"source\":\"startup\"" &&
	tl alice $A_SID "$(line u1 null user "$T/alice/src" "{\"role\":\"user\",\"content\":\"fix app.c\"}")" \
		"{\"parentUuid\":\"u1\",\"type\":\"attachment\",\"uuid\":\"att\",\"cwd\":\"$T/alice/src\"}" \
		"$(line u2 "\"att\"" assistant "$T/alice/src" "{\"role\":\"assistant\",\"id\":\"m1\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Edit\",\"input\":{\"file_path\":\"$T/alice/src/app.c\"}}],\"usage\":{\"input_tokens\":10,\"output_tokens\":2}}")" \
		"$(line u3 "\"u2\"" user "$T/alice/src" "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"edited $T/alice/src/app.c\"}]}")" \
		"$(line u4 "\"u3\"" assistant "$T/alice/src" "{\"role\":\"assistant\",\"id\":\"m2\",\"content\":[{\"type\":\"text\",\"text\":\"Fixed in $T/alice-old/x and app.c.\"}],\"usage\":{\"input_tokens\":10,\"output_tokens\":2}}")" &&
	hook alice $A_SID "$T/alice/src" UserPromptSubmit ",\"prompt\":\"fix app.c\"" &&
	hook alice $A_SID "$T/alice/src" Stop ",\"last_assistant_message\":\"Fixed.\"" &&
	on alice git session push >/dev/null
'

file=$T/home-bob/.claude/projects/$(project_dir "$B/src")/$A_SID.jsonl
test_expect_success 'Bob: pulled, rebuilt under his home, in src/ of his clone; the command to continue printed' '
	on bob git session pull -q &&
	on bob git session status carry >status &&
	grep "^Next: carry the conversation of agent claude-a11ce000 to this machine, then resume it$" status &&
	grep "^      git session resume --agent claude-code:claude-a11ce000$" status &&
	on bob git session resume --agent claude-code carry >out 2>err &&
	echo "cd $B/src && claude --resume $A_SID" >expect &&
	test_cmp expect out &&
	grep "^Rebuilt claude-code session $A_SID (4 lines) in $file" err &&
	test "$(stat -c %a "$file")" = 600 &&
	python3 - "$file" "$T" "$B" <<-\EOF
	import json, sys
	lines = [json.loads(l) for l in open(sys.argv[1])]
	T, B = sys.argv[2], sys.argv[3]
	assert [l["uuid"] for l in lines] == ["u1", "u2", "u3", "u4"], lines
	# the attachment was not kept: the reply after it hangs on the prompt
	assert [l["parentUuid"] for l in lines] == [None, "u1", "u2", "u3"]
	assert all(l["cwd"] == B + "/src" and l["sessionId"] == "a11ce000-0000-4000-8000-00000000000a" for l in lines)
	assert lines[1]["message"]["content"][0]["input"]["file_path"] == B + "/src/app.c"
	assert lines[2]["message"]["content"][0]["content"] == "edited %s/src/app.c" % B
	# the reply is what was said, and a sibling path is another path
	assert lines[3]["message"]["content"][0]["text"] == "Fixed in %s/alice-old/x and app.c." % T
	EOF
'

test_expect_success 'the session is active in Bob'"'"'s clone, the agent linked, its file recorded as read' '
	on bob git session status >status &&
	! grep "carry the conversation" status &&
	test "$(on bob git symbolic-ref SESSION_HEAD)" = refs/sessions/carry &&
	on bob git log -1 --format=%s SESSION_HEAD >subject &&
	grep "^turn of claude-a11ce000: +0 in, +0 out$" subject &&
	on bob git session show --json >s &&
	test "$(json_field s "[a[\"transcript\"][\"offset\"] for a in d[\"agents\"] if a[\"id\"] == \"claude-a11ce000\"][0]")" = \
		"$(stat -c %s "$file")"
'

test_expect_success 'an agent session file of that id: refused without --force, replaced with it' '
	echo mine >"$file" &&
	test_must_fail on bob git session resume --agent claude-code carry >out 2>err &&
	grep "^error: .*$A_SID.jsonl. exists" err &&
	grep "^hint: .--force. replaces it" err &&
	test_must_be_empty out &&
	test "$(cat "$file")" = mine &&
	on bob git session resume --agent claude-code:claude-a11ce000 --force carry >out 2>/dev/null &&
	test "$(wc -l <"$file")" = 4 &&
	! ls "${file%/*}" | grep tmp &&
	on bob git session resume --agent claude-code --force -q carry >out 2>err &&
	test_must_be_empty out && test_must_be_empty err
'

test_expect_success 'the file cannot be written (a folder in its place): no checkpoint records it' '
	before=$(on bob git rev-parse refs/sessions/carry) &&
	mv "$file" "$file.keep" && mkdir "$file" && echo x >"$file/in" &&
	test_must_fail on bob git session resume --agent claude-code --force carry >out 2>err &&
	grep "^error: cannot write .*$A_SID.jsonl" err &&
	test "$(on bob git rev-parse refs/sessions/carry)" = "$before" &&
	rm -r "$file" && mv "$file.keep" "$file" &&
	! ls "${file%/*}" | grep tmp
'

test_expect_success 'the session cannot record the file written: it is removed again, and said' '
	rm "$file" &&
	before=$(on bob git rev-parse refs/sessions/carry) &&
	# a folder where the session links the agent to it
	link="$(on bob git rev-parse --git-common-dir)/git-session/agents/$A_SID" &&
	case "$link" in /*) ;; *) link="$B/$link" ;; esac &&
	mv "$link" "$link.keep" && mkdir "$link" && echo x >"$link/in" &&
	test_must_fail on bob git session resume --agent claude-code carry >out 2>err
	rc=$?
	rm -r "$link" && mv "$link.keep" "$link" &&
	test $rc = 0 &&
	grep "^error: the session did not record .*$A_SID.jsonl.: it is removed again" err &&
	test_must_be_empty out &&
	! test -e "$file" &&
	test "$(on bob git rev-parse refs/sessions/carry)" = "$before" &&
	on bob git session resume --agent claude-code -q carry >/dev/null &&
	test "$(wc -l <"$file")" = 4
'

test_expect_success 'CLAUDE_CONFIG_DIR moves the agent'"'"'s folder; --json says what was written' '
	(cd "$B" && HOME="$T/home-bob" CLAUDE_CONFIG_DIR="$T/claude-config" git session resume --agent claude-code:$A_SID --json) >j &&
	test "$(json_field j "d[\"file\"]")" = "projects/$(project_dir "$B/src")/$A_SID.jsonl" &&
	test "$(json_field j "d[\"path\"]")" = "$T/claude-config/projects/$(project_dir "$B/src")/$A_SID.jsonl" &&
	test "$(json_field j "[d[\"agent\"], d[\"lines\"], d[\"relinked\"], d[\"thinking_dropped\"]]")" = "[\"claude-a11ce000\", 4, 1, 0]" &&
	test -f "$T/claude-config/projects/$(project_dir "$B/src")/$A_SID.jsonl"
'

test_expect_success 'refused: an unknown agent, an agent of a CLI the session has none of, an agent not in the session' '
	test_must_fail on bob git session resume --agent copilot 2>err &&
	grep "^error: unknown agent .copilot.: it is claude-code, gemini-cli.* or [a-z-]*$" err &&
	test_must_fail on bob git session resume --agent gemini-cli 2>err &&
	grep "^error: the session has no gemini-cli agent whose conversation its hooks recorded" err &&
	! test -e "$T/home-bob/.gemini" &&
	test_must_fail on bob git session resume --agent claude-code:claude-nobody 2>err &&
	grep "^error: the session has no claude-code agent .claude-nobody." err &&
	test_must_fail on bob git session resume --force 2>err &&
	grep "^error: --force needs --agent" err
'

test_expect_success 'refused: a folder of the agent'"'"'s that leads out of it' '
	mkdir -p "$T/home-eve/.claude" "$T/outside" &&
	ln -s "$T/outside" "$T/home-eve/.claude/projects" &&
	before=$(on bob git rev-parse refs/sessions/carry) &&
	test_must_fail on_home eve git session resume --agent claude-code carry 2>err &&
	grep "^error: .*/.claude/projects. is not in the agent.s folder" err &&
	test -z "$(ls -A "$T/outside")" &&
	test "$(on bob git rev-parse refs/sessions/carry)" = "$before"
'

# refused <who> <grep pattern>: resume --agent fails with that error and writes nothing
refused () {
	rm -rf "$T/home-$1/.claude/projects" &&
	test_must_fail on $1 git session resume --agent claude-code >out 2>err &&
	grep "$2" err && test_must_be_empty out &&
	! test -e "$T/home-$1/.claude/projects"
}

test_expect_success 'refused: a session id that is not a file name' '
	test_tick && on alice git session start "Hostile" --id hostile -q --pause-current &&
	hook alice "../../../escape" "$T/alice" SessionStart ",\"source\":\"startup\"" &&
	tl alice "../../../escape" "$(line u1 null user "$T/alice" "{\"role\":\"user\",\"content\":\"hi\"}")" &&
	hook alice "../../../escape" "$T/alice" Stop &&
	refused alice "^error: agent .claude-escape. has no session id of its CLI to resume, or one that is not a file name" &&
	! test -e "$T/escape.jsonl" && ! test -e "$T/home-alice/escape.jsonl"
'

test_expect_success 'refused: a part not kept past session.transcriptLimit, or while session.transcripts was false' '
	test_tick && on alice git session start "Limit" --id limit -q --pause-current &&
	on alice git config session.transcriptLimit 400 &&
	hook alice lim1 "$T/alice" SessionStart ",\"source\":\"startup\"" &&
	tl alice lim1 "$(line u1 null user "$T/alice" "{\"role\":\"user\",\"content\":\"first\"}")" &&
	hook alice lim1 "$T/alice" Stop 2>/dev/null &&
	tl alice lim1 "$(line u2 "\"u1\"" user "$T/alice" "{\"role\":\"user\",\"content\":\"second, past the limit\"}")" &&
	hook alice lim1 "$T/alice" Stop 2>err &&
	grep "passed session.transcriptLimit" err &&
	on alice git config --unset session.transcriptLimit &&
	refused alice "^error: the transcript of agent .claude-lim1. is not kept whole" &&
	test_tick && on alice git session start "Off" --id off -q --pause-current &&
	on alice git config session.transcripts false &&
	hook alice off1 "$T/alice" SessionStart ",\"source\":\"startup\"" &&
	tl alice off1 "$(line u1 null user "$T/alice" "{\"role\":\"user\",\"content\":\"not kept\"}")" &&
	hook alice off1 "$T/alice" Stop &&
	on alice git config --unset session.transcripts &&
	refused alice "^error: the transcript of agent .claude-off1. is not kept whole"
'

test_expect_success 'refused: a stored line the agent cannot read (not JSON, its message gone)' '
	test_tick && on alice git session start "Unreadable" --id unreadable -q --pause-current &&
	on alice git config session.transcripts all &&
	hook alice bad1 "$T/alice" SessionStart ",\"source\":\"startup\"" &&
	tl alice bad1 "$(line u1 null user "$T/alice" "{\"role\":\"user\",\"content\":\"hi\"}")" "not json at all" &&
	hook alice bad1 "$T/alice" Stop &&
	on alice git config --unset session.transcripts &&
	refused alice "^error: cannot rebuild agent .claude-bad1.s session: line 2 of the stored transcript is not a JSON object" &&
	test_tick && on alice git session start "Redacted" --id redacted -q --pause-current &&
	hook alice bad2 "$T/alice" SessionStart ",\"source\":\"startup\"" &&
	tl alice bad2 "{\"type\":\"user\",\"uuid\":\"u1\",\"message\":\"[REDACTED]\"}" &&
	hook alice bad2 "$T/alice" Stop &&
	refused alice "^error: cannot rebuild agent .claude-bad2.s session: line 1 of the stored transcript cannot be read back: its message has no role or content"
'

test_expect_success 'a thinking signature redaction changed: the block left out, its line relinked over, and said' '
	test_tick && on alice git session start "Thinking" --id think -q --pause-current &&
	hook alice th1 "$T/alice" SessionStart ",\"source\":\"startup\"" >/dev/null &&
	sig=$(python3 -c "import base64, hashlib; print(base64.b64encode(b\"\".join(hashlib.sha256(bytes([i])).digest() for i in range(12))).decode())") &&
	tl alice th1 "$(line u1 null user "$T/alice" "{\"role\":\"user\",\"content\":\"think\"}")" \
		"$(line u2 "\"u1\"" assistant "$T/alice" "{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"hmm\",\"signature\":\"$sig\"}]}")" \
		"$(line u3 "\"u2\"" assistant "$T/alice" "{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"ok\",\"signature\":\"EqoB\"},{\"type\":\"text\",\"text\":\"done\"}]}")" &&
	hook alice th1 "$T/alice" Stop &&
	# the signature, high-entropy, was redacted when stored
	for part in $(on alice git ls-tree -r --name-only refs/sessions/think -- transcripts)
	do
		on alice git cat-file -p refs/sessions/think:$part || return 1
	done >kept &&
	grep -q "\"signature\":\"\[REDACTED:" kept &&
	rm -rf "$T/home-alice/.claude/projects/$(project_dir "$T/alice")" &&
	on alice git session resume --agent claude-code think >out 2>err &&
	grep "^Rebuilt claude-code session th1 (2 lines, 1 thinking block left out: redacted) in " err &&
	f="$T/home-alice/.claude/projects/$(project_dir "$T/alice")/th1.jsonl" &&
	! grep REDACTED "$f" &&
	test "$(sed -n 2p "$f" | json_field /dev/stdin "[d[\"uuid\"], d[\"parentUuid\"], d[\"message\"][\"content\"][0][\"signature\"]]")" = "[\"u3\", \"u1\", \"EqoB\"]" &&
	on alice git session resume --agent claude-code --force --json think >j &&
	test "$(json_field j "d[\"thinking_dropped\"]")" = 1
'

# Alice's clone is $T/alice, and the project has a folder alice/ too: the working folder
# $T/alice read as "$T, then alice/" would put the conversation in Bob's alice/
test_expect_success 'a folder named like the clone: the paths the conversation names that are here tell the root' '
	mkdir -p "$T/alice/alice" && echo "# notes" >"$T/alice/alice/notes.md" &&
	on alice git add alice/notes.md && test_tick && on alice git commit -q -m "notes" &&
	on alice git push -q origin main && on bob git pull -q origin main &&
	test_tick && on alice git session start "Named" --id named -q --pause-current &&
	hook alice n1 "$T/alice" SessionStart ",\"source\":\"startup\"" >/dev/null &&
	tl alice n1 "$(line u1 null user "$T/alice" "{\"role\":\"user\",\"content\":\"read app.c\"}")" \
		"$(line u2 "\"u1\"" assistant "$T/alice" "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Read\",\"input\":{\"file_path\":\"$T/alice/src/app.c\"}}]}")" &&
	hook alice n1 "$T/alice" Stop &&
	on alice git session push >/dev/null && on bob git session pull -q &&
	on bob git session resume --agent claude-code named >out 2>/dev/null &&
	echo "claude --resume n1" >expect &&
	test_cmp expect out &&
	f="$T/home-bob/.claude/projects/$(project_dir "$B")/n1.jsonl" &&
	test "$(head -n 1 "$f" | json_field /dev/stdin "d[\"cwd\"]")" = "$B" &&
	grep -q "\"file_path\":\"$B/src/app.c\"" "$f"
'

test_expect_success 'a folder named like the clone: a file the session recorded tells the root, though not here' '
	test_tick && on alice git session start "Named 2" --id named2 -q --pause-current &&
	hook alice n2 "$T/alice" SessionStart ",\"source\":\"startup\"" >/dev/null &&
	echo draft >"$T/alice/draft.txt" &&
	tl alice n2 "$(line u1 null user "$T/alice" "{\"role\":\"user\",\"content\":\"draft it\"}")" \
		"$(line u2 "\"u1\"" assistant "$T/alice" "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Write\",\"input\":{\"file_path\":\"$T/alice/draft.txt\",\"content\":\"draft\"}}]}")" &&
	hook alice n2 "$T/alice" PostToolUse ",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$T/alice/draft.txt\",\"content\":\"draft\"},\"tool_response\":{}" &&
	hook alice n2 "$T/alice" Stop &&
	rm "$T/alice/draft.txt" &&
	on alice git session push >/dev/null && on bob git session pull -q &&
	on bob git session show --json named2 >s &&
	test "$(json_field s "sorted(d[\"files\"])")" = "[\"draft.txt\"]" &&
	on bob git session resume --agent claude-code named2 >out 2>/dev/null &&
	echo "claude --resume n2" >expect &&
	test_cmp expect out &&
	grep -q "\"file_path\":\"$B/draft.txt\"" "$T/home-bob/.claude/projects/$(project_dir "$B")/n2.jsonl"
'

G_SID=9e9e9e9e-0000-4000-8000-000000000001
test_expect_success 'Gemini CLI: its chat of that id, named by another minute, refused without --force and replaced with it' '
	test_tick && on alice git session start "Gemini chat" --id gsyn -q --pause-current &&
	chats="$T/home-alice/.gemini/tmp" &&
	mkdir -p "$chats/alice/chats" "$chats/other/chats" &&
	G="$chats/alice/chats/session-2025-11-21T09-59-9e9e9e9e.jsonl" &&
	gem () { printf "{\"session_id\":\"%s\",\"transcript_path\":\"%s\",\"cwd\":\"%s\",\"hook_event_name\":\"%s\",\"timestamp\":\"2025-11-21T10:00:00Z\"%s}" \
		$G_SID "$G" "$T/alice" "$1" "$2" | on alice git session hook gemini-cli "$1"; } &&
	gem SessionStart ",\"source\":\"startup\"" &&
	cat >"$G" <<-EOF &&
	{"sessionId":"$G_SID","projectHash":"x","startTime":"2025-11-21T09:59:58Z","lastUpdated":"2025-11-21T10:00:02Z","kind":"main"}
	{"id":"m1","timestamp":"2025-11-21T10:00:01Z","type":"user","content":[{"text":"plan it"}]}
	{"id":"m2","timestamp":"2025-11-21T10:00:02Z","type":"gemini","content":"planned"}
	EOF
	gem AfterAgent ",\"prompt\":\"plan it\",\"prompt_response\":\"planned\",\"stop_hook_active\":false" &&
	# the same first 8 characters, another session: not the one
	decoy="$chats/other/chats/session-2025-11-21T10-00-9e9e9e9e.jsonl" &&
	echo "{\"sessionId\":\"9e9e9e9e-ffff-4000-8000-000000000002\",\"kind\":\"main\"}" >"$decoy" &&
	cp "$decoy" decoy.orig &&
	test_must_fail on alice git session resume --agent gemini-cli gsyn >out 2>err &&
	grep "^error: .$G. exists" err &&
	test_must_be_empty out &&
	on alice git session resume --agent gemini-cli --force gsyn >out 2>err &&
	grep "^Rebuilt gemini-cli session $G_SID (3 lines) in $G$" err &&
	test "$(head -n 1 "$G" | json_field /dev/stdin "d[\"sessionId\"]")" = $G_SID &&
	grep "\"text\":\"plan it\"" "$G" &&
	test_cmp decoy.orig "$decoy" &&
	test "$(find "$chats" -type f | wc -l)" = 2
'

test_expect_success 'Gemini CLI: only a chat of another session with those 8 characters: a new one written beside it' '
	rm "$G" &&
	on alice git session status gsyn >status &&
	grep "^Next: carry the conversation of agent gemini-9e9e9e9e to this machine" status &&
	on alice git session resume --agent gemini-cli gsyn >out 2>err &&
	hash=$(printf %s "$T/alice" | sha256sum | cut -c1-64) &&
	test -f "$chats/$hash/chats/session-2025-11-21T10-00-9e9e9e9e.jsonl" &&
	test_cmp decoy.orig "$decoy"
'

# --- the real Claude Code ---

test_have_prereq CLAUDE_CODE ||
	say "# the Claude Code tests are skipped: no Node.js, or no tests/agents/node_modules (make deps installs it)"

# claude_env <who>: the environment who's Claude Code runs in, against the scripted model
mkdir -p "$T/bin" &&
printf '#!/bin/sh\nexec "%s" "$@"\n' "$agents/node_modules/@anthropic-ai/claude-code/bin/claude.exe" >"$T/bin/claude" &&
chmod +x "$T/bin/claude"
claude_in () {
	cl_who=$1; shift
	(cd "$(test $cl_who = bob && echo "$B" || echo "$T/$cl_who")" &&
	 env HOME="$T/real-$cl_who" PATH="$T/bin:$PATH" ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=test \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 IS_SANDBOX=1 timeout 120 "$@")
}

test_expect_success 'carried on by Bob: a turn in Alice'"'"'s own older file is not recorded over his; --force takes it back' '
	on alice git session resume -q carry && on alice git session push -q && on bob git session pull -q &&
	on bob git session resume --agent claude-code --force -q carry &&
	tl alice $A_SID "$(line u9 "\"u4\"" user "$T/alice/src" "{\"role\":\"user\",\"content\":\"alice again\"}")" &&
	printf "%s\n" "$(line u5 "\"u4\"" user "$B/src" "{\"role\":\"user\",\"content\":\"bob goes on\"}")" >>"$file" &&
	test_tick &&
	printf "{\"session_id\":\"%s\",\"transcript_path\":\"%s\",\"cwd\":\"%s\",\"hook_event_name\":\"Stop\"}" \
		$A_SID "$file" "$B/src" | on bob git-session hook claude-code Stop &&
	on bob git log -1 --format=%s SESSION_HEAD >subject &&
	grep "^turn of claude-a11ce000: .*transcript part 2" subject &&
	on bob git session push -q &&
	on alice git session pull -q &&
	hook alice $A_SID "$T/alice/src" Stop 2>err &&
	grep "^warning: the conversation of agent .claude-a11ce000. goes on in another file" err &&
	grep "git session resume --agent claude-code:claude-a11ce000 --force" err &&
	on alice git log -1 --format=%s refs/sessions/carry >subject &&
	! grep "transcript part 3" subject &&
	{ on alice git session resume --agent claude-code --force carry >out 2>err2 || { cat err2; false; }; } &&
	alice_file=$T/home-alice/.claude/projects/$(project_dir "$T/alice/src")/$A_SID.jsonl &&
	printf "%s\n" "$(line u6 "\"u5\"" user "$T/alice/src" "{\"role\":\"user\",\"content\":\"alice takes it back\"}")" >>"$alice_file" &&
	test_tick &&
	printf "{\"session_id\":\"%s\",\"transcript_path\":\"%s\",\"cwd\":\"%s\",\"hook_event_name\":\"Stop\"}" \
		$A_SID "$alice_file" "$T/alice/src" | on alice git-session hook claude-code Stop 2>err &&
	test_must_be_empty err &&
	on alice git log -1 --format=%s refs/sessions/carry >subject &&
	grep "transcript part 3" subject &&
	on alice git session transcript --agent claude-a11ce000 --raw refs/sessions/carry >raw &&
	grep "alice takes it back" raw && grep "bob goes on" raw && ! grep "alice again" raw
'

test_expect_success CLAUDE_CODE 'Alice'"'"'s Claude Code: two prompts, recorded by the hooks, pushed' '
	mkdir -p "$T/real-alice" "$T/real-bob" &&
	test_tick && on alice git session start "Real" --id real -q --pause-current &&
	cat >script.json <<-EOF &&
	[{"match": "write the notes", "calls": [{"name": "Write", "input": {"file_path": "$T/alice/notes.txt", "content": "buy milk\\n"}}], "answer": "Alicereply one: the notes are written."},
	 {"match": "what do the notes say", "answer": "Alicereply two: buy milk."},
	 {"match": "carry on, Bob here", "answer": "Bobreply: carrying on."}]
	EOF
	serve script.json &&
	claude_in alice claude -p "write the notes" --allowedTools Write --dangerously-skip-permissions >out 2>err &&
	claude_in alice claude -c -p "what do the notes say" --dangerously-skip-permissions >>out 2>>err ; rc=$?; stop_server; test $rc = 0 &&
	grep "Alicereply two" out &&
	on alice git log --format=%s refs/sessions/real >log &&
	grep "^turn of claude-[0-9a-f]*: \"Alicereply two: buy milk.\"" log &&
	on alice git session push >/dev/null
'

test_expect_success CLAUDE_CODE 'Bob, another home, another clone: rebuilt, and claude --resume carries Alice'"'"'s conversation on' '
	on bob git session pull -q &&
	(cd "$B" && HOME="$T/real-bob" git session resume --agent claude-code real) >cmd 2>/dev/null &&
	grep "^claude --resume [0-9a-f-]*$" cmd &&
	MODEL_SERVER_BODIES="$T/bodies" && export MODEL_SERVER_BODIES &&
	serve script.json &&
	claude_in bob sh -c "$(cat cmd) -p \"carry on, Bob here\" --dangerously-skip-permissions" >out 2>err ; rc=$?; stop_server
	unset MODEL_SERVER_BODIES
	test $rc = 0 &&
	grep "Bobreply: carrying on." out &&
	python3 - "$T/bodies" "$T" "$B" <<-\EOF &&
	import json, sys
	T, B = sys.argv[2], sys.argv[3]
	bodies = [json.loads(l[l.index("{"):]) for l in open(sys.argv[1]) if "{" in l]
	last = [b for b in bodies if any("carry on, Bob here" in json.dumps(m) for m in b.get("messages", []))][-1]
	said = json.dumps(last["messages"])
	for text in ("write the notes", "Alicereply one: the notes are written.", "what do the notes say",
	             "Alicereply two: buy milk.", "carry on, Bob here"):
	    assert text in said, text
	# the Write call Alice made, in Bob'"'"'s clone
	assert (B + "/notes.txt") in said and (T + "/alice/notes.txt") not in said
	EOF
	on bob git log --format=%s refs/sessions/real >log &&
	grep "^turn of claude-[0-9a-f]*: \"Bobreply: carrying on.\"" log &&
	# Bob'"'"'s turn is recorded after Alice'"'"'s, which are not read again from his file
	for part in $(on bob git ls-tree -r --name-only refs/sessions/real -- transcripts)
	do
		on bob git cat-file -p refs/sessions/real:$part || return 1
	done >kept &&
	test "$(grep -c "\"content\":\"write the notes\"" kept)" = 1 &&
	test "$(grep -c "\"content\":\"carry on, Bob here\"" kept)" = 1
'

test_expect_success CLAUDE_CODE 'and back: Alice pulls Bob'"'"'s turn and rebuilds over her own file, every path hers' '
	on bob git session push >/dev/null &&
	on alice git session pull -q &&
	test_must_fail on_real alice git session resume --agent claude-code real 2>err &&
	grep "exists" err &&
	on_real alice git session resume --agent claude-code --force real >cmd 2>/dev/null &&
	sid=$(sed "s/.* //" cmd) &&
	f="$T/real-alice/.claude/projects/$(project_dir "$T/alice")/$sid.jsonl" &&
	grep -q "carry on, Bob here" "$f" && grep -q "Alicereply one" "$f" &&
	! grep -q "$B" "$f"
'

# --- the real Gemini CLI ---

test_have_prereq GEMINI_CLI ||
	say "# the Gemini CLI tests are skipped: no Node.js, or no tests/agents/node_modules (make deps installs it)"

printf '#!/bin/sh\nexec node "%s" "$@"\n' "$agents/node_modules/@google/gemini-cli/bundle/gemini.js" >"$T/bin/gemini" &&
chmod +x "$T/bin/gemini"
gemini_in () {
	gm_who=$1; shift
	(cd "$(test $gm_who = bob && echo "$B" || echo "$T/$gm_who")" &&
	 env HOME="$T/gem-$gm_who" PATH="$T/bin:$PATH" GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$PORT" GEMINI_API_KEY=test \
		GEMINI_CLI_NO_RELAUNCH=true timeout 120 "$@")
}

test_expect_success GEMINI_CLI 'Alice'"'"'s Gemini CLI: two prompts, recorded by the hooks, pushed' '
	gemini_home "$T/gem-alice" "$T/alice" && gemini_home "$T/gem-bob" "$B" &&
	for who in alice bob
	do
		on $who git session hooks install --agent gemini-cli >/dev/null &&
		on $who sh -c "echo /.gemini/ >>.git/info/exclude" || return 1
	done &&
	test_tick && on alice git session start "Gemini" --id gem -q --pause-current &&
	cat >gscript.json <<-EOF &&
	[{"match": "write the plan", "calls": [{"name": "write_file", "input": {"file_path": "$T/alice/plan.md", "content": "step one\\n"}}], "answer": "Alicegem one: the plan is written."},
	 {"match": "what is the plan", "answer": "Alicegem two: step one."},
	 {"match": "go on, Bob here", "answer": "Bobgem: going on."}]
	EOF
	serve gscript.json &&
	gemini_in alice gemini -p "write the plan" -m gemini-2.5-flash -y >out 2>err &&
	gemini_in alice gemini --resume latest -p "what is the plan" -m gemini-2.5-flash -y >>out 2>>err ; rc=$?; stop_server; test $rc = 0 &&
	grep "Alicegem two" out &&
	on alice git log --format=%s refs/sessions/gem >log &&
	grep "^turn of gemini-[0-9a-f]*: \"Alicegem two: step one.\"" log &&
	on alice git session push >/dev/null
'

test_expect_success GEMINI_CLI 'Bob: rebuilt where Gemini CLI moves a new folder'"'"'s chats from, and gemini --resume carries it on' '
	on bob git session pull -q &&
	(cd "$B" && HOME="$T/gem-bob" git session resume --agent gemini-cli gem) >cmd 2>err &&
	grep "^gemini --resume [0-9a-f-]*$" cmd &&
	sid=$(sed "s/.* //" cmd) &&
	hash=$(printf %s "$B" | sha256sum | cut -c1-64) &&
	ls "$T/gem-bob/.gemini/tmp/$hash/chats/"session-*-$(echo $sid | cut -c1-8).jsonl &&
	MODEL_SERVER_BODIES="$T/gbodies" && export MODEL_SERVER_BODIES &&
	serve gscript.json &&
	gemini_in bob sh -c "$(cat cmd) -p \"go on, Bob here\" -m gemini-2.5-flash -y" >out 2>err ; rc=$?; stop_server
	unset MODEL_SERVER_BODIES
	test $rc = 0 &&
	grep "Bobgem: going on." out &&
	python3 - "$T/gbodies" "$T" "$B" <<-\EOF &&
	import json, sys
	T, B = sys.argv[2], sys.argv[3]
	bodies = [json.loads(l[l.index("{"):]) for l in open(sys.argv[1]) if "{" in l]
	last = [b for b in bodies if "go on, Bob here" in json.dumps(b.get("contents", []))][-1]
	said = json.dumps(last["contents"])
	for text in ("write the plan", "Alicegem one: the plan is written.", "what is the plan", "Alicegem two: step one.",
	             "go on, Bob here"):
	    assert text in said, text
	assert (B + "/plan.md") in said and (T + "/alice/plan.md") not in said
	EOF
	on bob git log --format=%s refs/sessions/gem >log &&
	grep "^turn of gemini-[0-9a-f]*: \"Bobgem: going on.\"" log &&
	for part in $(on bob git ls-tree -r --name-only refs/sessions/gem -- transcripts)
	do
		on bob git cat-file -p refs/sessions/gem:$part || return 1
	done >kept &&
	test "$(grep -c "\"text\":\"write the plan\"" kept)" = 1 &&
	test "$(grep -c "\"text\":\"go on, Bob here\"" kept)" = 1
'

on_gem_bob () { (cd "$B" && HOME="$T/gem-bob" "$@"); }
test_expect_success GEMINI_CLI 'Gemini CLI named the folder since: the chat it keeps there is not replaced without --force' '
	test_must_fail on_gem_bob git session resume --agent gemini-cli gem 2>err &&
	grep "^error: .*/.gemini/tmp/[a-z0-9-]*/chats/session-.*exists" err &&
	! grep "/tmp/[0-9a-f]\{64\}/" err
'

test_done
