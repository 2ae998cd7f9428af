#!/bin/sh
test_description='one clone'"'"'s local facts stay local: no clone path nor stat data in what is shared; resume after a merge reports only real changes; a bare restore writes nothing'
. ./lib.sh

A="$TRASH_DIRECTORY/alice/src/app"
B="$TRASH_DIRECTORY/bob/work/app"
OLD=202501010000	# touch -t: a file this old is not "racily clean", so the stat cache keeps it

# as <who> <command>...: in that person's clone, as that person
as () {
	who=$1 && shift &&
	case $who in
	alice) dir=$A name=Alice ;;
	bob) dir=$B name=Bob ;;
	esac &&
	(cd "$dir" && GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$who@example.com \
		GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$who@example.com "$@")
}
claude () {
	printf '{"session_id":"aaaa0001-x","transcript_path":"%s","cwd":"%s","hook_event_name":"%s"%s}' \
		"$HOME/.claude/projects/app/aaaa0001-x.jsonl" "$A" "$1" "$2" |
		as alice git-session hook claude-code "$1" >/dev/null
}

# shared_clean <who> <session>: every checkpoint of the session, as plain git
# reads it (session.json with its state/ parts, op.json, the message),
# names neither clone's path, and no file entry nor operation holds stat data
shared_clean () {
	as "$1" python3 - "$2" "$A" "$B" <<'CHECK'
import json, subprocess, sys
ref, paths = "refs/sessions/" + sys.argv[1], sys.argv[2:]
git = lambda *a: subprocess.run(("git",) + a, check=True, capture_output=True, text=True).stdout
STAT = {"size", "mtime", "ino"}
def entries(files):
    return files.values() if isinstance(files, dict) else []
bad = []
for c in git("rev-list", ref).split():
    texts = [git("log", "-1", "--format=%B", c)]
    for name in git("ls-tree", "-r", "--name-only", c).split("\n"):
        if name == "session.json" or name == "op.json" or name.startswith("state/"):
            texts.append(git("show", "%s:%s" % (c, name)))
    state = json.loads(git("show", c + ":session.json"))
    if "path" in state.get("project", {}):
        bad.append("%s: project.path" % c[:7])
    shards = [json.loads(t) for n, t in [(n, git("show", "%s:%s" % (c, n))) for n in
              git("ls-tree", "-r", "--name-only", c).split("\n") if n.startswith("state/files/")]]
    for files in [state.get("files")] + shards:
        for e in entries(files):
            if STAT & set(e):
                bad.append("%s: stat data in the manifest" % c[:7])
    op = json.loads(git("show", c + ":op.json")) if "op.json" in git("ls-tree", "--name-only", c) else {}
    for e in entries(op.get("args", {}).get("files", {}) if isinstance(op.get("args"), dict) else {}):
        if isinstance(e, dict) and STAT & set(e):
            bad.append("%s: stat data in the operation" % c[:7])
    for t in texts:
        for p in paths:
            if p in t:
                bad.append("%s: names %s" % (c[:7], p))
if bad:
    sys.exit("\n".join(sorted(set(bad))))
CHECK
}

# kinds <file>: the resume report's files as "path:kind" lines
kinds () { json_field "$1" "\" \".join(f[\"path\"] + \":\" + f[\"kind\"] for f in d[\"files\"])"; }
# recorded_new <file>: the new commits resume lists that the session recorded
recorded_new () {
	json_field "$1" "[c[\"id\"] for c in d[\"head\"][\"commits\"] if c[\"id\"] in [m[\"id\"] for m in json.load(open(\"$2\"))[\"commits\"]]]"
}

test_expect_success 'setup: a bare hub, Alice'"'"'s and Bob'"'"'s clones at different paths, git hooks in both' '
	git init -q --bare hub.git &&
	mkdir -p alice/src bob/work &&
	git clone -q hub.git "$A" 2>/dev/null &&
	printf "def add(x):\n    pass\n\n\n\n\n\n\ndef remove(i):\n    pass\n" >"$A/todo.py" &&
	as alice git add todo.py && as alice git commit -q -m "todo: a start" &&
	as alice git push -q origin HEAD 2>/dev/null &&
	git clone -q hub.git "$B" &&
	as alice git session hooks install >/dev/null && as bob git session hooks install >/dev/null
'

