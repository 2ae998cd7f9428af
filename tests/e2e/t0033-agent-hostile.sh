#!/bin/sh
test_description='agent hooks against hostile input: ignored files never recorded, settings never written through a symbolic link, transcripts read only from where the agent keeps them and only as regular files, a bad usage line skipped'
. ./lib.sh

SID=5e5e5e5e-0000-1111-2222-333333333333
AGENT=claude-5e5e5e5e
PROJ="$HOME/.claude/projects/repo"
T="$PROJ/$SID.jsonl"

# claude <event> <more json> [<transcript path>]
claude () {
	ev claude-code "$1" "{\"session_id\":\"$SID\",\"transcript_path\":\"${3:-$T}\",\"cwd\":\"$PWD\",\"hook_event_name\":\"$1\"$2}"
}
# wrote <path> [<tool>]: the agent's Write of the file at path
wrote () {
	claude PostToolUse ",\"tool_name\":\"${2:-Write}\",\"tool_input\":{\"file_path\":\"$PWD/$1\"},\"tool_response\":{\"type\":\"create\"}"
}
all_objects () { git cat-file --batch-all-objects --batch; }
recorded () { git ls-tree -r --name-only SESSION_HEAD files/ | sed "s|^files/||"; }
tokens () { session_json >s && json_field s "[d[\"tokens\"][k] for k in (\"input\", \"output\")]"; }
usage_line () { echo "{\"type\":\"assistant\",\"message\":{\"id\":\"$1\",\"usage\":{$2}}}"; }

test_expect_success 'setup: a session the agent records into' '
	mkdir -p "$PROJ" &&
	git session start hostile --id hostile -q &&
	claude SessionStart ",\"source\":\"startup\"" &&
	test_must_be_empty ev.err
'

test_expect_success 'ignored files the agent writes are not recorded: nested .gitignore, info/exclude, excludesFile, an ignored folder' '
	mkdir -p sub/deep build &&
	echo "secret.txt" >sub/.gitignore &&
	echo "*.pem" >../excludes && git config core.excludesFile "$TRASH_DIRECTORY/excludes" &&
	echo ".env" >>.git/info/exclude &&
	echo "build/" >.gitignore &&
	git add .gitignore sub/.gitignore && git commit -qm ignores &&
	echo MARKNESTED1 >sub/deep/secret.txt && echo MARKNESTED2 >sub/secret.txt &&
	echo DB_PASSWORD=MARKENV1 >.env &&
	echo MARKPEM1 >key.pem &&
	echo MARKBUILD1 >build/out.txt &&
	for f in sub/deep/secret.txt sub/secret.txt .env key.pem build/out.txt
	do
		git check-ignore -q "$f" &&
		wrote "$f" &&
		test_must_be_empty ev.err || return 1
	done &&
	claude PostToolUse ",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$PWD/.env\"}" &&
	claude PostToolUse ",\"tool_name\":\"MultiEdit\",\"tool_input\":{\"file_path\":\"sub/secret.txt\"}" &&
	test_must_be_empty ev.err &&
	recorded >files &&
	test_must_be_empty files &&
	! all_objects | grep -a MARK
'

test_expect_success 'a negation un-ignores, a tracked file is git'"'"'s: both recorded, the rest of the pattern not' '
	printf "*.log\n!keep.log\n" >logs.gitignore && mv logs.gitignore .gitignore &&
	echo MARKLOG1 >debug.log && echo kept >keep.log &&
	echo tracked >tracked.log && git add -f tracked.log && git commit -qm tracked &&
	echo tracked2 >>tracked.log &&
	wrote debug.log && wrote keep.log && wrote tracked.log Edit &&
	test_must_be_empty ev.err &&
	recorded >files &&
	printf "keep.log\ntracked.log\n" >expect &&
	test_cmp expect files &&
	test "$(git rev-parse SESSION_HEAD:files/keep.log)" = "$(git hash-object keep.log)" &&
	! all_objects | grep -a MARKLOG1
'

test_expect_success 'Gemini CLI: an ignored file it writes is not recorded either' '
	echo GEMINIMARK1 >.env &&
	ev gemini-cli AfterTool "{\"session_id\":\"6f6f6f6f\",\"tool_name\":\"write_file\",\"tool_input\":{\"file_path\":\"$PWD/.env\"},\"tool_response\":{\"llmContent\":\"created\"}}" &&
	ev gemini-cli AfterTool "{\"session_id\":\"6f6f6f6f\",\"tool_name\":\"replace\",\"tool_input\":{\"file_path\":\"$PWD/sub/secret.txt\"}}" &&
	test_must_be_empty ev.err &&
	! git ls-tree -r SESSION_HEAD | grep -e "files/.env" -e "files/sub/secret.txt" &&
	! all_objects | grep -a GEMINIMARK1
