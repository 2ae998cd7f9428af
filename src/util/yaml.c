/*
 * yaml.c - YAML in and out with libyaml. Out: strings are always quoted
 * (text of several lines as a literal block),
 * so no value can be read back as another type ("no", "1.0", "null").
 * In: the core schema's plain scalars; no aliases (no "billion laughs").
 */
#include "git-session/yaml.h"
#include "git-session/json.h"
#include "git-session/util.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
	sbuf_add(data, buffer, size);
	return 1;
}

static int scalar(yaml_emitter_t *em, const char *s, int quoted)
{
	yaml_event_t ev;

	if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s),
					  !quoted, quoted,
					  quoted == 2 ? YAML_LITERAL_SCALAR_STYLE :
					  quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_PLAIN_SCALAR_STYLE))
		return GS_ERROR;
	return yaml_emitter_emit(em, &ev) ? 0 : GS_ERROR;
}

/*
 * Whether s reads back the same as a literal block in every reader: it has
 * lines, and no NEL, U+2028 or U+2029, which YAML 1.1 (libyaml, PyYAML)
 * takes for line breaks and 1.2 (js-yaml) does not.
 */
static int literal(const char *s)
{
	return strchr(s, '\n') && !strstr(s, "\xc2\x85") && !strstr(s, "\xe2\x80\xa8") && !strstr(s, "\xe2\x80\xa9");
}

static int emit_value(yaml_emitter_t *em, const cJSON *v)
{
	yaml_event_t ev;

	if (cJSON_IsObject(v)) {
		if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE) ||
		    !yaml_emitter_emit(em, &ev))
			return GS_ERROR;
		for (const cJSON *c = v->child; c; c = c->next)
			if (scalar(em, c->string, 0) < 0 || emit_value(em, c) < 0)
				return GS_ERROR;
		return yaml_mapping_end_event_initialize(&ev) && yaml_emitter_emit(em, &ev) ? 0 : GS_ERROR;
	}
	if (cJSON_IsArray(v)) {
		if (!yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE) ||
		    !yaml_emitter_emit(em, &ev))
			return GS_ERROR;
		for (const cJSON *c = v->child; c; c = c->next)
			if (emit_value(em, c) < 0)
				return GS_ERROR;
		return yaml_sequence_end_event_initialize(&ev) && yaml_emitter_emit(em, &ev) ? 0 : GS_ERROR;
	}
	if (cJSON_IsString(v))	/* text of several lines as a literal block, as people write it */
		return scalar(em, v->valuestring, literal(v->valuestring) ? 2 : 1);
	{
		char *s = json_print(v, 0, NULL);
		int error = scalar(em, s, 0);
		free(s);
		return error;
	}
}

int yaml_emit(char **out, size_t *len, const cJSON *v, char **err)
{
	struct sbuf sb = SBUF_INIT;
	yaml_emitter_t em;
	yaml_event_t ev;
	int error = GS_ERROR;

	*out = NULL;
	*err = NULL;
	if (!yaml_emitter_initialize(&em)) {
		*err = xstrdup("cannot start the YAML emitter");
		return GS_ERROR;
	}
	yaml_emitter_set_output(&em, write_handler, &sb);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_width(&em, -1);
	if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) || !yaml_emitter_emit(&em, &ev) ||
	    !yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) || !yaml_emitter_emit(&em, &ev) ||
	    emit_value(&em, v) < 0 ||
	    !yaml_document_end_event_initialize(&ev, 1) || !yaml_emitter_emit(&em, &ev) ||
	    !yaml_stream_end_event_initialize(&ev) || !yaml_emitter_emit(&em, &ev)) {
		*err = xstrfmt("cannot write YAML: %s", em.problem ? em.problem : "unknown problem");
		goto cleanup;
	}
	*out = sbuf_detach(&sb, len);
	error = 0;
cleanup:
	yaml_emitter_delete(&em);
	sbuf_release(&sb);
	return error;
}

