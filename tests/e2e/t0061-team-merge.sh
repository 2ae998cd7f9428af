#!/bin/sh
test_description='a team on one session: agent transcripts from every clone survive push and pull in any order, and the counts match the tree'
. ./lib.sh

on () { d=$1; shift; (cd "$TRASH_DIRECTORY/$d" && "$@"); }

# where Claude Code keeps its transcripts: ~/.claude/projects/<project>/
mkdir -p "$HOME/.claude/projects/A/aaaa0001-x/subagents" "$HOME/.claude/projects/B" "$HOME/.claude/projects/C"

# turn <clone> <claude session id> <n> <word>: n lines more in that agent's transcript, then its Stop hook
turn () {
	t="$HOME/.claude/projects/$1/$2.jsonl" &&
	for i in $(seq 1 $3)
	do
		echo "{\"type\":\"assistant\",\"message\":{\"id\":\"$4-$i\",\"content\":[{\"type\":\"text\",\"text\":\"$4 line $i\"}],\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}" >>"$t" || return 1
	done &&
	hook "$1" "$2" Stop ""
}
hook () {
	test_tick &&
	printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","hook_event_name":"%s"%s}' \
		"$2" "$HOME/.claude/projects/$1/$2.jsonl" "$TRASH_DIRECTORY/$1" "$3" "$4" |
		on "$1" git-session hook claude-code "$3" >/dev/null 2>"$TRASH_DIRECTORY/hook.err"
}

# parts <clone> <agent>: the transcript parts of the agent at the tip, as plain git lists them
parts () {
	on "$1" git ls-tree -r --name-only refs/sessions/team "transcripts/$2/" | sed "s|.*/||" | tr "\n" " "
}
# counted <clone> <agent>: what session.json says of them
counted () {
	(cd "$TRASH_DIRECTORY/$1" && session_json refs/sessions/team) >"$TRASH_DIRECTORY/counted.json" &&
	json_field "$TRASH_DIRECTORY/counted.json" "[a.get(\"transcript\", {}).get(\"parts\", 0) for a in d[\"agents\"] if a[\"id\"] == \"$2\"][0]"
}
# seqparts <n>: the names parts 1..n have
seqparts () { for i in $(seq 1 $1); do printf "%06d " $i; done; }

# every agent's parts at the tip are exactly 1..count, in every clone given
all_kept () {
	for c in "$@"
	do
		for a in claude-aaaa0001 claude-bbbb0002 claude-cccc0003 Explore-e1e2e3e4
		do
			n=$(counted $c $a) &&
			test "$(parts $c $a)" = "$(seqparts $n)" || { echo "$c $a: counted $n, tree: $(parts $c $a)"; return 1; }
		done &&
		on $c git session fsck team >/dev/null || return 1
	done
}

test_expect_success 'setup: a bare hub and three clones, a session started by an agent in A' '
	git init -q --bare ../hub.git &&
	git clone -q ../hub.git ../A 2>/dev/null &&
	on A git commit -q --allow-empty -m init &&
	on A git push -q origin HEAD 2>/dev/null &&
	git clone -q ../hub.git ../B && git clone -q ../hub.git ../C &&
	test_tick && on A git session start team --id team -q &&
	hook A aaaa0001-x UserPromptSubmit ",\"prompt\":\"build the module\"" &&
	turn A aaaa0001-x 2 a1 &&
	on A git session push -q &&
	on B git session pull -q && on B git session resume team -q &&
	on C git session pull -q && on C git session resume team -q &&
	hook B bbbb0002-y UserPromptSubmit ",\"prompt\":\"review it\"" &&
	hook C cccc0003-z UserPromptSubmit ",\"prompt\":\"test it\"" &&
	test "$(parts A claude-aaaa0001)" = "000001 "
'

