/*
 * cmd_view.c - reading sessions: show, list, log, get, and the revision
 * names they accept.
 */
#include "git-session/cmd.h"
#include "git-session/format.h"
#include "git-session/json.h"
#include "git-session/list_cache.h"
#include "git-session/opts.h"
#include "git-session/output.h"
#include "git-session/pager.h"
#include "git-session/report.h"
#include "git-session/util.h"
#include "git-session/yaml.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const show_usage[] = { "git session show [<rev>] [--json | --yaml]", NULL };

int cmd_show(int argc, const char **argv, struct cmd_ctx *c)
{
	int json = 0, yaml = 0, error;
	char *spec = NULL, *text = NULL;
	struct store_tip tip = { 0 };
	cJSON *state = NULL;
	const struct option opts[] = {
		{ OPT_BOOL, 0, "json", &json, NULL, "print the state as JSON" },
		{ OPT_BOOL, 0, "yaml", &yaml, NULL, "print the state as YAML" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, show_usage, 0)) < 0 ||
	    (error = cmd_no_more_args(argc, 1, show_usage)) < 0)
		goto cleanup;
	if (json && yaml) {
		error = gs_error("--json and --yaml cannot be used together");
		goto cleanup;
	}
	if ((error = cmd_resolve_rev(&spec, c, argc ? argv[0] : NULL)) < 0)
		goto cleanup;
	error = engine_load_rev(&state, &tip, c->st, spec);
	if (error == GS_ENOTFOUND)
		error = gs_error("unknown revision or session '%s'", argc ? argv[0] : SESSION_HEAD);
	if (error < 0)
		goto cleanup;
	pager_start(c);
	if (yaml) {
		char *err = NULL;

		if ((error = yaml_emit(&text, NULL, state, &err)) < 0) {
			gs_error("%s", err);
			free(err);
			goto cleanup;
		}
		fputs(text, stdout);
		goto cleanup;
	}
	text = json_print(state, 1, NULL);
	if (!json) {
		printf("checkpoint %s\n", tip.commit);
		out_text(stdout, tip.subject);
		fputs("\n\n", stdout);
	}
	fputs(text, stdout);
cleanup:
	free(spec);
	free(text);
	cJSON_Delete(state);
	store_tip_clear(&tip);
	return cmd_exit(error);
}

/*
 * What list shows of the session at commit hex: the cache's entry (marked
 * used), else read as a reader would -- session.json, not the collections
 * kept beside it: list must not cost the size of every state -- and added
 * to fresh. A damaged one says why (on stderr) and returns GS_ERROR.
 */
static int list_entry(const struct list_entry **out, struct cmd_ctx *c, const struct list_cache *cache,
		      unsigned char *used, struct list_cache *fresh, const char *ref, const char *hex)
{
	static const char *const keys[] = { "status", "created", "updated", "topic", "session_id" };
	const struct list_entry *known = list_cache_find(cache, hex);
	const char *id = strrchr(ref, '/') + 1;
	struct store_tip tip = { 0 };
	cJSON *state = NULL;
	char *v[5];
	int error;

	/* a remembered tip whose commit can no longer be read is damaged now: read it to say so */
	if (known && known->session && store_object_exists(c->st, hex)) {
		used[known - cache->v] = 1;
		*out = known;
		if (strcmp(known->session, id))	/* a ref moved by hand onto another session's checkpoint */
			return gs_error("the ref of session '%s' points at %.12s, a checkpoint of session '%s'", id,
					hex, known->session);
		return 0;
	}
	if ((error = engine_load_some(&state, &tip, c->st, ref, 0)) < 0)
		return error;	/* it says what is wrong */
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *s = json_str(state, keys[i]);

		/* an imported file that gave no time: when the import is dated, as status has it */
		if (!s && (i == 1 || i == 2))
			s = json_str(state_extra_get(state, "import"), "at");
		v[i] = s ? xstrdup(s) : NULL;
	}
	list_cache_add(fresh, tip.commit, tip.time, v[0], v[1], v[2], v[3], v[4]);
	cJSON_Delete(state);
	store_tip_clear(&tip);
	*out = &fresh->v[fresh->n - 1];
	return 0;
}