/* A plain scalar as YAML 1.2's core schema reads it. */
static cJSON *plain_scalar(const char *s, size_t len)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };
	static const char *const trues[] = { "true", "True", "TRUE" };
	static const char *const falses[] = { "false", "False", "FALSE" };
	const char *p = s;
	char *end;
	double d;

	for (size_t i = 0; i < ARRAY_SIZE(nulls); i++)
		if (!strcmp(s, nulls[i]))
			return cJSON_CreateNull();
	for (size_t i = 0; i < ARRAY_SIZE(trues); i++)
		if (!strcmp(s, trues[i]))
			return cJSON_CreateTrue();
	for (size_t i = 0; i < ARRAY_SIZE(falses); i++)
		if (!strcmp(s, falses[i]))
			return cJSON_CreateFalse();
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o') && len < 20) {
		unsigned long long v = strtoull(s + 2, &end, s[1] == 'x' ? 16 : 8);
		if (!*end)
			return cJSON_CreateNumber((double)v);
		return cJSON_CreateString(s);
	}
	/* [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
	if (*p == '-' || *p == '+')
		p++;
	if (!(isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) || len > 40)
		return cJSON_CreateString(s);
	d = strtod(s, &end);
	if (*end || !isfinite(d))
		return cJSON_CreateString(s);
	for (p = s; *p; p++)	/* strtod takes more than YAML: hex floats, "inf" */
		if (!isdigit((unsigned char)*p) && !strchr("+-.eE", *p))
			return cJSON_CreateString(s);
	return cJSON_CreateNumber(d);
}

struct yaml_reader {
	yaml_parser_t parser;
	const char *buf;
	size_t len;
	char **err;
	int depth;
};

static int yaml_fail(struct yaml_reader *r, const char *what, const yaml_mark_t *m)
{
	if (!*r->err)
		*r->err = xstrfmt("%zu: %s", m->line + 1, what);
	return GS_ERROR;
}

static int read_node(cJSON **out, struct yaml_reader *r, yaml_event_t *ev);

/* Whether line (from 0) of buf is indented with a tab (libyaml's marks count characters, not bytes). */
static int tab_indented(const char *buf, size_t len, size_t line)
{
	const char *p = buf, *end = buf + len;

	for (; line && p; line--)
		if ((p = memchr(p, '\n', (size_t)(end - p))))
			p++;
	for (; p && p < end && (*p == ' ' || *p == '\t'); p++)
		if (*p == '\t')
			return 1;
	return 0;
}

static int parse_event(yaml_event_t *ev, struct yaml_reader *r)
{
	const yaml_mark_t *m = &r->parser.problem_mark;

	if (yaml_parser_parse(&r->parser, ev))
		return 0;
	if (tab_indented(r->buf, r->len, m->line))	/* libyaml's words for it are obscure */
		return yaml_fail(r, "a tab where YAML wants spaces (indentation is spaces only)", m);
	return yaml_fail(r, r->parser.problem ? r->parser.problem : "invalid YAML", &r->parser.problem_mark);
}

/*
 * A node's tag: none, "!" or the core schema's own kinds are read; another
 * (!!binary, !!timestamp, !custom) is refused, as js-yaml's and PyYAML's safe
 * readers refuse or turn it into what JSON has no word for.
 */
static int tag_read(struct yaml_reader *r, const char *tag, const yaml_event_t *ev)
{
	static const char *const core[] = { "str", "int", "float", "bool", "null", "map", "seq", NULL };
	char *what;
	int error;

	if (!tag || !strcmp(tag, "!"))
		return 0;
	for (const char *const *k = core; *k; k++)
		if (!strncmp(tag, "tag:yaml.org,2002:", 18) && !strcmp(tag + 18, *k))
			return 0;
	what = !strncmp(tag, "tag:yaml.org,2002:", 18)
		? xstrfmt("the tag !!%s is not read (only !!str, !!int, !!float, !!bool, !!null, !!map, !!seq)", tag + 18)
		: xstrfmt("the tag %s is not read (only !!str, !!int, !!float, !!bool, !!null, !!map, !!seq)", tag);
	error = yaml_fail(r, what, &ev->start_mark);
	free(what);
	return error;
}

