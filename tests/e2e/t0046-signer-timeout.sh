#!/bin/sh
test_description='a signing program that never returns: every way in is bounded by session.signTimeout'
. ./lib.sh

init='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
# field <file> <line> <python expression on d>: one field of one answer
field () { python3 -c 'import json, sys
d = json.loads(open(sys.argv[1]).read().splitlines()[int(sys.argv[2]) - 1]); v = eval(sys.argv[3])
v = v if isinstance(v, str) else json.dumps(v)
sys.stdout.write(v if v.endswith("\n") else v + "\n")' "$@"; }
# bounded <command...>: runs it under an outer limit that must never be what stops it
bounded () { timeout 30 "$@"; rc=$?; test $rc != 124 || { echo >&2 "not bounded: $*"; return 1; }; return $rc; }
# the signer of the last run is gone (killed with its process group), not left behind
signer_gone () {
	pid=$(cat ../signer.pid) && rm -f ../signer.pid &&
	state=$(ps -o stat= -p "$pid") ; case "$state" in ""|Z*) return 0 ;; esac
	echo >&2 "signer $pid still running ($state)"; return 1
}

test_expect_success 'setup: a signer that never returns, and signing on' '
	top=$(cd .. && pwd) &&
	printf "#!/bin/sh\necho \$\$ >\"%s/signer.pid\"\nexec sleep 100000\n" "$top" >../hang &&
	chmod +x ../hang &&
	git commit -q --allow-empty -m init &&
	git session start "work" --id w -q &&
	git config gpg.program "$top/hang" &&
	git config user.signingKey nobody &&
	git config session.sign true &&
	git config session.signTimeout 1
'

test_expect_success 'note: a clear error at the limit, the signer killed, nothing written unsigned' '
	git rev-parse refs/sessions/w >before &&
	test_expect_code 1 bounded git session note "never signed" 2>err &&
	grep "^error: signing the checkpoint timed out after 1 s (session.signTimeout)" err &&
	grep "^hint: .*session.signTimeout" err &&
	signer_gone &&
	git rev-parse refs/sessions/w >after && test_cmp before after &&
	git session show --json >s && ! grep "never signed" s
'

test_expect_success 'SIGTERM while the signer runs: the signer goes too, nothing written' '
	git rev-parse refs/sessions/w >before &&
	git config session.signTimeout 60 &&
	{ git-session note "interrupted" 2>err & } &&
	pid=$! && n=0 &&
	while ! test -s ../signer.pid && test $n -lt 300; do n=$((n + 1)); sleep 0.1; done &&
	test -s ../signer.pid &&
	kill -TERM $pid && { wait $pid; test $? = 143; } &&
	git config session.signTimeout 1 &&
	signer_gone &&
	git rev-parse refs/sessions/w >after && test_cmp before after
'

test_expect_success 'the limit is session.signTimeout; a bad one is an error, before any signer runs' '
	test_expect_code 1 bounded git -c session.signTimeout=-3 session note "bad limit" 2>err &&
	grep "^error: bad session.signTimeout" err &&
	! test -f ../signer.pid
'

test_expect_success 'git commit with the hooks: the commit is made, a warning says the checkpoint was not' '
	git session hooks install >/dev/null &&
	git rev-parse refs/sessions/w >before &&
	echo a >a.c && git add a.c &&
	bounded git commit -q -m "made anyway" 2>err &&
	test "$(git log -1 --format=%s HEAD)" = "made anyway" &&
	grep "^warning: the post-commit hook'"'"'s checkpoint was not written: signing it timed out; git goes on" err &&
	grep "^hint: to record this commit, run '"'"'git session hook post-commit'"'"'" err &&
	signer_gone &&
	git rev-parse refs/sessions/w >after && test_cmp before after &&
	test "$(git log --format=%G? refs/sessions/w | sort -u)" = N
'

test_expect_success 'with session.strictHooks the hook itself fails, still bounded' '
	test_expect_code 1 bounded git -c session.strictHooks=true session hook post-commit 2>err &&
	grep "^error: signing the checkpoint timed out" err &&
	! grep "^warning" err &&
	signer_gone &&
	git session hooks uninstall >/dev/null
'

test_expect_success 'an agent hook: the agent goes on at the limit, with the reason' '
	git rev-parse refs/sessions/w >before &&
	echo "{\"session_id\":\"s1\",\"prompt\":\"hello\"}" >payload &&
	bounded git session hook claude-code UserPromptSubmit <payload >out 2>err &&
	grep "^warning: git-session could not record the claude-code UserPromptSubmit hook: .*signing the checkpoint timed out" err &&
	signer_gone &&
	git rev-parse refs/sessions/w >after && test_cmp before after
'

test_expect_success 'an agent hook, with no limit configured, stays within the agent'"'"'s own 10 s' '
	echo "{\"session_id\":\"s1\",\"prompt\":\"again\"}" >payload &&
	git config --unset session.signTimeout &&
	bounded git session hook claude-code UserPromptSubmit <payload 2>err &&
	git config session.signTimeout 1 &&
	grep "signing the checkpoint timed out after 5 s" err &&
	signer_gone
'

test_expect_success 'the MCP server: the call fails at the limit and a ping after it is answered' '
	git rev-parse refs/sessions/w >before &&
	printf "%s\n" "$init" \
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"note_add\",\"arguments\":{\"text\":\"over mcp\"}}}" \
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}" >in &&
	bounded git session mcp <in >out &&
	test_line_count = 3 out &&
	test "$(field out 2 "(d[\"id\"], d[\"result\"][\"isError\"])")" = "[1, true]" &&
	field out 2 "d[\"result\"][\"content\"][0][\"text\"]" | grep "signing the checkpoint timed out" &&
	test "$(field out 3 "(d[\"id\"], d[\"result\"])")" = "[2, {}]" &&
	signer_gone &&
	git rev-parse refs/sessions/w >after && test_cmp before after
'

test_expect_success SSH-KEYGEN 'a slow signer that answers within the limit signs' '
	top=$(cd .. && pwd) &&
	ssh-keygen -q -t ed25519 -N "" -C test -f ../key &&
	printf "#!/bin/sh\nsleep 1\nexec ssh-keygen \"\$@\"\n" >../slow && chmod +x ../slow &&
	git config gpg.format ssh &&
	git config gpg.ssh.program "$top/slow" &&
	git config user.signingKey "$top/key.pub" &&
	git config session.signTimeout 20 &&
	bounded git session note "signed slowly" &&
	git cat-file commit refs/sessions/w >c && grep "^gpgsig -----BEGIN SSH SIGNATURE-----" c &&
	git session show --json >s && grep "signed slowly" s
'

test_expect_success SSH-KEYGEN 'the same signer past a shorter limit: nothing written' '
	git rev-parse refs/sessions/w >before &&
	test_expect_code 1 bounded git -c session.signTimeout=1 -c gpg.ssh.program="$(cd .. && pwd)/hang" \
		session note "too slow" 2>err &&
	grep "^error: signing the checkpoint timed out after 1 s" err &&
	signer_gone &&
	git rev-parse refs/sessions/w >after && test_cmp before after
'

test_done
