/*
 * cmd_record.c - recording into the active session: checkpoint, note,
 * summary, set.
 */
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/opts.h"
#include "git-session/util.h"
#include "git-session/store_worktree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const checkpoint_usage[] = {
	"git session checkpoint [-m <msg>] [-f] [<path>...]",
	NULL,
};

/* Re-records every path of the manifest, then the paths given (ignored ones only with force, as git add). */
static int checkpoint_files(cJSON *files, struct cmd_ctx *c, const char *id, int argc,
			    const char **argv, int force)
{
	struct store_tip tip = { 0 };
	cJSON *state = NULL;
	char *ref = engine_refname(id);
	int error;

	if ((error = engine_load_ref(&state, &tip, c->st, ref)) < 0)
		goto cleanup;
	for (cJSON *f = cJSON_GetObjectItemCaseSensitive(state, "files")->child; f; f = f->next)
		if ((error = engine_record_file_new(files, c->st, f->string, NULL, f)) < 0)
			goto cleanup;
	for (int i = 0; i < argc; i++) {
		char *path = NULL;
		const char *was;

		if ((error = store_worktree_relpath(&path, c->st, argv[i])) < 0)
			goto cleanup;
		was = json_str(cJSON_GetObjectItemCaseSensitive(
				       cJSON_GetObjectItemCaseSensitive(state, "files"), path), "status");
		if (!was && !force && (error = cmd_refuse_ignored(c, path)) < 0) {
			free(path);
			goto cleanup;
		}
		error = engine_record_file(files, c->st, path, was ? NULL : ST_CREATED, 0);
		free(path);
		if (error < 0)
			goto cleanup;
	}
cleanup:
	cJSON_Delete(state);
	store_tip_clear(&tip);
	free(ref);
	return error;
}

int cmd_checkpoint(int argc, const char **argv, struct cmd_ctx *c)
{
	const char *msg = NULL;
	int quiet = 0, force = 0, error;
	char *id = NULL;
	struct state_op *op = NULL;
	const struct option opts[] = {
		{ OPT_STRING, 'm', "message", &msg, "<msg>", "what this checkpoint is" },
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "print nothing" },
		{ OPT_BOOL, 'f', "force", &force, NULL, "record files the repository ignores" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, checkpoint_usage, 0)) < 0 ||
	    (error = cmd_target(&id, c, NULL)) < 0)
		goto cleanup;
	op = op_new(OP_CHECKPOINT, NULL);
	json_set_str(op_args(op), "message", msg);
	if ((error = checkpoint_files(json_obj(op_args(op), "files"), c, id, argc, argv, force)) < 0 ||
	    (error = cmd_write(NULL, c, id, op, msg, quiet)) < 0)
		goto cleanup;
cleanup:
	op_free(op);
	free(id);
	return cmd_exit(error);
}

/* note and summary: one text argument into one operation. */
static int text_command(int argc, const char **argv, struct cmd_ctx *c,
			const char *const *usage, enum op_id opid)
{
	const char *agent = NULL, *file = NULL;
	int quiet = 0, error;
	char *id = NULL, *text = NULL;
	struct state_op *op = NULL;
	size_t len;
	struct option opts[] = {
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "print nothing" },
		{ OPT_STRING, 'F', "file", &file, "<file>", "take the text from a file (- for standard input)" },
		{ OPT_STRING, 0, "agent", &agent, "<id>", "the agent this comes from" },
		OPT_END_MARK,
	};

	if (opid != OP_NOTE)
		opts[2] = (struct option)OPT_END_MARK;
	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0)
		goto cleanup;
	if (argc != !file) {
		gs_error(argc > !file ? "too many arguments (quote the text)" : "no text given");
		usage_with_options(usage, opts, 0);
		error = GS_EUSAGE;
		goto cleanup;
	}
	/* a little over the model's limit, so that it is the model that says "too long" */
	if (file && (error = gs_read_file(&text, &len, !strcmp(file, "-") ? "/dev/stdin" : file,
					  16u * 1024 * 1024)) < 0)
		goto cleanup;
	if (text && strlen(text) != len) {
		error = gs_error("'%s' holds a NUL byte: not text", file);
		goto cleanup;
	}
	if ((error = cmd_target(&id, c, NULL)) < 0)
		goto cleanup;
	op = op_new(opid, NULL);
	json_set_str(op_args(op), "text", text ? text : argv[0]);
	if (agent)
		json_set_str(op_args(op), "agent", agent);
	error = cmd_write(NULL, c, id, op, NULL, quiet);
cleanup:
	op_free(op);
	free(id);
	free(text);
	return cmd_exit(error);
}

int cmd_note(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session note [--agent <id>] (<text> | -F <file>)", NULL };
	return text_command(argc, argv, c, usage, OP_NOTE);
}

int cmd_summary(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session summary (<text> | -F <file>)", NULL };
	return text_command(argc, argv, c, usage, OP_SUMMARY);
}

int cmd_set(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session set <key> <json-value>", NULL };
	int quiet = 0, error;
	char *id = NULL, *err = NULL;
	struct state_op *op = NULL;
	cJSON *value = NULL;
	const struct option opts[] = {
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "print nothing" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0)
		goto cleanup;
	if (argc != 2) {
		gs_error(argc > 2 ? "too many arguments" : "set takes a key and a JSON value");
		usage_with_options(usage, opts, 0);
		error = GS_EUSAGE;
		goto cleanup;
	}
	if (json_parse(&value, argv[1], strlen(argv[1]), 1024 * 1024, &err) < 0) {
		error = gs_error("value for '%s' is not JSON: %s", argv[0], err);
		gs_hint("quote strings as JSON: git session set %s '\"text\"'", argv[0]);
		goto cleanup;
	}
	if ((error = cmd_target(&id, c, NULL)) < 0)
		goto cleanup;
	op = op_new(OP_SET, NULL);
	json_set_str(op_args(op), "key", argv[0]);
	json_set(op_args(op), "value", value);
	value = NULL;
	error = cmd_write(NULL, c, id, op, NULL, quiet);
cleanup:
	op_free(op);
	cJSON_Delete(value);
	free(id);
	free(err);
	return cmd_exit(error);
}
