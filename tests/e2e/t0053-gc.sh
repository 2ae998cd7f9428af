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

test_done