/* A number is taken only as written, as json_parse takes one: not 2^53 + 1, not 0.1234567890123456789. */
static int number_kept(cJSON **out, struct yaml_reader *r, const char *v, const yaml_event_t *ev)
{
	char *what;
	int error;

	if (!cJSON_IsNumber(*out) ||
	    (v[0] == '0' && (v[1] == 'x' || v[1] == 'o') ? json_is_int((*out)->valuedouble) :
	     json_number_exact(v, strlen(v), (*out)->valuedouble)))
		return 0;
	what = xstrfmt("the number %s is not kept exactly by a double (quote it to keep it as text)", v);
	error = yaml_fail(r, what, &ev->start_mark);
	free(what);
	cJSON_Delete(*out);
	*out = NULL;
	return error;
}

static int read_children(cJSON *node, struct yaml_reader *r, int mapping)
{
	yaml_event_t ev;
	int error = 0;

	for (;;) {
		cJSON *key = NULL, *val = NULL;

		if ((error = parse_event(&ev, r)) < 0)
			return error;
		if (ev.type == YAML_MAPPING_END_EVENT || ev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&ev);
			return 0;
		}
		if (mapping) {
			if (ev.type != YAML_SCALAR_EVENT) {
				error = yaml_fail(r, "a mapping key that is not a plain string", &ev.start_mark);
				yaml_event_delete(&ev);
				return error;
			}
			key = cJSON_CreateString((const char *)ev.data.scalar.value);
			if (cJSON_GetObjectItemCaseSensitive(node, key->valuestring) ||
			    (ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !strcmp(key->valuestring, "<<"))) {
				char *what = strcmp(key->valuestring, "<<")	/* a merge, which upstream reads: not half-read here */
					? xstrfmt("the key '%s' appears twice in one mapping", key->valuestring)
					: xstrdup("a merge key (<<): merges are not read");

				error = yaml_fail(r, what, &ev.start_mark);
				free(what);
				yaml_event_delete(&ev);
				cJSON_Delete(key);
				return error;
			}
			yaml_event_delete(&ev);
			if ((error = parse_event(&ev, r)) < 0) {
				cJSON_Delete(key);
				return error;
			}
		}
		error = read_node(&val, r, &ev);
		yaml_event_delete(&ev);
		if (error < 0) {
			cJSON_Delete(key);
			return error;
		}
		if (mapping) {
			cJSON_AddItemToObject(node, key->valuestring, val);
			cJSON_Delete(key);
		} else {
			cJSON_AddItemToArray(node, val);
		}
	}
}

