#!/bin/sh
# agents.sh - writes the agent instruction files in contrib/agents/ from
# contrib/agents/body.md, with each agent's own header.
set -e
cd "$(dirname "$0")/../contrib/agents"
{
	printf -- '---\nname: git-session\ndescription: Keep orchestration session state (phases, agents, files, errors, tokens, decisions) in git with the git session command instead of a state file. Use when starting, resuming or updating a multi-step or multi-agent session.\n---\n\n'
	cat body.md
} >claude-code/git-session/SKILL.md
{
	printf -- '---\nname: git-session\ndescription: "Session state tracking and resume with git session. USE FOR: resume session, persist progress, checkpoint recovery. Replaces 00-session-state.json."\n---\n\n'
	cat body.md
} >copilot/git-session/SKILL.md
cp body.md gemini-cli/git-session/GEMINI.md
