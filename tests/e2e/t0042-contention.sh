#!/bin/sh
test_description='16 writers x 50 checkpoints on one session: 800, in a line, nothing lost'
. ./lib.sh

test_expect_success '16 processes x 50 checkpoints at once' '
	git session start crowded -q &&
	for p in $(seq 1 16)
	do
		(
			for i in $(seq 1 50)
			do
				git-session note "p$p-$i" -q || echo "FAILED p$p-$i"
			done
		) >out.$p 2>&1 &
	done &&
	wait &&
	cat out.* >all &&
	test_must_be_empty all
'

test_expect_success 'every checkpoint is there, in one line' '
	test "$(git rev-list --count SESSION_HEAD)" = 801 &&
	test "$(git rev-list --min-parents=2 SESSION_HEAD | wc -l)" = 0 &&
	session_json >s &&
	test "$(json_field s "len(d[\"notes\"])")" = 800 &&
	test "$(json_field s "len(set(n[\"text\"] for n in d[\"notes\"]))")" = 800 &&
	git fsck --strict --no-dangling 2>err && test_must_be_empty err
'

test_done