'

test_expect_success 'checkpoint <path> refuses an ignored file as git add does, and takes it with -f' '
	before=$(git rev-parse SESSION_HEAD) &&
	test_must_fail git session checkpoint .env 2>err &&
	grep "^error: .\.env. is ignored by the repository" err &&
	grep "^hint: use -f" err &&
	test "$(git rev-parse SESSION_HEAD)" = "$before" &&
	test_must_fail git add .env 2>/dev/null &&
	git session checkpoint -f -q .env &&
	test "$(git rev-parse SESSION_HEAD:files/.env)" = "$(git hash-object .env)" &&
	git session checkpoint -q &&
	test "$(git rev-parse SESSION_HEAD:files/.env)" = "$(git hash-object .env)"
'

test_expect_success 'file created|modified refuse an ignored file as checkpoint does; an import leaves it out' '
	printf "TOKEN=file-cmd-secret\n" >.env.local &&
	echo .env.local >>.git/info/exclude &&
	before=$(git rev-parse SESSION_HEAD) &&
	test_must_fail git session file created .env.local 2>err &&
	grep "^error: .\.env\.local. is ignored by the repository" err &&
	test_must_fail git session file modified .env.local 2>err &&
	grep "^hint: use -f" err &&
	test "$(git rev-parse SESSION_HEAD)" = "$before" &&
	git session file created -f -q .env.local &&
	test "$(git rev-parse SESSION_HEAD:files/.env.local)" = "$(git hash-object .env.local)" &&
	active=$(git symbolic-ref --short SESSION_HEAD) &&
	mkdir -p imp && echo leak-by-import >imp/secret.env && echo kept >imp/kept.c &&
	echo "imp/*.env" >>.git/info/exclude &&
	cat >imp/m.md <<-\EOF &&
	---
	session_id: import-ignored
	status: in_progress
	phases:
	  - id: 1
	    name: "One"
	    status: "in_progress"
	    files_created: ["imp/secret.env", "imp/kept.c"]
	---
	EOF
	git session import imp/m.md 2>err &&
	grep "^warning: 1 file the repository ignores not recorded" err &&
	git ls-tree -r --name-only refs/sessions/import-ignored >tree &&
	grep "^files/imp/kept.c$" tree &&
	! grep secret.env tree &&
	! git cat-file --batch-all-objects --batch | grep -a leak-by-import &&
	git session switch -q "${active#sessions/}"
'

test_expect_success 'an edit in a submodule or beyond a symbolic link gets the reason the CLI gives' '
	git init -q ../smsrc && git -C ../smsrc commit -q --allow-empty -m sm &&
	git -c protocol.file.allow=always submodule -q add ../smsrc sm &&
	echo in-sm >sm/a.txt &&
	wrote sm/a.txt &&
	grep "'"'"'sm/a.txt'"'"' is in submodule '"'"'sm'"'"'" ev.err &&
	! grep "has no blob" ev.err &&
	mkdir ../elsewhere && echo out >../elsewhere/b.txt && ln -s ../elsewhere linkdir &&
	wrote linkdir/b.txt Edit &&
	grep "'"'"'linkdir/b.txt'"'"' is beyond a symbolic link" ev.err &&
	! git ls-tree -r SESSION_HEAD | grep -e files/sm/ -e files/linkdir &&
	test_must_fail git session checkpoint sm/a.txt 2>err &&
	grep "is in submodule '"'"'sm'"'"'" err
'

