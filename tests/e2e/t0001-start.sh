#!/bin/sh
test_description='start a session; the storage model seen through plain git'
. ./lib.sh

test_expect_success 'start creates the ref, SESSION_HEAD and a root checkpoint' '
	git session start "Add OAuth login" --goal "log in with GitHub" \
		--phase Design --phase Build >out &&
	echo "Started session 2025-11-21-add-oauth-login" >expect &&
	test_cmp expect out &&
	git rev-parse --verify refs/sessions/2025-11-21-add-oauth-login &&
	echo "ref: refs/sessions/2025-11-21-add-oauth-login" >expect &&
	test_cmp expect .git/SESSION_HEAD &&
	test "$(git rev-list --count SESSION_HEAD)" = 1 &&
	test "$(git rev-list --parents -1 SESSION_HEAD | wc -w)" = 1
'

test_expect_success 'the checkpoint tree holds session.json and op.json' '
	git ls-tree --name-only SESSION_HEAD >names &&
	printf "op.json\nsession.json\n" >expect &&
	test_cmp expect names &&
	session_json >state.json &&
	test "$(json_field state.json "d[\"session_id\"]")" = 2025-11-21-add-oauth-login &&
	test "$(json_field state.json "d[\"goal\"]")" = "log in with GitHub" &&
	test "$(json_field state.json "d[\"status\"]")" = in_progress &&
	test "$(json_field state.json "d[\"created\"]")" = 2025-11-21T10:01:00Z &&
	test "$(json_field state.json "[p[\"name\"] for p in d[\"phases\"]]")" = "[\"Design\", \"Build\"]" &&
	test "$(json_field state.json "d[\"tokens\"][\"max\"]")" = 0 &&
	test "$(json_field state.json "d[\"project\"][\"branch\"]")" = main &&
	test "$(json_field state.json "d[\"project\"][\"head\"]")" = "$(git rev-parse HEAD)" &&
	test "$(json_field state.json "d[\"project\"][\"name\"]")" = repo
'

test_expect_success 'session.json is pretty, in schema order, and ends with a newline' '
	session_json >state.json &&
	head -3 state.json >top &&
	printf "{\n  \"schema_version\": \"1.0\",\n  \"session_id\": \"2025-11-21-add-oauth-login\",\n" >expect &&
	test_cmp expect top &&
	python3 -c "import json,sys; d=json.load(open(\"state.json\")); print(\" \".join(d))" >keys &&
	echo "schema_version session_id topic goal mode status created updated project plans current_phase phases agents files errors tokens decisions tasks milestones artifacts notes commits context_summary extra" >expect &&
	test_cmp expect keys &&
	test "$(tail -c 2 state.json | od -An -c | tr -d " ")" = "}\\n"
'

test_expect_success 'the commit message has a subject and the trailers' '
	git log -1 --format=%s SESSION_HEAD >subject &&
	echo "start session 2025-11-21-add-oauth-login: \"Add OAuth login\"" >expect &&
	test_cmp expect subject &&
	git log -1 --format="%(trailers:key=Session-Id,valueonly)" SESSION_HEAD >id &&
	printf "2025-11-21-add-oauth-login\n\n" >expect && test_cmp expect id &&
	git log -1 --format="%(trailers:key=Session-Op,valueonly)%(trailers:key=Branch,valueonly)%(trailers:key=Head,valueonly)" SESSION_HEAD >t &&
	printf "session.start\nmain\n%s\n\n" "$(git rev-parse HEAD)" >expect &&
	test_cmp expect t
'

test_expect_success 'identity and dates come from the environment' '
	git log -1 --format="%an <%ae> %at|%cn <%ce> %ct" SESSION_HEAD >who &&
	echo "A U Thor <author@example.com> 1763719260|C O Mitter <committer@example.com> 1763719260" >expect &&
	test_cmp expect who
'

test_expect_success 'identity falls back to user.name and user.email' '
	git config user.name "Conf User" &&
	git config user.email conf@example.com &&
	(
		unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL &&
		git session note "from config"
	) &&
	git log -1 --format="%an <%ae>|%cn <%ce>" SESSION_HEAD >who &&
	echo "Conf User <conf@example.com>|Conf User <conf@example.com>" >expect &&
	test_cmp expect who
'

test_expect_success 'git -c settings reach git session, quotes and all' '
	(
		unset GIT_AUTHOR_NAME GIT_COMMITTER_NAME &&
		git -c user.name="Pat O'"'"'Brien" session note "from -c"
	) &&
	git log -1 --format="%an|%cn" SESSION_HEAD >who &&
	echo "Pat O'"'"'Brien|Pat O'"'"'Brien" >expect &&
	test_cmp expect who &&
	test_expect_code 1 git -c session.maxRetries=lots session note x 2>err &&
	grep "^error: bad numeric config value .lots. for .session.maxRetries." err
'

test_expect_success 'ISO 8601 and RFC 2822 dates are understood as git does' '
	GIT_AUTHOR_DATE="2025-11-22T08:30:00+02:00" GIT_COMMITTER_DATE="Sat, 22 Nov 2025 09:00:00 +0100" \
		git session note "dated" &&
	git log -1 --format="%ai|%ci" SESSION_HEAD >dates &&
	echo "2025-11-22 08:30:00 +0200|2025-11-22 09:00:00 +0100" >expect &&
	test_cmp expect dates &&
	session_json >state.json &&
	test "$(json_field state.json "d[\"updated\"]")" = 2025-11-22T08:00:00Z
'

test_expect_success 'session refs get a reflog' '
	git reflog refs/sessions/2025-11-21-add-oauth-login >log &&
	test_line_count = 4 log &&
	grep "session: start session" log &&
	grep "session: note: \"dated\"" log
'

test_expect_success 'a duplicate id is refused, and nothing changes' '
	git session pause -q &&
	old=$(git rev-parse refs/sessions/2025-11-21-add-oauth-login) &&
	test_must_fail git session start "Add OAuth login" --id 2025-11-21-add-oauth-login 2>err &&
	grep "^error: session .2025-11-21-add-oauth-login. already exists" err &&
	test "$(git rev-parse refs/sessions/2025-11-21-add-oauth-login)" = "$old"
'

test_expect_success 'start refuses while a session is in progress here, unless --pause-current' '
	git session start second -q &&
	test_must_fail git session start third 2>err &&
	grep "^error: session .2025-11-21-second. is in progress in this worktree" err &&
	test_must_fail git rev-parse --verify -q refs/sessions/2025-11-21-third &&
	git session start third --pause-current -q &&
	git show refs/sessions/2025-11-21-second:session.json >second.json &&
	test "$(json_field second.json "d[\"status\"]")" = paused &&
	echo "ref: refs/sessions/2025-11-21-third" >expect &&
	test_cmp expect .git/SESSION_HEAD
'

test_expect_success 'invalid ids are refused with error: and exit 1' '
	for id in "a/b" "../x" ".hidden" "-dash" "a..b" "has space" "tab	x" "x.lock" "trailing." \
		"$(printf "ctl\001x")" "caf$(printf "\303\251")" \
		"$(printf "%0101d" 0)"
	do
		test_expect_code 1 git session start --pause-current --id "$id" topic 2>err &&
		grep "^error: invalid session id" err || return 1
	done &&
	git for-each-ref refs/sessions >refs &&
	test_line_count = 3 refs
'

test_expect_success '--budget and session.budget set tokens.max' '
	git session start b1 --pause-current --budget 5000 -q &&
	session_json >s && test "$(json_field s "d[\"tokens\"][\"max\"]")" = 5000 &&
	git config session.budget 7000 &&
	git session start b2 --pause-current -q &&
	session_json >s && test "$(json_field s "d[\"tokens\"][\"max\"]")" = 7000 &&
	git -c session.budget=9000 session start b4 --pause-current -q &&
	session_json >s && test "$(json_field s "d[\"tokens\"][\"max\"]")" = 9000 &&
	git config --unset session.budget &&
	git session start b5 --pause-current -q &&
	session_json >s && test "$(json_field s "d[\"tokens\"][\"max\"]")" = 0 &&
	git session status >out && grep "^Tokens    0 (no budget)$" out && ! grep "budget used" out &&
	git session tokens --json >t && test "$(json_field t "d[\"remaining\"]")" = null &&
	git session tokens budget 100 >/dev/null &&
	git session status >out && grep "^Tokens    0 / 100 (0.0%)$" out &&
	test_must_fail git session start b3 --pause-current --budget 0 2>err &&
	grep "^error: budget must be a positive whole number" err &&
	test_must_fail git session start b3 --pause-current --budget -5 2>err &&
	grep "^error: budget must be a positive whole number" err &&
	git session status --json >st && test "$(json_field st "d[\"status\"]")" = in_progress &&
	git session pause -q
'

test_expect_success 'session.idFormat shapes the ids of sessions started without --id' '
	git -c session.idFormat="{slug}.%Y%m%d" session start "Fix the Cache" --pause-current >out &&
	echo "Started session fix-the-cache.20251121" >expect &&
	test_cmp expect out &&
	git config session.idFormat "%Y-{slug}-{slug}" &&
	git session start --pause-current -q &&
	git rev-parse --verify -q refs/sessions/2025-session-session &&
	git config session.idFormat "%Y/%m-{slug}" &&
	git rev-parse SESSION_HEAD >before &&
	test_must_fail git session start x --pause-current 2>err &&
	grep "^error: session.idFormat .%Y/%m-{slug}. gives no valid session id: session id may contain only" err &&
	git rev-parse SESSION_HEAD >after && test_cmp before after &&
	test_must_fail git -c session.idFormat= session start x --pause-current 2>err &&
	grep "^error: session.idFormat .. gives no valid session id: empty or too long" err &&
	git session start x --id explicit-id --pause-current -q &&
	git config --unset session.idFormat &&
	git session start "Back to default" --pause-current -q &&
	git rev-parse --verify -q refs/sessions/2025-11-21-back-to-default
'

test_expect_success 'an automatic id: a suffix when taken, live or archived; the slug cut at a word, the topic whole' '
	git session start "Add OAuth login" --pause-current >out && sed -n "\$p" out >last &&
	echo "Started session 2025-11-21-add-oauth-login-2" >expect && test_cmp expect last &&
	git session close -q &&
	git session archive 2025-11-21-add-oauth-login-2 -q &&
	git session start "Add OAuth login" -q &&
	test "$(git symbolic-ref SESSION_HEAD)" = refs/sessions/2025-11-21-add-oauth-login-3 &&
	git session close -q &&
	git session start "Unlike any other, a topic made of more words than an id should take" -q &&
	test "$(git symbolic-ref SESSION_HEAD)" = refs/sessions/2025-11-21-unlike-any-other-a-topic-made-of &&
	git session status --json >st &&
	test "$(json_field st "d[\"topic\"]")" = "Unlike any other, a topic made of more words than an id should take" &&
	git session close -q
'

test_expect_success '--plan records the plan document and its blob' '
	mkdir -p docs && echo "# plan" >docs/plan.md &&
	git session start planned --pause-current --plan docs/plan.md -q &&
	session_json >s &&
	test "$(json_field s "d[\"plans\"][0][\"path\"]")" = docs/plan.md &&
	test "$(json_field s "d[\"plans\"][0][\"oid\"]")" = "$(git hash-object docs/plan.md)" &&
	test_must_fail git session start p2 --pause-current --plan nope.md 2>err &&
	grep "^error: .nope.md. does not exist" err
'

test_expect_success 'git fsck --strict is clean and git gc keeps every checkpoint' '
	git fsck --strict 2>err && test_must_be_empty err &&
	git rev-parse refs/sessions/2025-11-21-add-oauth-login >before &&
	git rev-list --all --count >count-before &&
	git gc --prune=now -q &&
	git rev-parse refs/sessions/2025-11-21-add-oauth-login >after &&
	test_cmp before after &&
	git rev-list --all --count >count-after &&
	test_cmp count-before count-after &&
	git session show 2025-11-21-add-oauth-login --json >/dev/null &&
	git fsck --strict
'

test_done
