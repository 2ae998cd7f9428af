#!/bin/sh
# embed-hooks.sh - writes a C file holding the hook scripts of hooks/, so
# that an installed git-session needs no other file.
#   sh tools/embed-hooks.sh hooks/* >hook_scripts.c
echo '/* Generated from hooks/ by tools/embed-hooks.sh: do not edit. */'
echo '#include "git-session/hook_install.h"'
echo
echo 'const struct hook_script hooks_scripts[] = {'
for f in "$@"
do
	printf '\t{ "%s",\n' "$(basename "$f")"
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t  "/' -e 's/$/\\n"/' "$f"
	printf '\t},\n'
done
echo '	{ NULL, NULL },'
echo '};'
