#!/bin/sh
test_description='hostile manifests: every path git would refuse to check out is refused, nothing written'
. ./lib.sh

# plant <files>: the tip of session evil made, with plain git, a checkpoint
# whose manifest is <files> (a Python dict of path -> entry; O is a blob's
# id, L a link's target blob), each blob under files/ where git takes the path
plant () {
	git show "$(cat .git/t-base)":session.json >.git/t-sj.in &&
	O=$(cat .git/t-blob) L=$(cat .git/t-link) python3 -c "
import json, os
O, L = os.environ['O'], os.environ['L']
def f(o=None, mode=None):
    e = {'status': 'created', 'oid': o or O, 'phase': None, 'agent': None}
    if mode: e['mode'] = mode
    return e
link = f(L, '120000')
gone = {'status': 'deleted', 'phase': None, 'agent': None}
s = json.load(open('.git/t-sj.in'))
s['files'] = $1
json.dump(s, open('.git/t-sj.out', 'w'))
with open('.git/t-files', 'w') as out:
    for p, e in s['files'].items():
        if isinstance(e, dict) and isinstance(e.get('oid'), str) and '\\n' not in p:
            out.write('%s %s %s\\n' % ('120000' if e.get('mode') == '120000' else '100644', e['oid'], p))
" &&
	sj=$(git hash-object -w .git/t-sj.out) && rm -f .git/t-index &&
	GIT_INDEX_FILE=.git/t-index git update-index --add --cacheinfo "100644,$sj,session.json" &&
	while read -r mode oid path
	do
		GIT_INDEX_FILE=.git/t-index git update-index --add --cacheinfo "$mode,$oid,files/$path" 2>/dev/null || :
	done <.git/t-files &&
	t=$(GIT_INDEX_FILE=.git/t-index git write-tree) &&
	git update-ref refs/sessions/evil "$(git commit-tree "$t" -p "$(cat .git/t-base)" -m "checkpoint: hostile")"
}

# what the work tree holds, by plain git and by a listing of every name
tree_state () {
	git status --porcelain --ignored >"$1" &&
	find . -path ./.git -prune -o -print | LC_ALL=C sort >>"$1" &&
	git rev-parse refs/sessions/mine >>"$1"
}

# refused <path as the error names it> [<commands>]: show, fsck and
# restore (dry run too), or the commands given, refuse the planted
# checkpoint naming the path, and nothing changes
refused () {
	tree_state .git/t-before &&
	for cmd in "show evil" "fsck evil" "restore evil --" "restore --dry-run evil --" "restore --force evil --"
	do
		case "$2,$cmd" in restore-only,show*|restore-only,fsck*) continue ;; esac
		test_expect_code 1 git session $cmd >.git/t-out 2>.git/t-err &&
		grep -F "'$1'" .git/t-err >/dev/null || { echo "git session $cmd:"; cat .git/t-err; return 1; }
	done &&
	tree_state .git/t-after &&
	test_cmp .git/t-before .git/t-after
}

test_expect_success 'setup: a session to restore into, and one whose checkpoints are planted' '
	echo base >README && git add README && git commit -q -m base &&
	git session start "evil" --id evil -q && git rev-parse refs/sessions/evil >.git/t-base &&
	git session start "mine" --id mine -q --pause-current &&
	echo hi | git hash-object -w --stdin >.git/t-blob &&
	printf ".git/hooks" | git hash-object -w --stdin >.git/t-link &&
	echo "ignored/" >.gitignore && git add .gitignore && git commit -q -m ignore &&
	mkdir ignored && echo x >ignored/x && echo untracked >untracked.txt
'

test_expect_success 'ordinary names near .git restore, so the refusals below are about the names' '
	plant "{\"a.git\": f(), \".gitx/y\": f(), \"git~1x\": f(), \"sub/.github/x\": f(), \"-rf\": f(),
		\".gitignore.d/x\": f(), \"caf\\u00e9/.git.x\": f(), \".mailmap\": f(), \"link\": link}" &&
	git session show evil >/dev/null && git session fsck evil &&
	git session restore evil 2>.git/t-err &&
	test "$(cat a.git)" = hi && test "$(cat -- -rf)" = hi && test "$(cat sub/.github/x)" = hi &&
	test "$(cat "café/.git.x")" = hi && test "$(cat .mailmap)" = hi &&
	test "$(readlink link)" = .git/hooks &&
	git session restore -q SESSION_HEAD~1 && ! test -e a.git && ! test -e link &&
	git clean -q -f -d
'

test_expect_success 'a .git below the top, and the embedded repository of a gitfile' '
	plant "{\"ok.txt\": f(), \"sub/.git/config\": f()}" && refused sub/.git/config &&
	plant "{\"evilrepo/HEAD\": f(), \"evilrepo/config\": f(), \"sub/.git\": f()}" && refused sub/.git &&
	plant "{\"a/b/c/.GiT/hooks/post-commit\": f()}" && refused a/b/c/.GiT/hooks/post-commit &&
	plant "{\".git/hooks/post-commit\": f()}" && refused .git/hooks/post-commit
'

