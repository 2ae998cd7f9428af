#!/bin/sh
# agents.sh - writes the agent instruction files in contrib/agents/ from
# contrib/agents/body.md, each with its agent's own header: one line
# below per agent (an agent that reads them is added here).
set -e
cd "$(dirname "$0")/../contrib/agents"

# write <file> [<front matter>]: body.md, after the front matter when there is one
write () {
	{
		test -z "${2:-}" || printf -- '---\n%s\n---\n\n' "$2"
		cat body.md
	} >"$1"
}

write claude-code/git-session/SKILL.md 'name: git-session
description: Keep orchestration session state (phases, agents, files, errors, tokens, decisions) in git with the git session command instead of a state file. Use when starting, resuming or updating a multi-step or multi-agent session.'
write copilot-cli/git-session/SKILL.md 'name: git-session
description: "Session state tracking and resume with git session. USE FOR: resume session, persist progress, checkpoint recovery. Replaces 00-session-state.json."'
write gemini-cli/git-session/GEMINI.md
write qwen-code/git-session/SKILL.md 'name: git-session
description: Keep orchestration session state (phases, agents, files, errors, tokens, decisions) in git with the git session command instead of a state file. Use when starting, resuming or updating a multi-step or multi-agent session.'
write codex/git-session/SKILL.md 'name: git-session
description: Keep orchestration session state (phases, agents, files, errors, tokens, decisions) in git with the git session command instead of a state file. Use when starting, resuming or updating a multi-step or multi-agent session.'
