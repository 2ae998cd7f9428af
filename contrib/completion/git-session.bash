# bash completion for git-session, used by git's own completion as
# `git session <TAB>`. Install as .../bash-completion/completions/git-session
# (make install does) or source it after git's completion.

__git_session_commands="start status show list log switch pause resume close archive unarchive checkpoint note summary set get phase agent file error tokens decide task milestone artifact diff hooks fsck rollback"

__git_session_ids ()
{
	git for-each-ref --format='%(refname:strip=2)' refs/sessions 2>/dev/null
}

_git_session ()
{
	local subcommand cur
	cur="${COMP_WORDS[COMP_CWORD]}"
	subcommand="$(__git_find_on_cmdline "$__git_session_commands" 2>/dev/null)"
	if [ -z "$subcommand" ]; then
		__gitcomp "$__git_session_commands" 2>/dev/null ||
			COMPREPLY=($(compgen -W "$__git_session_commands" -- "$cur"))
		return
	fi
	case "$subcommand,$cur" in
	hooks,--*) __gitcomp "--force --pre-commit" ;;
	hooks,*) __gitcomp "install uninstall status" 2>/dev/null ||
			COMPREPLY=($(compgen -W "install uninstall status" -- "$cur")) ;;
	start,--*) __gitcomp "--id= --goal= --plan= --phase= --budget= --mode= --pause-current --quiet" ;;
	show,--*|status,--*|list,--*) __gitcomp "--json --yaml --all" ;;
	checkpoint,*) __git_complete_file 2>/dev/null || COMPREPLY=($(compgen -f -- "$cur")) ;;
	switch,*|status,*|resume,*|archive,*|unarchive,*|show,*|log,*)
		__gitcomp_nl "$(__git_session_ids)" 2>/dev/null ||
			COMPREPLY=($(compgen -W "$(__git_session_ids)" -- "$cur")) ;;
	esac
}
