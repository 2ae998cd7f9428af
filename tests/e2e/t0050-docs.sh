#!/bin/sh
test_description='every command is in the man page and the completion; completion works in bash'
. ./lib.sh

top=$(cd "$TEST_DIRECTORY/../.." && pwd)

test_expect_success 'git session alone lists the commands' '
	test_expect_code 1 git session 2>err &&
	sed -n "s/^   \([a-z-]*\) .*/\1/p" err >commands &&
	test "$(wc -l <commands)" -gt 20
'

test_expect_success 'the man page renders and knows every command' '
	MANWIDTH=200 man -l "$top/doc/git-session.1" >man.txt 2>err &&
	grep "^NAME" man.txt && grep "^SYNOPSIS" man.txt && grep "^EXIT STATUS" man.txt &&
	while read cmd
	do
		grep -q "git session $cmd" man.txt || { echo "man page lacks: $cmd"; return 1; }
	done <commands
'

test_expect_success 'every command in the man page synopsis exists' '
	sed -n "s/^ *git session \([a-z-]*\).*/\1/p" man.txt | sort -u >in-man &&
	while read cmd
	do
		grep -qx "$cmd" commands || { echo "man page names a command that does not exist: $cmd"; return 1; }
	done <in-man
'

test_expect_success 'every session.* key the code reads is in the man page and the README' '
	grep -ho "store_config_[a-z]*([^\"]*\"session\.[A-Za-z]*\"" "$top"/src/*/*.c |
		sed "s/.*\"\(.*\)\"/\1/" | sort -u >keys &&
	test "$(wc -l <keys)" -ge 9 &&
	sed -n "/^CONFIGURATION/,/^FILES/p" man.txt >config.txt &&
	while read key
	do
		grep -q "\b$key\b" config.txt || { echo "man page lacks: $key"; return 1; }
		grep -q "^| \`$key\`" "$top/README.md" || { echo "README lacks: $key"; return 1; }
	done <keys
'

test_expect_success 'bash and zsh completion know every command' '
	while read cmd
	do
		test "$cmd" = hook && continue	# run by the hooks, not by people
		grep -q "\b$cmd\b" "$top/contrib/completion/git-session.bash" || { echo "bash lacks: $cmd"; return 1; }
		grep -q "^[[:space:]]*.$cmd:" "$top/contrib/completion/_git-session" || { echo "zsh lacks: $cmd"; return 1; }
	done <commands
'

# complete <words...>: what bash completion offers for the last word
complete_words () {
	bash -c '
		. /usr/share/bash-completion/completions/git
		. "$1/contrib/completion/git-session.bash"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		__git_wrap__git_main
		printf "%s\n" "${COMPREPLY[@]}" | sed "s/ *$//" | sort
	' _ "$top" "$@"
}

test_expect_success 'bash: git session <TAB> completes commands' '
	complete_words git session st >out &&
	printf "start\nstatus\n" >expect &&
	test_cmp expect out &&
	complete_words git session che >out &&
	echo checkpoint >expect && test_cmp expect out
'

test_expect_success 'bash: session ids complete for switch and status' '
	git session start "first one" -q &&
	git session start "second one" -q --pause-current &&
	complete_words git session switch 2025 >out &&
	printf "2025-11-21-first-one\n2025-11-21-second-one\n" >expect &&
	test_cmp expect out
'

test_expect_success 'bash: options and subcommands complete' '
	complete_words git session start --bu >out &&
	echo "--budget=" >expect && test_cmp expect out &&
	complete_words git session hooks in >out &&
	echo install >expect && test_cmp expect out
'

test_expect_success 'bash: options come from each command, phases and agents from the session' '
	complete_words git session timeline --w >out &&
	echo "--width=" >expect && test_cmp expect out &&
	complete_words git session resume --d >out &&
	printf "%s\n" --diff --dry-run >expect && test_cmp expect out &&
	git session phase add Design Build -q &&
	git session agent start arch-1 --type architect --task t --phase 1 -q &&
	git session agent start arch-2 --type architect --task t --phase 1 -q &&
	complete_words git session phase "" >out &&
	printf "%s\n" add complete fail retry skip start step >expect && test_cmp expect out &&
	complete_words git session phase start "" >out &&
	printf "1\n2\n" >expect && test_cmp expect out &&
	complete_words git session agent done ar >out &&
	printf "arch-1\narch-2\n" >expect && test_cmp expect out &&
	complete_words git session note --agent "" >out && test_cmp expect out &&
	complete_words git session file created --phase "" >out &&
	printf "1\n2\n" >expect && test_cmp expect out &&
	complete_words git session timel >out &&
	echo timeline >expect && test_cmp expect out
'

test_expect_success 'the hidden completion helper is not a listed command' '
	! grep "__complete" commands &&
	git session __complete phases >out && printf "1\n2\n" >expect && test_cmp expect out &&
	git session __complete nonsense >out 2>err && test_must_be_empty out && test_must_be_empty err &&
	git session pause -q && git symbolic-ref --delete SESSION_HEAD &&
	git session __complete agents >out 2>err && test_must_be_empty out && test_must_be_empty err &&
	git session __complete sessions >out && grep -x 2025-11-21-second-one out &&
	git session resume 2025-11-21-second-one -q
'

# on_tty <command>: runs it with a terminal as stdout (under script)
on_tty () { script -qec "$*" /dev/null </dev/null; }

test_expect_success SCRIPT 'show and diff go through the pager on a terminal, only there' '
	GIT_PAGER="sed s/^/PAGED:/" on_tty git session show --json >out &&
	grep "^PAGED:{" out &&
	GIT_PAGER="sed s/^/PAGED:/" git session show --json >out &&
	! grep PAGED out &&
	git session note "one more" -q &&
	GIT_PAGER="sed s/^/PAGED:/" on_tty git session diff --no-color SESSION_HEAD~1 >out &&
	grep "^PAGED:diff" out
'

test_expect_success SCRIPT 'the pager is chosen as git chooses it' '
	git config core.pager "sed s/^/CORE:/" &&
	PAGER="sed s/^/ENV:/" on_tty git session show --json >out && grep "^CORE:{" out &&
	GIT_PAGER="sed s/^/GIT:/" on_tty git session show --json >out && grep "^GIT:{" out &&
	git config --unset core.pager &&
	PAGER="sed s/^/ENV:/" on_tty git session show --json >out && grep "^ENV:{" out &&
	GIT_PAGER=cat on_tty git session show --json >out && grep "^{" out &&
	GIT_PAGER= on_tty git session show --json >out && grep "^{" out &&
	GIT_PAGER="env" on_tty git session show --json >out &&
	grep "^LESS=FRX" out && grep "^LV=-c" out &&
	LESS=-X GIT_PAGER="env" on_tty git session show --json >out &&
	grep "^LESS=-X" out && ! grep "^LESS=FRX" out
'

test_expect_success 'the agent instructions are up to date and name only real commands' '
	ls "$top"/contrib/agents/*/git-session/*.md >written &&
	test_line_count -ge 3 written &&
	while read f
	do
		sed -n "/^# Keep session state/,\$p" "$f" >body &&
		test_cmp "$top/contrib/agents/body.md" body || return 1
	done <written &&
	git session >cmds 2>&1 || : &&
	grep -o "git session [a-z]*" "$top/contrib/agents/body.md" | sort -u | cut -d" " -f3 >named &&
	test_line_count -gt 10 named &&
	while read cmd
	do
		grep "^   $cmd " cmds || { echo "unknown command: $cmd"; return 1; }
	done <named
'

test_expect_success 'the agents of the table are in the man page, the README, contrib/agents and the completion' '
	test_expect_code 129 git session hooks -h >usage 2>&1 &&
	sed -n "s/.* --agent <\(.*\)>\$/\1/p" usage | tr -d " " | tr "|" "\n" >agents &&
	test_line_count -ge 2 agents &&
	sed -n "s/.*hooks (install | uninstall) \[--local | --user\] --agent (\(.*\))\$/\1/p" man.txt | tr -d " " | tr "|" "\n" | sort -u >in-man &&
	sort agents >expect && test_cmp expect in-man &&
	while read agent
	do
		grep -q -- "--agent $agent" "$top/README.md" || { echo "README lacks: $agent"; return 1; }
		test -d "$top/contrib/agents/$agent" || { echo "contrib/agents lacks: $agent"; return 1; }
	done <agents &&
	complete_words git session hooks install --agent "" >out &&
	test_cmp expect out
'

test_expect_success 'the fields the agent instructions name are in resume --json and status --json' '
	git session resume --json >resume.json &&
	git session status --json >status.json &&
	python3 - "$top/contrib/agents/body.md" resume.json status.json <<-\EOF
	import json, re, sys
	body = open(sys.argv[1]).read()
	# the top-level fields: backquoted words outside the parentheses that describe them
	def named(text):
	    return set(re.findall(r"`([a-z_]+)`", re.sub(r"\([^)]*\)", "", text)))
	resume = body[body.index("resume --json` first"):body.index("2. To start")]
	status = body[body.index("status --json`:"):body.index("show --json`")]
	for part, path in ((resume, sys.argv[2]), (status, sys.argv[3])):
	    have = set(json.load(open(path)))
	    want = named(part.split(":", 1)[1])
	    assert len(want) > 5, want
	    assert want <= have, "%s lacks %s" % (path, sorted(want - have))
	EOF
'

test_expect_success 'every operation of the table is documented in json.md' '
	sed -n "s/^	OP([A-Z_]*, \"\([^\"]*\)\".*/\1/p" "$top/include/git-session/ops.h" >ops &&
	test_line_count -gt 30 ops &&
	while read op
	do
		grep "\`$op\`" "$top/doc/json.md" >/dev/null || { echo "not in json.md: $op"; return 1; }
	done <ops
