/*
 * yaml.h - YAML out of (and, for imports, into) the JSON model, on
 * libyaml. Pure: works on buffers.
 */
#ifndef GIT_SESSION_YAML_H
#define GIT_SESSION_YAML_H

#include <stddef.h>
#include <cjson/cJSON.h>

/* Emits v as a YAML document; the caller frees *out. */
int yaml_emit(char **out, size_t *len, const cJSON *v, char **err);

/*
 * Parses the one YAML document of buf (len bytes) into JSON: plain
 * scalars as YAML 1.2's core schema reads them (null, booleans, numbers),
 * everything else a string. Refuses, whole, input over max bytes, nesting
 * deeper than JSON_MAX_DEPTH, aliases, duplicate keys, non-scalar keys,
 * tabs as indentation and a second document (after '...' or '---'); *err
 * says "<line>: <what>" (the caller frees it).
 */
int yaml_parse(cJSON **out, const char *buf, size_t len, size_t max, char **err);

#endif
