/*
 * agent-internal.h - what the dialect files share: their table entries
 * and the helpers they are written with. Not for other layers.
 */
#ifndef GIT_SESSION_AGENT_INTERNAL_H
#define GIT_SESSION_AGENT_INTERNAL_H

#include "git-session/agent.h"

#define GS_AGENT_EXTERN(file) extern const struct agent_dialect agent_##file;
GS_AGENTS(GS_AGENT_EXTERN)
#undef GS_AGENT_EXTERN

/* What a hook command starts with: a committed file runs nothing, and says nothing, where git-session is not. */
#define AGENT_HOOK_GUARD "command -v git-session >/dev/null 2>&1 || exit 0; "

/* Our hooks in a JSON settings file shaped as Claude Code's (agent_json_hooks.c). */
extern const struct agent_settings_ops agent_json_hooks;
/* Whether a hook's command is ours: command_prefix, behind the guard our hooks start with or alone. */
int agent_json_hooks_ours(const char *command, const char *command_prefix);
/* Codex's trusted project and hooks (codex_trust.c). */
extern const struct agent_trust_ops agent_codex_trust;
/* Our hooks as a JSON file of their own, wholly ours (agent_file_hooks.c): Copilot CLI's .github/hooks/. */
extern const struct agent_settings_ops agent_file_hooks;
/* How each agent's own session file is rebuilt (agent_rebuild.c). */
extern const struct agent_rebuilder agent_claude_code_rebuilder, agent_gemini_cli_rebuilder;

/* One count of a usage: absent or null is 0; -1 when it is not a whole number from 0 to AGENT_TOKENS_MAX. */
int agent_usage_number(double *out, const cJSON *usage, const char *key);

/* A payload's turn usage {input, output, cached} (keys as named) into ev: all three whole, 0 to AGENT_TOKENS_MAX. */
void agent_payload_usage(struct agent_event *ev, const cJSON *usage, const char *const keys[3]);
/* Our hooks in a file wholly ours, its text the dialect's hooks_file (agent_file_hooks.c). */
extern const struct agent_settings_ops agent_file_hooks;

/* v as a whole number from min to max into *out: 1, or 0 (and *out untouched) when it is not one. */
int agent_number(double *out, const cJSON *v, double min, double max);
/*
 * The exit status written after tag in text, at the start of its last
 * line that has one ("Exit Code: 1"): 1; 0 when no line has the tag, -1
 * when what follows it is not a status AGENT_EXIT_MIN to AGENT_EXIT_MAX.
 */
int agent_exit_after(double *out, const char *text, const char *tag);

/* {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}: Claude Code's and Gemini CLI's. */
char *agent_context_json(const char *event, const char *text);

#endif