test_expect_success 'one offline note on the other side keeps every part of the agent' '
	turn A aaaa0001-x 1 a2 && turn A aaaa0001-x 2 a3 && turn A aaaa0001-x 1 a4 &&
	echo "{\"type\":\"assistant\",\"isSidechain\":true,\"message\":{\"id\":\"s1\",\"content\":[{\"type\":\"text\",\"text\":\"sub line 1\"}],\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}" >"$HOME/.claude/projects/A/aaaa0001-x/subagents/agent-e1e2e3e4e5.jsonl" &&
	hook A aaaa0001-x SubagentStart ",\"agent_id\":\"e1e2e3e4e5\",\"agent_type\":\"Explore\"" &&
	hook A aaaa0001-x SubagentStop ",\"agent_id\":\"e1e2e3e4e5\",\"agent_type\":\"Explore\",\"agent_transcript_path\":\"$HOME/.claude/projects/A/aaaa0001-x/subagents/agent-e1e2e3e4e5.jsonl\"" &&
	test "$(parts A Explore-e1e2e3e4)" = "000001 " &&
	on A git session push -q &&
	test_tick && on B git session note -q "b note" &&
	on B git session push -q &&
	test "$(on B git rev-list --min-parents=2 --count refs/sessions/team)" = 1 &&
	test "$(parts B claude-aaaa0001)" = "$(seqparts 4)" &&
	test "$(counted B claude-aaaa0001)" = 4 &&
	test "$(parts B Explore-e1e2e3e4)" = "000001 " &&
	test "$(counted B Explore-e1e2e3e4)" = 1 &&
	git -C ../hub.git ls-tree -r --name-only refs/sessions/team transcripts/claude-aaaa0001/ >hub &&
	test_line_count = 4 hub
'

test_expect_success 'transcripts on all three sides, pushed and pulled in several orders' '
	turn A aaaa0001-x 1 a5 && turn B bbbb0002-y 2 b1 && turn C cccc0003-z 1 c1 &&
	test_tick && on A git session note -q "a offline" &&
	test_tick && on C git session summary -q "c summary" &&
	turn B bbbb0002-y 1 b2 && turn C cccc0003-z 2 c2 &&
	on C git session push -q && on A git session push -q && on B git session push -q &&
	turn A aaaa0001-x 1 a6 && turn C cccc0003-z 1 c3 &&
	on A git session pull -q && on B git session push -q && on A git session push -q &&
	on C git session push -q &&
	for c in A B C; do on $c git session pull -q || return 1; done &&
	on A git session push -q && on B git session pull -q && on C git session pull -q &&
	t=$(on A git rev-parse refs/sessions/team) &&
	test "$(on B git rev-parse refs/sessions/team)" = $t &&
	test "$(on C git rev-parse refs/sessions/team)" = $t &&
	test "$(git -C ../hub.git rev-parse refs/sessions/team)" = $t &&
	test "$(counted A claude-aaaa0001)" = 6 &&
	test "$(counted A claude-bbbb0002)" = 2 &&
	test "$(counted A claude-cccc0003)" = 3 &&
	all_kept A B C &&
	on A git session transcript team >all &&
	for w in a1 a2 a3 a4 a5 a6 b1 b2 c1 c2 c3 sub; do grep -q "$w line 1" all || { echo "lost $w"; return 1; }; done &&
	for r in A B C hub.git; do git -C ../$r fsck --strict >/dev/null 2>&1 || { echo "fsck: $r"; return 1; }; done
'

test_expect_success 'the merged notes: each once' '
	(cd "$TRASH_DIRECTORY/A" && session_json refs/sessions/team) >s &&
	json_field s "sorted(n[\"text\"] for n in d[\"notes\"] if n[\"text\"].endswith(\"note\") or n[\"text\"].endswith(\"offline\"))" >notes &&
	test "$(cat notes)" = "[\"a offline\", \"b note\"]"
'

test_expect_success 'a push that merged first says so, with the conflicts' '
	on B git session pull -q &&
	test_tick && on A git session summary -q "A: module done" && on A git session push -q &&
	test_tick && on B env GIT_AUTHOR_NAME="Bob Builder" git session summary -q "B: next, a CLI" &&
	on B git session push >out &&
	grep "^ pushed  *team (merged [0-9a-f]* + [0-9a-f]* -> [0-9a-f]*)$" out &&
	grep "^   conflict: summary changed on both sides; kept Bob Builder'"'"'s ([0-9a-f]*)$" out &&
	grep "^To origin$" out &&
	on B git session push --json >j &&
	test "$(cat j)" = "[]" &&
	on B git session push >out &&
	test "$(cat out)" = "Everything up-to-date" &&
	on A git session pull -q
'