test_expect_success 'Alice records; the session names no clone path and holds no stat data; her stat cache does' '
	test_tick &&
	as alice git session start "Todo module" --id todo -q &&
	mkdir -p "$HOME/.claude/projects/app" && : >"$HOME/.claude/projects/app/aaaa0001-x.jsonl" &&
	claude UserPromptSubmit ",\"prompt\":\"write the module\"" &&
	printf "def add(x):\n    return [x]\n\n\n\n\n\n\ndef remove(i):\n    pass\n" >"$A/todo.py" &&
	claude PostToolUse ",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$A/todo.py\",\"old_string\":\"pass\",\"new_string\":\"return [x]\"}" &&
	echo "# usage" >"$A/USAGE.md" &&
	claude PostToolUse ",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$A/USAGE.md\",\"content\":\"x\"}" &&
	touch -t $OLD "$A/todo.py" "$A/USAGE.md" &&
	test_tick && as alice git session checkpoint -q -m "both files" &&
	as alice git add todo.py USAGE.md && test_tick && as alice git commit -q -m "add() returns a list" &&
	test "$(as alice git session show --json | python3 -c "import json,sys; print(json.load(sys.stdin)[\"project\"][\"name\"])")" = hub &&
	shared_clean alice todo &&
	grep -a "alice/src/app" "$A/.git/session-stat-cache" >/dev/null &&
	tr "\0" "\n" <"$A/.git/session-stat-cache" | grep " todo.py\$" >/dev/null &&
	as alice git session resume --dry-run --json todo >r.json &&
	test "$(json_field r.json "d[\"manifest\"][\"hashed\"]")" = 0 &&
	test "$(json_field r.json "d[\"conflicts\"]")" = "[]" &&
	as alice git rev-parse refs/sessions/todo >first &&
	as alice git push -q origin HEAD 2>/dev/null && as alice git session push -q
'

test_expect_success 'Bob pulls: his first resume reads the files, the next trusts his own stat cache' '
	as bob git pull -q 2>/dev/null && as bob git session pull -q &&
	touch -t $OLD "$B/todo.py" "$B/USAGE.md" &&
	as bob git session resume --dry-run --json todo >r.json &&
	test "$(json_field r.json "d[\"manifest\"][\"hashed\"]")" = 2 &&
	test "$(json_field r.json "d[\"conflicts\"]")" = "[]" &&
	as bob git session resume --dry-run --json todo >r.json &&
	test "$(json_field r.json "d[\"manifest\"][\"hashed\"]")" = 0 &&
	! grep -a "alice/src/app" "$B/.git/session-stat-cache" &&
	as bob git session resume -q todo
'

test_expect_success 'a stat cache written for another working tree is not trusted' '
	cp "$A/.git/session-stat-cache" "$B/.git/session-stat-cache" &&
	as bob git session resume --dry-run --json todo >r.json &&
	test "$(json_field r.json "d[\"manifest\"][\"hashed\"]")" = 2 &&
	as bob git session resume --dry-run --json todo >r.json &&
	test "$(json_field r.json "d[\"manifest\"][\"hashed\"]")" = 0
'

test_expect_success 'both change todo.py offline and commit; git and the session merge' '
	sed -i "1s/.*/def add(x):  # alice/" "$A/todo.py" &&
	as alice git session file modified -q todo.py &&
	as alice git commit -q -am "add(): a comment" &&
	test_tick && as alice git session note -q "alice offline" &&
	sed -i "\$s/.*/    return None/" "$B/todo.py" &&
	as bob git session file modified -q todo.py &&
	test_tick && as bob git commit -q -am "remove() returns None" &&
	test_tick && as bob git session note -q "bob offline" &&
	as alice git push -q origin HEAD 2>/dev/null && as alice git session push -q &&
	as bob git pull -q --no-rebase --no-edit 2>/dev/null &&
	as bob git session pull -q &&
	test "$(as bob git rev-list --min-parents=2 --count refs/sessions/todo)" -ge 1 &&
	as bob git push -q origin HEAD 2>/dev/null && as bob git session push -q &&
	as alice git pull -q 2>/dev/null && as alice git session pull -q &&
	test "$(as alice git rev-parse refs/sessions/todo)" = "$(as bob git rev-parse refs/sessions/todo)" &&
	grep "# alice" "$A/todo.py" && grep "return None" "$A/todo.py"
'

test_expect_success 'the merged session names no clone path and holds no stat data, in either clone' '
	shared_clean alice todo && shared_clean bob todo
'

test_expect_success 'resume on each side: git status clean, so no file modified and no recorded commit new' '
	for who in alice bob
	do
		test -z "$(as $who git status --porcelain)" &&
		as $who git session resume --dry-run --json todo >r.$who.json &&
		(cd "$A" && session_json refs/sessions/todo) >state.json &&
		kinds r.$who.json >k.$who &&
		! grep ":modified" k.$who &&
		! grep ":reverted" k.$who &&
		grep "todo.py:committed" k.$who &&
		test "$(recorded_new r.$who.json state.json)" = "[]" &&
		test "$(json_field r.$who.json "d[\"head\"][\"rewritten\"]")" = false || return 1
	done &&
	test "$(json_field state.json "len(d[\"commits\"])")" -ge 3
'

test_expect_success 'restore with no arguments is a usage error and writes nothing' '
	echo "# mine" >>"$A/USAGE.md" &&
	cp "$A/USAGE.md" usage.before && cp "$A/todo.py" todo.before &&
	tip=$(as alice git rev-parse refs/sessions/todo) &&
	test_expect_code 129 as alice git session restore >out 2>err &&
	test_must_be_empty out &&
	grep "^error: " err && grep "usage: git session restore" err &&
	test_cmp usage.before "$A/USAGE.md" && test_cmp todo.before "$A/todo.py" &&
	test "$(as alice git rev-parse refs/sessions/todo)" = "$tip" &&
	as alice git checkout -q USAGE.md
'

test_expect_success 'restoring an older checkpoint over a teammate'"'"'s merged change needs --force' '
	cp "$A/todo.py" todo.before &&
	test_must_fail as alice git session restore "$(cat first)" -- todo.py 2>err &&
	grep "committed in HEAD" err &&
	test_cmp todo.before "$A/todo.py" &&
	test_must_fail as alice git session restore "$(cat first)" 2>err &&
	grep "committed in HEAD" err &&
	test_cmp todo.before "$A/todo.py"
'

test_expect_success 'a teammate'"'"'s committed change the session recorded too is not reverted without --force' '
	echo "# usage, by bob" >"$B/USAGE.md" &&
	test_tick && as bob git commit -q -am "usage: say who" &&
	as bob git push -q origin HEAD 2>/dev/null && as bob git session push -q &&
	as alice git pull -q 2>/dev/null && as alice git session pull -q &&
	test "$(as alice git rev-parse refs/sessions/todo:files/USAGE.md)" = "$(as alice git hash-object USAGE.md)" &&
	cp "$A/USAGE.md" usage.before &&
	test_must_fail as alice git session restore "$(cat first)" -- USAGE.md 2>err &&
	grep "committed in HEAD" err && grep "usage: say who" err &&
	test_cmp usage.before "$A/USAGE.md" &&
	as alice git session restore -q --force "$(cat first)" -- USAGE.md &&
	test "$(cat "$A/USAGE.md")" = "# usage" &&
	as alice git checkout -q USAGE.md
'

test_expect_success 'a file one side had modified is not turned back into a created one by the merge' '
	test_tick && as alice git session start flip --id flip --pause-current -q &&
	echo "notes" >"$A/NOTES.md" &&
	as alice git session file created -q NOTES.md &&
	as alice git session push -q &&
	as bob git session pull -q && as bob git session switch flip >/dev/null &&
	as bob git session restore -q flip -- NOTES.md &&
	echo "more" >>"$B/NOTES.md" &&
	test_tick && as bob git session file modified -q NOTES.md &&
	rm "$B/NOTES.md" &&
	test_tick && as alice git session file created -q NOTES.md &&
	as alice git session push -q &&
	as bob git session push -q &&
	as alice git session pull -q &&
	for who in alice bob
	do
		(cd "$TRASH_DIRECTORY" && as $who git show refs/sessions/flip:session.json) >flip.json &&
		test "$(json_field flip.json "d[\"files\"][\"NOTES.md\"][\"status\"]")" = modified || return 1
	done
'

test_expect_success 'a file rewritten in place with its mtime kept is read again, not taken from the cache' '
	(cd "$A" && git session start "ctime" --id ctime --pause-current -q &&
	 printf "aaaa\n" >same.txt && touch -t $OLD same.txt &&
	 git session file created same.txt -q &&
	 printf "bbbb\n" >same.txt && touch -t $OLD same.txt &&
	 git session file modified same.txt -q &&
	 test "$(git show refs/sessions/ctime:files/same.txt)" = bbbb)
'

test_expect_success 'what was recorded, committed by a commit the session never saw and changed since, is not "reverted"' '
	git init -q unseen && (cd unseen && git commit -q --allow-empty -m init &&
	 git session start unseen --id unseen -q && echo X >f.c && git session file created f.c -q &&
	 git add f.c && git commit -q -m C1 && echo Y >f.c && git commit -q -am C2 &&
	 git session resume --dry-run --json >r.json &&
	 test "$(json_field r.json "[f[\"kind\"] for f in d[\"files\"] if f[\"path\"] == \"f.c\"]")" = "[\"committed\"]" &&
	 test "$(json_field r.json "len(d[\"conflicts\"])")" = 0)
'

test_done
