#!/bin/sh
test_description='concurrent writers lose nothing'
. ./lib.sh

test_expect_success '8 processes x 25 notes on one session' '
	git session start "busy" -q &&
	for p in 1 2 3 4 5 6 7 8
	do
		(
			for i in $(seq 1 25)
			do
				git session note -q "p$p-n$i" || echo "FAILED p$p-n$i"
			done
		) >out.$p 2>err.$p &
	done &&
	wait &&
	cat out.* err.* >all &&
	test_must_be_empty all &&
	session_json >s &&
	test "$(json_field s "len(d[\"notes\"])")" = 200 &&
	test "$(json_field s "len(set(n[\"text\"] for n in d[\"notes\"]))")" = 200 &&
	for p in 1 2 3 4 5 6 7 8
	do
		test "$(json_field s "[n[\"text\"] for n in d[\"notes\"] if n[\"text\"].startswith(\"p$p-\")]")" = \
			"$(python3 -c "import json; print(json.dumps([\"p$p-n%d\" % i for i in range(1, 26)]))")" || return 1
	done
'

test_expect_success 'the chain is linear: 201 commits, one parent each' '
	test "$(git rev-list --count SESSION_HEAD)" = 201 &&
	test "$(git rev-list --min-parents=2 SESSION_HEAD | wc -l)" = 0 &&
	git reflog refs/sessions/2025-11-21-busy >log &&
	test_line_count = 201 log
'

test_expect_success 'git fsck is clean' '
	git fsck --strict --no-dangling 2>err &&
	test_must_be_empty err
'

test_expect_success 'a held ref lock: bounded retry, then a clear error, ref unchanged' '
	old=$(git rev-parse SESSION_HEAD) &&
	git config session.lockTimeout 300 &&
	mkfifo ctl &&
	{
		{ echo start; echo "update refs/sessions/2025-11-21-busy $old $old"; echo prepare; cat ctl; } |
		git update-ref --stdin >locked &
	} &&
	locker=$! &&
	n=0 &&
	while ! grep -q "^prepare: ok" locked && test $n -lt 1000
	do
		sleep 0.01; n=$((n + 1))
	done &&
	test -f .git/refs/sessions/2025-11-21-busy.lock &&
	test_expect_code 1 git session note "blocked" 2>err &&
	grep "^error: cannot update .refs/sessions/2025-11-21-busy.: other writers kept it busy for 300 ms" err &&
	echo abort >ctl &&
	wait $locker &&
	grep "^abort: ok" locked &&
	! test -f .git/refs/sessions/2025-11-21-busy.lock &&
	test "$(git rev-parse SESSION_HEAD)" = "$old" &&
	git session note "after the lock" &&
	test "$(git rev-list --count SESSION_HEAD)" = 202
'

test_done
