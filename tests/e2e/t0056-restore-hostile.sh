#!/bin/sh
test_description='restore of a hostile checkpoint: everything checked before the first write, nothing written when refused'
. ./lib.sh


# forge <files as JSON>: a checkpoint of session evil whose manifest is that
# (each entry gets status "created" unless it says); prints its id. With
# raw=<text>, session.json's "files" is that text as it is.
forge () {
	python3 - "$1" "${raw-}" <<'EOF'
import json, subprocess, sys
def git(*a, inp=None):
    return subprocess.run(("git",) + a, check=True, capture_output=True, input=inp).stdout.decode().strip()
tip = git("rev-parse", "refs/sessions/evil")
s = json.loads(git("show", tip + ":session.json"))
s["files"] = {p: dict({"status": "created", "phase": None, "agent": None}, **e)
              for p, e in json.loads(sys.argv[1]).items()}
text = json.dumps(s, indent=2)
if sys.argv[2]:
    text = text.replace('"files": {}', '"files": ' + sys.argv[2])
sj = git("hash-object", "-w", "--stdin", inp=text.encode())
tree = git("mktree", inp=("100644 blob %s\tsession.json\n" % sj).encode())
c = git("commit-tree", tree, "-p", tip, "-m", "checkpoint: forged")
git("update-ref", "refs/sessions/evil", c)
print(c)
EOF
}

# listing: every file, folder and link of the working tree (.git aside), with contents
listing () {
	find . -path ./.git -prune -o -print | LC_ALL=C sort | while read -r p
	do
		if test -h "$p"; then echo "$p -> $(readlink "$p")"
		elif test -f "$p"; then echo "$p $(git hash-object "$p") $(test -x "$p" && echo x)"
		else echo "$p/"
		fi
	done
}

# refused <rev> <message pattern>: restore and restore --dry-run both refuse
# with exit 1 and the same words, the working tree, the index and the
# session untouched
refused () {
	listing >../listing.before && git ls-files -s >../index.before &&
	git rev-parse SESSION_HEAD >../tip.before &&
	test_expect_code 1 git session restore --force --staged "$1" 2>../err &&
	test_expect_code 1 git session restore --force --dry-run "$1" 2>../err.dry &&
	test_cmp ../err ../err.dry &&
	grep -e "$2" ../err &&
	listing >../listing.after && test_cmp ../listing.before ../listing.after &&
	git ls-files -s >../index.after && test_cmp ../index.before ../index.after &&
	git rev-parse SESSION_HEAD >../tip.after && test_cmp ../tip.before ../tip.after
}

test_expect_success 'setup: a project, an active session, and a session a remote wrote' '
	echo base >base.txt && git add . && git commit -q -m base &&
	git session start evil --id evil -q &&
	git session start mine --id mine --pause-current -q &&
	good=$(echo good | git hash-object -w --stdin) && echo $good >../good &&
	git rev-parse HEAD^{tree} >../tree
'

test_expect_success 'paths git refuses make the checkpoint damaged, the path named, nothing written' '
	good=$(cat ../good) &&
	for p in "$PWD/abs" ./x ../outside a/../../x "x//y" ".git/hooks/post-commit" ".GIT/config"
	do
		c=$(forge "{\"a-good-one\": {\"oid\": \"$good\"}, \"$p\": {\"oid\": \"$good\"}}") &&
		refused $c "^error: checkpoint ${c%${c#???????}}.* is damaged: session.json: the manifest: " || return 1
		grep -F "'$p'" ../err && ! grep "submodule" ../err || return 1
	done
'

test_expect_success '.git at any depth and its other spellings are refused whole' '
	good=$(cat ../good) &&
	for p in sub/.git sub/.git/config sub/.GIT/hooks/x ".git./config" "git~1/config" "sub/.git\\\\config" \
		".g\\u200cit/config" "GIT~1/x"
	do
		c=$(forge "{\"a-good-one\": {\"oid\": \"$good\"}, \"$p\": {\"oid\": \"$good\"}}") &&
		refused $c "is damaged: session.json: the manifest: ." || return 1
	done
'

test_expect_success 'modes a file may not have are refused, the file named' '
	good=$(cat ../good) &&
	for m in 160000 040000 "100644,$good,zz" 644 ""
	do
		c=$(forge "{\"a-good-one\": {\"oid\": \"$good\"}, \"m\": {\"oid\": \"$good\", \"mode\": \"$m\"}}") &&
		refused $c "	m: .*mode\|m.: .*mode" || return 1
	done
'

test_expect_success 'a blob the repository lacks, or that is no blob, is refused before anything is written' '
	good=$(cat ../good) && tree=$(cat ../tree) &&
	c=$(forge "{\"a-good-one\": {\"oid\": \"$good\"}, \"z\": {\"oid\": \"1234567890123456789012345678901234567890\"}}") &&
	refused $c "	z: blob 1234567890123456789012345678901234567890 is missing" &&
	c=$(forge "{\"a-good-one\": {\"oid\": \"$good\"}, \"z\": {\"oid\": \"$tree\"}}") &&
	refused $c "	z: $tree is a tree, not a blob" &&
	c=$(forge "{\"a-good-one\": {\"oid\": \"$good\"}, \"z\": {\"oid\": \"HEAD\"}}") &&
	refused $c "the manifest: .z.: oid must be 40 lower-case hexadecimal digits" &&
	! test -e a-good-one
