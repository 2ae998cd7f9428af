#!/bin/sh
test_description='the working tree as git sees it: symbolic links, submodules, sparse checkouts, folders, big files'
. ./lib.sh

test_expect_success 'setup: a session, a secret outside the tree, links to it and to .git' '
	mkdir -p ../outside && echo SECRET >../outside/key &&
	git config remote.origin.url https://user:TOKEN@example.com/x.git &&
	ln -s ../outside sl && ln -s .git gitlink && ln -s /etc etclink &&
	mkdir -p dir && ln -s ../../outside dir/deeper &&
	echo real >real && ln -s real link &&
	git session start shapes --id shapes -q
'

test_expect_success 'no path through a symbolic link is recorded, by any command' '
	git rev-parse refs/sessions/shapes >before &&
	for p in sl/key gitlink/config etclink/passwd dir/deeper/key
	do
		test_must_fail git session file modified "$p" 2>err &&
		grep "^error: .$p. is beyond a symbolic link" err &&
		test_must_fail git session checkpoint "$p" 2>err &&
		grep "beyond a symbolic link" err &&
		test_must_fail git session file created --agent a "$p" 2>/dev/null || return 1
	done &&
	git rev-parse refs/sessions/shapes >after && test_cmp before after &&
	! git ls-tree -r SESSION_HEAD | grep -e SECRET -e TOKEN
'

test_expect_success 'import does not read through a symbolic link either' '
	cat >maestro.md <<-\EOM &&
	---
	session_id: "trav"
	status: in_progress
	phases:
	  - id: 1
	    name: P
	    status: in_progress
	    files_created: ["sl/key", "real"]
	---
	body
	EOM
	git session import -q maestro.md 2>err ; 
	! git rev-parse -q --verify refs/sessions/trav:files/sl/key &&
	! git grep -q SECRET $(git for-each-ref --format="%(refname)" refs/sessions) -- 2>/dev/null
'

test_expect_success 'a symbolic link is stored as git stores it: mode 120000, its target as the blob' '
	git session switch -q shapes &&
	git session file created -q link &&
	git ls-tree SESSION_HEAD files/link >entry &&
	grep "^120000 blob $(printf real | git hash-object --stdin)	files/link$" entry &&
	git session show --json >s && test "$(json_field s "d[\"files\"][\"link\"][\"mode\"]")" = 120000
'

test_expect_success 'a path that later goes through a link is taken as deleted, never followed' '
	mkdir -p sub && echo v1 >sub/f && git session file created -q sub/f &&
	mv sub ../moved-sub && ln -s ../moved-sub sub &&
	echo v2-outside >../moved-sub/f &&
	git session checkpoint -q -m again &&
	git session show --json >s && test "$(json_field s "d[\"files\"][\"sub/f\"][\"status\"]")" = deleted &&
	git session resume --dry-run --diff shapes >out &&
	! grep v2-outside out &&
	rm sub && mv ../moved-sub sub
'

test_expect_success 'a submodule path from the superproject is refused' '
	git init -q sm && (cd sm && echo a >a.txt && git add a.txt && git commit -q -m sm) &&
	test_must_fail git session file modified sm/a.txt 2>err &&
	grep "is in submodule .sm." err
'

test_expect_success 'a recorded file that became a folder, and back: checkpoints are never blocked' '
	echo x >utils && git session file created -q utils &&
	rm utils && mkdir utils && echo y >utils/a.py &&
	git session checkpoint -q -m folder utils/a.py &&
	git session checkpoint -q -m again &&
	git ls-tree -r --name-only SESSION_HEAD files/utils >names &&
	echo files/utils/a.py >expect && test_cmp expect names &&
	rm -r utils && echo z >utils &&
	git session file created -q utils &&
	git ls-tree SESSION_HEAD files/utils | grep "^100644 blob $(git hash-object utils)" &&
	mkfifo pipe 2>/dev/null && echo p >pipe.txt && git session file created -q pipe.txt &&
	rm pipe.txt && mkfifo pipe.txt && git session checkpoint -q -m fifo && rm pipe.txt &&
	git session fsck shapes >out && grep "^ok shapes" out
'

