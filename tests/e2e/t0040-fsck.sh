#!/bin/sh
test_description='fsck, repair and rollback: damaged checkpoints are found, and nothing is lost'
. ./lib.sh

id=2025-11-21-fragile

# object_file <oid>: the loose object's file
object_file () { echo ".git/objects/$(echo $1 | cut -c1-2)/$(echo $1 | cut -c3-)"; }
flip () { chmod u+w "$1" && python3 -c '
import sys; p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[len(b) // 2] ^= 0x55; open(p, "wb").write(b)' "$1"; }
truncate_half () { chmod u+w "$1" && python3 -c '
import sys, os; p = sys.argv[1]; os.truncate(p, os.path.getsize(p) // 2)' "$1"; }

# the object of the tip to damage: commit, tree or session.json
tip_object () {
	case "$1" in
	commit) git rev-parse SESSION_HEAD ;;
	tree) git rev-parse SESSION_HEAD^{tree} ;;
	blob) git rev-parse SESSION_HEAD:session.json ;;
	esac
}

test_expect_success 'setup: a session with a few checkpoints' '
	git session start fragile -q &&
	git session note "one" -q && git session note "two" -q &&
	git session fsck >out &&
	grep "^ok $id: 3 checkpoints" out
'

for what in commit tree blob
do
	for how in flip truncate_half
	do
		test_expect_success "$how the tip's $what: fsck finds it, --repair recovers" '
			test_tick && git session note "doomed" -q &&
			good=$(git rev-parse SESSION_HEAD~1) &&
			bad=$(git rev-parse SESSION_HEAD) &&
			obj=$(tip_object '"$what"') &&
			'"$how"' "$(object_file $obj)" &&
			test_expect_code 1 git session fsck 2>err &&
			grep "^error: $id: checkpoint $(echo $bad | cut -c1-12) (the tip) is damaged" err &&
			grep "the last good checkpoint is $(echo $good | cut -c1-12)" err &&
			test_expect_code 1 git session show 2>err &&
			grep "fsck --repair" err &&
			test_expect_code 1 git session note "on damage" 2>err &&
			grep "fsck --repair" err &&
			git session fsck --repair >out &&
			grep "^repaired $id: back at $(echo $good | cut -c1-7)" out &&
			test "$(git rev-parse SESSION_HEAD^)" = "$good" &&
			git log -1 --format=%s SESSION_HEAD | grep "^rollback to $(echo $good | cut -c1-7): checkpoint $(echo $bad | cut -c1-7) was damaged" &&
			git show SESSION_HEAD:session.json >now &&
			git show $good:session.json >then &&
			test "$(json_field now "[n[\"text\"] for n in d[\"notes\"]]")" = "$(json_field then "[n[\"text\"] for n in d[\"notes\"]]")" &&
			git session note "after repair" -q &&
			git session fsck >out && grep "^ok $id" out &&
			git fsck --full 2>err && ! grep -v "^dangling" err &&
			ls .git/session-quarantine/*/objects/*/* >q &&
			grep "$(echo $obj | cut -c3-)" q
		'
	done
done

test_expect_success 'an object whose content is another object'"'"'s: fsck checks the hash' '
	test_tick && git session note "swapped" -q &&
	bad=$(git rev-parse SESSION_HEAD) &&
	blob=$(git rev-parse SESSION_HEAD:session.json) &&
	other=$(git rev-parse SESSION_HEAD:op.json) &&
	chmod u+w "$(object_file $blob)" &&
	cp "$(object_file $other)" "$(object_file $blob)" &&
	test_expect_code 1 git session fsck 2>err &&
	grep "^error: $id: checkpoint $(echo $bad | cut -c1-12) (the tip) is damaged: session.json $(echo $blob | cut -c1-12) cannot be read: object hash mismatch" err &&
	git session fsck --repair >out &&
	grep "^repaired $id" out &&
	git session fsck >out && grep "^ok $id" out
'

test_expect_success 'an empty or garbage ref file is recovered from the reflog' '
	tip=$(git rev-parse SESSION_HEAD) &&
	: >.git/refs/sessions/$id &&
	test_expect_code 1 git session note x 2>err &&
	grep "^error: the ref of session .$id. is damaged" err &&
	grep "fsck --repair $id" err &&
	test_expect_code 1 git session fsck 2>err &&
	grep "the ref file is damaged; its reflog says the tip is $(echo $tip | cut -c1-12)" err &&
	git session fsck --repair >out &&
	test "$(git rev-parse SESSION_HEAD^)" = "$tip" &&
	echo "not a ref at all" >.git/refs/sessions/$id &&
	git session fsck --repair >out &&
	grep "^repaired" out &&
	git session note "recovered" -q &&
	git fsck --full 2>err && ! grep -v "^dangling" err
'

test_expect_success 'rollback --to a named checkpoint keeps the history' '
	before=$(git rev-list --count SESSION_HEAD) &&
	target=$(git rev-parse SESSION_HEAD~2) &&
	git session rollback --to SESSION_HEAD~2 >out &&
	grep "rollback to $(echo $target | cut -c1-7)" out &&
	test "$(git rev-list --count SESSION_HEAD)" = $((before + 1)) &&
	git show SESSION_HEAD:session.json >now && git show $target:session.json >then &&
	test "$(json_field now "d[\"notes\"]")" = "$(json_field then "d[\"notes\"]")" &&
	test_expect_code 1 git session rollback 2>err &&
	grep "is not damaged; name a checkpoint with --to" err &&
	git session start other -q --pause-current &&
	test_expect_code 1 git session rollback $id --to refs/sessions/2025-11-21-other 2>err &&
	grep "is a checkpoint of another session" err
'

test_expect_success 'fsck --all checks every session, archived too' '
	git session close -q && git session archive 2025-11-21-other -q &&
	git session fsck --all >out &&
	grep "^ok $id" out && grep "^ok 2025-11-21-other" out
'

test_expect_success 'repair uses the reflog whatever the ref was set to, and never moves a sound object aside' '
	git init -q ../rep && (
		cd ../rep && echo data >f && git add f && git commit -q -m i &&
		git session start c --id cs -q && git session note -q n1 && git session note -q n2 &&
		git session start o --id o1 --pause-current -q && git session pause -q && git session resume -q cs &&
		for bad in 1234567890123456789012345678901234567890 $(git rev-parse HEAD) $(git rev-parse HEAD:f) \
			$(git rev-parse HEAD^{tree}) $(git rev-parse refs/sessions/o1)
		do
			echo $bad >.git/refs/sessions/cs &&
			test_expect_code 1 git session fsck cs 2>err &&
			grep "^error: cs: checkpoint $(echo $bad | cut -c1-12) (the tip) is damaged" err &&
			git session fsck --repair cs >out 2>err &&
			grep "^repaired cs" out && ! grep "in a pack" err &&
			git session show --json cs >s &&
			test "$(json_field s "[n[\"text\"] for n in d[\"notes\"]]")" = "[\"n1\", \"n2\"]" || return 1
		done &&
		git cat-file -e HEAD && git cat-file -e HEAD:f && git cat-file -e refs/sessions/o1 &&
		git session fsck --all >out && grep "^ok cs" out && grep "^ok o1" out &&
		git fsck --strict 2>err && ! grep -v "^dangling" err
	)
'

test_expect_success 'a ref pointed at another session is damage: not shown, not written on' '
	(
		cd ../rep && git rev-parse refs/sessions/o1 >.git/refs/sessions/cs &&
		test_expect_code 1 git session status cs 2>err &&
		grep "^error: the ref of session .cs. points at .*, a checkpoint of session .o1." err &&
		test_expect_code 1 git session note "written to cs" 2>err &&
		grep "a checkpoint of session .o1." err &&
		test "$(git rev-parse refs/sessions/cs)" = "$(git rev-parse refs/sessions/o1)" &&
		git session fsck --repair cs >/dev/null 2>&1 && git session note -q "back" &&
		git show refs/sessions/cs:session.json | grep "\"session_id\": \"cs\""
	)
'

test_expect_success 'damage below the last good checkpoint is named' '
	(
		cd ../rep && git session note -q n3 && git session note -q n4 &&
		mid=$(git rev-parse refs/sessions/cs~2) &&
		obj=$(echo ".git/objects/$(echo $mid | cut -c1-2)/$(echo $mid | cut -c3-)") &&
		cp $obj ../mid.bak && chmod u+w $obj && echo garbage >$obj &&
		test_expect_code 1 git session fsck cs 2>err &&
		grep "^error: cs: checkpoint $(echo $mid | cut -c1-12), below the last good one, is damaged" err &&
		cp ../mid.bak $obj && git session fsck cs >out && grep "^ok cs" out
	)
'

test_done