test_expect_success 'fsck says when session.json counts parts the tree does not hold' '
	on A git session fsck team >out &&
	tip=$(on A git rev-parse refs/sessions/team) &&
	tree=$(on A git ls-tree refs/sessions/team | grep -v "	transcripts$" | on A git mktree) &&
	sub=$(on A git ls-tree refs/sessions/team transcripts/ | sed "/claude-aaaa0001/d" | sed "s|transcripts/||" | on A git mktree) &&
	a=$(on A git ls-tree refs/sessions/team:transcripts/claude-aaaa0001/000 | sed "/000006$/d" | on A git mktree) &&
	adir=$(printf "040000 tree %s\t000\n" $a | on A git mktree) &&
	sub=$( (on A git ls-tree $sub; printf "040000 tree %s\tclaude-aaaa0001\n" $adir) | on A git mktree) &&
	tree=$( (on A git ls-tree $tree; printf "040000 tree %s\ttranscripts\n" $sub) | on A git mktree) &&
	bad=$(on A git commit-tree -p $tip -m "dropped a part" $tree) &&
	on A git update-ref refs/sessions/team $bad $tip &&
	test_must_fail on A git session fsck team >out 2>err &&
	cat out err &&
	grep "claude-aaaa0001.*6 transcript parts.*5" out err &&
	on A git update-ref refs/sessions/team $tip $bad &&
	on A git session fsck team &&
	blob=$(echo stray | on A git hash-object -w --stdin) &&
	tree=$(on A git ls-tree refs/sessions/team | on A git mktree) &&
	files=$(printf "100644 blob %s\tstray.txt\n" $blob | on A git mktree) &&
	tree=$( (on A git ls-tree $tree | grep -v "	files$"; printf "040000 tree %s\tfiles\n" $files) | on A git mktree) &&
	bad=$(on A git commit-tree -p $tip -m "a stray file" $tree) &&
	on A git update-ref refs/sessions/team $bad $tip &&
	test_must_fail on A git session fsck team 2>err &&
	grep "^error: team: the tip [0-9a-f]* does not hold what session.json counts: session.json records 0 files, files/ holds 1" err &&
	on A git update-ref refs/sessions/team $tip $bad &&
	on A git session fsck team
'