test_expect_success 'install --agent refuses a symlinked .claude, settings.json or .gemini and writes nothing' '
	mkdir -p ../vh/.claude ../vh/.gemini &&
	echo "{\"permissions\":{}}" >../vh/.claude/settings.json &&
	echo "{}" >../vh/.gemini/settings.json &&
	cp ../vh/.claude/settings.json ../claude.orig && cp ../vh/.gemini/settings.json ../gemini.orig &&
	ln -s ../vh/.claude .claude &&
	test_must_fail git session hooks install --agent claude-code 2>err &&
	grep "^error: .\.claude/settings\.json. is beyond a symbolic link" err &&
	test_must_fail git session hooks uninstall --agent claude-code 2>err &&
	grep "beyond a symbolic link" err &&
	test_cmp ../claude.orig ../vh/.claude/settings.json &&
	rm .claude && mkdir .claude && ln -s ../../vh/.claude/settings.json .claude/settings.json &&
	test_must_fail git session hooks install --agent claude-code 2>err &&
	grep "^error: .\.claude/settings\.json. is a symbolic link" err &&
	test_cmp ../claude.orig ../vh/.claude/settings.json &&
	test -h .claude/settings.json &&
	ln -s ../vh/.gemini .gemini &&
	test_must_fail git session hooks install --agent gemini-cli 2>err &&
	grep "beyond a symbolic link" err &&
	test_must_fail git session hooks uninstall --agent gemini-cli 2>err &&
	test_cmp ../gemini.orig ../vh/.gemini/settings.json &&
	! test -e .git/git-session/agent-hooks/claude-code.json &&
	! test -e .git/git-session/agent-hooks/gemini-cli.json &&
	rm -r .claude .gemini &&
	git session hooks install --agent gemini-cli >out &&
	grep "^Installed" out && test -f .gemini/settings.json && ! test -h .gemini &&
	git session hooks uninstall --agent gemini-cli
'

test_expect_success 'transcripts that are not regular files are refused at once: FIFO, socket, folder' '
	mkfifo "$PROJ/fifo.jsonl" &&
	python3 -c "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$PROJ/sock.jsonl" &&
	mkdir "$PROJ/dir.jsonl" &&
	before=$(git rev-parse SESSION_HEAD) &&
	for p in fifo sock dir
	do
		timeout 60 git-session hook claude-code Stop >ev.out 2>ev.err <<-EOF &&
		{"session_id":"$SID","transcript_path":"$PROJ/$p.jsonl"}
		EOF
		test_must_be_empty ev.out &&
		grep "^warning: the transcript .*$p.jsonl. is not read: it is not a regular file" ev.err || return 1
	done &&
	test "$(git rev-parse SESSION_HEAD)" = "$before"
'

test_expect_success 'transcripts outside the agent'"'"'s folder and the work tree are refused: /etc/passwd, /dev/zero, links out, the git dir, an ignored file' '
	ln -s /etc/passwd "$PROJ/passwd.jsonl" &&
	cp /etc/passwd ../outside.jsonl &&
	cp /etc/passwd .git/config.jsonl &&
	cp /etc/passwd secret.log &&
	before=$(git rev-parse SESSION_HEAD) &&
	for p in /etc/passwd /dev/zero "$PROJ/passwd.jsonl" "$TRASH_DIRECTORY/outside.jsonl" "$PWD/.git/config.jsonl" "$PWD/sm/.git" "$PWD/secret.log" "$PROJ/../repo/../../../../outside.jsonl"
	do
		claude Stop "" "$p" &&
		grep "^warning: the transcript .* is not read: " ev.err || return 1
	done &&
	claude Stop "" "$PWD/.git/config.jsonl" && grep "it is in the git directory" ev.err &&
	claude Stop "" "$PWD/secret.log" && grep "the repository ignores it" ev.err &&
	claude Stop "" "$PROJ/passwd.jsonl" && grep "outside the work tree and the agent" ev.err &&
	claude Stop "" /etc/passwd && grep "outside the work tree and the agent" ev.err &&
	test "$(git rev-parse SESSION_HEAD)" = "$before" &&
	! all_objects | grep -a "^root:"
'

test_expect_success 'transcripts where the agent keeps them are read: a link inside its folder, CLAUDE_CONFIG_DIR, the work tree' '
	usage_line m1 "\"input_tokens\":10,\"output_tokens\":1" >"$PROJ/real.jsonl" &&
	ln -s real.jsonl "$PROJ/link.jsonl" &&
	claude Stop "" "$PROJ/link.jsonl" &&
	test_must_be_empty ev.err &&
	test "$(tokens)" = "[10, 1]" &&
	mkdir -p ../cfg/projects &&
	cp "$PROJ/real.jsonl" ../cfg/projects/t.jsonl &&
	usage_line m2 "\"input_tokens\":5,\"output_tokens\":2" >>../cfg/projects/t.jsonl &&
	printf "{\"session_id\":\"%s\",\"transcript_path\":\"%s\"}" $SID "$TRASH_DIRECTORY/cfg/projects/t.jsonl" |
		CLAUDE_CONFIG_DIR="$TRASH_DIRECTORY/cfg" git-session hook claude-code Stop 2>err &&
	test_must_be_empty err &&
	test "$(tokens)" = "[15, 3]" &&
	cp ../cfg/projects/t.jsonl work.jsonl &&
	usage_line m3 "\"input_tokens\":1,\"output_tokens\":1" >>work.jsonl &&
	claude Stop "" "$PWD/work.jsonl" &&
	test_must_be_empty ev.err &&
	test "$(tokens)" = "[16, 4]"
