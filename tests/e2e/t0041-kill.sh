#!/bin/sh
test_description='a writer killed at any instant leaves the old or the new checkpoint, never anything else'
. ./lib.sh

id=2025-11-21-killed
delays=$(python3 -c 'import random; random.seed(7); print(" ".join("%.4f" % random.uniform(0, 0.04) for _ in range(300)))')

test_expect_success 'setup' '
	git session start killed -q &&
	git session note "before" -q
'

test_expect_success '300 checkpoints, each killed with SIGKILL at a random moment' '
	git config session.staleLockAge 0 &&	# only dead writers here: recover at once
	n=0 &&
	for d in $delays
	do
		git-session note "n$n" -q 2>/dev/null &
		pid=$! &&
		sleep $d &&
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		git cat-file -e "refs/sessions/$id:session.json" || return 1
		n=$((n + 1))
	done &&
	git config --unset session.staleLockAge
'

test_expect_success 'git fsck --full finds nothing wrong but dangling objects' '
	git fsck --full 2>err >out &&
	! grep -v "^dangling" err &&
	! grep -v "^dangling" out
'

test_expect_success 'git session fsck agrees, the session loads, every kept note is whole' '
	git session fsck >out &&
	grep "^ok $id" out &&
	git session show --json >s &&
	python3 -c "
import json, sys
notes = json.load(open(\"s\"))[\"notes\"]
texts = [n[\"text\"] for n in notes]
assert texts[0] == \"before\", texts[:2]
assert all(t == \"before\" or t.startswith(\"n\") for t in texts), texts
assert len(texts) == len(set(texts)), \"a note was applied twice\"
print(len(texts) - 1, \"notes survived their writer\")
"
'

test_expect_success 'the next checkpoint succeeds with no manual cleanup (default settings)' '
	git session note "after the massacre" >out &&
	grep "note: \"after the massacre\"" out &&
	git session fsck >out && grep "^ok $id" out
'

test_expect_success 'SIGTERM and SIGINT during writes never leave a lock behind' '
	for sig in TERM INT
	do
		for d in $(echo $delays | cut -d" " -f1-60)
		do
			git-session note "t" -q 2>/dev/null &
			pid=$! &&
			sleep $d &&
			kill -$sig $pid 2>/dev/null
			wait $pid 2>/dev/null
			! ls .git/refs/sessions/*.lock .git/logs/refs/sessions/*.lock 2>/dev/null || return 1
		done
	done &&
	git session fsck
'

test_done
