#!/bin/sh
# check-layers.sh - fails when a file reaches past its layer (README.md,
# "Layout"): commands -> engine -> model and store -> libraries.
#   store    src/store*.c: the only code that includes git2.h or
#            store-internal.h and calls libgit2 (git_*)
#   model    src/state*.c, format*.c, report*.c, json.c, yaml.c,
#            trailer.c, list_cache.c, mcp.c, mcp_tools.c, redact.c, agent.c, search.c: pure C, no I/O,
#            no store, engine or commands
#   engine   engine.c, sync.c, fsck.c: the model and the store, no libgit2
#   commands cmd_*.c: no file of the git directory but through the store
cd "$(dirname "$0")/.." || exit 1
status=0

# say <rule> <grep -n output>: prints the offending lines, once
say () {
	test -z "$2" && return
	echo "check-layers: $1:"
	echo "$2" | sed 's/^/    /'
	status=1
}

store=$(ls src/store*.c)
notstore=$(ls src/*.c src/*.h | grep -v '^src/store')
model=$(ls src/state*.c src/format*.c src/report*.c src/json.c src/yaml.c src/trailer.c \
	src/list_cache.c src/mcp.c src/mcp_tools.c src/redact.c src/agent.c src/search.c)
engine="src/engine.c src/sync.c src/fsck.c"
commands=$(ls src/cmd_*.c)

say "libgit2 outside the store" \
	"$(grep -nE '#include *[<"]git2|store-internal\.h|\bgit_[a-z0-9_]+ *\(' $notstore |
	   grep -vE 'store_worktree_git_rc|\bgit_hooks\b')"
say "I/O in the model" \
	"$(grep -nE '\b(printf|fprintf|fputs|puts|fopen|open|read|write|getenv|access|mkdir|unlink|rename|gs_error|gs_warning|gs_hint)\(' $model |
	   grep -vE 'snprintf|json_print|yaml_emit')"
say "the model including another layer" \
	"$(grep -nE '#include "git-session/(store|store_worktree|engine|cmd|sync|fsck|pager|hooks)\.h"' $model)"
say "the engine calling libgit2" \
	"$(grep -nE '#include *[<"]git2|store-internal\.h' $engine)"
say "a command touching the git directory's files" \
	"$(grep -nE '\bstore_(commondir|gitdir)\(' $commands | grep -v 'src/cmd_common.c:.*store_workdir')"
say "a command including libgit2 or store internals" \
	"$(grep -nE '#include *[<"]git2|store-internal\.h' $commands src/dispatch.c src/main.c src/view*.c)"

test $status = 0 && echo "check-layers: every file keeps to its layer"
exit $status
