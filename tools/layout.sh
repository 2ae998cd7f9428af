#!/bin/sh
# layout.sh - the tree of src/ as README.md's "Layout" shows it: a line for
# each layer's folder, then each file with the first sentence of its header
# comment. t0094 checks the README against this, so the picture of the
# architecture is the tree itself. `--update` (make layout) writes it there.
cd "$(dirname "$0")/.." || exit 1

if test "${1:-}" = --update; then
	sh "$0" >README.tree || exit 1
	awk '/^<!-- layout: tools\/layout.sh -->$/ { print; print "```"; while ((getline l < "README.tree") > 0) print l; skip = 1; next }
	     skip && /^<!-- end layout -->$/ { print "```"; skip = 0 }
	     !skip' README.md >README.new && mv README.new README.md
	status=$?
	rm -f README.tree
	exit $status
fi

role () {
	case $1 in
	cli) echo "commands: arguments in, output and exit code out; may use every layer" ;;
	engine) echo "read, apply, write, compare-and-swap; merge; check and repair: model and store" ;;
	model) echo "the session document, its operations and reports: pure C, no I/O" ;;
	format) echo "other tools' session files, one file per format: pure" ;;
	agent) echo "the agents' hook dialects, one file per agent: pure" ;;
	store) echo "git objects, refs and the working tree: the only code that calls libgit2" ;;
	util) echo "allocation, messages, JSON, YAML: libc and the parsers only" ;;
	esac
}

# the first sentence of a file's header comment, after "<name> - ", or its
# first clause when the sentence is longer than two lines
about () {
	sed -n '2,/\*\//p' "$1" | sed 's/^ *\*\/\{0,1\} \{0,1\}//' | tr '\n' ' ' |
		sed "s/^[^ ]* - //; s/\([.]\) .*/\1/; s/  */ /g; s/ *$//" |
		awk '{ while (length($0) > 144 && match($0, /[;,:] [^;,:]*$/)) $0 = substr($0, 1, RSTART - 1); print }'
}

echo "src/"
for l in cli engine model format agent store util; do
	printf '  %-8s %s\n' "$l/" "$(role $l)"
	for f in src/$l/*.c src/$l/*.h; do
		test -f "$f" || continue
		about "$f" | fold -s -w 74 | sed 's/ *$//' | sed "1s|^|$(printf '    %-22s' "${f##*/}")|; 2,\$s|^|                          |"
	done
done