test_expect_success 'NTFS spellings of .git: trailing dots and spaces, the short name, streams' '
	plant "{\".git./config\": f()}" && refused .git./config &&
	plant "{\"sub/.git . /config\": f()}" && refused "sub/.git . /config" &&
	plant "{\"git~1/config\": f()}" && refused git~1/config &&
	plant "{\"x/GIT~1\": f()}" && refused x/GIT~1 &&
	plant "{\".git::\$INDEX_ALLOCATION/config\": f()}" && refused ".git::\$INDEX_ALLOCATION/config" &&
	plant "{\".git\\\\config\": f()}" && refused ".git\\config" &&
	plant "{\"a\\\\b\": f()}" && refused "a\\b"
'

test_expect_success 'HFS+ spellings of .git: ignorable code points anywhere in the name' '
	plant "{\".g\\u200cit/config\": f()}" && refused "$(printf ".g\342\200\214it/config")" &&
	plant "{\"sub/\\ufeff.GIT/HEAD\": f()}" && refused "$(printf "sub/\357\273\277.GIT/HEAD")" &&
	plant "{\".git\\u206f/x\": f()}" && refused "$(printf ".git\342\201\257/x")"
'

test_expect_success 'absolute paths, . and .., empty components' '
	plant "{\"/tmp/x\": f()}" && refused /tmp/x &&
	plant "{\"./x\": f()}" && refused ./x &&
	plant "{\"a/../../x\": f()}" && refused a/../../x &&
	plant "{\"a//x\": f()}" && refused a//x &&
	plant "{\"\": f()}" && refused "" &&
	plant "{\"/tmp/x\": f()}" && refused /tmp/x && grep -F "'"'"'/tmp/x'"'"': an absolute path" .git/t-err
'

test_expect_success 'a file below a file, anything below a link, a link git reads as a file' '
	plant "{\"a\": f(), \"a-b\": f(), \"a/x\": f()}" && refused a/x restore-only &&
	grep -F "below a file" .git/t-err && git session show evil >/dev/null &&
	plant "{\"l\": link, \"l/post-commit\": f()}" && refused l/post-commit restore-only &&
	grep -F "below a symbolic link" .git/t-err &&
	plant "{\"l\": link, \"l/post-commit\": gone}" && refused l/post-commit restore-only &&
	plant "{\".gitmodules\": link}" && refused .gitmodules &&
	plant "{\"sub/GITMOD~1\": link}" && refused sub/GITMOD~1 &&
	plant "{\"x/.gitattributes\": link}" && refused x/.gitattributes
'

test_expect_success 'entries in the wrong shape: mode, oid, status' '
	plant "{\"m\": f(None, \"160000\")}" && refused m && grep -F "mode must be" .git/t-err &&
	plant "{\"o\": f(\"$(cat .git/t-blob | tr a-f A-F)\")}" && refused o &&
	plant "{\"s\": {\"status\": \"renamed\", \"oid\": O}}" && refused s
'

test_expect_success 'a hostile session fetched from a remote is refused the same way' '
	plant "{\"ok.txt\": f(), \"sub/.git/config\": f()}" &&
	git clone -q . ../victim-t0048 && (
		cd ../victim-t0048 &&
		git session start "victim" --id victim -q &&
		git session pull -q 2>.git/t-pull;
		tree_state .git/t-before &&
		test_expect_code 1 git session restore evil -- 2>.git/t-err &&
		cat .git/t-pull .git/t-err >.git/t-both && grep -F "'"'"'sub/.git/config'"'"'" .git/t-both &&
		tree_state .git/t-after && test_cmp .git/t-before .git/t-after &&
		! test -e sub
	)
'

test_expect_success 'a file that became a folder, and back, is recorded as git add takes it, in a manifest kept in shards too' '
	git session start "many" --id many -q --pause-current &&
	mkdir many && for i in $(seq 1 300); do echo $i >many/$i || return 1; done &&
	git session checkpoint -q many/* &&
	git ls-tree --name-only refs/sessions/many:state/files >shards && test_line_count -gt 1 shards &&
	echo file >d && git session file created -q d && rm d && mkdir d && echo below >d/x &&
	git session file created -q d/x &&
	git session show --json many >.git/t-show &&
	test "$(json_field .git/t-show "[d[\"files\"][\"d\"][\"status\"], d[\"files\"][\"d/x\"][\"status\"]]")" = "[\"deleted\", \"created\"]" &&
	rm -r d && echo file-again >d && git session file created -q d &&
	# d/x may sit in a shard this recording did not load; a checkpoint reads them all
	git session checkpoint -q &&
	git session show --json many >.git/t-show &&
	test "$(json_field .git/t-show "[d[\"files\"][\"d\"][\"status\"], d[\"files\"][\"d/x\"][\"status\"]]")" = "[\"created\", \"deleted\"]" &&
	test_expect_code 1 git session file created -q d d/x 2>.git/t-err &&
	git session fsck many &&
	git session restore --dry-run many -- d >/dev/null &&
	rm -r d many && git session pause -q && git session switch mine -q && git session resume -q && test "$(git symbolic-ref SESSION_HEAD)" = refs/sessions/mine
'

test_expect_success 'after all that, the session restored into still checkpoints' '
	echo more >more.txt && git session checkpoint -q more.txt &&
	git show refs/sessions/mine:files/more.txt >got && echo more >expect && test_cmp expect got &&
	git session fsck mine
'

test_done