'

test_expect_success 'a usage out of range is skipped with a warning; the turn and later turns are recorded' '
	SID=7a7a7a7a-0000 AGENT=claude-7a7a7a7a T="$PROJ/7a7a7a7a.jsonl" &&
	claude SessionStart "" &&
	usage_line b1 "\"input_tokens\":10,\"output_tokens\":10000000000000" >>"$T" &&
	usage_line g1 "\"input_tokens\":100,\"output_tokens\":10" >>"$T" &&
	claude Stop "" &&
	grep "^warning: 1 line of the transcript of agent .$AGENT. gave token counts that are not whole numbers" ev.err &&
	test "$(tokens)" = "[116, 14]" &&
	usage_line b2 "\"input_tokens\":1e400" >>"$T" &&
	usage_line b3 "\"input_tokens\":-5,\"output_tokens\":1" >>"$T" &&
	usage_line b4 "\"input_tokens\":\"many\"" >>"$T" &&
	usage_line b5 "\"input_tokens\":1.5" >>"$T" &&
	usage_line g2 "\"input_tokens\":7,\"output_tokens\":3" >>"$T" &&
	claude Stop "" &&
	grep "^warning: 4 lines of the transcript" ev.err &&
	test "$(tokens)" = "[123, 17]" &&
	usage_line g3 "\"input_tokens\":1,\"output_tokens\":1" >>"$T" &&
	claude Stop "" &&
	test_must_be_empty ev.err &&
	test "$(tokens)" = "[124, 18]" &&
	session_json >s &&
	test "$(json_field s "[a[\"transcript\"][\"offset\"] for a in d[\"agents\"] if a[\"id\"] == \"$AGENT\"][0]")" = "$(wc -c <"$T")" &&
	git log --format=%s -1 SESSION_HEAD >log &&
	grep "^turn of $AGENT: +1 in, +1 out" log
'

test_expect_success 'a line longer than a turn reads is passed over with a warning, and later lines are recorded' '
	SID=8b8b8b8b-0000 AGENT=claude-8b8b8b8b T="$PROJ/8b8b8b8b.jsonl" &&
	claude SessionStart "" &&
	python3 -c "import sys; sys.stdout.write(\"{\\\"x\\\":\\\"\" + \"a\" * (65 << 20) + \"\\\"}\\n\")" >"$T" &&
	usage_line L1 "\"input_tokens\":2,\"output_tokens\":2" >>"$T" &&
	claude Stop "" &&
	grep "^warning: a line of the transcript of agent .$AGENT. is longer than 64 MiB: it is not read" ev.err &&
	claude Stop "" &&
	test_must_be_empty ev.err &&
	git log --format=%s -1 SESSION_HEAD >log &&
	grep "^turn of $AGENT: +2 in, +2 out" log &&
	session_json >s &&
	test "$(json_field s "[a[\"transcript\"][\"offset\"] for a in d[\"agents\"] if a[\"id\"] == \"$AGENT\"][0]")" = "$(wc -c <"$T")" &&
	rm "$T"
'

test_expect_success 'Gemini CLI: out-of-range token counts are skipped too' '
	G="$HOME/.gemini/tmp/ab12/chats/session-2.jsonl" &&
	mkdir -p "${G%/*}" &&
	printf "%s\n" "{\"id\":\"x1\",\"type\":\"gemini\",\"tokens\":{\"input\":1e300,\"output\":1}}" \
		"{\"id\":\"x2\",\"type\":\"gemini\",\"tokens\":{\"input\":40,\"output\":4,\"cached\":10}}" >"$G" &&
	gem () { ev gemini-cli "$1" "{\"session_id\":\"6f6f6f6f\",\"transcript_path\":\"$G\"$2}"; } &&
	gem SessionStart "" &&
	gem AfterAgent "" &&
	grep "^warning: 1 line of the transcript of agent .gemini-6f6f6f6f." ev.err &&
	git log --format=%s -1 SESSION_HEAD >log &&
	grep "^turn of gemini-6f6f6f6f: +30 in, +4 out" log
'

test_done
