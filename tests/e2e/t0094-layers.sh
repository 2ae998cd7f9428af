#!/bin/sh
test_description='the layer check: the folders of src/ are the layers, and a file reaching past its own fails it'
. ./lib.sh

top=$(cd "$TEST_DIRECTORY/../.." && pwd)

test_expect_success 'a copy of the tree keeps to its layers' '
	mkdir tree &&
	cp -R "$top/src" "$top/include" tree/ &&
	mkdir tree/tools && cp "$top/tools/check-layers.sh" tree/tools/ &&
	sh tree/tools/check-layers.sh >out &&
	grep "every file keeps to its layer" out
'

# plant <file> <line> <rule> [<named>]: the check fails naming the rule and
# the line (or <named>)
plant () {
	rm -rf t && cp -R tree t &&
	if test -f "t/$1"
	then
		printf "%s\n" "$2" >>"t/$1"
	else
		printf "%s\n" "$2" >"t/$1"
	fi &&
	test_must_fail sh t/tools/check-layers.sh >out &&
	grep "^check-layers: $3" out &&
	grep -F "${4:-$2}" out
}

test_expect_success 'cli: libgit2 and another folder'\''s internal header' '
	plant src/cli/cmd_status.c "#include <git2.h>" "libgit2 outside the store" &&
	plant src/cli/view.c "#include \"../store/store-internal.h\"" "src/cli/ reaching another folder"
'

test_expect_success 'engine: a command header, a libgit2 call' '
	plant src/engine/engine.c "#include \"git-session/cmd.h\"" "src/engine/ including a layer it may not" &&
	plant src/engine/sync.c "static int f(void) { return git_libgit2_init(); }" "libgit2 outside the store"
'

test_expect_success 'model: the store, I/O' '
	plant src/model/report.c "#include \"git-session/store.h\"" "src/model/ including a layer it may not" &&
	plant src/model/search.c "static void f(void) { puts(\"x\"); }" "I/O in the model"
'

test_expect_success 'format: the engine, I/O' '
	plant src/format/format.c "#include \"git-session/engine.h\"" "src/format/ including a layer it may not" &&
	plant src/format/format.c "static void f(void) { fopen(\"x\", \"r\"); }" "I/O in the model"
'

test_expect_success 'agent: the store, I/O' '
	plant src/agent/agent.c "#include \"git-session/store_worktree.h\"" "src/agent/ including a layer it may not" &&
	plant src/agent/agent.c "static int f(void) { return gs_error(\"x\"); }" "I/O in the model"
'

test_expect_success 'store: the model'\''s words' '
	plant src/store/store.c "#include \"git-session/schema.h\"" "src/store/ including a layer it may not" &&
	plant src/store/store_refs.c "#include \"git-session/state.h\"" "src/store/ including a layer it may not"
'

test_expect_success 'util: any other layer, libgit2' '
	plant src/util/util.c "#include \"git-session/json.h\"
#include \"git-session/state.h\"" "src/util/ including a layer it may not" &&
	plant src/util/json.c "#include <git2.h>" "libgit2 outside the store"
'

test_expect_success 'a public header reaching past its layer is its folder'\''s violation' '
	plant include/git-session/state.h "#include \"git-session/store.h\"" "src/model/ including a layer it may not"
'

test_expect_success 'a file outside the folders, a header with no layer' '
	plant src/loose.c "int loose;" "a file outside the layers" src/loose.c &&
	plant include/git-session/stray.h "int stray;" "a public header with no layer" stray.h
'

test_expect_success 'a new file is checked by being created in its folder' '
	plant src/model/fresh.c "#include \"git-session/engine.h\"" "src/model/ including a layer it may not"
'

test_expect_success 'the README draws the architecture from the tree itself' '
	sh "$top/tools/layout.sh" >expect &&
	sed -n "/^<!-- layout: tools\/layout.sh -->/,/^<!-- end layout -->/p" "$top/README.md" |
		sed "1,2d;\$d" | sed "\$d" >actual &&
	test_cmp expect actual &&
	for f in "$top"/src/*/*.c
	do
		grep -q "^    ${f##*/} " expect || { echo "not drawn: $f"; return 1; }
	done
'

test_done