test_expect_success 'sparse checkout: a file outside the cone is kept as recorded, not deleted' '
	mkdir cone-in cone-out && echo 1 >cone-in/f && echo 2 >cone-out/g &&
	git add cone-in cone-out && git commit -q -m cone &&
	git session file modified -q cone-out/g cone-in/f &&
	git sparse-checkout set cone-in &&
	! test -e cone-out/g &&
	git session resume --dry-run --json shapes >r &&
	test "$(json_field r "[f[\"kind\"] for f in d[\"files\"] if f[\"path\"] == \"cone-out/g\"][0]")" = clean &&
	git session checkpoint -q -m sparse &&
	git session show --json >s && test "$(json_field s "d[\"files\"][\"cone-out/g\"][\"status\"]")" = modified &&
	git rev-parse SESSION_HEAD:files/cone-out/g &&
	git sparse-checkout disable
'

test_expect_success 'resume --diff of a file over 64 MiB says it differs and goes on' '
	dd if=/dev/zero of=big.bin bs=1M count=65 2>/dev/null &&
	echo small >small.txt &&
	git session file created -q big.bin small.txt &&
	printf X | dd of=big.bin bs=1 seek=1000 conv=notrunc 2>/dev/null &&
	echo changed >small.txt &&
	git session resume --dry-run --diff shapes >out &&
	grep "^Binary files a/big.bin and b/big.bin differ" out &&
	grep "^+changed" out &&
	git session resume --dry-run --json --diff shapes >r &&
	json_field r "d[\"session_id\"]" >id && echo shapes >expect && test_cmp expect id &&
	rm big.bin
'

test_expect_success 'a CCW registry does not make import read outside its folder' '
	mkdir -p ../far/WFS-far .workflow &&
	printf "{\"session_id\": \"WFS-far\", \"goal\": \"SECRET-FAR\"}\n" >../far/WFS-far/workflow-session.json &&
	printf "{\"id\": \"WFS-far\", \"status\": \"active\", \"directory\": \"%s\"}\n{\"id\": \"WFS-up\", \"status\": \"active\", \"directory\": \"../../far/WFS-far\"}\n" \
		"$(cd ../far/WFS-far && pwd)" >.workflow/session_status.jsonl &&
	git session import -q .workflow/session_status.jsonl &&
	git session show --json WFS-far >s && ! grep SECRET-FAR s &&
	git session show --json WFS-up >s && ! grep SECRET-FAR s
'

test_expect_success 'GIT_DIR and GIT_WORK_TREE from outside the tree: paths are from its top, as git takes them' '
	echo top >top.txt && repo=$(pwd) &&
	(
		cd "$TRASH_DIRECTORY" &&
		GIT_DIR="$repo/.git" GIT_WORK_TREE="$repo" git session file created -q top.txt &&
		test_must_fail env GIT_DIR="$repo/.git" GIT_WORK_TREE="$repo" git session file created ../x 2>err &&
		grep "outside the working tree" err
	) &&
	git rev-parse SESSION_HEAD:files/top.txt >got && git hash-object top.txt >expect && test_cmp expect got
'

test_expect_success 'a file is stored as git stores it: .gitattributes apply, at the top and in folders' '
	mkdir -p attr/sub &&
	printf "*.txt text\n" >.gitattributes &&
	printf "*.dat text\n" >attr/.gitattributes &&
	printf "one\r\ntwo\r\n" >attr/sub/a.txt && printf "x\r\ny\r\n" >attr/sub/b.dat &&
	printf "raw\r\n" >attr/sub/c.bin &&
	git session file created -q attr/sub/a.txt attr/sub/b.dat attr/sub/c.bin &&
	for f in a.txt b.dat c.bin
	do
		git rev-parse SESSION_HEAD:files/attr/sub/$f >got &&
		git hash-object attr/sub/$f >expect && test_cmp expect got || return 1
	done &&
	test "$(git rev-parse SESSION_HEAD:files/attr/sub/b.dat)" = "$(printf "x\ny\n" | git hash-object --stdin)" &&
	test "$(git rev-parse SESSION_HEAD:files/attr/sub/c.bin)" = "$(printf "raw\r\n" | git hash-object --stdin)" &&
	git add .gitattributes attr && git commit -q -m attributes &&
	touch -d "1 hour ago" attr/sub/a.txt attr/sub/b.dat &&
	git session resume --dry-run --json "$(git symbolic-ref SESSION_HEAD | sed "s|^refs/sessions/||")" >r &&
	test "$(json_field r "[f[\"kind\"] for f in d[\"files\"] if f[\"path\"].startswith(\"attr/\")]")" = \
		"[\"committed\", \"committed\", \"committed\"]" &&
	test "$(json_field r "d[\"manifest\"][\"hashed\"] >= 2")" = true
'

test_done