'

test_expect_success 'a file below a file or a link the same checkpoint holds is refused' '
	good=$(cat ../good) &&
	hooks=$(printf .git/hooks | git hash-object -w --stdin) &&
	c=$(forge "{\"a\": {\"oid\": \"$good\"}, \"a/x\": {\"oid\": \"$good\"}}") &&
	refused $c "cannot be restored: .a/x.: below a file, .a.; nothing was written" &&
	c=$(forge "{\"l\": {\"oid\": \"$hooks\", \"mode\": \"120000\"}, \"l/post-commit\": {\"oid\": \"$good\"}}") &&
	refused $c "cannot be restored: .l/post-commit.: below a symbolic link, .l.; nothing was written" &&
	! test -e a && ! test -h l && ! test -e .git/hooks/post-commit
'

test_expect_success 'a file where a folder goes, a link on the way, a submodule on the way: refused, for the right reason' '
	good=$(cat ../good) &&
	echo mine >blk &&
	c=$(forge "{\"ok\": {\"oid\": \"$good\"}, \"blk/x\": {\"oid\": \"$good\"}}") &&
	refused $c "	blk/x: .blk. is a file in the working tree" &&
	mkdir -p ../elsewhere && ln -s ../elsewhere lnk &&
	c=$(forge "{\"ok\": {\"oid\": \"$good\"}, \"lnk/x\": {\"oid\": \"$good\"}}") &&
	refused $c "	lnk/x: .lnk/x. is beyond a symbolic link" &&
	! test -e ../elsewhere/x &&
	git init -q sm && c=$(forge "{\"ok\": {\"oid\": \"$good\"}, \"sm/x\": {\"oid\": \"$good\"}}") &&
	refused $c "	sm/x: .sm/x. is in submodule .sm." &&
	mkdir dir && echo in >dir/f &&
	c=$(forge "{\"ok\": {\"oid\": \"$good\"}, \"dir\": {\"oid\": \"$good\"}}") &&
	refused $c "	dir: a folder is in its place" &&
	rm -rf blk lnk sm dir
'

test_expect_success 'a symbolic link whose target no link can have is refused before anything is written' '
	good=$(cat ../good) && nul=$(printf "a\0b" | git hash-object -w --stdin) &&
	empty=$(git hash-object -w --stdin </dev/null) &&
	c=$(forge "{\"a-good-one\": {\"oid\": \"$good\"}, \"l\": {\"oid\": \"$nul\", \"mode\": \"120000\"}}") &&
	refused $c "	l: blob $nul is no symbolic link.s target" &&
	c=$(forge "{\"a-good-one\": {\"oid\": \"$good\"}, \"l\": {\"oid\": \"$empty\", \"mode\": \"120000\"}}") &&
	refused $c "	l: blob $empty is no symbolic link.s target"
'

test_expect_success 'a path named twice is refused' '
	good=$(cat ../good) &&
	c=$(raw="{\"d\": {\"status\": \"created\", \"oid\": \"$good\"}, \"d\": {\"status\": \"created\", \"oid\": \"$good\"}}" forge "{}") &&
	refused $c "twice"
'

test_expect_success 'a binary file is restored byte for byte, and so is the undo' '
	git session switch mine -q 2>/dev/null || true &&
	printf "PNG\0\1\2\377binary\0data\r\n" >img.png && git session file created -q img.png &&
	at=$(git rev-parse SESSION_HEAD) && cp img.png ../img.expect &&
	printf "other\0bytes" >img.png && git session checkpoint -q -m edit img.png &&
	cp img.png ../img.edit &&
	git session restore -q $at &&
	cmp ../img.expect img.png &&
	test "$(git hash-object img.png)" = "$(git rev-parse $at:files/img.png)" &&
	git session restore -q SESSION_HEAD~1 && cmp ../img.edit img.png
'

test_expect_success 'a large binary blob is written whole' '
	python3 -c "import os,sys; sys.stdout.buffer.write(bytes(range(256)) * 40000 + b\"\\0\" * 1000000)" >big.bin &&
	cp big.bin ../big.expect && git session file created -q big.bin && at=$(git rev-parse SESSION_HEAD) &&
	echo small >big.bin && git session checkpoint -q &&
	git session restore -q $at -- big.bin && cmp ../big.expect big.bin
'

test_expect_success 'the executable bit is recorded, restored, and staged with --staged' '
	printf "#!/bin/sh\necho v1\n" >build.sh && chmod +x build.sh && git add build.sh && git commit -q -m exe &&
	git session file modified -q build.sh && at=$(git rev-parse SESSION_HEAD) &&
	session_json $at >sj && test "$(json_field sj "d[\"files\"][\"build.sh\"][\"mode\"]")" = 100755 &&
	printf "#!/bin/sh\necho v2\n" >build.sh && chmod -x build.sh && git session checkpoint -q &&
	git session restore -q --staged $at -- build.sh &&
	test -x build.sh && test "$(cat build.sh)" = "$(printf "#!/bin/sh\necho v1")" &&
	git diff --cached --summary >summary && test_must_be_empty summary &&
	test "$(git ls-files -s build.sh | cut -c1-6)" = 100755 &&
	git session restore -q SESSION_HEAD~1 -- build.sh && ! test -x build.sh