/*
 * One line of `list`, or one object of `list --json`. A session in
 * progress whose last operation is older than session.staleAfter is
 * stale: whoever drove it may have died (status and resume name its
 * stale agents).
 */
static void list_one(cJSON *out, const struct list_entry *e, const char *id, int archived, int active,
		     int damaged, int width, time_t now, int64_t stale_after)
{
	int stale = !archived && !damaged && report_stale_since(e->status, e->updated, now, stale_after);

	if (out) {
		cJSON *o = cJSON_CreateObject();

		json_set_str(o, "id", id);
		json_set_str(o, "status", damaged ? "damaged" : e->status);
		json_set_bool(o, "damaged", damaged);
		json_set_bool(o, "active", active);
		json_set_bool(o, "archived", archived);
		json_set_bool(o, "stale", stale);
		json_set_str(o, "topic", e->topic);
		json_set_str(o, "created", e->created);
		json_set_str(o, "updated", e->updated);
		json_set_str(o, "checkpoint", e->commit);
		cJSON_AddItemToArray(out, o);
	} else {
		struct sbuf sb = SBUF_INIT;
		time_t t;

		if (gs_time_parse_iso(&t, e->updated ? e->updated : "") < 0)
			t = (time_t)e->time;
		if (t)
			out_relative_time(&sb, t, time(NULL));
		else
			sbuf_adds(&sb, "-");
		printf("%c %-*s  %-11s  %-16s  ", active ? '*' : ' ', width, id,
		       damaged ? "damaged" : archived ? "archived" : stale ? "stale" :
		       e->status && !strcmp(e->status, ST_IN_PROGRESS) ? "in progress" : e->status, sb.buf);	/* as status says it */
		out_line(stdout, e->topic ? e->topic : "");
		putchar('\n');
		sbuf_release(&sb);
	}
}

#define LIST_CACHE_FILE "session-list-cache"

/* The cache as the last list left it; empty when there is none, or it is not as written. */
static void list_cache_load(struct list_cache *cache, gs_store *st)
{
	char *text = NULL;
	size_t len;

	memset(cache, 0, sizeof(*cache));
	if (store_file_read(&text, &len, st, LIST_CACHE_FILE, 256u << 20) == 0)
		list_cache_parse(cache, text, len);
	cmd_print_errors();	/* one that does not read is only slower: said, and the list goes on */
	free(text);
}

/* Writes back the entries this list used and those it read afresh: the tips of now. */
static void list_cache_save(gs_store *st, const struct list_cache *cache, const unsigned char *used,
			    const struct list_cache *fresh)
{
	struct list_cache now = { xcalloc(cache->n + fresh->n + 1, sizeof(*now.v)), 0, 0 };
	char *text;
	size_t len;

	for (size_t i = 0; i < cache->n; i++)	/* copies that share the strings: only now.v is freed */
		if (used[i])
			now.v[now.n++] = cache->v[i];
	memcpy(now.v + now.n, fresh->v, fresh->n * sizeof(*now.v));
	now.n += fresh->n;
	list_cache_sort(&now);
	text = list_cache_format(&now, &len);
	if (store_file_write(st, LIST_CACHE_FILE, text, len) < 0)
		cmd_print_errors();	/* said, and the list is printed all the same */
	free(text);
	free(now.v);
}

/* What `list` carries from one session to the next. */
struct list_run {
	struct cmd_ctx *c;
	cJSON *out;		/* --json: the array; else NULL */
	const char *active;
	int width, damaged;
	time_t now;
	int64_t stale_after;
	struct list_cache cache, fresh;
	unsigned char *used;	/* the cache's entries this list used */
};