static int read_node(cJSON **out, struct yaml_reader *r, yaml_event_t *ev)
{
	int error;

	*out = NULL;
	switch (ev->type) {
	case YAML_SCALAR_EVENT: {
		const char *v = (const char *)ev->data.scalar.value;
		const char *tag = (const char *)ev->data.scalar.tag;

		if ((error = tag_read(r, tag, ev)) < 0)
			return error;
		if (strlen(v) != ev->data.scalar.length)	/* a string is kept whole, or refused */
			return yaml_fail(r, "a NUL character in a string, which cannot be kept", &ev->start_mark);
		if (tag ? strcmp(tag, "!") && strcmp(tag, "tag:yaml.org,2002:str") : ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
			*out = plain_scalar(v, ev->data.scalar.length);	/* !!int "1" is 1, as upstream reads it */
		else
			*out = cJSON_CreateString(v);
		return number_kept(out, r, v, ev);
	}
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if ((error = tag_read(r, (const char *)(ev->type == YAML_MAPPING_START_EVENT ? ev->data.mapping_start.tag
											   : ev->data.sequence_start.tag), ev)) < 0)
			return error;
		if (++r->depth > JSON_MAX_DEPTH)
			return yaml_fail(r, "nested too deeply", &ev->start_mark);
		*out = ev->type == YAML_MAPPING_START_EVENT ? cJSON_CreateObject() : cJSON_CreateArray();
		if ((error = read_children(*out, r, ev->type == YAML_MAPPING_START_EVENT)) < 0) {
			cJSON_Delete(*out);
			*out = NULL;
			return error;
		}
		r->depth--;
		return 0;
	case YAML_ALIAS_EVENT: {	/* refused whole: no anchor is kept, so no "billion laughs" */
		char *what = xstrfmt("an alias (*%s): aliases are not read", (const char *)ev->data.alias.anchor);

		error = yaml_fail(r, what, &ev->start_mark);
		free(what);
		return error;
	}
	default:
		return yaml_fail(r, "unexpected YAML", &ev->start_mark);
	}
}

/*
 * After the document: the stream's end, and nothing else. A second
 * document (after a '...' or a second '---' line) is refused, as js-yaml's
 * load() and PyYAML's safe_load() refuse it, never left unread.
 */
static int read_end(struct yaml_reader *r)
{
	yaml_event_t ev;	/* libyaml zeroes it first, even when parsing fails */
	yaml_mark_t end;
	int marked, error;

	if ((error = parse_event(&ev, r)) < 0)	/* the document's end */
		return error;
	end = ev.start_mark;
	marked = !ev.data.document_end.implicit;
	yaml_event_delete(&ev);
	if (parse_event(&ev, r) == 0 && ev.type == YAML_STREAM_END_EVENT)
		error = 0;
	else if (marked) {	/* whatever libyaml says of what follows, the cause is the '...' */
		free(*r->err);
		*r->err = NULL;
		error = yaml_fail(r, "a '...' line ends the document here, but more follows", &end);
	} else {
		error = yaml_fail(r, "a second document: only one is read", &ev.start_mark);
	}
	yaml_event_delete(&ev);
	return error;
}

/* The stream's one document into *out; 1 when there was none. */
static int read_document(cJSON **out, struct yaml_reader *r)
{
	yaml_event_t ev;
	int error;

	for (;;) {
		if ((error = parse_event(&ev, r)) < 0)
			return error;
		if (ev.type == YAML_STREAM_END_EVENT || ev.type == YAML_DOCUMENT_END_EVENT) {
			yaml_event_delete(&ev);
			return 1;
		}
		if (ev.type != YAML_STREAM_START_EVENT && ev.type != YAML_DOCUMENT_START_EVENT)
			break;
		yaml_event_delete(&ev);
	}
	error = read_node(out, r, &ev);
	yaml_event_delete(&ev);
	return error < 0 ? error : read_end(r);
}

int yaml_parse(cJSON **out, const char *buf, size_t len, size_t max, char **err)
{
	struct yaml_reader r = { .buf = buf, .len = len, .err = err };
	int error;

	*out = NULL;
	*err = NULL;
	if (len > max) {
		*err = xstrfmt("larger than %zu bytes", max);
		return GS_ERROR;
	}
	if (!gs_utf8_valid(buf, len)) {
		*err = xstrdup("not valid UTF-8 (or holds a NUL byte)");
		return GS_ERROR;
	}
	if (!yaml_parser_initialize(&r.parser)) {
		*err = xstrdup("cannot start the YAML parser");
		return GS_ERROR;
	}
	yaml_parser_set_input_string(&r.parser, (const unsigned char *)buf, len);
	error = read_document(out, &r);
	if (error > 0) {
		*err = xstrdup("an empty document");
		error = GS_ERROR;
	}
	if (error < 0) {
		cJSON_Delete(*out);
		*out = NULL;
		if (!*err)
			*err = xstrdup("invalid YAML");
	}
	yaml_parser_delete(&r.parser);
	return error;
}