'

test_expect_success 'only the mode changed: the file is written again with it' '
	git checkout -q build.sh && chmod +x build.sh && git session checkpoint -q build.sh && at=$(git rev-parse SESSION_HEAD) &&
	chmod -x build.sh && git session checkpoint -q build.sh &&
	git session restore --dry-run $at -- build.sh >out && grep "^would write build.sh$" out &&
	git session restore -q $at -- build.sh && test -x build.sh
'

test_expect_success '--staged takes the mode from the checked manifest: a forged gitlink is refused' '
	good=$(cat ../good) &&
	c=$(forge "{\"m\": {\"oid\": \"$good\", \"mode\": \"160000\"}}") &&
	refused $c "mode" &&
	git ls-files -s >idx && ! grep "^160000" idx
'

test_expect_success 'a path that looks like an option is a path, on disk and in the index' '
	good=$(cat ../good) &&
	c=$(forge "{\"-rf\": {\"oid\": \"$good\"}, \"--cacheinfo\": {\"oid\": \"$good\", \"mode\": \"100755\"}}") &&
	git session restore -q --force --staged $c &&
	test "$(cat ./-rf)" = good && test -x ./--cacheinfo &&
	git ls-files -s -- ./-rf ./--cacheinfo >idx &&
	printf "100755 $good 0\t--cacheinfo\n100644 $good 0\t-rf\n" >expect && test_cmp expect idx &&
	git rm -q --cached -- ./-rf ./--cacheinfo && rm -f ./-rf ./--cacheinfo
'

test_expect_success 'a file a filter driver smudges is restored as git checkout writes it' '
	git config filter.up.smudge "tr a-z A-Z" && git config filter.up.clean "tr A-Z a-z" &&
	echo "*.up filter=up" >.gitattributes && git add .gitattributes && git commit -q -m attrs &&
	echo hello >t.up && git add t.up && git commit -q -m up &&
	rm t.up && git checkout -- t.up && cp t.up ../t.up.expect &&
	git session file created -q t.up && at=$(git rev-parse SESSION_HEAD) &&
	test "$(git rev-parse $at:files/t.up)" = "$(git rev-parse HEAD:t.up)" &&
	echo OTHER >t.up && git session checkpoint -q &&
	git session restore -q $at -- t.up && test_cmp ../t.up.expect t.up
'

test_expect_success 'ident and core.autocrlf apply as git checkout applies them' '
	echo "*.id ident" >>.gitattributes && git add .gitattributes && git commit -q -m ident &&
	printf "\$Id\$\none\n" >f.id && printf "one\ntwo\n" >f.txt && git add f.id f.txt && git commit -q -m files &&
	git config core.autocrlf true &&
	rm f.id f.txt && git checkout -- f.id f.txt && cp f.id ../f.id.expect && cp f.txt ../f.txt.expect &&
	grep "^\$Id: [0-9a-f]* " f.id && printf "one\r\ntwo\r\n" >expect && test_cmp expect f.txt &&
	git session file created -q f.id f.txt && at=$(git rev-parse SESSION_HEAD) &&
	test "$(git rev-parse $at:files/f.id)" = "$(git rev-parse HEAD:f.id)" &&
	test "$(git rev-parse $at:files/f.txt)" = "$(git rev-parse HEAD:f.txt)" &&
	echo x >f.id && echo x >f.txt && git session checkpoint -q &&
	git session restore -q $at -- f.id f.txt &&
	cmp ../f.id.expect f.id && cmp ../f.txt.expect f.txt &&
	git config --unset core.autocrlf
'

test_expect_success 'MCP session_restore: a revision "--force" is a revision, never an option' '
	echo recorded >mcp.txt && git session file created -q mcp.txt && at=$(git rev-parse SESSION_HEAD) &&
	echo unrecorded >mcp.txt &&
	init="{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"sh\",\"version\":\"1\"}}}" &&
	for rev in --force -f --dry-run=x "--" "-n"
	do
		printf "%s\n" "$init" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"session_restore\",\"arguments\":{\"force\":false,\"revision\":\"$rev\",\"paths\":[\"mcp.txt\"]}}}" |
			git session mcp >out &&
		sed -n 2p out >answer &&
		test "$(json_field answer "d[\"result\"][\"isError\"]")" = true &&
		test "$(cat mcp.txt)" = unrecorded || return 1
	done &&
	printf "%s\n" "$init" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"session_restore\",\"arguments\":{\"force\":false,\"paths\":[\"mcp.txt\"]}}}" |
		git session mcp >out &&
	sed -n 2p out >answer && grep "needs the argument .revision." answer &&
	test "$(cat mcp.txt)" = unrecorded
'

test_done