'

# shims <dir> <name>...: commands that only note that they ran, and fail
shims () {
	dir=$1 && shift && mkdir -p "$dir" &&
	for name
	do
		printf "#!/bin/sh\necho \"%s \$*\" >>\"%s\"\nexit 1\n" "$name" "$TRASH_DIRECTORY/ran" >"$dir/$name" &&
		chmod +x "$dir/$name" || return 1
	done
}

test_expect_success 'make demo builds with what deps.sh --build installs, which is nothing from npm' '
	sed -n "/^demo:/,/^\$/p" "$top/Makefile" >recipe &&
	grep "^demo: *\$" recipe &&
	grep "sh tools/deps.sh --build\$" recipe &&
	shims shim-build npm npx node apt-get sudo &&
	printf "#!/bin/sh\nprintf \"install ok installed\"\n" >shim-build/dpkg-query && chmod +x shim-build/dpkg-query &&
	PATH="$PWD/shim-build:$PATH" sh "$top/tools/deps.sh" --build >out &&
	echo "deps: all Debian packages present" >expect && test_cmp expect out &&
	! test -e "$TRASH_DIRECTORY/ran"
'

test_expect_success 'the demo records an agent session through the hooks, with no agent CLI or Node.js' '
	shims shim-agents node npm npx claude gemini &&
	mkdir -p demo-tmp &&
	PATH="$PWD/shim-agents:$PATH" TMPDIR="$PWD/demo-tmp" KEEP= sh "$top/tools/demo.sh" >demo.out 2>demo.err &&
	! test -e "$TRASH_DIRECTORY/ran" &&
	! grep -n "tests/agents\|node_modules" "$top/tools/demo.sh" &&
	grep "^\$ git session hooks install --agent claude-code\$" demo.out &&
	grep "^\$ git session hook claude-code Stop <" demo.out &&
	grep "^file created: greet.py by claude-[0-9a-f]*\$" demo.out &&
	grep "^turn of claude-[0-9a-f]*" demo.out &&
	grep "Added greet(name) in greet.py" demo.out &&
	grep "^commit [0-9a-f]*: \"greet: say hello by name\"" demo.out &&
	grep "^The demo repository is removed now" demo.out &&
	test -z "$(ls -A demo-tmp)"
