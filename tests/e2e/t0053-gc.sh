#!/bin/sh
test_description='gc: finished sessions archived by age, old archived ones deleted, nothing in progress touched'
. ./lib.sh

at () { test_at $(($1 * 86400)); }	# days after the start

test_expect_success 'setup: sessions finished long ago and lately, one paused, one in progress, one archived' '
	at 0 &&
	for s in done-old aborted-old paused-old
	do
		git session start "$s" --id $s --pause-current -q || return 1
	done &&
	git session switch -q done-old && git session close -q &&
	git session switch -q aborted-old && git session close --abort -q &&
	git session switch -q paused-old && git session pause -q &&
	git session start "archived long ago" --id arch-old --pause-current -q && git session close -q &&
	git session archive -q arch-old &&
	at 55 &&
	git session start "done lately" --id done-new --pause-current -q && git session close -q &&
	git session start "at work" --id working --pause-current -q &&
	at 60 &&
	git for-each-ref --format="%(refname)" refs/sessions refs/archive >before
'

test_expect_success 'nothing is done unless an age is given or configured' '
	git session gc >out &&
	grep "^Nothing to do" out &&
	git for-each-ref --format="%(refname)" refs/sessions refs/archive >after && test_cmp before after
'

test_expect_success '--dry-run says what would be done and does nothing, in text and --json' '
	git session gc --archive-after 30.days --prune-archived-after 45.days.ago --dry-run >out &&
	cat >expect <<-\EOF &&
	Would archive aborted-old (aborted, last operation 60 days ago)
	Would archive done-old (completed, last operation 60 days ago)
	Would delete archived session arch-old (completed, last operation 60 days ago)
	EOF
	test_cmp expect out &&
	git session gc --archive-after 30d --prune-archived-after 45d --dry-run --json >j &&
	test "$(json_field j "[d[\"archived\"], d[\"deleted\"], d[\"dry_run\"]]")" = \
		"[[\"aborted-old\", \"done-old\"], [\"arch-old\"], true]" &&
	git for-each-ref --format="%(refname)" refs/sessions refs/archive >after && test_cmp before after
'

test_expect_success 'gc archives the finished sessions past the age and deletes the old archived ones' '
	tip=$(git rev-parse refs/sessions/done-old) &&
	git session gc --archive-after 30.days --prune-archived-after 45.days >out &&
	grep "^Archived done-old (completed" out && grep "^Deleted archived session arch-old" out &&
	git for-each-ref --format="%(refname:short)" refs/sessions refs/archive >after &&
	cat >expect <<-\EOF &&
	archive/sessions/aborted-old
	archive/sessions/done-old
	sessions/done-new
	sessions/paused-old
	sessions/working
	EOF
	test_cmp expect after &&
	test "$(git rev-parse refs/archive/sessions/done-old)" = "$tip" &&
	test_must_fail git rev-parse -q --verify refs/archive/sessions/arch-old &&
	! test -e .git/logs/refs/archive/sessions/arch-old &&
	git session list --all --json >l &&
	test "$(json_field l "sorted(s[\"id\"] for s in d if s[\"archived\"])")" = "[\"aborted-old\", \"done-old\"]" &&
	git fsck --no-progress 2>err && test_must_be_empty err
'

test_expect_success 'the configuration keys set the ages; "never" turns one off' '
	at 120 &&
	git config session.archiveAfter 30.days &&
	git config session.pruneArchivedAfter never &&
	git session gc --json >j &&
	test "$(json_field j "[d[\"archived\"], d[\"deleted\"]]")" = "[[\"done-new\"], []]" &&
	git config session.pruneArchivedAfter 1.week &&
	git session gc -q &&
	git for-each-ref --format="%(refname:short)" refs/sessions refs/archive >after &&
	printf "sessions/paused-old\nsessions/working\n" >expect && test_cmp expect after
'

test_expect_success 'a session in progress or paused is never touched, and a bad age is an error' '
	at 4000 &&
	git session gc --archive-after now --prune-archived-after now >out &&
	test_must_be_empty out &&
	git rev-parse -q --verify refs/sessions/working && git rev-parse -q --verify refs/sessions/paused-old &&
	test_must_fail git session gc --archive-after soon 2>err &&
	grep "^error: --archive-after: cannot read .soon. as an age" err &&
	test_must_fail git -c session.archiveAfter=x.days session gc 2>err &&
	grep "^error: session.archiveAfter: cannot read" err
'

T="$HOME/.claude/projects/t/claude.jsonl"	# where Claude Code keeps it
mkdir -p "${T%/*}"
claude () {	# event [extra json]: the agent's hook, as Claude Code runs it
	printf '%s' "{\"session_id\":\"7a7a7a7a-0000\",\"transcript_path\":\"$T\",\"cwd\":\"$PWD\",\"hook_event_name\":\"$1\"$2}" |
		git-session hook claude-code "$1" >/dev/null
}
turn () {	# n: a turn whose transcript part is 2,380 bytes
	printf "{\"type\":\"assistant\",\"message\":{\"id\":\"m$1\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"%s\"}]}}\n" \
		"$(printf "turn $1 %.0s-----" $(seq 1 190))" >>"$T" &&
	claude Stop
}

test_expect_success 'setup: an agent session of five turns, finished and archived; another still at work' '
	at 4000 &&
	git session start "agent work" --id agentic --pause-current -q &&
	claude UserPromptSubmit ",\"prompt\":\"work\"" &&
	for i in 1 2 3 4 5; do turn $i || return 1; done &&
	git ls-tree -r --name-only SESSION_HEAD transcripts >parts && test_line_count = 5 parts &&
	git session close -q && git session archive -q agentic &&
	git log --format=%s refs/archive/sessions/agentic >subjects.before &&
	git session start "still at work" --id busy -q &&
	: >"$T" && claude UserPromptSubmit ",\"prompt\":\"more\"" && turn 6 && turn 7
'

test_expect_success 'gc keeps the transcripts of archived sessions within session.transcriptLimit' '
	git config session.transcriptLimit 5000 &&
	git rev-parse refs/sessions/busy >busy.before &&
	git session gc --dry-run >out &&
	grep "^Would trim the transcripts of archived session agentic: 3 parts, [0-9]* bytes past session.transcriptLimit$" out &&
	git rev-parse refs/archive/sessions/agentic >tip.before &&
	git session gc --json >j &&
	test "$(json_field j "[(t[\"session\"], t[\"parts\"]) for t in d[\"trimmed\"]]")" = "[[\"agentic\", 3]]" &&
	test "$(git rev-parse refs/archive/sessions/agentic)" != "$(cat tip.before)" &&
	git rev-parse refs/sessions/busy >busy.after && test_cmp busy.before busy.after &&
	for c in $(git rev-list refs/archive/sessions/agentic)
	do
		git ls-tree -r --name-only $c transcripts >kept || return 1
		! grep -v -e "/000001$" -e "/000002$" kept || return 1
	done &&
	git ls-tree -r --name-only refs/archive/sessions/agentic transcripts >kept && test_line_count = 2 kept &&
	git log --format=%s refs/archive/sessions/agentic >subjects.after && test_cmp subjects.before subjects.after &&
	for p in $(cat kept)
	do
		test "$(git rev-parse refs/archive/sessions/agentic:$p)" = "$(git rev-parse $(cat tip.before):$p)" || return 1
	done &&
	git session show --json agentic >s && test "$(json_field s "d[\"status\"]")" = completed &&
	git session transcript agentic >t && grep "turn 1" t && ! grep "turn 3" t &&
	git fsck --no-progress 2>err && test_must_be_empty err
'

test_expect_success 'a second gc finds nothing more to trim; the checkpoints before the first part taken out keep their ids' '
	git session gc --json >j &&
	test "$(json_field j "d[\"trimmed\"]")" = "[]" &&
	git log --format="%H %s" $(cat tip.before) | grep "transcript part 2)\{0,1\}$" | cut -d" " -f1 >kept.before &&
	git log --format="%H %s" refs/archive/sessions/agentic | grep "transcript part 2)\{0,1\}$" | cut -d" " -f1 >kept.after &&
	test_line_count = 1 kept.before && test_cmp kept.before kept.after &&
	git log --format="%H %s" $(cat tip.before) | grep "transcript part 3)\{0,1\}$" | cut -d" " -f1 >dropped.before &&
	git log --format="%H %s" refs/archive/sessions/agentic | grep "transcript part 3)\{0,1\}$" | cut -d" " -f1 >dropped.after &&
	! test_cmp dropped.before dropped.after >/dev/null
'

test_done
