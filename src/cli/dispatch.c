/*
 * dispatch.c - the table of commands, and running one: opens the
 * repository for it, runs it, prints the errors it left and turns its
 * result into an exit code. main() runs one per process; `git session
 * mcp` runs many.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git-session/cmd.h"
#include "git-session/format.h"
#include "git-session/pager.h"
#include "git-session/store.h"
#include "git-session/store_run.h"
#include "git-session/util.h"

static const struct command commands[] = {
	{ "start", cmd_start, 1, "start a session and make it active" },
	{ "status", cmd_status, 1, "show the state of a session" },
	{ "show", cmd_show, 1, "show a checkpoint's state" },
	{ "list", cmd_list, 1, "list sessions" },
	{ "log", cmd_log, 1, "show a session's checkpoints with git log" },
	{ "switch", cmd_switch, 1, "make another session active" },
	{ "pause", cmd_pause, 1, "pause the active session" },
	{ "resume", cmd_resume, 1, "resume a session" },
	{ "close", cmd_close, 1, "complete or abort the active session" },
	{ "archive", cmd_archive, 1, "move a session out of the live namespace" },
	{ "unarchive", cmd_unarchive, 1, "bring an archived session back" },
	{ "checkpoint", cmd_checkpoint, 1, "record files and take a checkpoint" },
	{ "note", cmd_note, 1, "add a note" },
	{ "summary", cmd_summary, 1, "set the context summary" },
	{ "set", cmd_set, 1, "set a value under extra" },
	{ "get", cmd_get, 1, "print a value of the state" },
	{ "phase", cmd_phase, 1, "add phases and move them: start, complete, fail, skip, retry" },
	{ "agent", cmd_agent, 1, "record an agent's start, progress, result or failure" },
	{ "file", cmd_file, 1, "record files created, modified or deleted" },
	{ "error", cmd_error, 1, "record an error, or its resolution" },
	{ "tokens", cmd_tokens, 1, "record token use, or show the token report" },
	{ "decide", cmd_decide, 1, "record a decision and its rationale" },
	{ "task", cmd_task, 1, "add a task, or mark one done" },
	{ "milestone", cmd_milestone, 1, "add a milestone, or mark one reached" },
	{ "artifact", cmd_artifact, 1, "record an artifact the work produced" },
	{ "diff", cmd_diff, 1, "what changed between two checkpoints" },
	{ "timeline", cmd_timeline, 1, "draw phases, agents, failures and commits along time" },
	{ "gc", cmd_gc, 1, "archive finished sessions and delete old archived ones, by age" },
	{ "fsck", cmd_fsck, 1, "check every checkpoint; --repair goes back to the last good one" },
	{ "rollback", cmd_rollback, 1, "go back to the last good (or a named) checkpoint" },
	{ "push", cmd_push, 1, "send sessions to a remote, merging what it has first" },
	{ "pull", cmd_pull, 1, "fetch sessions from a remote and merge them in" },
	{ "import", cmd_import, 1, "read sessions from <formats> files" },
	{ "export", cmd_export, 1, "write a session as a <formats> file" },
	{ "hooks", cmd_hooks, 1, "install, remove or show the git hooks that checkpoint on commit" },
	{ "hook", cmd_hook, 1, "run by the installed hooks, and by an agent's own hooks" },
	{ "restore", cmd_restore, 1, "put the working tree's files back as a checkpoint recorded them" },
	{ "blame", cmd_blame, 1, "git blame, with each line's session, agent and phase" },
	{ "grep", cmd_grep, 1, "search what every session says: notes, prompts, decisions, errors, transcripts" },
	{ "transcript", cmd_transcript, 1, "print the agents' transcripts a checkpoint keeps" },
	{ "mcp", cmd_mcp, 1, "serve the Model Context Protocol on standard input and output" },
	{ "__complete", cmd_complete, 1, NULL },	/* for the shell completion, not listed */
};

/* A summary, with "<formats>" spelled out from the table of formats. */
static void print_summary(FILE *f, const char *name, const char *summary)
{
	const char *at = strstr(summary, "<formats>");

	if (at)
		fprintf(f, "   %-12s %.*s%s%s\n", name, (int)(at - summary), summary, format_choices(1),
			at + strlen("<formats>"));
	else
		fprintf(f, "   %-12s %s\n", name, summary);
}

void command_list(FILE *f)
{
	fprintf(f, "usage: git session <command> [<args>]\n\nCommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (commands[i].summary)
			print_summary(f, commands[i].name, commands[i].summary);
	fprintf(f, "\nSee 'git session <command> -h' for a command's options.\n");
}

/* Levenshtein distance, as git's help.c weighs it: a swap is one edit. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), *row = xcalloc(lb + 1, sizeof(*row)), d;

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	d = row[lb];
	free(row);
	return d;
}

/* How close typed is to name: a prefix is as good as one typo. */
static size_t closeness(const char *typed, const char *name)
{
	if (*typed && !strncmp(name, typed, strlen(typed)))
		return 1;
	return distance(typed, name);
}

/* "The most similar commands are", as git says for a mistyped command. */
void command_suggest(const char *typed)
{
	size_t best = (size_t)-1, n = 0, d[ARRAY_SIZE(commands)];

	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		d[i] = commands[i].summary ? closeness(typed, commands[i].name) : (size_t)-1;
		if (d[i] < best)
			best = d[i];
	}
	if (best > 2)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		n += d[i] == best;
	fprintf(stderr, "\nThe most similar command%s\n", n == 1 ? " is" : "s are");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (d[i] == best)
			fprintf(stderr, "\t%s\n", commands[i].name);
}
/*
 * A git hook where git-session cannot open the repository: one warning a
 * commit (from post-commit), and git goes on, unless session.strictHooks
 * (read by git itself) says the hook must stop it.
 */
static int hook_cannot_open(int argc, const char **argv, char *why)
{
	int strict = 0;

	store_git_config_bool(&strict, "session.strictHooks", 0);
	if (strict)
		gs_error("%s", why ? why : "cannot open the repository");
	else if (argc > 1 && !strcmp(argv[1], "post-commit"))	/* once a commit, by the hook that records */
		gs_warning("git-session cannot record this commit, and git goes on: %s",
			   why ? why : "cannot open the repository");
	free(why);
	return strict ? EXIT_FAILED : EXIT_OK;
}

int command_run(const struct command *cmd, int argc, const char **argv, struct cmd_result *res)
{
	struct cmd_ctx c = { .result = res };
	int ret;

	if (res)
		memset(res, 0, sizeof(*res));
	if (cmd->needs_repo && cmd->fn == cmd_hook) {
		char *why = NULL;

		if (store_open_why(&c.st, &why) < 0) {
			ret = hook_cannot_open(argc, argv, why);
			cmd_print_errors();
			return ret;
		}
		if (engine_init(&c.eng, c.st) < 0) {
			cmd_print_errors();
			store_free(c.st);
			return EXIT_FAILED;
		}
	} else if (cmd->needs_repo) {
		if (store_open(&c.st) < 0) {
			cmd_print_errors();
			return EXIT_FAILED;
		}
		if (engine_init(&c.eng, c.st) < 0) {
			cmd_print_errors();
			store_free(c.st);
			return EXIT_FAILED;
		}
	}
	ret = cmd->fn(argc, argv, &c);
	cmd_print_errors();
	fflush(stdout);
	if (ferror(stdout) && !c.pager) {
		gs_error("write to standard output failed");
		cmd_print_errors();
		ret = EXIT_FAILED;
	}
	pager_finish(&c);
	store_free(c.st);
	return ret;
}

const struct command *command_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}