'

test_expect_success 'the demo prints its commands as a shell reads them back' '
	grep -F "$ git commit -q -m '"'"'greet: say hello by name'"'"'" demo.out &&
	grep -F "$ git session decide '"'"'Use the device flow'"'"' --rationale '"'"'works without a browser'"'"'" demo.out &&
	sed -n "s/^\$ \(git session start .*\)/\1/p" demo.out >start &&
	test_line_count = 1 start &&
	eval "set -- $(cat start)" &&
	test "$4" = "Add OAuth login" && test "$6" = "Users sign in with GitHub"
'

test_expect_success 'KEEP=1 keeps the demo repository and says where it is' '
	TMPDIR="$PWD/demo-tmp" KEEP=1 sh "$top/tools/demo.sh" >demo.out 2>demo.err &&
	dir=$(sed -n "s/^The demo repository is kept: cd //p" demo.out) &&
	test -n "$dir" &&
	git -C "$dir" session list >list &&
	grep " [0-9-]*-add-a-greet-name-function-to " list &&
	grep "add-oauth-login" list
'

test_expect_success 'the man page shows git session push and pull, never a raw push of the session refs' '
	sed -n "/^EXAMPLES/,/^EXIT STATUS/p" man.txt >examples &&
	grep "git session push" examples && grep "git session pull" examples &&
	! grep "^ *git push.*refs/sessions" examples &&
	! grep "^ *git push.*refs/sessions" "$top/README.md"
'

test_expect_success 'every git session command and option the README and the man page show is real' '
	sed -n "s/^ *\(git session [a-z].*\)/\1/p" "$top/README.md" examples |
		sed -e "s/ *#.*//" -e "s/ *\(&&\|;\|||\) */\n/g" | sed -n "s/^\(git session [a-z].*\)/\1/p" >shown &&
	test_line_count -gt 40 shown &&
	while read -r git session cmd rest
	do
		grep -qx "$cmd" commands || { echo "no such command: git session $cmd"; return 1; }
		test_expect_code 129 git session $cmd -h >usage 2>&1 || continue
		for word in $rest
		do
			case $word in
			--) break ;;
			--*) opt=${word%%=*} &&
				grep -q -- "$opt\b" usage || { echo "git session $cmd has no $opt"; return 1; } ;;
			esac
		done
	done <shown
'

test_done
