#!/bin/sh
test_description='every real session file of ../shared/real-sessions through the cycle: import, its phases, an export equal to it, work on it and an export that still holds it, upstream reads what we write'
. ./lib.sh

# the files their users committed, beside the checkout or in $GS_REAL_SESSIONS_DIR
# (never copied here: ../shared/real-sessions/README.md); upstream's readers beside
# them, as t0071 finds them (tests/upstream/README.md)
REAL="${GS_REAL_SESSIONS_DIR:-$TEST_DIRECTORY/../../../shared/real-sessions}"
GS_UPSTREAM_DIR="${GS_UPSTREAM_DIR:-$TEST_DIRECTORY/../../../shared/upstream}"
export GS_UPSTREAM_DIR

if ! test -d "$REAL/first" && ! test -d "$REAL/second"
then
	say "# skipped: no real session files in $REAL (CI has ../shared beside the checkout)"
	test_done
fi

# one test per case folder (<collection>/<format>/<case>), named by it;
# real_cycle.py says which step failed and how
for case in "$REAL"/first/*/*/ "$REAL"/second/*/*/
do
	test -d "$case" || continue
	case=${case%/}
	name=${case#"$REAL"/}
	test_expect_success "$name" '
		python3 "$TEST_DIRECTORY/real_cycle.py" "$case"
	'
done

test_done
