#!/bin/sh
test_description='hooks install --agent --local: the hooks in the agent settings of one person, which git leaves out'
. ./lib.sh

agents="$TEST_DIRECTORY/../agents"

test_expect_success 'install --local writes .claude/settings.local.json and has git leave it out' '
	printf "# a rule of the user\n*.tmp" >.git/info/exclude &&
	cp .git/info/exclude ../exclude.orig &&
	git session hooks install --agent claude-code --local >out &&
	grep "^Installed the git-session hooks for claude-code in .\.claude/settings\.local\.json., which \.git/info/exclude leaves out of git$" out &&
	! test -e .claude/settings.json &&
	python3 -c "
import json
s = json.load(open(\".claude/settings.local.json\"))
assert s[\"hooks\"][\"Stop\"][0][\"hooks\"][0][\"command\"].endswith(\"; git-session hook claude-code Stop\"), s
" &&
	printf "# a rule of the user\n*.tmp\n/.claude/settings.local.json\n" >expect &&
	test_cmp expect .git/info/exclude &&
	git status --porcelain --untracked-files=all -- .claude >status &&
	test_must_be_empty status &&
	git session hooks status >out &&
	grep "^  claude-code  *not installed$" out &&
	grep "^  claude-code  *installed (10 of 10 events, \.claude/settings\.local\.json)$" out
'

test_expect_success 'install --local again changes nothing; uninstall --local gives both files back' '
	cp .claude/settings.local.json ../installed &&
	git session hooks install --agent claude-code --local >out &&
	grep "already" out &&
	test_cmp ../installed .claude/settings.local.json &&
	git session hooks uninstall --agent claude-code --local >out &&
	grep "^Removed the git-session hooks for claude-code from .\.claude/settings\.local\.json.$" out &&
	! test -e .claude &&
	test_cmp ../exclude.orig .git/info/exclude
'

test_expect_success 'a settings.local.json of the user is merged into, and given back byte for byte' '
	mkdir .claude &&
	printf "{\n  \"permissions\": {\"allow\": [\"Bash(make:*)\"]}\n}\n" >.claude/settings.local.json &&
	cp .claude/settings.local.json ../local.orig &&
	printf "\n/.claude/settings.local.json\n" >>.git/info/exclude &&
	cp .git/info/exclude ../exclude.ignored &&
	git session hooks install --agent claude-code --local >out &&
	! grep "info/exclude" out &&
	test_cmp ../exclude.ignored .git/info/exclude &&
	grep "Bash(make:\*)" .claude/settings.local.json &&
	git session hooks uninstall --agent claude-code --local &&
	test_cmp ../local.orig .claude/settings.local.json &&
	test_cmp ../exclude.ignored .git/info/exclude &&
	rm -r .claude && cp ../exclude.orig .git/info/exclude
'

test_expect_success 'the project settings and the local ones are installed and removed apart' '
	git session hooks install --agent claude-code >/dev/null &&
	git session hooks install --agent claude-code --local >/dev/null &&
	git session hooks uninstall --agent claude-code --local >/dev/null &&
	! test -e .claude/settings.local.json &&
	grep "git-session hook claude-code Stop" .claude/settings.json &&
	git session hooks uninstall --agent claude-code >/dev/null &&
	! test -e .claude
'

test_expect_success '--local is refused where the agent has no such file, and without --agent' '
	test_must_fail git session hooks install --agent gemini-cli --local 2>err &&
	grep "^error: gemini-cli has no settings of one person" err &&
	grep "^hint: .*echo /\.gemini/settings\.json >>\.git/info/exclude" err &&
	! test -e .gemini &&
	test_expect_code 129 git session hooks install --local 2>err &&
	grep "^error: --local goes with" err &&
	test_expect_code 129 git session hooks status --local --agent claude-code 2>err &&
	! test -e .claude
'

test_expect_success 'a symbolic link on the way is refused, as for the project settings' '
	mkdir ../elsewhere && ln -s ../elsewhere .claude &&
	test_must_fail git session hooks install --agent claude-code --local 2>err &&
	grep "beyond a symbolic link" err &&
	test -z "$(ls -A ../elsewhere)" &&
	rm .claude
'


test_expect_success CLAUDE_CODE 'Claude Code runs the hooks from settings.local.json' '
	mkdir -p "$TRASH_DIRECTORY/claude-home" &&
	git session hooks install --agent claude-code --local >/dev/null &&
	cat >script.json <<-EOF &&
	[{"match": "write local", "calls": [{"name": "Write", "input": {"file_path": "$TRASH_DIRECTORY/repo/local.txt", "content": "local\\n"}}], "answer": "Done."}]
	EOF
	serve script.json &&
	env HOME="$TRASH_DIRECTORY/claude-home" ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=test \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 IS_SANDBOX=1 \
		timeout 120 "$agents/node_modules/@anthropic-ai/claude-code/bin/claude.exe" -p "write local into local.txt" \
		--allowedTools Write --dangerously-skip-permissions >claude.out 2>claude.err
	rc=$?; stop_server; test $rc = 0 &&
	grep "Done." claude.out &&
	git log --format=%s SESSION_HEAD >log &&
	grep "^file created: local.txt by claude-" log &&
	grep "^turn of claude-" log
'

test_done
