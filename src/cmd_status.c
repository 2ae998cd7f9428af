/*
 * cmd_status.c - `git session status`: the state of a session for a
 * person, or as JSON for a program.
 */
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/opts.h"
#include "git-session/output.h"
#include "git-session/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

CMD(status)
{
	static const char *const usage[] = { "git session status [<id>] [--json]", NULL };
	int json = 0, error;
	char *id = NULL, *ref = NULL, *text;
	struct store_tip tip = { 0 };
	cJSON *state = NULL;
	const struct option opts[] = {
		{ OPT_BOOL, 0, "json", &json, NULL, "print a JSON object" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0 ||
	    (error = cmd_no_more_args(argc, 1, usage)) < 0 ||
	    (error = cmd_target(&id, c, argc ? argv[0] : NULL)) < 0)
		goto cleanup;
	ref = engine_refname(id);
	if ((error = engine_load_ref(&state, &tip, c->st, ref)) < 0)
		goto cleanup;
	if (json) {
		text = json_print(state, 1, NULL);
		fputs(text, stdout);
		free(text);
		goto cleanup;
	}
	printf("Session %s (%s)\n", id, json_str(state, "status"));
	if (json_str(state, "topic")) {
		fputs("Topic: ", stdout);
		out_text(stdout, json_str(state, "topic"));
		putchar('\n');
	}
	printf("Checkpoint %.7s: ", tip.commit);
	out_text(stdout, tip.subject);
	putchar('\n');
cleanup:
	cJSON_Delete(state);
	store_tip_clear(&tip);
	free(id);
	free(ref);
	return cmd_exit(error);
}
