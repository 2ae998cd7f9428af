#!/bin/sh
test_description='a large state: collections past 256 entries live under state/, a checkpoint writes what changed'
. ./lib.sh

id=2025-11-21-large
notes () { i=$1; while test $i -le $2; do echo "note $i"; i=$((i + 1)); done; }
# Each line of stdin as one call of the tool $1 (its text argument $2), a checkpoint each, in one MCP server:
# one process for hundreds of checkpoints, as an agent's MCP client writes them.
mcp_calls () {
	{
		echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}' &&
		n=0 && while read text; do n=$((n + 1)); echo "{\"jsonrpc\":\"2.0\",\"id\":$n,\"method\":\"tools/call\",\"params\":{\"name\":\"$1\",\"arguments\":{\"$2\":\"$text\"}}}"; done
	} | git session mcp >mcp.out &&
	! grep "\"isError\":true" mcp.out && ! grep "\"error\":" mcp.out
}
changed () { git diff-tree -r --no-commit-id --name-only "$1~1" "$1" | sort; }

test_expect_success 'setup: 300 notes and 300 files' '
	git session start large --phase Build -q &&
	notes 1 300 | mcp_calls note_add text &&
	test $(git rev-list --count SESSION_HEAD) = 301 &&
	mkdir -p src &&
	i=0 && while test $i -lt 300; do echo "int f$i;" >src/f$i.c; i=$((i + 1)); done &&
	git add src && git commit -q -m files &&
	git session file created -q src/*.c
'

test_expect_success 'session.json names the collections kept apart; plain git shows them' '
	git show SESSION_HEAD:session.json >core &&
	test "$(json_field core "d[\"notes\"][\"chunks\"]")" = state/notes &&
	test "$(json_field core "d[\"notes\"][\"chunked\"]")" = 256 &&
	test "$(json_field core "len(d[\"notes\"][\"tail\"])")" = 44 &&
	test "$(json_field core "d[\"notes\"][\"tail\"][-1][\"text\"]")" = "note 300" &&
	grep "^  \"files\": \"state/files\",$" core &&
	grep "^  \"agents\": \[\]," core &&
	test "$(json_field core "d[\"notes\"][\"chunk\"]")" = 64 &&
	git ls-tree --name-only SESSION_HEAD:state/notes >chunks &&
	printf "000000.json\n000001.json\n000002.json\n000003.json\n" >expect && test_cmp expect chunks &&
	git show SESSION_HEAD:state/notes/000003.json >full &&
	test "$(json_field full "len(d)")" = 64 &&
	test "$(json_field full "d[-1][\"text\"]")" = "note 256" &&
	test "$(git ls-tree --name-only SESSION_HEAD:state/files | wc -l)" -gt 100
'

test_expect_success 'git session reads the whole state; so does plain git, put together' '
	git session show --json >shown &&
	test "$(json_field shown "len(d[\"notes\"])")" = 300 &&
	test "$(json_field shown "len(d[\"files\"])")" = 300 &&
	test "$(json_field shown "d[\"notes\"][256][\"text\"]")" = "note 257" &&
	session_json >joined &&
	test "$(python3 -c "import json, sys; print(json.load(open(sys.argv[1])) == json.load(open(sys.argv[2])))" shown joined)" = True &&
	git session status --json >st && test "$(json_field st "d[\"session_id\"]")" = $id
'

test_expect_success 'a note rewrites session.json only, where the tail of the notes is' '
	test_tick && git session note -q "note 301" &&
	changed SESSION_HEAD >out &&
	printf "op.json\nsession.json\n" >expect &&
	test_cmp expect out
'

test_expect_success 'a file change rewrites one shard of the manifest' '
	echo "int changed;" >src/f7.c &&
	test_tick && git session file modified -q src/f7.c &&
	changed SESSION_HEAD >out &&
	grep -c "^state/files/" out >n && test "$(cat n)" = 1 &&
	grep "^files/src/f7.c$" out &&
	git show SESSION_HEAD:session.json >core2 &&
	session_json >joined && test "$(json_field joined "d[\"files\"][\"src/f7.c\"][\"status\"]")" = modified &&
	echo "int brand_new;" >src/new.c &&
	test_tick && git session file created -q src/new.c &&
	changed SESSION_HEAD >out &&
	grep -c "^state/files/" out >n && test "$(cat n)" = 1 &&
	session_json >joined && test "$(json_field joined "len(d[\"files\"])")" = 301
'

test_expect_success 'a write that reads a damaged shard is refused; nothing is written' '
	echo "int f9_changed;" >src/f9.c &&
	test_tick && git session file modified -q src/f9.c &&
	tip=$(git rev-parse SESSION_HEAD) &&
	shard=$(changed SESSION_HEAD | grep "^state/files/") &&
	blob=$(git rev-parse SESSION_HEAD:$shard) &&
	obj=.git/objects/$(echo $blob | cut -c1-2)/$(echo $blob | cut -c3-) &&
	chmod u+w $obj && echo garbage >$obj &&
	test_expect_code 1 git session file modified src/f9.c 2>err &&
	grep "fsck --repair" err &&
	test "$(git rev-parse SESSION_HEAD)" = $tip &&
	test_expect_code 1 git session fsck 2>err &&
	grep "$shard $(echo $blob | cut -c1-12) cannot be read" err
'

test_expect_success 'fsck --repair brings back the last good checkpoint, shards and all' '
	git session fsck --repair >out &&
	grep "^repaired $id" out &&
	git session show --json >shown &&
	test "$(json_field shown "d[\"files\"][\"src/f9.c\"][\"status\"]")" = created &&
	test "$(json_field shown "d[\"notes\"][-1][\"text\"]")" = "note 301" &&
	git session note -q "after repair" &&
	git session fsck >out && grep "^ok $id" out &&
	git fsck --full 2>err && ! grep -v "^dangling" err &&
	git checkout -q -- src/f9.c
'

test_expect_success 'the hooks on a large session: the trailer, and a checkpoint of one shard' '
	git session hooks install >/dev/null &&
	echo "int f3_changed;" >src/f3.c &&
	test_tick && git commit -q -am "change f3" &&
	git log -1 --format=%B HEAD | grep "^Session-Id: $id$" &&
	git log -1 --format=%s SESSION_HEAD | grep "^commit $(git rev-parse --short=7 HEAD): \"change f3\"" &&
	changed SESSION_HEAD >out &&
	grep -c "^state/files/" out >n && test "$(cat n)" = 1 &&
	grep "^files/src/f3.c$" out &&
	test "$(git rev-parse SESSION_HEAD:files/src/f3.c)" = "$(git rev-parse HEAD:src/f3.c)" &&
	git session hooks uninstall >/dev/null
'

test_expect_success 'a session.json that names a missing folder is damage, said clearly' '
	core=$(git rev-parse SESSION_HEAD:session.json) &&
	op=$(git rev-parse SESSION_HEAD:op.json) &&
	tree=$(printf "100644 blob %s\top.json\n100644 blob %s\tsession.json\n" $op $core | git mktree) &&
	commit=$(echo broken | git commit-tree -p SESSION_HEAD $tree) &&
	test_expect_code 1 git session show $commit 2>err &&
	grep "^error: checkpoint $(echo $commit | cut -c1-12) of .$commit. is damaged: session.json: .files. is kept under state/files/, which is missing" err
'

test_expect_success 'export, and merges through push and pull, carry the whole state' '
	git session export --format maestro -o maestro.md &&
	test "$(grep -c "^ *\"src/f[0-9]*\.c\",\{0,1\}$" maestro.md)" = 300 &&
	git init -q --bare ../hub.git &&
	git remote add origin ../hub.git &&
	git session push -q &&
	git clone -q ../hub.git ../other 2>/dev/null &&
	(cd ../other && git session pull -q && git session switch -q $id &&
	 git session note -q "there") &&
	git session note -q "here" &&
	(cd ../other && git session push -q) &&
	git session pull -q &&
	test "$(git rev-list --min-parents=2 --count SESSION_HEAD)" = 1 &&
	git session show --json >shown &&
	json_field shown "[n[\"text\"] for n in d[\"notes\"][-3:]]" >last3 &&
	grep "there" last3 && grep "here" last3 &&
	test "$(json_field shown "len(d[\"files\"])")" = 301 &&
	git session fsck >out && grep "^ok $id" out
'

test_expect_success 'a collection that shrinks back into session.json leaves state/' '
	git session start small --id small -q --pause-current &&
	notes 1 257 | mcp_calls note_add text &&
	git ls-tree --name-only SESSION_HEAD:state >dirs && echo notes >expect && test_cmp expect dirs &&
	git session rollback --to SESSION_HEAD~2 >out &&
	git show SESSION_HEAD:session.json >core &&
	! grep "state/notes" core &&
	test_must_fail git rev-parse -q --verify SESSION_HEAD:state &&
	session_json >joined && test "$(json_field joined "len(d[\"notes\"])")" = 255
'

test_expect_success 'a list that only grows is appended to in session.json: its chunks are not read' '
	git session switch -q $id && git session close -q && git session start long --id long -q &&
	notes 1 520 | mcp_calls note_add text &&
	i=0 && while test $i -lt 515; do echo "d$i"; i=$((i + 1)); done | mcp_calls decision_record decision &&
	git ls-tree --name-only SESSION_HEAD:state/notes >chunks &&
	test_line_count = 8 chunks &&
	first=$(git rev-parse SESSION_HEAD:state/notes/000000.json) &&
	obj=.git/objects/$(echo $first | cut -c1-2)/$(echo $first | cut -c3-) &&
	cp $obj ../chunk0 && chmod u+w $obj && echo garbage >$obj &&
	test_tick && git session note -q "note 521" &&
	changed SESSION_HEAD >out &&
	printf "op.json\nsession.json\n" >expect && test_cmp expect out &&
	git show SESSION_HEAD:session.json >core &&
	test "$(json_field core "d[\"notes\"][\"chunked\"]")" = 512 &&
	test "$(json_field core "d[\"notes\"][\"tail\"][-1][\"text\"]")" = "note 521" &&
	git session status --json >st &&
	test "$(json_field st "d[\"counts\"][\"notes\"]")" = 521 &&
	test "$(json_field st "d[\"counts\"][\"decisions\"]")" = 515 &&
	test "$(json_field st "d[\"recent_notes\"][-1][\"text\"]")" = "note 521" &&
	test "$(json_field st "d[\"recent_decisions\"][-1][\"decision\"]")" = d514 &&
	git session status >text && grep "^Noted *note 521 (the latest of 521 notes)" text &&
	git session resume --dry-run --json >r &&
	test "$(json_field r "d[\"counts\"][\"notes\"]")" = 521 &&
	test_expect_code 1 git session show --json >/dev/null 2>err &&
	grep "fsck --repair" err &&
	cp ../chunk0 $obj &&
	git session show --json >shown &&
	test "$(json_field shown "len(d[\"notes\"])")" = 521 &&
	test "$(json_field shown "d[\"notes\"][0][\"text\"]")" = "note 1" &&
	session_json >joined &&
	test "$(python3 -c "import json, sys; print(json.load(open(sys.argv[1])) == json.load(open(sys.argv[2])))" shown joined)" = True &&
	git session fsck >out && grep "^ok long" out
'

test_done
