/*
 * yaml.c - YAML emission with libyaml. Strings are always quoted, so no
 * value can be read back as another type ("no", "1.0", "null").
 */
#include "git-session/yaml.h"
#include "git-session/json.h"
#include "git-session/util.h"

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
					  quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_PLAIN_SCALAR_STYLE))
		return GS_ERROR;
	return yaml_emitter_emit(em, &ev) ? 0 : GS_ERROR;
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
	if (cJSON_IsString(v))
		return scalar(em, v->valuestring, 1);
	{
		char *s = json_print(v, 0, NULL);
		int error = scalar(em, s, 0);
		free(s);
		return error;
	}
}

int yaml_emit(char **out, size_t *len, const cJSON *v)
{
	struct sbuf sb = SBUF_INIT;
	yaml_emitter_t em;
	yaml_event_t ev;
	int error = GS_ERROR;

	*out = NULL;
	if (!yaml_emitter_initialize(&em))
		return gs_error("cannot start the YAML emitter");
	yaml_emitter_set_output(&em, write_handler, &sb);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_width(&em, -1);
	if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) || !yaml_emitter_emit(&em, &ev) ||
	    !yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) || !yaml_emitter_emit(&em, &ev) ||
	    emit_value(&em, v) < 0 ||
	    !yaml_document_end_event_initialize(&ev, 1) || !yaml_emitter_emit(&em, &ev) ||
	    !yaml_stream_end_event_initialize(&ev) || !yaml_emitter_emit(&em, &ev)) {
		gs_error("cannot write YAML: %s", em.problem ? em.problem : "unknown problem");
		goto cleanup;
	}
	*out = sbuf_detach(&sb, len);
	error = 0;
cleanup:
	yaml_emitter_delete(&em);
	sbuf_release(&sb);
	return error;
}
