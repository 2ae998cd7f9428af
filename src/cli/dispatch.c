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

/*
 * `help`, when a command is asked to run it (git-session mcp): the list of
 * commands. Run by a person, main() opens the manual page instead.
 */
static int cmd_help(int argc, const char **argv, struct cmd_ctx *c)
{
	command_list(stdout);
	return EXIT_OK;
}

static const struct command commands[] = {
	{ "start", cmd_start, 0, "start a session and make it active" },
	{ "status", cmd_status, 0, "show the state of a session" },
	{ "show", cmd_show, USE_PAGER, "show a checkpoint's state" },
	{ "list", cmd_list, 0, "list sessions" },
	{ "log", cmd_log, 0, "show a session's checkpoints with git log" },
	{ "switch", cmd_switch, 0, "make another session active" },
	{ "pause", cmd_pause, 0, "pause the active session" },
	{ "resume", cmd_resume, 0, "resume a session" },
	{ "close", cmd_close, 0, "complete or abort the active session" },
	{ "reopen", cmd_reopen, 0, "put a completed or aborted session back in progress" },
	{ "archive", cmd_archive, 0, "move a session out of the live namespace" },
	{ "unarchive", cmd_unarchive, 0, "bring an archived session back" },
	{ "checkpoint", cmd_checkpoint, NEED_WORK_TREE, "record files and take a checkpoint" },
	{ "note", cmd_note, 0, "add a note" },
	{ "summary", cmd_summary, 0, "set the context summary" },
	{ "set", cmd_set, 0, "set a value under extra" },
	{ "get", cmd_get, 0, "print a value of the state" },
	{ "phase", cmd_phase, 0, "add phases and move them: start, complete, fail, skip, retry" },
	{ "agent", cmd_agent, 0, "record an agent's start, progress, result or failure" },
	{ "file", cmd_file, 0, "record files created, modified or deleted" },
	{ "error", cmd_error, 0, "record an error, or its resolution" },
	{ "tokens", cmd_tokens, 0, "record token use, or show the token report" },
	{ "decide", cmd_decide, 0, "record a decision and its rationale" },
	{ "task", cmd_task, 0, "add a task, or mark one done" },
	{ "milestone", cmd_milestone, 0, "add a milestone, or mark one reached" },
	{ "artifact", cmd_artifact, 0, "record an artifact the work produced" },
	{ "diff", cmd_diff, USE_PAGER, "what changed between two checkpoints" },
	{ "timeline", cmd_timeline, 0, "draw phases, agents, failures and commits along time" },
	{ "gc", cmd_gc, 0, "archive finished sessions and delete old archived ones, by age" },
	{ "fsck", cmd_fsck, 0, "check every checkpoint; --repair goes back to the last good one" },
	{ "rollback", cmd_rollback, 0, "go back to the last good (or a named) checkpoint" },
	{ "push", cmd_push, 0, "send sessions to a remote, merging what it has first" },
	{ "pull", cmd_pull, 0, "fetch sessions from a remote and merge them in" },
	{ "import", cmd_import, 0, "read sessions from <formats> files" },
	{ "export", cmd_export, 0, "write a session as a <formats> file" },
	{ "hooks", cmd_hooks, 0, "install, remove or show the git hooks, or (--agent) an agent's own hooks" },
	{ "hook", cmd_hook, RUN_SETUP_GENTLY, "run by the installed hooks, and by an agent's own hooks" },
	{ "restore", cmd_restore, NEED_WORK_TREE, "put the working tree's files back as a checkpoint recorded them" },
	{ "blame", cmd_blame, USE_PAGER, "git blame with each line's session, agent, author and date" },
	{ "grep", cmd_grep, 0, "search what was said: notes, prompts, decisions, errors, the agents' words" },
	{ "transcript", cmd_transcript, USE_PAGER, "show the agents' conversations a checkpoint keeps" },
	{ "html", cmd_html, 0, "write a session as one self-contained HTML page to look at in a browser" },
	{ "mcp", cmd_mcp, 0, "serve the Model Context Protocol on standard input and output" },
	{ "help", cmd_help, 0, "open the manual page (as git help does), or list the commands" },
	{ "__complete", cmd_complete, 0, NULL },	/* for the shell completion, not listed */
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
	fprintf(f, "\nSee 'git session <command> -h' for a command's options,\nand 'git session help <command>' for its manual page.\n");
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

/* Opens the repository and the engine on it, as the row says: an exit code, or -1 to go on. */
static int setup(struct cmd_ctx *c, const struct command *cmd, int argc, const char **argv)
{
	char *why = NULL;
	int asks_usage = argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
				       !strcmp(argv[1], "--help-usage"));

	if (cmd->flags & RUN_SETUP_GENTLY) {
		if (store_open_why(&c->st, &why) < 0)
			return hook_cannot_open(argc, argv, why);
	} else if (store_open(&c->st) < 0) {
		return EXIT_FAILED;
	}
	if (engine_init(&c->eng, c->st) < 0)
		return EXIT_FAILED;
	/* as git, -h says the usage wherever it is asked */
	if ((cmd->flags & NEED_WORK_TREE) && !asks_usage && cmd_need_work_tree(c) < 0)
		return EXIT_FAILED;
	return -1;
}

int command_run(const struct command *cmd, int argc, const char **argv, struct cmd_result *res)
{
	struct cmd_ctx c = { .flags = cmd->flags, .result = res };
	int ret;

	if (res)
		memset(res, 0, sizeof(*res));
	if ((ret = setup(&c, cmd, argc, argv)) < 0)
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
