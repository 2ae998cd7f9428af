#!/bin/sh
# check-layers.sh - fails when a file reaches past its layer. The folders of
# src/ are the layers (README.md, "Layout"); a file's layer is its folder:
#
#   folder   may include (public headers)          and also
#   cli      every layer                           nothing internal
#   engine   model format agent store util
#   model    model format agent util               no I/O
#   format   model format agent util               no I/O
#   agent    model format agent util               no I/O
#   store    store util                            libgit2: it alone
#   util     util                                  no I/O but files
#
# A public header include/git-session/X.h belongs to the folder holding X.c
# or X_*.c; ops.h and schema.h are the model's vocabulary. A *-internal.h
# is reachable only from its own folder.
cd "$(dirname "$0")/.." || exit 1
status=0
LAYERS="cli engine model format agent store util"

# say <rule> <grep -Hn output>: prints the offending lines, once
say () {
	test -z "$2" && return
	echo "check-layers: $1:"
	echo "$2" | sed 's/^/    /'
	status=1
}

allowed () {
	case $1 in
	cli) echo "$LAYERS" ;;
	engine) echo "engine model format agent store util" ;;
	model|format|agent) echo "model format agent util" ;;
	store) echo "store util" ;;
	util) echo "util" ;;
	esac
}

# header_layer <name.h>: the folder of its source, or "none"
header_layer () {
	case $1 in ops.h|schema.h) echo model; return ;; esac
	stem=${1%.h}
	for pattern in "$stem.c" "${stem}_*.c"; do	# its own source first, then its family
		for l in $LAYERS; do
			for f in src/$l/$pattern; do
				test -f "$f" && { echo $l; return; }
			done
		done
	done
	echo none
}

# every folder of src/ is a layer, every source file is in one
say "a file outside the layers' folders" \
	"$(find src -name '*.[ch]' | grep -vE "^src/($(echo $LAYERS | tr ' ' '|'))/[^/]*$")"

for h in include/git-session/*.h; do
	h=${h##*/}
	l=$(header_layer "$h")
	test "$l" = none && { say "a public header with no layer (no src/*/${h%.h}.c)" "$h"; continue; }
	eval "layer_of_${h%.h}=$l"
done

for l in $LAYERS; do
	files=$(ls src/$l/*.c src/$l/*.h 2>/dev/null)
	for h in include/git-session/*.h; do
		test "$(header_layer "${h##*/}")" = $l && files="$files $h"
	done
	ok=" $(allowed $l) "
	bad=$(grep -HnE '#include "git-session/[a-z_]+\.h"' $files |
		while IFS= read -r line; do
			h=$(echo "$line" | sed 's/.*git-session\/\([a-z_]*\)\.h.*/\1/')
			eval "hl=\${layer_of_$h:-none}"
			case "$ok" in *" $hl "*) ;; *) echo "$line ($h.h is $hl)" ;; esac
		done)
	say "src/$l/ including a layer it may not" "$bad"
	bad=$(grep -HnE '#include *"[^"]*-internal\.h"' $files |
		while IFS= read -r line; do
			h=$(echo "$line" | sed 's/.*#include *"\([^"]*\)".*/\1/')
			case $h in */*) echo "$line" ;; *) test -f "src/$l/$h" || echo "$line" ;; esac
		done)
	say "src/$l/ reaching another folder's internal header" "$bad"
	test $l = store && continue
	say "libgit2 outside the store (src/$l/)" \
		"$(grep -HnE '#include *[<"]git2|\bgit_[a-z0-9_]+ *\(' $files |
		   grep -vE '\bgit_hooks\b')"
done

pure=$(ls src/model/*.[ch] src/format/*.[ch] src/agent/*.[ch])
say "I/O in the model, a format or an agent" \
	"$(grep -HnE '\b(printf|fprintf|fputs|puts|fopen|open|read|write|getenv|access|mkdir|unlink|rename|gs_error|gs_warning|gs_hint)\(' $pure |
	   grep -vE 'snprintf|json_print|yaml_emit')"
say "a command touching the git directory's files" \
	"$(grep -HnE '\bstore_(commondir|gitdir)\(' src/cli/*.c)"

test $status = 0 && echo "check-layers: every file keeps to its layer"
exit $status
