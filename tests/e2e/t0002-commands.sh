#!/bin/sh
test_description='the first commands: record, read back, move between states'
. ./lib.sh

id=2025-11-21-refactor

test_expect_success 'setup: a session with a few checkpoints' '
	git session start refactor -q &&
	test_tick && git session note "one" -q &&
	test_tick && git session note --agent coder "two" -q &&
	test_tick && git session summary "where we are" -q &&
	test "$(git rev-list --count SESSION_HEAD)" = 4
'

test_expect_success 'writes print the checkpoint like git commit does' '
	git session note "three" >out &&
	printf "[%s %s] note: \"three\"\n" $id "$(git rev-parse --short=7 SESSION_HEAD)" >expect &&
	test_cmp expect out
'

test_expect_success 'notes and summary land in the state' '
	session_json >s &&
	test "$(json_field s "[n[\"text\"] for n in d[\"notes\"]]")" = "[\"one\", \"two\", \"three\"]" &&
	test "$(json_field s "d[\"notes\"][1][\"agent\"]")" = coder &&
	test "$(json_field s "d[\"notes\"][0][\"timestamp\"]")" = 2025-11-21T10:02:00Z &&
	test "$(json_field s "d[\"context_summary\"]")" = "where we are"
'

test_expect_success 'show takes any revision: id, id~N, SESSION_HEAD@{N}, a commit id' '
	git session show --json $id~4 >a &&
	test "$(json_field a "len(d[\"notes\"])")" = 0 &&
	git session show --json $id~3 >b &&
	test "$(json_field b "len(d[\"notes\"])")" = 1 &&
	git session show --json "$(git rev-parse SESSION_HEAD~1)" >c &&
	test "$(json_field c "d[\"context_summary\"]")" = "where we are" &&
	git session show --json "SESSION_HEAD@{1}" >d &&
	test_cmp c d &&
	git session show --json >e &&
	git show SESSION_HEAD:session.json >f &&
	test_cmp e f
'

test_expect_success 'show without --json names the checkpoint; --yaml prints YAML' '
	git session show >out &&
	head -1 out >first &&
	echo "checkpoint $(git rev-parse SESSION_HEAD)" >expect &&
	test_cmp expect first &&
	sed -n 2p out >second && echo "note: \"three\"" >expect && test_cmp expect second &&
	git session show --yaml >y &&
	grep "^session_id: \"$id\"" y &&
	grep "^status: \"in_progress\"" y &&
	grep "^current_phase: null" y &&
	test_must_fail git session show --json --yaml 2>err &&
	grep "^error: --json and --yaml cannot be used together" err
'

test_expect_success 'show of an unknown revision is an error' '
	test_must_fail git session show nosuch 2>err &&
	grep "^error: unknown revision or session .nosuch." err &&
	test_must_fail git session show HEAD 2>err &&
	grep "^error: checkpoint .* has no readable session.json" err
'

test_expect_success 'set and get dotted keys under extra' '
	git session set review.reviewer "\"alice\"" -q &&
	git session set review.rounds 2 -q &&
	git session set review.flags "[1, true, null]" -q &&
	echo alice >expect && git session get review.reviewer >out && test_cmp expect out &&
	echo "\"alice\"" >expect && git session get --json review.reviewer >out && test_cmp expect out &&
	echo 2 >expect && git session get review.rounds >out && test_cmp expect out &&
	git session get review >out &&
	printf "{\n  \"reviewer\": \"alice\",\n  \"rounds\": 2,\n  \"flags\": [\n    1,\n    true,\n    null\n  ]\n}\n" >expect &&
	test_cmp expect out &&
	test_expect_code 1 git session get review.nope >out 2>err &&
	test_must_be_empty out && test_must_be_empty err
'

test_expect_success 'set refuses bad keys and non-JSON values, changing nothing' '
	old=$(git rev-parse SESSION_HEAD) &&
	test_must_fail git session set review.reviewer.x 1 2>err &&
	grep "^error: .reviewer. is not an object" err &&
	test_must_fail git session set "a..b" 1 2>err &&
	grep "^error: invalid key .a..b.: empty segment" err &&
	test_must_fail git session set k "not json" 2>err &&
	grep "^error: value for .k. is not JSON" err &&
	test_expect_code 129 git session set onlykey 2>err &&
	test "$(git rev-parse SESSION_HEAD)" = "$old"
'

test_expect_success 'checkpoint records paths into the manifest and files/' '
	echo one >a.txt && mkdir -p src && echo two >src/b.c &&
	git session checkpoint -m "first files" a.txt src/b.c >out &&
	grep "checkpoint: \"first files\"" out &&
	git ls-tree -r --name-only SESSION_HEAD files >names &&
	printf "files/a.txt\nfiles/src/b.c\n" >expect && test_cmp expect names &&
	test "$(git rev-parse SESSION_HEAD:files/src/b.c)" = "$(git hash-object src/b.c)" &&
	session_json >s &&
	test "$(json_field s "d[\"files\"][\"a.txt\"][\"status\"]")" = created &&
	test "$(json_field s "d[\"files\"][\"a.txt\"][\"oid\"]")" = "$(git hash-object a.txt)" &&
	git log -1 --format=%b SESSION_HEAD >body &&
	grep "^first files$" body
'

test_expect_success 'checkpoint re-records every manifest path; a deleted one leaves files/' '
	echo changed >a.txt && rm src/b.c &&
	(cd src && git session checkpoint -q) &&
	test "$(git rev-parse SESSION_HEAD:files/a.txt)" = "$(git hash-object a.txt)" &&
	test_must_fail git rev-parse -q --verify SESSION_HEAD:files/src/b.c &&
	session_json >s &&
	test "$(json_field s "d[\"files\"][\"src/b.c\"][\"status\"]")" = deleted &&
	test "$(json_field s "d[\"files\"][\"src/b.c\"].get(\"oid\")")" = null &&
	test "$(json_field s "d[\"files\"][\"a.txt\"][\"status\"]")" = created &&
	git diff --stat SESSION_HEAD~1 SESSION_HEAD -- files >stat &&
	grep "2 files changed" stat
'

test_expect_success 'checkpoint paths are relative to the current directory and stay inside' '
	mkdir -p sub && echo x >sub/c.txt &&
	(cd sub && git session checkpoint -q c.txt) &&
	git rev-parse --verify SESSION_HEAD:files/sub/c.txt &&
	old=$(git rev-parse SESSION_HEAD) &&
	test_must_fail git session checkpoint ../outside 2>err &&
	grep "^error: .../outside. is outside the working tree" err &&
	test_must_fail git session checkpoint .git/config 2>err &&
	grep "^error: .\.git/config. is inside the git directory" err &&
	test_must_fail git session checkpoint "$TRASH_DIRECTORY/home" 2>err &&
	grep "outside the working tree" err &&
	test_must_fail git session checkpoint sub 2>err &&
	grep "^error: .sub. is a directory" err &&
	test_must_fail git session checkpoint nothere 2>err &&
	grep "^error: .nothere. does not exist" err &&
	test "$(git rev-parse SESSION_HEAD)" = "$old"
'

test_expect_success 'log runs git log on the session, passing options after --' '
	git session log -- --format=%s -3 >out &&
	git log --format=%s -3 refs/sessions/$id >expect &&
	test_cmp expect out &&
	git session log $id -- --oneline >out &&
	test_line_count = "$(git rev-list --count SESSION_HEAD)" out
'

test_expect_success 'list shows sessions, marks the active one; --json for programs' '
	git session pause -q &&
	git session start other -q &&
	git session list >out &&
	grep "^\* 2025-11-21-other  *in progress  " out &&
	grep "^  $id  *paused" out &&
	git session list --json >l.json &&
	test "$(json_field l.json "[(s[\"id\"], s[\"status\"], s[\"active\"]) for s in d]")" = \
		"[[\"2025-11-21-other\", \"in_progress\", true], [\"$id\", \"paused\", false]]" &&
	test "$(json_field l.json "d[0][\"checkpoint\"]")" = "$(git rev-parse SESSION_HEAD)"
'

test_expect_success 'list remembers what it read by commit; a damaged cache is read past' '
	git session list --json >first &&
	head -n 1 .git/session-list-cache >header &&
	echo "git-session list cache 2" >expect && test_cmp expect header &&
	old=$(git rev-parse SESSION_HEAD) &&
	grep "^$old [0-9]* \[\"in_progress\"," .git/session-list-cache &&
	test_tick && git session note -q "moves the tip" &&
	git session list --json >second &&
	test "$(json_field second "d[0][\"checkpoint\"]")" = "$(git rev-parse SESSION_HEAD)" &&
	test "$(json_field second "d[0][\"updated\"]")" != "$(json_field first "d[0][\"updated\"]")" &&
	grep "^$(git rev-parse SESSION_HEAD) " .git/session-list-cache &&
	! grep "^$old " .git/session-list-cache &&
	rm .git/session-list-cache && git session list >nocache &&
	echo garbage >.git/session-list-cache && git session list >damaged &&
	test_cmp nocache damaged &&
	head -n 1 .git/session-list-cache >header && test_cmp expect header &&
	git fsck --strict 2>err && ! grep -v "^dangling" err
'

test_expect_success 'a paused session refuses writes until resumed' '
	git session switch $id >out &&
	echo "Switched to session $id" >expect && test_cmp expect out &&
	test_must_fail git session note "while paused" 2>err &&
	grep "^error: session .$id. is paused" err &&
	git session resume -q &&
	git session note "after resume" -q &&
	session_json >s && test "$(json_field s "d[\"status\"]")" = in_progress
'

test_expect_success 'close completes the session and leaves SESSION_HEAD; --abort aborts' '
	git session close >out &&
	grep "session $id: in_progress -> completed" out &&
	test_path=.git/SESSION_HEAD && ! test -f $test_path &&
	git show refs/sessions/$id:session.json >s &&
	test "$(json_field s "d[\"status\"]")" = completed &&
	test_must_fail git session note x 2>err &&
	grep "^error: no active session" err &&
	git session switch 2025-11-21-other -q &&
	git session close --abort -q &&
	git show refs/sessions/2025-11-21-other:session.json >s &&
	test "$(json_field s "d[\"status\"]")" = aborted
'

test_expect_success 'archive moves the ref out of refs/sessions; unarchive brings it back' '
	tip=$(git rev-parse refs/sessions/$id) &&
	git session archive $id >out &&
	echo "Archived session $id" >expect && test_cmp expect out &&
	test_must_fail git rev-parse -q --verify refs/sessions/$id &&
	test "$(git rev-parse refs/archive/sessions/$id)" = "$tip" &&
	git reflog refs/archive/sessions/$id >log &&
	grep "session: archive $id" log &&
	git session list >out && ! grep $id out &&
	git session list --all >out && grep "$id  *archived" out &&
	git session show --json $id >s && test "$(json_field s "d[\"status\"]")" = completed &&
	test_must_fail git session switch $id 2>err &&
	grep "^error: session .$id. is archived" err &&
	git session unarchive $id -q &&
	test "$(git rev-parse refs/sessions/$id)" = "$tip" &&
	test_must_fail git session unarchive $id 2>err &&
	grep "^error: no archived session" err
'

test_expect_success 'archive refuses the session active here' '
	git session start live -q &&
	test_must_fail git session archive 2025-11-21-live 2>err &&
	grep "^error: session .2025-11-21-live. is active in this worktree" err &&
	git rev-parse --verify refs/sessions/2025-11-21-live
'

test_expect_success 'packed refs work' '
	git pack-refs --all &&
	! test -f .git/refs/sessions/2025-11-21-live &&
	git session note "after pack" -q &&
	git session list >out && test_line_count = 3 out &&
	git fsck --strict
'

test_done
