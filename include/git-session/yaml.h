/*
 * yaml.h - YAML out of (and, for imports, into) the JSON model, on
 * libyaml. Pure: works on buffers.
 */
#ifndef GIT_SESSION_YAML_H
#define GIT_SESSION_YAML_H

#include <stddef.h>
#include <cjson/cJSON.h>

/* Emits v as a YAML document; the caller frees *out. */
int yaml_emit(char **out, size_t *len, const cJSON *v);

#endif
