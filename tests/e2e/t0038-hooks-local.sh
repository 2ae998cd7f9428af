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


test_expect_success 'install --user writes the user'"'"'s settings, not the project'"'"'s, and says how to record less' '
	git session hooks install --agent claude-code --user >out 2>err &&
	grep "^Installed the git-session hooks for claude-code in .$HOME/\.claude/settings\.json.$" out &&
	grep "^hint: .*every repository" err &&
	grep "^hint: .*git config --global session.agentAutoStart false" err &&
	python3 -c "
import json
s = json.load(open(\"$HOME/.claude/settings.json\"))
assert \"git-session hook claude-code UserPromptSubmit\" in s[\"hooks\"][\"UserPromptSubmit\"][0][\"hooks\"][0][\"command\"]
" &&
	git status --porcelain >st && ! grep claude st &&
	git session hooks status >status &&
	grep "claude-code .*installed (10 of 10 events, $HOME/\.claude/settings\.json)" status &&
	git -c session.agentAutoStart=false session hooks install --agent claude-code --user >out 2>err &&
	grep "in .$HOME/.claude/settings.json. already" out && test_must_be_empty err
'

test_expect_success 'uninstall --user from another repository gives the file back, byte for byte' '
	git session hooks uninstall --agent claude-code --user &&
	! test -e "$HOME/.claude/settings.json" &&
	mkdir -p "$HOME/.claude" &&
	printf "{\"model\": \"x\",   \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo mine\"}]}]}}\n" \
		>"$HOME/.claude/settings.json" &&
	cp "$HOME/.claude/settings.json" ../mine.json &&
	git session hooks install --agent claude-code --user 2>/dev/null &&
	grep "echo mine" "$HOME/.claude/settings.json" &&
	git init -q ../other && (cd ../other && git session hooks uninstall --agent claude-code --user) &&
	cmp ../mine.json "$HOME/.claude/settings.json"
'

test_expect_success 'CLAUDE_CONFIG_DIR and GEMINI_CLI_HOME say where the user'"'"'s settings are' '
	CLAUDE_CONFIG_DIR="$TRASH_DIRECTORY/cc" git session hooks install --agent claude-code --user 2>/dev/null &&
	grep -q "git-session hook claude-code" "$TRASH_DIRECTORY/cc/settings.json" &&
	mkdir "$TRASH_DIRECTORY/gh" &&
	GEMINI_CLI_HOME="$TRASH_DIRECTORY/gh" git session hooks install --agent gemini-cli --user 2>/dev/null &&
	grep -q "git-session hook gemini-cli" "$TRASH_DIRECTORY/gh/.gemini/settings.json" &&
	! test -e "$HOME/.gemini" &&
	cmp ../mine.json "$HOME/.claude/settings.json"
'

test_expect_success 'the user'"'"'s settings as a link to their dotfiles: written through, the link kept' '
	mkdir ../dotfiles "$HOME/.gemini" &&
	printf "{\n  \"theme\": \"dark\"\n}\n" >../dotfiles/gemini.json && cp ../dotfiles/gemini.json ../gemini.orig &&
	ln -s "$TRASH_DIRECTORY/dotfiles/gemini.json" "$HOME/.gemini/settings.json" &&
	git session hooks install --agent gemini-cli --user 2>/dev/null &&
	test -h "$HOME/.gemini/settings.json" &&
	grep -q "git-session hook gemini-cli" ../dotfiles/gemini.json &&
	git session hooks uninstall --agent gemini-cli --user &&
	test -h "$HOME/.gemini/settings.json" && cmp ../gemini.orig ../dotfiles/gemini.json
'

test_expect_success '--user and --local together, or --user without --agent, are refused' '
	test_expect_code 129 git session hooks install --agent claude-code --user --local 2>err &&
	grep "^error: --local and --user cannot be used together" err &&
	test_expect_code 129 git session hooks install --user 2>err &&
	grep "^error: --user goes with" err &&
	cmp ../mine.json "$HOME/.claude/settings.json"
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

test_expect_success CLAUDE_CODE 'hooks in the project'"'"'s and the user'"'"'s settings record each event once' '
	git session hooks install --agent claude-code >/dev/null &&
	HOME="$TRASH_DIRECTORY/claude-home" git session hooks install --agent claude-code --user >/dev/null 2>&1 &&
	grep -q "git-session hook claude-code" "$TRASH_DIRECTORY/claude-home/.claude/settings.json" &&
	cat >script.json <<-EOF &&
	[{"match": "write twice", "calls": [{"name": "Write", "input": {"file_path": "$TRASH_DIRECTORY/repo/twice.txt", "content": "twice\\n"}}], "answer": "Done."}]
	EOF
	serve script.json &&
	env HOME="$TRASH_DIRECTORY/claude-home" ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=test \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 IS_SANDBOX=1 \
		timeout 120 "$agents/node_modules/@anthropic-ai/claude-code/bin/claude.exe" -p "write twice into twice.txt" \
		--allowedTools Write --dangerously-skip-permissions >claude.out 2>claude.err
	rc=$?; stop_server; test $rc = 0 &&
	git log --format=%s SESSION_HEAD >log &&
	test $(grep -c "^note: .write twice" log) = 1 &&
	test $(grep -c "^file created: twice.txt by claude-" log) = 1
'

test_done
