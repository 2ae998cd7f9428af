#!/bin/sh
# run.sh - runs every end-to-end test script, two at a time, and prints
# the totals as "N passed, N failed".
cd "$(dirname "$0")" || exit 1
: "${GIT_SESSION_BIN:?GIT_SESSION_BIN must name the directory holding git-session}"
TEST_OUTPUT_DIRECTORY=${TEST_OUTPUT_DIRECTORY:-${TMPDIR:-/tmp}/git-session-tests.$(id -u).$$}
export GIT_SESSION_BIN TEST_OUTPUT_DIRECTORY
rm -rf "$TEST_OUTPUT_DIRECTORY"
mkdir -p "$TEST_OUTPUT_DIRECTORY"

scripts=${*:-$(ls t[0-9]*.sh)}
# the sanitizers' pass does not run again what checks only the docs and the tree
if test -n "${GIT_SESSION_SANITIZED:-}" && test $# = 0
then
	scripts=$(printf '%s\n' $scripts | grep -v -x -F -f plain-only)
	echo "e2e: under the sanitizers, not again:" $(cat plain-only)
fi
# the slowest first, so that two at a time end together (tests/e2e/slow lists them)
first=$(for s in $(cat slow 2>/dev/null); do case " $scripts " in *" $s "*) echo "$s" ;; esac; done)
scripts=$(printf '%s\n' $first $scripts | awk '!seen[$0]++')
printf '%s\n' $scripts | xargs -P "${TEST_JOBS:-2}" -I{} sh -c \
	'start=$(date +%s); sh "$1" >"$TEST_OUTPUT_DIRECTORY/log.$1" 2>&1; cat "$TEST_OUTPUT_DIRECTORY/log.$1"
	 echo "$(($(date +%s) - start)) $1" >>"$TEST_OUTPUT_DIRECTORY/seconds"' _ {}

passed=0 failed=0 skipped=0 missing=
for s in $scripts
do
	name=${s%.sh}
	if test -f "$TEST_OUTPUT_DIRECTORY/result.$name"
	then
		read -r n f k <"$TEST_OUTPUT_DIRECTORY/result.$name"
		passed=$((passed + n - f)) failed=$((failed + f)) skipped=$((skipped + k))
	else
		missing="$missing $name"
		failed=$((failed + 1))
	fi
done
test -n "$missing" && echo "scripts that did not finish:$missing"
echo "e2e: $passed passed, $failed failed, $skipped skipped; the slowest scripts (s):" \
	$(sort -rn "$TEST_OUTPUT_DIRECTORY/seconds" | head -n 5 | tr ' ' ':')
test $failed = 0 && rm -rf "$TEST_OUTPUT_DIRECTORY"
test $failed = 0