/* One session's line; a damaged one is said on stderr, and the others are listed all the same. */
static void list_ref(struct list_run *l, const struct store_ref_entry *r, int archived)
{
	char *ref = xstrfmt("%s%s", archived ? ARCHIVE_PREFIX : SESSIONS_PREFIX, r->id);
	int active = !archived && l->active && !strcmp(l->active, r->id);
	const struct list_entry *e;

	if (list_entry(&e, l->c, &l->cache, l->used, &l->fresh, ref, r->tip) == 0) {
		list_one(l->out, e, r->id, archived, active, 0, l->width, l->now, l->stale_after);
	} else {
		struct list_entry bad = { .status = "damaged", .time = 0 };

		cmd_print_errors();
		snprintf(bad.commit, sizeof(bad.commit), "%s", r->tip);
		list_one(l->out, &bad, r->id, archived, active, 1, l->width, l->now, l->stale_after);
		l->damaged++;
	}
	free(ref);
}

int cmd_list(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session list [--all] [--json]", NULL };
	int all = 0, json = 0, error;
	struct store_ref_entry *live = NULL, *arch = NULL;
	char *active = NULL;
	struct list_run l = { .c = c };
	size_t n = 0, na = 0;
	const struct option opts[] = {
		{ OPT_BOOL, 'a', "all", &all, NULL, "include archived sessions" },
		{ OPT_BOOL, 0, "json", &json, NULL, "print a JSON array" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0 ||
	    (error = cmd_no_more_args(argc, 0, usage)) < 0 ||
	    (error = store_config_int(&l.stale_after, c->st, "session.staleAfter", REPORT_STALE_AFTER)) < 0 ||
	    (error = store_now(&l.now, c->st)) < 0 ||
	    (error = store_list_refs(&live, &n, c->st, SESSIONS_PREFIX)) < 0 ||
	    (all && (error = store_list_refs(&arch, &na, c->st, ARCHIVE_PREFIX)) < 0) ||
	    (error = store_active(&active, c->st)) < 0)
		goto cleanup;
	for (size_t i = 0; i < n + na; i++) {
		int w = (int)strlen(i < n ? live[i].id : arch[i - n].id);
		l.width = w > l.width ? w : l.width;
	}
	l.active = active;
	l.out = json ? cJSON_CreateArray() : NULL;
	list_cache_load(&l.cache, c->st);
	l.used = xcalloc(l.cache.n + 1, 1);
	for (size_t i = 0; i < n + na; i++)
		list_ref(&l, i < n ? &live[i] : &arch[i - n], i >= n);
	if (l.fresh.n)
		list_cache_save(c->st, &l.cache, l.used, &l.fresh);
	if (!json && n + na == 0) {
		gs_hint("no sessions here; a clone does not bring them: 'git session pull' does,");
		gs_hint("and 'git session start <topic>' starts one");
	}
	if (json) {
		char *text = json_print(l.out, 1, NULL);
		fputs(text, stdout);
		free(text);
	}
	if (l.damaged) {
		gs_hint("'git session fsck --all' says what is damaged; 'fsck --repair <id>' mends it");
		error = GS_ERROR;	/* all listed, but not all is well */
	}
cleanup:
	list_cache_clear(&l.cache);
	list_cache_clear(&l.fresh);
	free(l.used);
	store_ref_entries_free(live, n);
	store_ref_entries_free(arch, na);
	free(active);
	cJSON_Delete(l.out);
	return cmd_exit(error);
}

int cmd_log(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session log [<id>] [-- <git log options>]", NULL };
	const struct option opts[] = { OPT_END_MARK };
	const char **args;
	char *spec = NULL;
	int error, i = 0, n;

	if ((error = parse_options(&argc, argv, opts, usage, 1)) < 0)
		return cmd_exit(error);
	n = argc && strcmp(argv[0], "--") ? 1 : 0;
	if (argc > n && strcmp(argv[n], "--"))
		return cmd_exit(cmd_usage_error(usage, opts, "too many arguments (put git log options after '--')"));
	if (n) {
		char *id = NULL;
		if ((error = cmd_target(&id, c, argv[0])) < 0)
			return cmd_exit(error);
		spec = engine_refname(id);
		free(id);
	} else if ((error = cmd_resolve_rev(&spec, c, NULL)) < 0) {
		return cmd_exit(error);
	}
	args = xcalloc((size_t)argc + 4, sizeof(*args));
	args[i++] = "git";
	args[i++] = "log";
	args[i++] = spec;
	for (int k = n + 1; k < argc; k++)
		args[i++] = argv[k];
	fflush(stdout);
	store_free(c->st);
	c->st = NULL;
	execvp("git", (char *const *)args);
	gs_error("cannot run git log: %m");
	free(args);
	free(spec);
	return EXIT_FAILED;
}

int cmd_get(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session get <key>", NULL };
	int json = 0, error;
	char *id = NULL, *ref = NULL;
	struct store_tip tip = { 0 };
	cJSON *state = NULL;
	const cJSON *v;
	const struct option opts[] = {
		{ OPT_BOOL, 0, "json", &json, NULL, "print strings as JSON too" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0)
		goto cleanup;
	if (argc != 1) {
		gs_error(argc ? "too many arguments" : "which key?");
		usage_with_options(usage, opts, 0);
		error = GS_EUSAGE;
		goto cleanup;
	}
	if ((error = cmd_target(&id, c, NULL)) < 0)
		goto cleanup;
	ref = engine_refname(id);
	if ((error = engine_load_ref(&state, &tip, c->st, ref)) < 0)
		goto cleanup;
	v = state_extra_get(state, argv[0]);
	if (!v) {
		error = GS_ERROR;	/* like git config: absent, exit 1, say nothing */
		goto cleanup;
	}
	if (cJSON_IsString(v) && !json) {
		out_text(stdout, v->valuestring);
		putchar('\n');
	} else {
		char *text = json_print(v, cJSON_IsObject(v) || cJSON_IsArray(v), NULL);
		fputs(text, stdout);
		if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
			putchar('\n');
		free(text);
	}
cleanup:
	cJSON_Delete(state);
	store_tip_clear(&tip);
	free(id);
	free(ref);
	return cmd_exit(error);
}

/*
 * `git session __complete (sessions | phases | agents | formats)`: the
 * words the shell completion offers, one a line; nothing, silently, on
 * any error.
 */
int cmd_complete(int argc, const char **argv, struct cmd_ctx *c)
{
	const char *what = argc == 2 ? argv[1] : "";
	struct store_tip tip = { 0 };
	cJSON *state = NULL;
	char *id = NULL, *ref;
	const cJSON *x;
	int error;

	if (!strcmp(what, "formats")) {
		for (int i = 0; i < FORMAT_COUNT; i++)
			printf("%s\n", format_name(format_get(i)));
		return 0;
	}
	if (!strcmp(what, "sessions")) {
		char **ids = NULL;
		size_t n = 0;

		if (store_list(&ids, &n, c->st, SESSIONS_PREFIX) == 0)
			for (size_t i = 0; i < n; i++)
				printf("%s\n", ids[i]);
		store_ids_free(ids, n);
		return 0;
	}
	/* store_active, not engine_active: no "no active session" under the prompt */
	if ((strcmp(what, "phases") && strcmp(what, "agents")) || store_active(&id, c->st) < 0 || !id)
		return 0;
	ref = engine_refname(id);
	error = engine_load_ref(&state, &tip, c->st, ref);
	free(ref);
	if (!error)
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(state, what)) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(x, "id");

			if (cJSON_IsNumber(v))
				printf("%d\n", v->valueint);
			else if (cJSON_IsString(v))
				printf("%s\n", v->valuestring);
		}
	cJSON_Delete(state);
	store_tip_clear(&tip);
	free(id);
	return 0;
}
