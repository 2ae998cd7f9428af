# bash completion for git-session, used by git's own completion as
# `git session <TAB>`. Install as .../bash-completion/completions/git-session
# (make install does) or source it after git's completion.
#
# Options come from each command's own `-h`, so they never fall behind;
# session ids, phase numbers, agent ids and format names from
# `git session __complete`; the agents whose hooks `hooks --agent`
# installs from its usage.

__git_session_commands="start status show list log switch pause resume close reopen archive unarchive checkpoint note summary set get phase agent file error tokens decide task milestone artifact diff timeline push pull import export hooks transcript html grep gc restore blame fsck rollback mcp help"

__git_session_reply ()
{
	local words="$1" cur="$2"
	__gitcomp "$words" "" "$cur" 2>/dev/null ||
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
}

__git_session_reply_nl ()
{
	local words="$1" cur="$2"
	__gitcomp_nl "$words" "" "$cur" 2>/dev/null ||
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
}

# the long options of one command, "--opt=" when it takes a value
__git_session_options ()
{
	local var="__git_session_opts_$1"
	if [ -z "${!var}" ]; then
		printf -v "$var" '%s' "$(git session "$1" -h 2>&1 |
			sed -n 's/^ *\(-[a-zA-Z], \)\{0,1\}\(--[a-z][a-z-]*\)\( <\)\{0,1\}.*/\2\3/p' |
			sed 's/ <$/=/' | sort -u | tr '\n' ' ')"
	fi
	echo "${!var}"
}

# --agent's words: for hooks, the agents whose own hooks it installs, as
# its usage names them; for the rest, the agent ids of the session
__git_session_agents ()
{
	if [ "$1" = hooks ]; then
		git session hooks -h 2>&1 | sed -n 's/.* --agent <\(.*\)>$/\1/p' | tr -d ' ' | tr '|' '\n'
	else
		git session __complete agents
	fi
}

__git_session_subcommands ()
{
	case "$1" in
	phase) echo "add start complete fail skip retry step" ;;
	agent) echo "start progress done fail" ;;
	file) echo "created modified deleted" ;;
	error) echo "add resolve" ;;
	tokens) echo "add budget" ;;
	task|milestone) echo "add done" ;;
	hooks) echo "install uninstall status" ;;
	esac
}

_git_session ()
{
	local subcommand cur prev sub
	cur="${COMP_WORDS[COMP_CWORD]}"
	prev="${COMP_WORDS[COMP_CWORD-1]}"
	subcommand="$(__git_find_on_cmdline "$__git_session_commands" 2>/dev/null)"
	if [ -z "$subcommand" ]; then
		__git_session_reply "$__git_session_commands" "$cur"
		return
	fi
	case "$cur" in
	--agent=*) __git_session_reply_nl "$(__git_session_agents "$subcommand")" "${cur#--agent=}"; return ;;
	--phase=*|--blocked-by=*)
		[ "$subcommand" = start ] && return
		__git_session_reply_nl "$(git session __complete phases)" "${cur#*=}"; return ;;
	--format=*) __git_session_reply_nl "$(git session __complete formats)" "${cur#--format=}"; return ;;
	--to=*) __git_session_reply_nl "$(git session __complete sessions)" "${cur#--to=}"; return ;;
	--date=*) __git_session_reply "short iso iso-strict relative unix raw" "${cur#--date=}"; return ;;
	--*) __git_session_reply "$(__git_session_options "$subcommand")" "$cur"; return ;;
	esac
	case "$prev" in
	--agent) __git_session_reply_nl "$(__git_session_agents "$subcommand")" "$cur"; return ;;
	--format) __git_session_reply_nl "$(git session __complete formats)" "$cur"; return ;;
	--phase|--blocked-by)
		[ "$subcommand" = start ] && return
		__git_session_reply_nl "$(git session __complete phases)" "$cur"; return ;;
	esac
	sub="$(__git_session_subcommands "$subcommand")"
	if [ -n "$sub" ] && [ -z "$(__git_find_on_cmdline "$sub" 2>/dev/null)" ]; then
		__git_session_reply "$sub" "$cur"
		return
	fi
	case "$subcommand,$prev" in
	phase,start|phase,complete|phase,fail|phase,skip|phase,retry|phase,step)
		__git_session_reply_nl "$(git session __complete phases)" "$cur" ;;
	agent,progress|agent,done|agent,fail)
		__git_session_reply_nl "$(git session __complete agents)" "$cur" ;;
	checkpoint,*|file,*|artifact,*|import,*|html,-o|html,--output)
		__git_complete_file 2>/dev/null || COMPREPLY=($(compgen -f -- "$cur")) ;;
	blame,*)	# as git blame: a revision, then a file
		__git_complete_revlist_file 2>/dev/null || COMPREPLY=($(compgen -f -- "$cur")) ;;
	help,*)
		__git_session_reply "$__git_session_commands" "$cur" ;;
	push,*|pull,*)
		__git_session_reply_nl "$(git remote 2>/dev/null)" "$cur" ;;
	switch,*|status,*|resume,*|archive,*|unarchive,*|show,*|log,*|timeline,*|tokens,*|diff,*|fsck,*|rollback,*|export,*|html,*)
		__git_session_reply_nl "$(git session __complete sessions)" "$cur" ;;
	esac
}