test_expect_success 'a session gc deleted here is not brought back by pull, until the remote goes on with it' '
	test_tick && on A git session start gone --id gone --pause-current -q &&
	test_tick && on A git session note -q "last words" && test_tick && on A git session close -q &&
	on A git session push -q && on B git session pull -q &&
	on A git session switch -q team &&
	on A git session archive -q gone &&
	test_tick && on A git session gc -q --prune-archived-after now &&
	test_must_fail on A git rev-parse -q --verify refs/archive/sessions/gone &&
	on A git session pull >out &&
	grep "deleted here, left alone  *gone" out &&
	test_must_fail on A git rev-parse -q --verify refs/sessions/gone &&
	on A git session push >out && ! grep " gone" out &&
	on A git session pull --json >j &&
	test "$(json_field j "[r[\"action\"] for r in d if r[\"id\"] == \"gone\"]")" = "[\"deleted here, left alone\"]" &&
	test_tick && on B git session rollback gone --to gone~1 >/dev/null &&
	on B git session push -q &&
	on A git session pull >out &&
	grep "new  *gone" out &&
	on A git rev-parse -q --verify refs/sessions/gone
'

test_expect_success 'gc trims an archived session; unarchived and pushed again, no operation comes twice' '
	test_tick && on A git session start trim --id trim --pause-current -q &&
	for i in 1 2 3; do test_tick && on A git session note -q "trim note $i" || return 1; done &&
	hook A dddd0004-t UserPromptSubmit ",\"prompt\":\"long work\"" &&
	for i in 1 2 3 4 5
	do
		printf "{\"type\":\"assistant\",\"message\":{\"id\":\"t$i\",\"content\":[{\"type\":\"text\",\"text\":\"%s\"}]}}\n" \
			"$(printf "turn $i %.0s-----" $(seq 1 190))" >>"$HOME/.claude/projects/A/dddd0004-t.jsonl" &&
		hook A dddd0004-t Stop "" || return 1
	done &&
	test_tick && on A git session note -q "trim note 4" &&
	on A git session push -q &&
	test_tick && on A git session close -q && on A git session archive -q trim &&
	on A git -c session.transcriptLimit=5000 session gc >out &&
	grep "Trimmed the transcripts of archived session trim: 3 parts" out &&
	on A git session unarchive -q trim &&
	on A git session push -q &&
	git -C ../hub.git show refs/sessions/trim:session.json >hub.json &&
	json_field hub.json "[n[\"text\"] for n in d[\"notes\"] if n[\"text\"].startswith(\"trim\")]" >notes &&
	test "$(cat notes)" = "[\"trim note 1\", \"trim note 2\", \"trim note 3\", \"trim note 4\"]" &&
	test "$(json_field hub.json "d[\"status\"]")" = completed &&
	on A git ls-tree -r --name-only refs/sessions/trim transcripts/ >kept &&
	test_line_count = 2 kept &&
	on A git -c session.transcriptLimit=5000 session fsck trim
'

test_expect_success 'pull refuses remote sessions no command could name, and ones that are not what they say' '
	t=$(git -C ../hub.git rev-parse refs/sessions/team) &&
	for r in HEAD SESSION_HEAD -x liar; do git -C ../hub.git update-ref refs/sessions/$r $t || return 1; done &&
	git -C ../hub.git update-ref refs/sessions/broken $(git -C ../hub.git rev-parse $t^{tree}) &&
	on C git session pull >out 2>err &&
	cat out err &&
	grep "^warning: not taking session .HEAD. from .origin.: .HEAD. is a name git gives" err &&
	grep "^warning: not taking session .-x. from .origin.: session id may not start" err &&
	grep "^warning: not taking session .liar. from .origin.: its checkpoint [0-9a-f]* is not one of session .liar." err &&
	grep "refused  *SESSION_HEAD" out &&
	grep "^warning: not taking session .broken. from .origin.: its checkpoint [0-9a-f]* cannot be read" err &&
	test_must_fail on C git rev-parse -q --verify refs/sessions/broken &&
	git -C ../hub.git update-ref -d refs/sessions/broken &&
	! grep "^hint:" err &&
	for r in HEAD SESSION_HEAD -x liar
	do
		test_must_fail on C git rev-parse -q --verify refs/sessions/$r || return 1
		git -C ../hub.git update-ref -d refs/sessions/$r || return 1
	done &&
	test_expect_code 1 on C git session pull --session HEAD 2>err &&
	grep "^error: invalid session id .HEAD." err
'

test_expect_success 'a push that wins on a retry shows none of the rejection git printed on the way' '
	on B git session pull -q && test_tick && on B git session resume -q team &&
	test_tick && on B git session note -q "from B, meanwhile" &&
	on B git push -q origin refs/sessions/team:refs/staging/team &&
	new=$(on B git rev-parse refs/sessions/team) &&
	cat >"$TRASH_DIRECTORY/C/.git/hooks/pre-push" <<-EOF &&
	#!/bin/sh
	test -e "$TRASH_DIRECTORY/raced" && exit 0
	touch "$TRASH_DIRECTORY/raced"
	env -u GIT_DIR git --git-dir="$TRASH_DIRECTORY/hub.git" update-ref refs/sessions/team $new
	EOF
	chmod +x "$TRASH_DIRECTORY/C/.git/hooks/pre-push" &&
	on C git session pull -q && on C git session switch -q team && on C git session resume -q team &&
	test_tick && on C git session note -q "from C" &&
	on C git session push >out 2>err &&
	test -e "$TRASH_DIRECTORY/raced" &&
	test_must_be_empty err &&
	git -C ../hub.git show refs/sessions/team:session.json >hub.json &&
	json_field hub.json "[n[\"text\"] for n in d[\"notes\"] if n[\"text\"].startswith(\"from\")]" >notes &&
	test "$(cat notes)" = "[\"from B, meanwhile\", \"from C\"]" &&
	rm "$TRASH_DIRECTORY/C/.git/hooks/pre-push"
'

test_expect_success 'a push the remote really refuses still shows what git said' '
	git -C ../hub.git config receive.denyDeletes true &&
	printf "#!/bin/sh\necho \"hub: no sessions today\" >&2\nexit 1\n" >../hub.git/hooks/pre-receive &&
	chmod +x ../hub.git/hooks/pre-receive &&
	test_tick && on C git session note -q "refused" &&
	test_must_fail on C git session push >out 2>err &&
	grep "hub: no sessions today" err &&
	grep "^error: " err &&
	rm ../hub.git/hooks/pre-receive
'

test_done
