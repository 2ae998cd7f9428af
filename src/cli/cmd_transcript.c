/*
 * cmd_transcript.c - `git session transcript`: prints the agents'
 * transcripts as a checkpoint keeps them, agent by agent. Each turn the
 * agent hooks recorded is a part, transcripts/<agent>/<nnn>/<nnnnnn>.
 */
#include "git-session/cmd.h"
#include "git-session/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct transcript_out {
	const char *agent;	/* only this agent's, or NULL */
	const char *commit;
	char last[256];		/* the agent whose parts are being printed */
	int agents;
};

static int print_part(const char *path, const char *data, size_t len, void *payload)
{
	struct transcript_out *o = payload;
	const char *name = path + strlen("transcripts/");
	size_t n = strcspn(name, "/");

	if (o->agent && (strlen(o->agent) != n || strncmp(name, o->agent, n)))
		return 0;
	if (n >= sizeof(o->last) || strncmp(o->last, name, n) || o->last[n]) {
		if (!o->agent)
			printf("%s==> transcript of %.*s <==\n", o->agents ? "\n" : "", (int)n, name);
		snprintf(o->last, sizeof(o->last), "%.*s", (int)n, name);
		o->agents++;
	}
	return fwrite(data, 1, len, stdout) == len ? 0 : gs_error("cannot write the transcript");
}

int cmd_transcript(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session transcript [<rev>] [--agent <id>]", NULL };
	struct transcript_out o = { 0 };
	struct store_tip tip = { 0 };
	cJSON *state = NULL;
	char *spec = NULL;
	int error;
	const struct option opts[] = {
		{ OPT_STRING, 0, "agent", &o.agent, "<id>", "only this agent's transcript" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0 ||
	    (error = cmd_no_more_args(argc, 1, usage)) < 0 ||
	    (error = cmd_resolve_rev(&spec, c, argc ? argv[0] : NULL)) < 0)
		goto cleanup;
	if ((error = engine_load_rev(&state, &tip, c->st, spec)) == GS_ENOTFOUND)
		error = gs_error("unknown revision or session '%s'", argc ? argv[0] : SESSION_HEAD);
	if (error < 0 || (error = store_walk_blobs(c->st, tip.commit, "transcripts", print_part, &o)) < 0)
		goto cleanup;
	if (!o.agents)
		error = gs_error(o.agent ? "checkpoint %.7s keeps no transcript of agent '%s'" :
				 "checkpoint %.7s keeps no transcript%s", tip.commit, o.agent ? o.agent : "");
cleanup:
	cJSON_Delete(state);
	store_tip_clear(&tip);
	free(spec);
	return cmd_exit(error);
}
